"""Straights (R6, R7, R9, R10): 3 or more cards of one suit in a row, jokers filling gaps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..movegen import straight_plays
from ..plays import PlayInfo
from .base import BOOL, N_, OptionSpec, Part, Words

if TYPE_CHECKING:
    from .base import RoundState


class Straights(Part):
    spec = OptionSpec(
        name="straights",
        kind=BOOL,
        default=False,
        rule="R6",
        presets={"daifugo": True, "uecda": True},
        locked=frozenset({"cardverse"}),
        page="straights",
    )
    words = Words(
        label=N_("Straights"),
        help=N_("Three or more cards of one suit in a row may be played together."),
    )
    fast_playouts = False  # suits matter

    def extra_plays(self, round_: RoundState, hand: int, old: PlayInfo | None) -> list[int]:
        return straight_plays(hand, old, round_.reversed_now, round_.equal_plays)


PART = Straights()
