"""Equal plays (R10): a play may equal the one it covers.

The part is in force while the option is *off*: it then forbids ties (``forbids_ties``, which
the ruleset turns into :attr:`~cardverse.engine.ruleset.Ruleset.ties_cover`, the one flag the
comparison of :func:`cardverse.engine.plays.beats` and the set tables of
:mod:`cardverse.engine.movegen` take, read once per round and never through a hook on the hot
path), and it says why an equal play is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..plays import PlayInfo
from ..refusals import Refusal, refuse
from .base import BEAT, BOOL, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

RANK_WORDS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "jokers")


class EqualPlays(Part):
    spec = OptionSpec(
        name="equal_plays",
        kind=BOOL,
        default=True,
        rule="R10",
        presets={"cardverse": False, "daifugo": False, "uecda": False},
        locked=frozenset({"cardverse"}),
        page="equal-plays",
    )
    words = Words(
        label=N_("Equal plays"),
        help=N_("A play may equal the one it covers, not only beat it."),
        sheet=(
            SheetLine(
                N_("To beat a set, play a higher rank or the same rank."), "equal_plays", BEAT
            ),
            SheetLine(
                N_("To beat a set, play a higher rank: the same rank is not enough."),
                "!equal_plays",
                BEAT,
            ),
        ),
    )

    forbids_ties = True

    def active(self, options: Mapping[str, Any]) -> bool:
        return not options["equal_plays"]  # it forbids ties, and says so, while the option is off

    def refuse_cover(
        self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo
    ) -> Refusal | None:
        if info.straight or old.all_jokers or info.rank != old.rank:
            return None
        return refuse(
            "equal_not_allowed",
            "R10",
            f"equal plays are off: {RANK_WORDS[info.rank]} does not beat {RANK_WORDS[old.rank]}",
            need=RANK_WORDS[old.rank],
            got=RANK_WORDS[info.rank],
        )


PART = EqualPlays()
