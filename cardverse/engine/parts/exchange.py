"""The card exchange between rounds (R25): its option; the exchange itself is the game's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BOOL, OptionSpec, Part

if TYPE_CHECKING:
    from ..options import Rules


class Exchange(Part):
    spec = OptionSpec(
        name="exchange",
        kind=BOOL,
        default=True,
        rule="R25",
        summary="From round 2 on, the Scum and the President swap cards, and so do the "
        "Vice-Scum and the Vice-President.",
        page="exchange",
        codes=("not_exchange", "exchange_in_progress", "not_your_give", "give_count"),
    )

    def active(self, rules: Rules) -> bool:
        return False  # carried out by the game between rounds (engine.exchange)


PART = Exchange()
