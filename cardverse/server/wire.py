"""Seats' views as JSON text, built fast: the same content as ``player_view(game,
seat).to_json()``, with the part every seat shares built once per change.

A change of the game is told to every seat. Most of a view is the same for all of them (the
rules, the trick, the round's history, counts, points…); only the seat number, its hand, its own
exchange and its legal moves differ. :class:`WireViews` keeps up with the round's history (a change
writes only the entries added since the one before; the whole history is written for a full
view) and caches the text of each move, so a change costs a few small serialisations instead of
a full view per seat. The shared part is checked once by
:func:`cardverse.server.viewfilter.share` (it may hold only cards played this round, which every
seat sees); each seat's own part is checked by :func:`cardverse.server.viewfilter.render`.
A test compares the result with the engine's ``PlayerView.to_json()`` over many random games.

The fields, their order and their encoding are the engine's (:data:`cardverse.engine.views.
VIEW_FIELDS`): the public fields come from ``PublicView.to_json`` except those the engine marks
``kept_as_text`` (rules, trick, history), whose text is made here from cached parts; each of the
seat's own fields has a text maker below, checked at import against the engine's list (the
hand and the legal moves from cached texts, the rarer exchange and seven passes through the
engine's own encoders).

Between full views, a change is told as what changed (:meth:`WireViews.public_change` and
:meth:`WireViews.own_change`, the ``change`` message of docs/protocol.md): the public fields
whose value changed since the last change told, the history entries added, and the seat's own
fields that changed since what that connection was last sent (:class:`Synced`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from ..engine import PASS, Game, Rules, from_move
from ..engine.cards import card_name, cards_of
from ..engine.plays import CARDS_MASK, GIVE, hidden_give
from ..engine.views import PUBLIC_FIELDS, SEAT_FIELDS, public_view, seat_view
from ..engine.views import SeatView as EngineSeatView
from .jsontext import compact
from .viewfilter import SeatView, Shared, share

_dumps = compact

_MOVE_TEXT: dict[tuple[int, int | None], str] = {}
_MOVE_CACHE_LIMIT = 50_000


def move_text(move: int, seat: int | None) -> str:
    """The JSON text of ``from_move(move, seat).to_json()`` (without seat when None)."""
    key = (move, seat)
    text = _MOVE_TEXT.get(key)
    if text is None:
        if len(_MOVE_TEXT) >= _MOVE_CACHE_LIMIT:
            _MOVE_TEXT.clear()
        action = from_move(move, seat)
        text = _dumps(action.to_json(with_seat=seat is not None))
        _MOVE_TEXT[key] = text
    return text


@functools.lru_cache(maxsize=256)
def rules_json(rules: Rules) -> str:
    """The JSON text of ``rules.to_dict()``: made once for every table playing by them (the
    rules are immutable; most tables share a few presets)."""
    return _dumps(rules.to_dict())


@functools.lru_cache(maxsize=256)
def _rules_dict(rules: Rules) -> dict[str, Any]:
    return rules.to_dict()


def rules_dict(rules: Rules) -> dict[str, Any]:
    """``rules.to_dict()``, made once for every table playing by them (a copy of it)."""
    return dict(_rules_dict(rules))


_QUOTED_NAMES: tuple[str, ...] = tuple(f'"{card_name(card)}"' for card in range(54))


def _names_text(mask: int) -> str:
    return "[" + ",".join([_QUOTED_NAMES[card] for card in cards_of(mask)]) + "]"


def _entries_text(entries: Any, start: int) -> str:
    """The JSON text of a round's history entries from ``start`` on, joined by commas (a
    seven pass shows every seat how many cards, not which: R39)."""
    parts = []
    for trick, seat, move in entries[start:]:
        if move & GIVE:
            body = move_text(hidden_give((move & CARDS_MASK).bit_count()), seat)
        else:
            body = move_text(move, seat)
        parts.append('{"trick":' + str(trick) + "," + body[1:])
    return ",".join(parts)


class Synced:
    """What one connection holds of the game: the state of change ``v`` (as of the last full
    state or change it was sent) for seat ``seat`` (None: a spectator), with the text of each
    of its own view fields as last sent and what they were made from (the hand's cards; the
    exchange's and the seven passes' lists, with their lengths then)."""

    __slots__ = (
        "exchange",
        "exchange_from",
        "gives",
        "gives_from",
        "hand",
        "hand_text",
        "legal",
        "seat",
        "v",
    )

    def __init__(self, v: int, seat: int | None) -> None:
        self.v = v
        self.seat = seat
        self.hand = -1
        self.hand_text = ""
        self.exchange = ""
        self.gives = ""
        self.legal = ""
        self.exchange_from: tuple[object, int] | None = None
        self.gives_from: tuple[object, int] | None = None

    def hold(self, game: Game, seat: int, fields: dict[str, str]) -> None:
        """It is sent seat ``seat``'s whole own view, ``fields`` (:meth:`WireViews.own_fields`)."""
        self.hand = game.hand(seat)
        self.hand_text = fields["hand"]
        self.exchange = fields["exchange"]
        self.gives = fields["gives"]
        self.legal = fields["legal_moves"]
        round_ = game.round
        gives = None if round_ is None else round_.give_receivers
        self.exchange_from = (game.exchange_log, len(game.exchange_log))
        self.gives_from = (gives, 0 if gives is None else len(gives))


