"""Straight revolution (R42): a straight of n cards or more starts a revolution, as a set of four
does (R15–R17); shorter straights never do (R18).

The option is off (0) or the length n (5 to 13), and needs the revolution on. The part only says
which plays reverse the order (:meth:`StraightRevolution.reverses`); the revolution's part turns
the order for every play the ruleset says reverses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..plays import PlayInfo
from .base import INT, N_, NP_, REVOLUTION, OptionSpec, Part, SheetLine, Words


class StraightRevolution(Part):
    spec = OptionSpec(
        name="straight_revolution",
        kind=INT,
        default=0,
        rule="R42",
        low=5,
        high=13,
        allows_off=True,
        presets={"uecda": 5},
        requires=("revolution", 1),
        page="straight-revolution",
    )
    words = Words(
        label=N_("Straight revolution"),
        help=N_("A straight of this many cards or more starts a revolution."),
        sheet=(
            SheetLine(
                N_(
                    "A straight of %(straight_revolution)s cards or more starts a revolution "
                    "too, like a set of four; a shorter straight does not."
                ),
                "revolution&straights&straight_revolution",
                REVOLUTION,
                ("straight_revolution",),
            ),
        ),
        count=NP_("%(num)s card or more", "%(num)s cards or more"),
    )
    reverses_straights = True

    def active(self, options: Mapping[str, Any]) -> bool:
        return bool(options["straight_revolution"] and options["revolution"])

    def reverses(self, rules: Any, info: PlayInfo) -> bool:
        return info.straight and info.size >= rules.straight_revolution


PART: StraightRevolution = StraightRevolution()
