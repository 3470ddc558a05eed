"""What one seat may see (R26, R27, R39): the only picture of a game that bots and clients get.

A view has two parts. :class:`PublicView` is what every seat sees alike (counts, the trick, the
round's history with other seats' seven passes as counts only, the order in force, the lock,
what is owed, discards, places, points); :func:`public_view` builds it once per change.
:class:`SeatView` is one seat's own part: its hand, its own exchange and seven passes, its legal
moves. :class:`PlayerView` composes the two, so no field of it can hold another seat's cards;
:meth:`PlayerView.to_json` is the wire form (the public part's JSON plus the seat part's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import from_move
from .cards import SUIT_NAMES, mask_names
from .events import OwedAction
from .game import Game, Phase
from .options import Rules
from .order import clearing_rank, order_reversed
from .pickling import by_constructor
from .plays import CARDS_MASK, GIVE, PASS, hidden_give
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
    fallen: tuple[int, ...]  # seats out by a downfall (R35)
    out_of_play: tuple[int, ...]  # per seat: cards that left the round unseen (R35)
    discarded: int  # the cards of the ten discards (R37), a bit set
    revolution: bool
    jack_back: bool
    lock: int  # suits the trick is locked to, a 4-bit set (R31)
    owed: OwedAction | None  # a seven pass or ten discard to make now (R36, R37)
    points: tuple[int, ...]
    places: tuple[tuple[int, ...], ...]  # finishing order of each finished round
    exchange_pairs: tuple[tuple[int, int, int], ...]  # (giver, receiver, count)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    @property
    def reversed_order(self) -> bool:
        """Whether the order in force is reversed (R3, R15, R32)."""
        return order_reversed(self.revolution, self.jack_back)

    @property
    def clearing_rank(self) -> int:
        return clearing_rank(self.reversed_order)

    @property
    def played(self) -> int:
        """Every card played or discarded this round (seen by every seat), as a bit set."""
        mask = self.discarded
        for _, _, move in self.history:
            if move != PASS and not move & GIVE:
                mask |= move
        return mask & CARDS_MASK

    def to_json(self, *, history: bool = True) -> dict[str, Any]:
        """The wire form; without ``history``, the rules, trick and history are left out (the
        server keeps their text as the round goes)."""
        titles = titles_by_seat(list(self.places[-1])) if self.places else {}
        owed = self.owed
        out: dict[str, Any] = {}
        if history:
            out["rules"] = self.rules.to_dict()
        out |= {
            "round": self.round_number,
            "phase": self.phase,
            "hand_counts": list(self.hand_counts),
            "turn": self.turn,
            "leader": self.leader,
        }
        if history:
            out["trick"] = [from_move(m, s).to_json() for s, m in self.trick]
            out["history"] = [{"trick": t, **from_move(m, s).to_json()} for t, s, m in self.history]
        out |= {
            "passed": list(self.passed),
            "finished": list(self.finished),
            "round_places": list(self.round_places),
            "from_bottom": list(self.from_bottom),
            "fallen": list(self.fallen),
            "out_of_play": list(self.out_of_play),
            "discarded": mask_names(self.discarded),
            "revolution": self.revolution,
            "jack_back": self.jack_back,
            # the order in force (R32): reversed by a revolution or a jack back, not both
            "reversed_order": order_reversed(self.revolution, self.jack_back),
            "lock": [SUIT_NAMES[s] for s in range(4) if self.lock >> s & 1],
            "owed": None
            if owed is None
            else {
                "seat": owed.seat,
                "kind": owed.owed,
                "count": owed.number,
                "receiver": None if owed.receiver < 0 else owed.receiver,
            },
            "points": list(self.points),
            "places": [list(p) for p in self.places],
            "titles": {str(seat): title for seat, title in titles.items()},
            "exchange_pairs": [
                {"giver": g, "receiver": r, "count": c} for g, r, c in self.exchange_pairs
            ],
        }
        return out


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
        return {
            "seat": self.seat,
            "hand": mask_names(self.hand),
            "exchange": [
                {
                    "giver": e.giver,
                    "receiver": e.receiver,
                    "cards": mask_names(e.cards),
                    "automatic": e.automatic,
                }
                for e in self.exchange
            ],
            "gives": [
                {
                    "trick": g.trick,
                    "giver": g.giver,
                    "receiver": g.receiver,
                    "cards": mask_names(g.cards),
                }
                for g in self.gives
            ],
            "legal_moves": [from_move(m).to_json(with_seat=False) for m in self.legal_moves],
        }


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
    def jack_back(self) -> bool:
        return self.public.jack_back

    @property
    def lock(self) -> int:
        return self.public.lock

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
            "jack_back": round_.jack_back and in_play,
            "lock": round_.lock if in_play else 0,
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
            "jack_back": False,
            "lock": 0,
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
    "ExchangeSeen",
    "GiveSeen",
    "PlayerView",
    "PublicView",
    "SeatView",
    "player_view",
    "public_history",
    "public_view",
    "seat_view",
]
