"""The ``normal`` bot (R29): the heuristic policy of :mod:`cardverse.bots.policy`, from a view.

It keeps its 2s, fours and jokers (and 8s with eight_stop) to take back the lead, does not break
up pairs and triples when it need not, and plays straights, revolutions and clearing eights
sensibly. It is deterministic: the seed is accepted for the common interface only.
"""

from __future__ import annotations

from ..engine import PASS, PlayerView
from . import policy
from .base import BotBase


def view_context(view: PlayerView) -> tuple[int | None, int, int]:
    """(play on top of the trick, fewest cards of an opponent, cards of the player on top)."""
    last_move: int | None = None
    last_seat = -1
    for seat, move in view.trick:
        if move != PASS:
            last_move, last_seat = move, seat
    counts = view.hand_counts
    others = [c for s, c in enumerate(counts) if s != view.seat and c]
    opponent_min = min(others) if others else 0
    last_count = counts[last_seat] if last_seat >= 0 else 0
    return last_move, opponent_min, last_count


class NormalBot(BotBase):
    """Keeps its control cards and its groups (R29); see :mod:`cardverse.bots.policy`."""

    level = "normal"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def decide(self, view: PlayerView) -> int:
        last_move, opponent_min, last_count = view_context(view)
        return policy.choose(
            view.hand,
            view.legal_moves,
            last_move,
            view.reversed_order,
            policy.Style.of(view.rules),
            opponent_min,
            last_count,
        )
