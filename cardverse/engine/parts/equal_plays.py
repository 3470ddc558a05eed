"""Equal plays (R10): a play may equal the one it covers. R10 itself lives in the referee."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from ..options import Rules


class EqualPlays(Part):
    spec = OptionSpec(
        name="equal_plays",
        kind=BOOL,
        default=True,
        rule="R10",
        summary="A play may equal the one it covers.",
        presets={"cardverse": False, "daifugo": False},
        locked=frozenset({"cardverse"}),
        page="equal-plays",
        codes=("equal_not_allowed", "beat_jokers_equal_off"),
    )

    def active(self, rules: Rules) -> bool:
        return False  # read by the referee's comparison (R10), no hook


PART = EqualPlays()
