"""Revolution (R15–R19): every set of four reverses the order at once, for the rest of the round.

A set of five (R43) does too, and so does a long straight where a part says so (R42): the part
turns the order after every play the ruleset says reverses it (:meth:`Ruleset.starts_revolution`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..events import RevolutionChanged
from ..plays import MAX_SET_SIZE, PlayInfo
from .base import BOOL, N_, OptionSpec, Part, Words

if TYPE_CHECKING:
    from .base import RoundState


class Revolution(Part):
    spec = OptionSpec(
        name="revolution",
        kind=BOOL,
        default=False,
        rule="R15",
        presets={"cardverse": True, "daifugo": True, "uecda": True},
        page="revolution",
    )
    words = Words(
        label=N_("Revolution"),
        help=N_("Every set of four reverses the order of the cards."),
    )

    def reverses(self, rules: Any, info: PlayInfo) -> bool:
        return not info.straight and info.size >= MAX_SET_SIZE

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        # Sets are this part's own answer (no call on the hot path); a straight only where some
        # part makes straights reverse the order (R42), by the ruleset's answer.
        if info.straight:
            if not round_.ruleset.straights_reverse or not round_.ruleset.starts_revolution(info):
                return
        elif info.size < MAX_SET_SIZE:
            return
        round_.revolution = not round_.revolution  # R16: the next play is judged reversed
        round_.reversed_now = not round_.reversed_now
        if round_.log is not None:
            round_.log.append(RevolutionChanged(round_.revolution))


PART: Revolution = Revolution()
