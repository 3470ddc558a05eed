"""Revolution (R15–R19): every set of four reverses the order at once, for the rest of the round.

A set of five (R43) does too, and so does a long straight where a part says so (R42): the part
turns the order after every play the ruleset says reverses it (:meth:`Ruleset.starts_revolution`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..events import RevolutionChanged
from ..plays import MAX_SET_SIZE, PlayInfo
from .base import (
    BOOL,
    CLEARING,
    N_,
    REVOLUTION,
    REVOLUTION_STARTS,
    OptionSpec,
    Part,
    SheetLine,
    Words,
)

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
        sheet=(
            SheetLine(
                N_(
                    "Every set of four starts a revolution: at once the order is reversed, the 2 "
                    "is the lowest and the 3 the highest. The next set of four turns it back."
                ),
                "revolution",
                REVOLUTION_STARTS,
            ),
            SheetLine(
                N_(
                    "A set of four made with a joker, such as 7-7-7-joker, starts a revolution "
                    "too. A set made only of jokers stays the highest set of its size during a "
                    "revolution."
                ),
                "revolution&jokers",
                REVOLUTION,
            ),
            SheetLine(
                N_(
                    "A set of four does not end the trick. It is judged by the order in force "
                    "before it: you may lead it, or play it on a set of four that it beats or "
                    "equals. The next play is judged by the new order."
                ),
                "revolution&equal_plays",
                REVOLUTION,
            ),
            SheetLine(
                N_(
                    "A set of four does not end the trick. It is judged by the order in force "
                    "before it: you may lead it, or play it on a set of four that it beats. The "
                    "next play is judged by the new order."
                ),
                "revolution&!equal_plays",
                REVOLUTION,
            ),
            SheetLine(
                N_(
                    "A set of four that clears the pile, such as four 2s in the normal order, "
                    "still reverses the order: the trick ends, and the next trick is played in "
                    "the new order."
                ),
                "revolution",
                REVOLUTION,
            ),
            SheetLine(N_("Every round starts in the normal order."), "revolution", REVOLUTION),
            SheetLine(
                N_("Everyone sees whether a revolution is in force."), "revolution", REVOLUTION
            ),
            SheetLine(
                N_("During a revolution a set of 3s clears the pile instead."),
                "revolution",
                CLEARING,
            ),
        ),
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
