"""Seven pass (R36, R38, R40): after a play with k natural 7s, its player gives k cards away.

The player, if still holding cards, gives min(k, cards held) cards of their choice to the next
seat still holding cards, before anyone else acts; only the two of them see which.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import GIVE_OWED
from .base import BOOL, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

RANK_7 = 4
_SEVENS = 15 << (RANK_7 * 4)


class SevenPass(Part):
    spec = OptionSpec(
        name="seven_pass",
        kind=BOOL,
        default=False,
        rule="R36",
        presets={"daifugo": True},
        page="seven-pass",
    )
    words = Words(
        label=N_("Seven pass"),
        help=N_("Whoever plays 7s gives as many cards to the next player."),
        sheet=(
            SheetLine(
                N_(
                    "After a play holding 7s, its player gives one card of their choice for each "
                    "7 to the next player still holding cards, or all their cards if they hold "
                    "fewer. Only the two of them see which cards; everyone sees how many. Then "
                    "the trick goes on."
                )
            ),
            SheetLine(
                N_(
                    "The receiver may be a player who has passed in this trick; receiving does "
                    "not bring them back into it."
                )
            ),
            SheetLine(N_("Whoever gives away their last card goes out.")),
            SheetLine(N_("A joker standing for a 7 does not count as a 7."), "jokers"),
            SheetLine(N_("Everyone sees who owes a give and how many cards.")),
        ),
    )
    house_rule = True
    owes_kind = GIVE_OWED
    cards_leave_by_plays = False  # the gives pass cards unseen

    def owes(self, round_: RoundState, seat: int, move: int) -> tuple[str, int] | None:
        sevens = (move & _SEVENS).bit_count()
        return (GIVE_OWED, sevens) if sevens else None


PART = SevenPass()
