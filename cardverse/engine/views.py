"""What one seat may see (R26, R27, R39): the only picture of a game that bots and clients get.

A view has two parts. :class:`PublicView` is what every seat sees alike (counts, the trick, the
round's history with other seats' seven passes as counts only, the order in force, the parts'
state of the trick, what is owed, discards, places, points); :func:`public_view` builds it once
per change.
:class:`SeatView` is one seat's own part: its hand, its own exchange and seven passes, its legal
moves. :class:`PlayerView` composes the two, so no field of it can hold another seat's cards;
:meth:`PlayerView.to_json` is the wire form (the public part's JSON plus the seat part's).

:data:`VIEW_FIELDS` is the one description of that wire form: each field's name, whose part it
is, how it is made from the view, its JSON schema and what it means. ``to_json`` is made from
it, the server's encoder follows it field by field, and the protocol's schemas
(docs/protocol.md) are generated from it (:func:`view_schema`, :func:`view_change_schema`). The
parts' trick state (:data:`~cardverse.engine.parts.REPORTS`: a jack back, a lock) is a field
each, made from its part's report: no field here names a part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .actions import from_move
from .cards import mask_names
from .events import OwedAction
from .game import Game, Phase
from .options import Rules
from .order import clearing_rank
from .parts import REPORTS
from .pickling import by_constructor
from .plays import CARDS_MASK, GIVE, PASS, hidden_give
from .reports import Report
from .ruleset import ruleset_for
from .scoring import titles_by_seat


@dataclass(frozen=True)
class ExchangeSeen:
    """Cards that passed between this seat and its exchange partner this round."""

    giver: int
    receiver: int
    cards: int  # bit set
    automatic: bool  # the Scum's or Vice-Scum's gift of their highest cards

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor


@dataclass(frozen=True)
class GiveSeen:
    """A seven pass (R36) this seat made or received this round: only its two seats see it."""

    trick: int
    giver: int
    receiver: int
    cards: int  # bit set

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor


@dataclass(frozen=True)
class PublicView:
    """What every seat of a game sees alike (R26, R39)."""

    rules: Rules
    round_number: int
    phase: str
    hand_counts: tuple[int, ...]  # how many cards every seat holds
    turn: int | None
    leader: int
    trick: tuple[tuple[int, int], ...]  # (seat, move) of the trick in progress: plays, passes
    history: tuple[tuple[int, int, int], ...]  # (trick, seat, move); others' gives as counts
    passed: tuple[int, ...]  # seats that passed in the trick in progress
    finished: tuple[int, ...]  # seats gone out this round, in the order they went
    round_places: tuple[int, ...]  # the seat of each place this round, -1 while free
    from_bottom: tuple[int, ...]  # seats placed from the bottom (R34, R35), in order
    fallen: tuple[int, ...]  # seats that fell out of the round (R35)
    out_of_play: tuple[int, ...]  # per seat: cards that left the round unseen (R35)
    discarded: int  # the cards of the ten discards (R37), a bit set
    revolution: bool
    reversed_order: bool  # the order in force (R3, R15, R32)
    marks: int  # the parts' state of the trick, each report at its own bits (reports.py)
    owed: OwedAction | None  # a seven pass or ten discard to make now (R36, R37)
    points: tuple[int, ...]
    places: tuple[tuple[int, ...], ...]  # finishing order of each finished round
    exchange_pairs: tuple[tuple[int, int, int], ...]  # (giver, receiver, count)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    @property
    def clearing_rank(self) -> int:
        return clearing_rank(self.reversed_order)

    def reported(self) -> dict[str, int]:
        """The trick state the rules in force keep, by report name (a position's ``Known``)."""
        return {report.name: report.read(self.marks) for report in ruleset_for(self.rules).reports}

    @property
    def played(self) -> int:
        """Every card played or discarded this round (seen by every seat), as a bit set."""
        mask = self.discarded
        for _, _, move in self.history:
            if move != PASS and not move & GIVE:
                mask |= move
        return mask & CARDS_MASK

    def to_json(self, *, history: bool = True) -> dict[str, Any]:
        """The wire form (:data:`PUBLIC_FIELDS`); without ``history``, the fields the server
        keeps as text as the round goes (rules, trick, history) are left out."""
        if history:
            return {f.name: f.encode(self) for f in PUBLIC_FIELDS}
        return {f.name: f.encode(self) for f in PUBLIC_FIELDS if not f.kept_as_text}


@dataclass(frozen=True)
class SeatView:
    """One seat's own part of its view: what only it (and a partner) may see."""

    seat: int
    hand: int  # this seat's own cards, a bit set
    exchange: tuple[ExchangeSeen, ...]  # only the exchanges this seat took part in
    gives: tuple[GiveSeen, ...]  # only the seven passes this seat made or received
    legal_moves: tuple[int, ...]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    def to_json(self) -> dict[str, Any]:
        """The wire form (:data:`SEAT_FIELDS`)."""
        return {f.name: f.encode(self) for f in SEAT_FIELDS}


@dataclass(frozen=True)
class PlayerView:
    """Exactly what seat ``seat`` may know (R26, R39): the public part and its own."""

    public: PublicView
    own: SeatView

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    # The seat's own part.
    @property
    def seat(self) -> int:
        return self.own.seat

    @property
    def hand(self) -> int:
        return self.own.hand

    @property
    def exchange(self) -> tuple[ExchangeSeen, ...]:
        return self.own.exchange

    @property
    def gives(self) -> tuple[GiveSeen, ...]:
        return self.own.gives

    @property
    def legal_moves(self) -> tuple[int, ...]:
        return self.own.legal_moves

    # The public part.
    @property
    def rules(self) -> Rules:
        return self.public.rules

    @property
    def round_number(self) -> int:
        return self.public.round_number

    @property
    def phase(self) -> str:
        return self.public.phase

    @property
    def hand_counts(self) -> tuple[int, ...]:
        return self.public.hand_counts

    @property
    def turn(self) -> int | None:
        return self.public.turn

    @property
    def leader(self) -> int:
        return self.public.leader

    @property
    def trick(self) -> tuple[tuple[int, int], ...]:
        return self.public.trick

    @property
    def history(self) -> tuple[tuple[int, int, int], ...]:
        return self.public.history

    @property
    def passed(self) -> tuple[int, ...]:
        return self.public.passed

    @property
    def finished(self) -> tuple[int, ...]:
        return self.public.finished

    @property
    def revolution(self) -> bool:
        return self.public.revolution

    @property
    def marks(self) -> int:
        return self.public.marks

    @property
    def owed(self) -> OwedAction | None:
        return self.public.owed

    @property
    def reversed_order(self) -> bool:
        return self.public.reversed_order

    @property
    def clearing_rank(self) -> int:
        return self.public.clearing_rank

    @property
    def points(self) -> tuple[int, ...]:
        return self.public.points

    @property
    def places(self) -> tuple[tuple[int, ...], ...]:
        return self.public.places

    @property
    def exchange_pairs(self) -> tuple[tuple[int, int, int], ...]:
        return self.public.exchange_pairs

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat and bool(self.legal_moves)

    @property
    def played(self) -> int:
        """Every card played or discarded this round so far, as a bit set."""
        return self.public.played

    def to_json(self) -> dict[str, Any]:
        """The wire form: cards as text (notation.md), moves as action objects."""
        return {**self.public.to_json(), **self.own.to_json()}


# -- the one description of a view's wire form ------------------------------------------------


@dataclass(frozen=True)
class ViewField:
    """One field of a view's wire form (cards as text, moves as action objects, notation.md).

    ``part``: ``public`` (every seat sees it alike, from :class:`PublicView`) or ``seat`` (the
    seat's own, from :class:`SeatView`). ``encode`` makes its JSON value from that part;
    ``schema`` is the JSON schema of the value (``$ref`` names one of :data:`VIEW_DEFINITIONS`);
    ``kept_as_text``: a field a server may keep as text through a round instead of encoding it
    per change (it changes rarely, or only grows).
    """

    name: str
    part: str
    encode: Callable[[Any], Any]
    schema: dict[str, Any]
    doc: str
    kept_as_text: bool = False


def _ints() -> dict[str, Any]:
    return {"type": "array", "items": {"type": "integer"}}


_INT: dict[str, Any] = {"type": "integer"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_CARDS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": "#/$defs/" + name}


def _array_of(name: str) -> dict[str, Any]:
    return {"type": "array", "items": _ref(name)}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(
    required: dict[str, Any], optional: dict[str, Any] | None = None, doc: str = ""
) -> dict[str, Any]:
    """A JSON object schema: these members (and no others), the ``optional`` ones may lack."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }
    if doc:
        out["description"] = doc
    return out


_ACTION_MEMBERS: dict[str, Any] = {
    "action": {"enum": ["play", "pass", "give", "discard"]},
}
_ACTION_OPTIONAL: dict[str, Any] = {
    "seat": _nullable(_INT),
    "cards": _nullable(_CARDS),
    "jokers": _nullable({"type": "object", "additionalProperties": {"type": "string"}}),
    "count": _nullable(_INT),
}

# The shapes the fields of a view share (JSON schema ``$defs``).
VIEW_DEFINITIONS: dict[str, dict[str, Any]] = {
    "Action": _object(
        _ACTION_MEMBERS,
        _ACTION_OPTIONAL,
        "An action of notation.md; ``seat`` is left out in a list of legal moves; another "
        "seat's seven pass in a view has ``count`` and no ``cards``.",
    ),
    "HistoryEntry": _object(
        {"trick": _INT, **_ACTION_MEMBERS}, _ACTION_OPTIONAL, "An action of the round's history."
    ),
    "ExchangeSeen": _object(
        {"giver": _INT, "receiver": _INT, "cards": _CARDS, "automatic": _BOOL},
        doc="Cards that passed between this seat and its exchange partner this round.",
    ),
    "ExchangePair": _object(
        {"giver": _INT, "receiver": _INT, "count": _INT},
        doc="Who gives whom how many cards in this round's exchange (public).",
    ),
    "GiveSeen": _object(
        {"trick": _INT, "giver": _INT, "receiver": _INT, "cards": _CARDS},
        doc="A seven pass this seat made or received (R36), with its cards.",
    ),
    "Owed": _object(
        {
            "seat": _INT,
            "kind": {"enum": ["give", "discard"]},
            "count": _INT,
            "receiver": _nullable(_INT),
        },
        doc="A seven pass (give) or ten discard (discard) that seat must make now (R36, R37).",
    ),
}


def _history_json(view: PublicView) -> list[dict[str, Any]]:
    return [{"trick": t, **from_move(m, s).to_json()} for t, s, m in view.history]


def _owed_json(view: PublicView) -> dict[str, Any] | None:
    owed = view.owed
    if owed is None:
        return None
    return {
        "seat": owed.seat,
        "kind": owed.owed,
        "count": owed.number,
        "receiver": None if owed.receiver < 0 else owed.receiver,
    }


def _titles_json(view: PublicView) -> dict[str, str]:
    if not view.places:
        return {}
    return {str(seat): title for seat, title in titles_by_seat(list(view.places[-1])).items()}


def _public(
    name: str,
    encode: Callable[[PublicView], Any],
    schema: dict[str, Any],
    doc: str,
    kept_as_text: bool = False,
) -> ViewField:
    return ViewField(name, "public", encode, schema, doc, kept_as_text)


def _reported(report: Report) -> ViewField:
    """A part's trick state as a field of its own (every view has it; off while not in force)."""
    return _public(
        report.name, lambda v: report.to_json(report.read(v.marks)), report.schema(), report.doc
    )


def _own(
    name: str, encode: Callable[[SeatView], Any], schema: dict[str, Any], doc: str
) -> ViewField:
    return ViewField(name, "seat", encode, schema, doc)


# Every seat's public part, in the order of the wire form.
PUBLIC_FIELDS: tuple[ViewField, ...] = (
    _public(
        "rules",
        lambda v: v.rules.to_dict(),
        {"type": "object"},
        "the rules in force: a rules object of notation.md",
        kept_as_text=True,
    ),
    _public("round", lambda v: v.round_number, _INT, "the round's number, from 1"),
    _public(
        "phase", lambda v: v.phase, {"enum": [p.value for p in Phase]}, "where the game stands"
    ),
    _public(
        "hand_counts", lambda v: list(v.hand_counts), _ints(), "how many cards each seat holds"
    ),
    _public("turn", lambda v: v.turn, _nullable(_INT), "the seat on turn (null: nobody)"),
    _public("leader", lambda v: v.leader, _INT, "the seat that led the trick in progress"),
    _public(
        "trick",
        lambda v: [from_move(m, s).to_json() for s, m in v.trick],
        _array_of("Action"),
        "the plays and passes of the trick in progress",
        kept_as_text=True,
    ),
    _public(
        "history",
        _history_json,
        _array_of("HistoryEntry"),
        "this round's actions; another seat's seven pass as its count only (R39)",
        kept_as_text=True,
    ),
    _public("passed", lambda v: list(v.passed), _ints(), "seats that passed in the trick"),
    _public("finished", lambda v: list(v.finished), _ints(), "seats gone out, in order"),
    _public(
        "round_places",
        lambda v: list(v.round_places),
        _ints(),
        "the seat of each place this round, -1 while free",
    ),
    _public(
        "from_bottom",
        lambda v: list(v.from_bottom),
        _ints(),
        "seats placed from the bottom (R34, R35)",
    ),
    _public("fallen", lambda v: list(v.fallen), _ints(), "seats that fell out of the round (R35)"),
    _public(
        "out_of_play",
        lambda v: list(v.out_of_play),
        _ints(),
        "per seat, how many cards left the round unseen (R35)",
    ),
    _public(
        "discarded", lambda v: mask_names(v.discarded), _CARDS, "the round's ten discards (R37)"
    ),
    _public("revolution", lambda v: v.revolution, _BOOL, "a revolution is on (R15)"),
    _public(
        "reversed_order",
        lambda v: v.reversed_order,
        _BOOL,
        "the order in force is reversed: a revolution, or a jack back for the trick, not both "
        "(R32)",
    ),
    *(_reported(report) for report in REPORTS),
    _public(
        "owed",
        _owed_json,
        _nullable(_ref("Owed")),
        "a seven pass or ten discard to make now (R36, R37)",
    ),
    _public("points", lambda v: list(v.points), _ints(), "each seat's points so far"),
    _public(
        "places",
        lambda v: [list(p) for p in v.places],
        {"type": "array", "items": _ints()},
        "the finishing order (seats) of each finished round",
    ),
    _public(
        "titles",
        _titles_json,
        {"type": "object", "additionalProperties": {"type": "string"}},
        "each seat's title from the last finished round (by seat number)",
    ),
    _public(
        "exchange_pairs",
        lambda v: [{"giver": g, "receiver": r, "count": c} for g, r, c in v.exchange_pairs],
        _array_of("ExchangePair"),
        "who gives whom how many cards in this round's exchange",
    ),
)

# One seat's own part, in the order of the wire form (after the public part).
SEAT_FIELDS: tuple[ViewField, ...] = (
    _own("seat", lambda v: v.seat, _nullable(_INT), "this seat's number (null: a spectator)"),
    _own("hand", lambda v: mask_names(v.hand), _CARDS, "this seat's cards (a spectator: none)"),
    _own(
        "exchange",
        lambda v: [
            {
                "giver": e.giver,
                "receiver": e.receiver,
                "cards": mask_names(e.cards),
                "automatic": e.automatic,
            }
            for e in v.exchange
        ],
        _array_of("ExchangeSeen"),
        "the cards that passed between this seat and its exchange partner this round",
    ),
    _own(
        "gives",
        lambda v: [
            {
                "trick": g.trick,
                "giver": g.giver,
                "receiver": g.receiver,
                "cards": mask_names(g.cards),
            }
            for g in v.gives
        ],
        _array_of("GiveSeen"),
        "the seven passes this seat made or received this round, with their cards (R36)",
    ),
    _own(
        "legal_moves",
        lambda v: [from_move(m).to_json(with_seat=False) for m in v.legal_moves],
        _array_of("Action"),
        "every legal action of this seat, when it is on turn (else empty)",
    ),
)

VIEW_FIELDS: tuple[ViewField, ...] = PUBLIC_FIELDS + SEAT_FIELDS


def view_schema() -> dict[str, Any]:
    """The JSON schema of one seat's view (``PlayerView.to_json()``): every field, no other.
    Its ``$ref`` names are those of :data:`VIEW_DEFINITIONS`."""
    return _object(
        {f.name: {**f.schema, "description": f.doc} for f in VIEW_FIELDS},
        doc="One seat's view (R26): its public part and its own (a spectator's has seat null "
        "and empty own fields).",
    )


def view_change_schema() -> dict[str, Any]:
    """The JSON schema of the view fields of a change: each field whole when it changed, but
    ``history`` holds only the entries from index ``history_at`` on."""
    fields = {f.name: {**f.schema, "description": f.doc} for f in VIEW_FIELDS}
    fields["history_at"] = {
        "type": "integer",
        "description": "history holds the entries from this index on (0: a new list)",
    }
    return _object(
        {},
        fields,
        "The fields of a view that changed (each one whole, except history; see history_at).",
    )


def public_history(history: list[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """A round's history as every seat sees it: seven passes as hidden gives (a count)."""
    return tuple(
        (t, s, hidden_give((m & CARDS_MASK).bit_count()) if m & GIVE else m) for t, s, m in history
    )


def public_view(game: Game, *, history: bool = True) -> PublicView:
    """The part of every seat's view that is the same for all (build it once per change).

    Without ``history`` its history is left empty (for a caller that keeps its own).
    """
    round_ = game.round
    hands = game.hands
    players = game.rules.players
    if round_ is not None:
        history_seen = public_history(round_.history) if history else ()
        in_play = game.phase is Phase.PLAY
        public_round: dict[str, Any] = {
            "trick": tuple(round_.trick),
            "history": history_seen,
            "passed": tuple(s for s in range(players) if round_.passed >> s & 1),
            "finished": tuple(round_.finished),
            "round_places": tuple(round_.places),
            "from_bottom": tuple(round_.bottom_seats),
            "fallen": tuple(s for s in range(players) if round_.fallen >> s & 1),
            "out_of_play": tuple(h.bit_count() for h in round_.out_of_play),
            "discarded": round_.discarded,
            "revolution": round_.revolution and in_play,
            "reversed_order": round_.reversed_now and in_play,
            "marks": round_.marks if in_play else 0,
            "owed": round_.owed if in_play else None,
        }
    else:
        public_round = {
            "trick": (),
            "history": (),
            "passed": (),
            "finished": (),
            "round_places": (-1,) * players,
            "from_bottom": (),
            "fallen": (),
            "out_of_play": (0,) * players,
            "discarded": 0,
            "revolution": False,
            "reversed_order": False,
            "marks": 0,
            "owed": None,
        }
    return PublicView(
        rules=game.rules,
        round_number=game.round_number,
        phase=game.phase.value,
        hand_counts=tuple(h.bit_count() for h in hands),
        turn=game.turn,
        leader=game.leader,
        points=tuple(game.points),
        places=tuple(tuple(p) for p in game.places),
        exchange_pairs=tuple((p.giver, p.receiver, p.count) for p in game.pairs),
        **public_round,
    )


def seat_view(game: Game, seat: int) -> SeatView:
    """Seat ``seat``'s own part of its view."""
    if not 0 <= seat < game.rules.players:
        raise ValueError(f"there is no seat {seat} at a table of {game.rules.players}")
    automatic_count = len(game.pairs)
    exchange = tuple(
        ExchangeSeen(giver, receiver, cards, index < automatic_count)
        for index, (giver, receiver, cards) in enumerate(game.exchange_log)
        if seat in (giver, receiver)
    )
    gives: list[GiveSeen] = []
    round_ = game.round
    if round_ is not None:
        history = round_.history
        for index, receiver in round_.give_receivers:
            trick, giver, move = history[index]
            if seat in (giver, receiver):
                gives.append(GiveSeen(trick, giver, receiver, move & CARDS_MASK))
    legal = tuple(game.legal_moves()) if game.turn == seat else ()
    return SeatView(
        seat=seat,
        hand=game.hands[seat],
        exchange=exchange,
        gives=tuple(gives),
        legal_moves=legal,
    )


def player_view(game: Game, seat: int, public: PublicView | None = None) -> PlayerView:
    """Build seat ``seat``'s view of ``game`` (R26); pass ``public`` to share the public part."""
    own = seat_view(game, seat)
    return PlayerView(public if public is not None else public_view(game), own)


__all__ = [
    "PUBLIC_FIELDS",
    "SEAT_FIELDS",
    "VIEW_DEFINITIONS",
    "VIEW_FIELDS",
    "ExchangeSeen",
    "GiveSeen",
    "PlayerView",
    "PublicView",
    "SeatView",
    "ViewField",
    "player_view",
    "public_history",
    "public_view",
    "seat_view",
    "view_change_schema",
    "view_schema",
]