class PublicChange(NamedTuple):
    """The public part of one change: ``view`` holds the view members that changed (checked
    once by the filter), ``score`` the score sheet's text when it changed (else None), and
    ``base`` the change it follows (None: no connection can hold the state before it)."""

    base: int | None
    view: Shared
    score: str | None


class WireViews:
    """Builds the views of one table's game; keeps up with the current round's history."""

    def __init__(self) -> None:
        # The public fields' values as last told (changes), in the engine's order.
        self._told: tuple[Any, ...] | None = None
        self._told_v: int | None = None
        self._told_round: object | None = None
        self._told_history = 0  # history entries told in that round
        self._told_trick = ""
        self._told_rules: Rules | None = None
        self._told_score: tuple[object, ...] = ()
        self._told_game: Game | None = None
        self._round: object | None = None
        # How many of the round's history entries were seen (the cards they played are in
        # ``_played``). Their JSON text is not kept: a change tells only the entries added since
        # the last one (made then), and the whole history is written only for a full view, a
        # seat's join or return (kept, it was 2.2 KiB a live table).
        self._seen = 0
        self._rules: Rules | None = None
        self._rules_text = ""
        self._checked = 0  # length of the shared text's prefix the filter already checked
        self._played = 0  # cards played in the history seen so far

    def _see(self, game: Game) -> None:
        """Keep up with the round's history: the cards played in its entries not seen yet."""
        round_ = game.round
        if round_ is not self._round:
            self._round = round_
            self._seen = 0
            self._checked = 0
            self._played = 0
        if round_ is None:
            return
        entries = round_.history
        if len(entries) > self._seen:
            played = self._played
            for _, _, move in entries[self._seen :]:
                if not move & GIVE and move != PASS:
                    played |= move & CARDS_MASK
            self._played = played
            self._seen = len(entries)

    def _trick_text(self, game: Game) -> str:
        round_ = game.round
        if round_ is None:
            return "[]"
        return "[" + ",".join(move_text(m, s) for s, m in round_.trick) + "]"

    def played(self, game: Game) -> int:
        """Every card played this round (as :func:`viewfilter.played_cards`), kept as it goes."""
        self._see(game)
        return self._played | (game.round.discarded if game.round is not None else 0)

    def shared(self, game: Game, played: int | None = None) -> Shared:
        """The part of every seat's view that is the same for all (checked by the filter)."""
        if game.rules is not self._rules:
            self._rules = game.rules
            self._rules_text = rules_json(game.rules)
        self._see(game)
        round_ = game.round
        history = "[]" if round_ is None else "[" + _entries_text(round_.history, 0) + "]"
        trick = self._trick_text(game)
        # Everything else of the public part comes from the engine's one description of it.
        rest = _dumps(public_view(game, history=False).to_json(history=False))
        # The history comes first: it only grows during a round, so the filter checks only
        # what was added since the last change.
        text = (
            '"history":'
            + history
            + ',"trick":'
            + trick
            + ',"rules":'
            + self._rules_text
            + ","
            + rest[1:-1]
        )
        shared = share(text, game, played, skip=self._checked)
        if shared.ok:
            self._checked = len(history) + len('"history":') - 1  # up to the closing bracket
        return shared

    def forget_told(self) -> None:
        """Nobody was told the last change: the next one cannot be told as a difference."""
        self._told = None
        self._told_v = None

    def public_change(
        self, game: Game, v: int, played: int, score: Callable[[Game], dict[str, Any]]
    ) -> PublicChange:
        """The public part of change ``v``: what differs from the change told before it."""
        if game.rules is not self._rules:
            self._rules = game.rules
            self._rules_text = rules_json(game.rules)
        self._see(game)
        trick = self._trick_text(game)
        rest = public_view(game, history=False).to_json(history=False)
        told = self._told
        members: list[str] = []
        reset = told is None or self._told_round is not game.round
        start = 0 if reset else self._told_history
        seen = self._seen
        if reset or start < seen:
            members.append('"history_at":' + str(start))
            round_ = game.round
            since = "" if round_ is None else _entries_text(round_.history, start)
            members.append('"history":[' + since + "]")
        if told is None or trick != self._told_trick:
            members.append('"trick":' + trick)
        if told is None or game.rules is not self._told_rules:
            members.append('"rules":' + self._rules_text)
        if told is None:
            members.append(_dumps(rest)[1:-1])
        else:  # (the engine's fields come in one order: the values are compared in pairs)
            changed = {
                key: value
                for (key, value), before in zip(rest.items(), told, strict=True)
                if value != before
            }
            if changed:
                members.append(_dumps(changed)[1:-1])  # one encoding for all of them
        score_key = (len(game.places), game.over)
        score_text = None
        if told is None or game is not self._told_game or score_key != self._told_score:
            score_text = _dumps(score(game))
        base = self._told_v
        self._told, self._told_v = tuple(rest.values()), v
        self._told_round, self._told_history = game.round, seen
        self._told_trick, self._told_rules, self._told_score = trick, game.rules, score_key
        self._told_game = game
        return PublicChange(base, share(",".join(members), game, played), score_text)

    def own_fields(self, game: Game, seat: int) -> dict[str, str]:
        """The text of each of seat ``seat``'s own view fields (the engine's, in its order)."""
        return {name: make(game, seat) for name, make in _OWN_TEXT.items()}

    def own_change(self, game: Game, seat: int, synced: Synced) -> str:
        """Seat ``seat``'s own view members that differ from what ``synced`` holds (which then
        holds the new ones); "" when none did (the usual case of a seat not on turn)."""
        members: list[str] = []
        hand = game.hand(seat)
        if hand != synced.hand:
            synced.hand = hand
            text = _names_text(hand)
            if synced.hand_text != text:
                synced.hand_text = text
                members.append('"hand":' + text)
        log = game.exchange_log
        made = synced.exchange_from
        if made is None or made[0] is not log or made[1] != len(log):
            synced.exchange_from = (log, len(log))
            text = _exchange_text(game, seat)
            if synced.exchange != text:
                synced.exchange = text
                members.append('"exchange":' + text)
        round_ = game.round
        gives = None if round_ is None else round_.give_receivers
        size = 0 if gives is None else len(gives)
        made = synced.gives_from
        if made is None or made[0] is not gives or made[1] != size:
            synced.gives_from = (gives, size)
            text = _gives_text(game, seat)
            if synced.gives != text:
                synced.gives = text
                members.append('"gives":' + text)
        legal = _legal_text(game, seat)
        if synced.legal != legal:
            synced.legal = legal
            members.append('"legal_moves":' + legal)
        if not members:
            return ""
        return members[0] if len(members) == 1 else ",".join(members)

    def seat_view(self, game: Game, seat: int, shared: Shared) -> SeatView:
        """Seat ``seat``'s view: its own part plus the shared one."""
        fields = self.own_fields(game, seat)
        own = ",".join('"' + key + '":' + text for key, text in fields.items())
        return SeatView(own, shared)


