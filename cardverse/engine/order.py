"""The order in force and the clearing rank (R3, R14, R15, R32; rules.md section 10 terms).

The order in force is the normal order, reversed when exactly one of a revolution (R15) and a
part's turn of the order for the trick (R32's jack back) is in force. The clearing rank is the
highest rank of that order. Everything that ranks plays (the referee, the bots, the notation)
asks this module, never its own copy.
"""

from __future__ import annotations

from typing import Final

from .cards import RANK_2, RANK_3
from .plays import play_info

ALL_JOKER_STRENGTH: Final = 13  # a set made only of jokers outranks every natural set (R5)


def order_reversed(revolution: bool, trick_reversed: bool) -> bool:
    """Whether the order in force is the reversed one (R3, R15, R32): a revolution, or the
    trick's turn of the order, not both."""
    return revolution != trick_reversed


def clearing_rank(reversed_order: bool) -> int:
    """The rank whose sets clear the pile (R14): 2 in the normal order, 3 in the reversed one."""
    return RANK_3 if reversed_order else RANK_2


def rank_strength(rank: int, reversed_order: bool) -> int:
    """0 for the weakest rank in the order in force, 12 for the strongest (R3)."""
    return 12 - rank if reversed_order else rank


def strength(move: int, reversed_order: bool) -> int:
    """How high a play is by the rank R10 compares: a set's rank, a straight's top (its bottom,
    in the reversed order); 0 is the lowest, all-joker sets are 13."""
    info = play_info(move)
    if info.all_jokers:
        return ALL_JOKER_STRENGTH
    if info.straight:
        return 12 - info.bottom if reversed_order else info.rank
    return 12 - info.rank if reversed_order else info.rank


def weakest_card_strength(move: int, reversed_order: bool) -> int:
    """Strength of a play's weakest natural card (a straight's weak end)."""
    info = play_info(move)
    if info.all_jokers:
        return ALL_JOKER_STRENGTH
    if info.straight:
        return 12 - info.rank if reversed_order else info.bottom
    return 12 - info.rank if reversed_order else info.rank


__all__ = [
    "ALL_JOKER_STRENGTH",
    "clearing_rank",
    "order_reversed",
    "rank_strength",
    "strength",
    "weakest_card_strength",
]
