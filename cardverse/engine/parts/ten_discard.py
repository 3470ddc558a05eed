"""Ten discard (R37, R38, R40): after a play with k natural 10s, its player discards k cards.

The player, if still holding cards, discards min(k, cards held) cards of their choice face up
(counted after the seven pass of the same play); they leave the round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import DISCARD_OWED
from .base import BOOL, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

RANK_10 = 7
_TENS = 15 << (RANK_10 * 4)


class TenDiscard(Part):
    spec = OptionSpec(
        name="ten_discard",
        kind=BOOL,
        default=False,
        rule="R37",
        presets={"daifugo": True},
        page="ten-discard",
    )
    words = Words(
        label=N_("Ten discard"),
        help=N_("Whoever plays 10s discards as many cards, face up."),
        sheet=(
            SheetLine(
                N_(
                    "After a play holding 10s, its player discards one card of their choice for "
                    "each 10, or all their cards if they hold fewer, face up: everyone sees them, "
                    "and they leave the round."
                )
            ),
            SheetLine(N_("Whoever discards their last card goes out.")),
            SheetLine(N_("A joker standing for a 10 does not count as a 10."), "jokers"),
            SheetLine(
                N_(
                    "When one play holds both 7s and 10s, the give comes first, and the discard "
                    "counts the cards left after it."
                ),
                "@gives&straights",
            ),
            SheetLine(N_("Everyone sees who owes a discard and how many cards.")),
        ),
    )
    house_rule = True
    owes_kind = DISCARD_OWED
    cards_leave_by_plays = False  # the discards leave the round

    def owes(self, round_: RoundState, seat: int, move: int) -> tuple[str, int] | None:
        tens = (move & _TENS).bit_count()
        return (DISCARD_OWED, tens) if tens else None


PART = TenDiscard()
