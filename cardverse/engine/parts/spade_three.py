"""Spade three (R33, R40): a lone 3♠ covers and beats a lone joker, in either order, and clears."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plays import PlayInfo, play_info
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from ..options import Rules
    from ..rounds import Round

THREE_OF_SPADES = 3  # rank 0 (the 3), suit 3 (spades)
SPADE_THREE_MOVE = 1 << THREE_OF_SPADES


def is_lone_joker(move: int | None) -> bool:
    if move is None:
        return False
    info = play_info(move)
    return info.all_jokers and info.size == 1


def spade_three_on_joker(move: int, top: int | None) -> bool:
    """Whether ``move`` is the lone 3♠ covering a lone joker."""
    return move == SPADE_THREE_MOVE and is_lone_joker(top)


class SpadeThree(Part):
    spec = OptionSpec(
        name="spade_three",
        kind=BOOL,
        default=False,
        rule="R33",
        summary="A lone 3 of spades beats a lone joker and clears the pile.",
        presets={"daifugo": True},
        requires=("jokers", 1),
        page="spade-three",
    )
    house_rule = True
    fast_tables = False  # adds a play the tables do not hold
    fast_playouts = False  # the shortcut never plays it

    def active(self, rules: Rules) -> bool:
        return rules.spade_three and rules.jokers > 0

    def generic_now(self, round_: Round) -> bool:
        return is_lone_joker(round_.last_move)

    def extra_plays(self, round_: Round, hand: int, old: PlayInfo | None) -> list[int]:
        if old is not None and old.all_jokers and old.size == 1 and hand & SPADE_THREE_MOVE:
            return [SPADE_THREE_MOVE]
        return []

    def covers(self, round_: Round, move: int, info: PlayInfo, old: PlayInfo) -> bool:
        return move == SPADE_THREE_MOVE and old.all_jokers and old.size == 1

    def clears(self, round_: Round, move: int, info: PlayInfo, reversed_before: bool) -> bool:
        return spade_three_on_joker(move, round_.last_move)


PART = SpadeThree()
