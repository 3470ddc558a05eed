"""Jack back (R32, R40): a play holding a natural jack reverses the order for the rest of the trick.

The jack play itself is judged by the order before it; a second jack play in the trick changes
nothing more; the trick's end ends it (the referee clears it with the trick's state).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..events import JackBackChanged
from ..plays import PlayInfo
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from .base import RoundState

RANK_J = 8
_JACKS = 15 << (RANK_J * 4)


class JackBack(Part):
    spec = OptionSpec(
        name="jack_back",
        kind=BOOL,
        default=False,
        rule="R32",
        presets={"daifugo": True},
        page="jack-back",
    )
    house_rule = True
    reports: tuple[str, ...] = ("jack_back",)
    # The order in force is all it changes: tables and the bots' shortcut read that order.

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        if not round_.jack_back and move & _JACKS:
            round_.jack_back = True
            round_.reversed_now = not round_.reversed_now
            if round_.log is not None:
                round_.log.append(JackBackChanged(True))


PART = JackBack()
