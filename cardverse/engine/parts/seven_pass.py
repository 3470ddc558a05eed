"""Seven pass (R36, R38, R40): after a play with k natural 7s, its player gives k cards away.

The player, if still holding cards, gives min(k, cards held) cards of their choice to the next
seat still holding cards, before anyone else acts; only the two of them see which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import GIVE_OWED
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from .base import RoundState

RANK_7 = 4
_SEVENS = 15 << (RANK_7 * 4)


class SevenPass(Part):
    spec = OptionSpec(
        name="seven_pass",
        kind=BOOL,
        default=False,
        rule="R36",
        presets={"daifugo": True},
        page="seven-pass",
    )
    house_rule = True

    def owes(self, round_: RoundState, seat: int, move: int) -> tuple[str, int] | None:
        sevens = (move & _SEVENS).bit_count()
        return (GIVE_OWED, sevens) if sevens else None


PART = SevenPass()
