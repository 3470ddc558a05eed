"""Straights (R6, R7, R9, R10): 3 or more cards of one suit in a row, jokers filling gaps.

In force, the part declares ``plays_straights`` (the set tables of
:mod:`cardverse.engine.movegen` then add straights on the table path, and the part adds them
on the generic path); off, it says why a straight is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import NATURAL_MASK, card_name, cards_of
from ..movegen import straight_plays
from ..plays import CARDS_MASK, STRAIGHT, PlayInfo
from ..refusals import Refusal, refuse
from .base import (
    BOOL,
    CLEARING,
    FOLLOW,
    JOKERS,
    MAY,
    N_,
    REVOLUTION,
    OptionSpec,
    Part,
    SheetLine,
    Words,
)

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
        sheet=(
            SheetLine(
                N_("A set is followed only by a set of the same size."), "!straights", FOLLOW
            ),
            SheetLine(
                N_(
                    "Sets and straights never mix in one trick: a set is followed only by a set "
                    "of the same size, a straight only by a straight of the same length."
                ),
                "straights",
                FOLLOW,
            ),
            SheetLine(
                N_(
                    "Ranks in a straight go from 3 up to 2 without wrapping: K-A-2 is the highest "
                    "straight of three, and A-2-3 is no straight. A straight has no upper length."
                ),
                "straights",
                MAY,
            ),
            SheetLine(
                N_(
                    "In a straight a joker may fill any place; you say which rank it stands "
                    "for. A straight holds at least one card that is not a joker, and that "
                    "card's suit is the straight's suit."
                ),
                "straights&jokers",
                JOKERS,
            ),
            SheetLine(
                N_("A straight never clears the pile, not even one that ends in a 2."),
                "straights&!@eights_clear",
                CLEARING,
            ),
            SheetLine(
                N_(
                    "Straights never start a revolution, whatever their length: four cards of a "
                    "straight are no set of four."
                ),
                "revolution&straights&!@straights_reverse",
                REVOLUTION,
            ),
        ),
    )
    fast_playouts = False  # suits matter
    plays_straights = True

    def extra_plays(self, round_: RoundState, hand: int, old: PlayInfo | None) -> list[int]:
        return straight_plays(hand, old, round_.reversed_now, round_.ties_cover)

    def refuse_off(self, round_: RoundState, move: int) -> Refusal | None:
        if not move & STRAIGHT:
            return None
        cards = move & CARDS_MASK
        if len({c >> 2 for c in cards_of(cards & NATURAL_MASK)}) > 1:
            return refuse(
                "mixed_ranks",
                "R5",
                "cards of different ranks are no set: a set is 1 to 4 cards of one rank",
                cards=" ".join(card_name(c) for c in cards_of(cards)),
            )
        return refuse("straights_off", "R6", "straights are not played under these rules")


PART = Straights()
