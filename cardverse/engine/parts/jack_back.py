"""Jack back (R32, R40): a play holding a natural jack reverses the order for the rest of the trick.

The jack play itself is judged by the order before it; a second jack play in the trick changes
nothing more; the trick's end ends it (the referee clears it with the trick's state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import TrickStateChanged
from ..plays import PlayInfo
from .base import BOOL, FLAG, N_, OptionSpec, Part, Report, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

RANK_J = 8
_JACKS = 15 << (RANK_J * 4)

#: whether a jack back is in force for the trick (R32, shown to everyone: R39)
ON = Report(
    name="jack_back",
    kind=FLAG,
    shift=0,
    rule="R32",
    meaning="a jack back is on for the trick",
    text=N_("Jack back"),
    symbol="↺",
    mismatch="the trick says otherwise (R32: a play holding a jack starts it, the trick's end "
    "ends it)",
    told=N_("Jack back! The order is reversed until the trick ends."),
    told_off=N_("The jack back is over."),
    turns_order=True,
)
_ON_BIT = ON.mask


class JackBack(Part):
    spec = OptionSpec(
        name="jack_back",
        kind=BOOL,
        default=False,
        rule="R32",
        presets={"daifugo": True},
        page="jack-back",
    )
    words = Words(
        label=N_("Jack back"),
        help=N_("A play holding a jack reverses the order until the trick ends."),
        sheet=(
            SheetLine(
                N_(
                    "A play holding a jack reverses the order until the trick ends. While the "
                    "order is reversed, a set of 3s clears the pile."
                )
            ),
            SheetLine(
                N_(
                    "The play of jacks itself is judged by the order before it. A second play "
                    "holding a jack in the same trick changes nothing more."
                )
            ),
            SheetLine(N_("A joker standing for a jack does not count as a jack."), "jokers"),
            SheetLine(
                N_(
                    "During a revolution a jack back gives the normal order back until the trick "
                    "ends, and then a set of 2s clears the pile."
                ),
                "revolution",
            ),
            SheetLine(N_("Everyone sees whether a jack back is in force.")),
        ),
    )
    house_rule = True
    reports = (ON,)
    # The order in force is all it changes: tables and the bots' shortcut read that order.

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        if not round_.marks & _ON_BIT and move & _JACKS:
            round_.marks |= _ON_BIT
            round_.reversed_now = not round_.reversed_now
            if round_.log is not None:
                round_.log.append(TrickStateChanged(ON, 1))

    def end_trick(self, round_: RoundState, marks: int) -> None:
        # R32: the trick's end ends it; the next trick is played in the revolution's order
        if marks & _ON_BIT and round_.log is not None:
            round_.log.append(TrickStateChanged(ON, 0))


PART = JackBack()
