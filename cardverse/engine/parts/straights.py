"""Straights (R6, R7, R9, R10): 3 or more cards of one suit in a row, jokers filling gaps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..movegen import straight_plays
from ..plays import PlayInfo
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from ..rounds import Round


class Straights(Part):
    spec = OptionSpec(
        name="straights",
        kind=BOOL,
        default=False,
        rule="R6",
        summary="Runs of 3 or more cards of one suit may be played.",
        presets={"daifugo": True},
        locked=frozenset({"cardverse"}),
        page="straights",
        codes=("straights_off", "straight_on_set", "set_on_straight"),
    )
    fast_playouts = False  # suits matter

    def extra_plays(self, round_: Round, hand: int, old: PlayInfo | None) -> list[int]:
        return straight_plays(hand, old, round_.reversed_order, round_.equal_plays)


PART = Straights()
