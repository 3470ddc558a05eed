"""The card exchange between rounds (R25): in force, it names who gives to whom and how many
cards (:meth:`Exchange.exchange_pairs`, asked through the ruleset by the game before every round
after the first); the gifts and gives themselves are :mod:`cardverse.engine.exchange`'s."""

from __future__ import annotations

from ..exchange import ExchangePair, exchange_pairs
from .base import BOOL, EXCHANGE, N_, OptionSpec, Part, SheetLine, Words


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
        sheet=(
            SheetLine(N_("No cards are exchanged between rounds."), "!exchange", EXCHANGE),
            SheetLine(
                N_("A game of one round has no card exchange."), "exchange&rounds=1", EXCHANGE
            ),
            SheetLine(
                N_(
                    "In every round after the first, once the cards are dealt and before the "
                    "first play, the Scum gives the President their two highest cards, and the "
                    "President gives back any two cards."
                ),
                "exchange&!rounds=1",
                EXCHANGE,
            ),
            SheetLine(
                N_(
                    "The Vice-Scum gives the Vice-President their highest card and gets back "
                    "any one card."
                ),
                "exchange&!rounds=1&@two_pairs",
                EXCHANGE,
            ),
            SheetLine(
                N_(
                    "The highest cards are given automatically; the President and the "
                    "Vice-President choose the cards they give back."
                ),
                "exchange&!rounds=1&@two_pairs",
                EXCHANGE,
            ),
            SheetLine(
                N_(
                    "The highest cards are given automatically; the President chooses the cards "
                    "they give back."
                ),
                "exchange&!rounds=1&!@two_pairs",
                EXCHANGE,
            ),
            SheetLine(
                N_("Jokers count as the highest cards."), "exchange&!rounds=1&jokers", EXCHANGE
            ),
            SheetLine(
                N_("The exchange always uses the normal order, even after a revolution."),
                "exchange&!rounds=1&revolution",
                EXCHANGE,
            ),
            SheetLine(
                N_("Only the two players of each pair see the cards that pass between them."),
                "exchange&!rounds=1",
                EXCHANGE,
            ),
        ),
    )

    def exchange_pairs(self, previous_order: list[int]) -> list[ExchangePair]:
        return exchange_pairs(previous_order)


PART: Exchange = Exchange()
