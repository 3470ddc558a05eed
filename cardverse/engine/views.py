"""What one seat may see (R26, R27): the only picture of a game that bots and clients get.

:class:`PlayerView` has no field that could hold another seat's cards: other hands appear only as
counts, and exchange cards only for the two seats of their pair. :func:`player_view` builds it from
a :class:`~cardverse.engine.game.Game`; :meth:`PlayerView.to_json` is its wire form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import from_move
from .cards import mask_names
from .game import Game, Phase
from .options import Rules
from .plays import PASS
from .scoring import titles_by_seat


@dataclass(frozen=True)
class ExchangeSeen:
    """Cards that passed between this seat and its exchange partner this round."""

    giver: int
    receiver: int
    cards: int  # bit set
    automatic: bool  # the Scum's or Vice-Scum's gift of their highest cards


@dataclass(frozen=True)
class PlayerView:
    """Exactly what seat ``seat`` may know (R26), with its legal moves."""

    seat: int
    rules: Rules
    round_number: int
    phase: str
    hand: int  # this seat's own cards, a bit set
    hand_counts: tuple[int, ...]  # how many cards every seat holds
    turn: int | None
    leader: int
    trick: tuple[tuple[int, int], ...]  # (seat, move) of the trick in progress
    history: tuple[tuple[int, int, int], ...]  # (trick number, seat, move) this round
    passed: tuple[int, ...]  # seats that passed in the trick in progress
    finished: tuple[int, ...]  # seats gone out this round, in order
    revolution: bool
    points: tuple[int, ...]
    places: tuple[tuple[int, ...], ...]  # finishing order of each finished round
    exchange: tuple[ExchangeSeen, ...]  # only the exchanges this seat took part in
    exchange_pairs: tuple[tuple[int, int, int], ...]  # (giver, receiver, count): public
    legal_moves: tuple[int, ...]

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat and bool(self.legal_moves)

    @property
    def played(self) -> int:
        """Every card played this round so far, as a bit set."""
        mask = 0
        for _, _, move in self.history:
            if move != PASS:
                mask |= move
        return mask & ((1 << 54) - 1)

    def to_json(self) -> dict[str, Any]:
        """The wire form: cards as text (notation.md), moves as action objects."""
        titles = titles_by_seat(list(self.places[-1])) if self.places else {}
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "round": self.round_number,
            "phase": self.phase,
            "hand": mask_names(self.hand),
            "hand_counts": list(self.hand_counts),
            "turn": self.turn,
            "leader": self.leader,
            "trick": [from_move(m, s).to_json() for s, m in self.trick],
            "history": [{"trick": t, **from_move(m, s).to_json()} for t, s, m in self.history],
            "passed": list(self.passed),
            "finished": list(self.finished),
            "revolution": self.revolution,
            "points": list(self.points),
            "places": [list(p) for p in self.places],
            "titles": {str(seat): title for seat, title in titles.items()},
            "exchange": [
                {
                    "giver": e.giver,
                    "receiver": e.receiver,
                    "cards": mask_names(e.cards),
                    "automatic": e.automatic,
                }
                for e in self.exchange
            ],
            "exchange_pairs": [
                {"giver": g, "receiver": r, "count": c} for g, r, c in self.exchange_pairs
            ],
            "legal_moves": [from_move(m).to_json(with_seat=False) for m in self.legal_moves],
        }


def player_view(game: Game, seat: int) -> PlayerView:
    """Build seat ``seat``'s view of ``game`` (R26)."""
    if not 0 <= seat < game.rules.players:
        raise ValueError(f"there is no seat {seat} at a table of {game.rules.players}")
    round_ = game.round
    hands = game.hands
    automatic_count = len(game.pairs)
    exchange = tuple(
        ExchangeSeen(giver, receiver, cards, index < automatic_count)
        for index, (giver, receiver, cards) in enumerate(game.exchange_log)
        if seat in (giver, receiver)
    )
    turn = game.turn
    legal = tuple(game.legal_moves()) if turn == seat else ()
    if round_ is not None:
        trick = tuple(round_.trick)
        history = tuple(round_.history)
        passed = tuple(s for s in range(game.rules.players) if round_.passed >> s & 1)
        finished = tuple(round_.finished)
        revolution = round_.revolution and game.phase is Phase.PLAY
    else:
        trick, history, passed, finished, revolution = (), (), (), (), False
    return PlayerView(
        seat=seat,
        rules=game.rules,
        round_number=game.round_number,
        phase=game.phase.value,
        hand=hands[seat],
        hand_counts=tuple(h.bit_count() for h in hands),
        turn=turn,
        leader=game.leader,
        trick=trick,
        history=history,
        passed=passed,
        finished=finished,
        revolution=revolution,
        points=tuple(game.points),
        places=tuple(tuple(p) for p in game.places),
        exchange=exchange,
        exchange_pairs=tuple((p.giver, p.receiver, p.count) for p in game.pairs),
        legal_moves=legal,
    )
