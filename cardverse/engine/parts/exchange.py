"""The card exchange between rounds (R25): its option; the exchange itself is the game's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import BOOL, N_, OptionSpec, Part, Words


class Exchange(Part):
    spec = OptionSpec(
        name="exchange",
        kind=BOOL,
        default=True,
        rule="R25",
        page="exchange",
    )
    words = Words(
        label=N_("Card exchange"),
        help=N_("Between rounds the Scum and the President swap cards."),
    )

    def active(self, options: Mapping[str, Any]) -> bool:
        return False  # carried out by the game between rounds (engine.exchange)


PART = Exchange()
