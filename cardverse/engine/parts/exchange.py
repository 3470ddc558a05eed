"""The card exchange between rounds (R25): in force, it names who gives to whom and how many
cards (:meth:`Exchange.exchange_pairs`, asked through the ruleset by the game before every round
after the first); the gifts and gives themselves are :mod:`cardverse.engine.exchange`'s."""

from __future__ import annotations

from ..exchange import ExchangePair, exchange_pairs
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

    def exchange_pairs(self, previous_order: list[int]) -> list[ExchangePair]:
        return exchange_pairs(previous_order)


PART: Exchange = Exchange()