def _engine_field(name: str) -> Callable[[EngineSeatView], Any]:
    for own in SEAT_FIELDS:
        if own.name == name:
            return own.encode
    raise LookupError(f"the engine's view has no own field {name!r}")


_EXCHANGE_JSON = _engine_field("exchange")
_GIVES_JSON = _engine_field("gives")


def _seat_text(game: Game, seat: int) -> str:
    return str(seat)


def _hand_text(game: Game, seat: int) -> str:
    return _names_text(game.hand(seat))


def _exchange_text(game: Game, seat: int) -> str:
    """The cards that passed between ``seat`` and its exchange partner this round."""
    if not game.exchange_log:
        return "[]"
    return _dumps(_EXCHANGE_JSON(seat_view(game, seat)))


def _gives_text(game: Game, seat: int) -> str:
    """The seven passes ``seat`` made or received this round, with their cards (R36)."""
    if game.round is None or not game.round.give_receivers:
        return "[]"
    return _dumps(_GIVES_JSON(seat_view(game, seat)))


def _legal_text(game: Game, seat: int) -> str:
    """``from_move(m).to_json(with_seat=False)`` of each legal move, from the cached texts."""
    if game.turn != seat:
        return "[]"
    return "[" + ",".join(move_text(m, None) for m in game.legal_moves()) + "]"


# The text of each of a seat's own fields: exactly the engine's SEAT_FIELDS, in their order.
_OWN_TEXT: dict[str, Callable[[Game, int], str]] = {
    "seat": _seat_text,
    "hand": _hand_text,
    "exchange": _exchange_text,
    "gives": _gives_text,
    "legal_moves": _legal_text,
}
if list(_OWN_TEXT) != [f.name for f in SEAT_FIELDS]:  # pragma: no cover - a drift
    raise ImportError("wire.py does not make the engine's own view fields: update _OWN_TEXT")
# The public fields this module keeps as text (the rest come from PublicView.to_json).
_KEPT_AS_TEXT = ("history", "trick", "rules")
if sorted(_KEPT_AS_TEXT) != sorted(f.name for f in PUBLIC_FIELDS if f.kept_as_text):
    raise ImportError("wire.py does not keep the engine's kept_as_text fields")  # pragma: no cover
