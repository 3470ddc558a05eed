"""Eight stop (R14): any set of 8s, and any straight holding an 8, clears the pile.

A joker standing for an 8 in a straight counts. The rule is a rank that clears in either order
(:attr:`~cardverse.engine.parts.base.Part.clearing_ranks`): the ruleset folds it into its one
answer to "does this play clear" and into the ranks that take control, read by the referee, the
forbidden finish and the bots alike.
"""

from __future__ import annotations

from ..cards import RANK_8
from .base import BOOL, CLEARING, N_, OptionSpec, Part, SheetLine, Words


class EightStop(Part):
    spec = OptionSpec(
        name="eight_stop",
        kind=BOOL,
        default=False,
        rule="R14",
        presets={"daifugo": True, "uecda": True},
        page="eight-stop",
    )
    words = Words(
        label=N_("Eight clears the pile"),
        help=N_("A set of 8s, or a straight holding an 8, clears the pile."),
        sheet=(
            SheetLine(
                N_("A set of 8s clears the pile too, in the normal order and during a revolution."),
                "revolution",
                CLEARING,
            ),
            SheetLine(N_("A set of 8s clears the pile too."), "!revolution", CLEARING),
            SheetLine(
                N_(
                    "So does a straight that holds an 8, even when a joker stands for the 8. No "
                    "other straight clears the pile, not even one that ends in a 2."
                ),
                "straights&jokers",
                CLEARING,
            ),
            SheetLine(
                N_(
                    "So does a straight that holds an 8. No other straight clears the pile, not "
                    "even one that ends in a 2."
                ),
                "straights&!jokers",
                CLEARING,
            ),
        ),
    )
    clearing_ranks = 1 << RANK_8


PART = EightStop()
