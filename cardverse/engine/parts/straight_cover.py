"""Straight cover (R41): with ``all_higher``, a straight covers a straight only when every one of
its cards is above every card of the covered one, in the order in force.

In the normal order its bottom must be above the covered top; during a revolution its top below
the covered bottom (ranks read in the normal order). It only narrows R10, so the part filters the
generated straights and refuses the rest; equal plays never apply to straights under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..cards import RANK_NAMES
from ..plays import STRAIGHT, PlayInfo, play_info
from ..refusals import Refusal, refuse
from .base import CHOICE, MAY, N_, REVOLUTION, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

TOP = "top"
ALL_HIGHER = "all_higher"


def all_higher(new: PlayInfo, old: PlayInfo, reversed_order: bool) -> bool:
    """Whether every card of straight ``new`` is beyond every card of ``old`` in the order."""
    if reversed_order:
        return new.rank < old.bottom
    return new.bottom > old.rank


class StraightCover(Part):
    spec = OptionSpec(
        name="straight_cover",
        kind=CHOICE,
        default=TOP,
        rule="R41",
        choices=(TOP, ALL_HIGHER),
        presets={"uecda": ALL_HIGHER},
        page="straight-cover",
    )
    words = Words(
        label=N_("Straight cover"),
        help=N_("What a straight must beat to cover a straight: its top, or every card."),
        sheet=(
            SheetLine(
                N_(
                    "To beat a straight, play one with a higher top card or the same top card, "
                    "in any suit."
                ),
                "straights&straight_cover=top&equal_plays",
                MAY,
            ),
            SheetLine(
                N_("To beat a straight, play one with a higher top card, in any suit."),
                "straights&straight_cover=top&!equal_plays",
                MAY,
            ),
            SheetLine(
                N_(
                    "A straight covers a straight of its length only when all its cards are "
                    "higher than all the cards it covers, in any suit: 8-9-10 and above cover "
                    "5-6-7, 6-7-8 does not."
                ),
                "straights&straight_cover=all_higher",
                MAY,
            ),
            SheetLine(
                N_(
                    "During a revolution, a straight covers a straight of its length only when "
                    "all its cards are lower than all the cards it covers."
                ),
                "revolution&straights&straight_cover=all_higher",
                REVOLUTION,
            ),
            SheetLine(
                N_(
                    "During a revolution, to beat a straight play one with a lower bottom card "
                    "or the same bottom card, in any suit."
                ),
                "revolution&straights&straight_cover=top&equal_plays",
                REVOLUTION,
            ),
            SheetLine(
                N_(
                    "During a revolution, to beat a straight play one with a lower bottom card, "
                    "in any suit."
                ),
                "revolution&straights&straight_cover=top&!equal_plays",
                REVOLUTION,
            ),
        ),
        values=((TOP, N_("Higher top")), (ALL_HIGHER, N_("All cards higher"))),
        refusals=(
            (
                "straight_not_all_higher",
                N_(
                    "Every card of your straight must be higher than %(need)s, the highest card "
                    "it covers; your lowest is %(got)s."
                ),
            ),
            (
                "straight_not_all_lower",
                N_(
                    "During a revolution every card of your straight must be lower than "
                    "%(need)s, the lowest card it covers; your highest is %(got)s."
                ),
            ),
        ),
    )
    fast_tables = False  # the generic filter drops the straights whose cards overlap
    fast_playouts = False  # straights are played

    def active(self, options: Mapping[str, Any]) -> bool:
        return options["straight_cover"] == ALL_HIGHER and bool(options["straights"])

    def generic_now(self, round_: RoundState) -> bool:
        last = round_.last_move
        return last is not None and bool(last & STRAIGHT)

    def filter_plays(self, round_: RoundState, plays: list[int]) -> list[int]:
        last = round_.last_move
        if last is None or not last & STRAIGHT:
            return plays
        old = play_info(last)
        order = round_.reversed_now
        return [m for m in plays if not m & STRAIGHT or all_higher(play_info(m), old, order)]

    def refuse(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> Refusal | None:
        last = round_.last_move
        if last is None or not info.straight or not last & STRAIGHT:
            return None
        old = play_info(last)
        if all_higher(info, old, round_.reversed_now):
            return None
        if round_.reversed_now:
            return refuse(
                "straight_not_all_lower",
                "R41",
                f"during a revolution every card of the straight must be lower than "
                f"{RANK_NAMES[old.bottom]}, the lowest card it covers; its top is "
                f"{RANK_NAMES[info.rank]}",
                need=RANK_NAMES[old.bottom],
                got=RANK_NAMES[info.rank],
            )
        return refuse(
            "straight_not_all_higher",
            "R41",
            f"every card of the straight must be higher than {RANK_NAMES[old.rank]}, the highest "
            f"card it covers; its bottom is {RANK_NAMES[info.bottom]}",
            need=RANK_NAMES[old.rank],
            got=RANK_NAMES[info.bottom],
        )


PART: StraightCover = StraightCover()
