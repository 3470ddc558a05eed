"""Five-card sets (R43): four natural cards of one rank and a joker make a set of five.

Only a set of five covers it (R9), it starts a revolution like a set of four (R15), and it needs a
joker in the deck. The set tables hold sets of 1 to 4 cards: the part adds the sets of five a hand
can make, and lets the referee accept a set of that size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..cards import BLACK_JOKER, NUM_RANKS, RED_JOKER
from ..plays import STRAIGHT, PlayInfo
from .base import BOOL, MAY, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

SIZE = 5
#: one bit at the bottom of every rank's four suit bits
_RANK_BASES = sum(1 << (rank * 4) for rank in range(NUM_RANKS))


def full_ranks(hand: int) -> int:
    """The ranks (a 13-bit set) of which ``hand`` holds all four natural cards."""
    quads = hand & hand >> 1 & hand >> 2 & hand >> 3 & _RANK_BASES
    ranks = 0
    while quads:
        low = quads & -quads
        ranks |= 1 << ((low.bit_length() - 1) >> 2)
        quads ^= low
    return ranks


def _is_five_set(move: int) -> bool:
    return not move & STRAIGHT and (move & ((1 << 54) - 1)).bit_count() == SIZE


class FiveCardSets(Part):
    spec = OptionSpec(
        name="five_card_sets",
        kind=BOOL,
        default=False,
        rule="R43",
        presets={"uecda": True},
        requires=("jokers", 1),
        page="five-card-sets",
    )
    words = Words(
        label=N_("Five-card sets"),
        help=N_("Four cards of a rank and a joker make a set of five."),
        sheet=(
            SheetLine(
                N_(
                    "Four cards of one rank and a joker make a set of five, such as 9-9-9-9-joker. "
                    "Only a higher set of five covers it."
                ),
                "five_card_sets&jokers",
                MAY,
            ),
            SheetLine(
                N_("A set of five starts a revolution, like a set of four."),
                "five_card_sets&jokers&revolution",
                MAY,
            ),
        ),
        refusals=(
            (
                "five_set_shape",
                N_("A set of five is four cards of one rank and a joker."),
            ),
        ),
    )
    largest_set = SIZE
    fast_tables = False  # the set tables hold no set of five
    fast_playouts = False  # the rank-count shortcut plays sets of four at most

    def active(self, options: Mapping[str, Any]) -> bool:
        return bool(options["five_card_sets"]) and options["jokers"] > 0

    def generic_now(self, round_: RoundState) -> bool:
        last = round_.last_move
        if last is None:
            hand = round_.hands[round_.turn]
            return bool(hand >> RED_JOKER) and bool(full_ranks(hand))
        return _is_five_set(last)

    def extra_plays(self, round_: RoundState, hand: int, old: PlayInfo | None) -> list[int]:
        if old is not None and (old.straight or old.size != SIZE):
            return []
        jokers = [1 << j for j in (RED_JOKER, BLACK_JOKER) if hand >> j & 1]
        ranks = full_ranks(hand)
        if not jokers or not ranks:
            return []
        out = []
        reversed_order = round_.reversed_now
        for rank in range(NUM_RANKS):
            if not ranks >> rank & 1:
                continue
            if old is not None:
                if rank == old.rank:
                    if not round_.ties_cover:
                        continue
                elif (rank < old.rank) != reversed_order:
                    continue
            quad = 15 << (rank * 4)
            out += [quad | joker for joker in jokers]
        return out


PART: FiveCardSets = FiveCardSets()
