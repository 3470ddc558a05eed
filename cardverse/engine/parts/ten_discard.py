"""Ten discard (R37, R38, R40): after a play with k natural 10s, its player discards k cards.

The player, if still holding cards, discards min(k, cards held) cards of their choice face up
(counted after the seven pass of the same play); they leave the round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import DISCARD_OWED
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from .base import RoundState

RANK_10 = 7
_TENS = 15 << (RANK_10 * 4)


class TenDiscard(Part):
    spec = OptionSpec(
        name="ten_discard",
        kind=BOOL,
        default=False,
        rule="R37",
        presets={"daifugo": True},
        page="ten-discard",
    )
    house_rule = True

    def owes(self, round_: RoundState, seat: int, move: int) -> tuple[str, int] | None:
        tens = (move & _TENS).bit_count()
        return (DISCARD_OWED, tens) if tens else None


PART = TenDiscard()
