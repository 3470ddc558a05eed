"""Jokers (R2, R5, R10): 0, 1 or 2 jokers stand in for any card; all-joker sets outrank their size.

The deck (R2) and the shapes of plays (R5) carry the jokers; this part owns R10's last line: an
all-joker set is covered only by an all-joker set of its size, and only with equal plays on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..plays import PlayInfo
from ..refusals import Refusal, refuse
from .base import CLEARING, INT, LONE_JOKER, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState


class Jokers(Part):
    spec = OptionSpec(
        name="jokers",
        kind=INT,
        default=0,
        rule="R2",
        low=0,
        high=2,
        presets={"daifugo": 1, "uecda": 1},
        locked=frozenset({"cardverse"}),
        page="jokers",
    )
    words = Words(
        label=N_("Jokers"),
        help=N_("Jokers stand in for any card."),
        sheet=(
            SheetLine(
                N_("A joker stands in for any card of a set: 7-7-7-joker is four 7s."),
                "jokers",
                LONE_JOKER,
            ),
            SheetLine(
                N_(
                    "A set counts by its cards that are not jokers: a 2 with a joker is a set of "
                    "2s and clears the pile, but a set made only of jokers never clears it."
                ),
                "jokers",
                CLEARING,
            ),
        ),
    )

    def active(self, options: Mapping[str, Any]) -> bool:
        return bool(options["jokers"] > 0)

    def refuse_cover(
        self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo
    ) -> Refusal | None:
        if not old.all_jokers:
            return None
        if round_.ties_cover:
            return refuse(
                "beat_jokers", "R10", "a set made only of jokers can be covered only by jokers"
            )
        return refuse(
            "beat_jokers_equal_off",
            "R10",
            "a set made only of jokers cannot be covered when equal plays are off",
        )


PART: Jokers = Jokers()
