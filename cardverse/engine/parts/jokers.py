"""Jokers (R2, R5): 0, 1 or 2 jokers stand in for any card; all-joker sets outrank their size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import INT, OptionSpec, Part

if TYPE_CHECKING:
    from ..options import Rules


class Jokers(Part):
    spec = OptionSpec(
        name="jokers",
        kind=INT,
        default=0,
        rule="R2",
        summary="Jokers added to the deck; a joker stands in for any card.",
        low=0,
        high=2,
        presets={"daifugo": 1},
        locked=frozenset({"cardverse"}),
        page="jokers",
        codes=("beat_jokers", "beat_jokers_equal_off"),
    )

    def active(self, rules: Rules) -> bool:
        return False  # the deck and the shapes of plays (R2, R5) carry it, no hook


PART = Jokers()
