"""Forbidden finish (R34, R40): going out on a strong card takes the lowest free place.

A play that holds a joker, a natural card of the clearing rank in force before it, a natural 8
(with eight_stop) or that is the 3♠ on a joker (with spade_three) is a forbidden finish when it
is the player's last card. Going out by a give or a discard is never one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import JOKER_MASK, RANK_8
from ..order import clearing_rank
from ..plays import PlayInfo
from .base import BOOL, OptionSpec, Part
from .spade_three import spade_three_on_joker

if TYPE_CHECKING:
    from ..rounds import Round


def is_forbidden_finish(
    move: int, reversed_before: bool, top: int | None, eight_stop: bool, spade_three: bool
) -> bool:
    """Whether going out with ``move`` would be a forbidden finish (R34)."""
    if move & JOKER_MASK:
        return True
    if move & (15 << (clearing_rank(reversed_before) * 4)):
        return True
    if eight_stop and move & (15 << (RANK_8 * 4)):
        return True
    return spade_three and spade_three_on_joker(move, top)


class ForbiddenFinish(Part):
    spec = OptionSpec(
        name="forbidden_finish",
        kind=BOOL,
        default=False,
        rule="R34",
        summary="Going out on a joker, a card of the clearing rank or an eight that clears "
        "takes the lowest free place.",
        presets={"daifugo": True},
        page="forbidden-finish",
    )
    house_rule = True

    def finish_from_bottom(
        self, round_: Round, seat: int, move: int, info: PlayInfo, reversed_before: bool
    ) -> bool:
        return is_forbidden_finish(
            move, reversed_before, round_.last_move, round_.eight_stop, round_.spade_three
        )


PART = ForbiddenFinish()
