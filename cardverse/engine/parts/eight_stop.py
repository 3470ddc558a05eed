"""Eight stop (R14): any set of 8s, and any straight holding an 8, clears the pile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plays import PlayInfo
from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from ..rounds import Round


class EightStop(Part):
    spec = OptionSpec(
        name="eight_stop",
        kind=BOOL,
        default=False,
        rule="R14",
        summary="Eights clear the pile.",
        presets={"daifugo": True},
        page="eight-stop",
    )

    def clears(self, round_: Round, move: int, info: PlayInfo, reversed_before: bool) -> bool:
        return info.has_eight


PART = EightStop()
