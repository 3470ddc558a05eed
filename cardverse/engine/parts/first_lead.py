"""Who leads round 1 (R24): seat 0, the holder of the 3 of clubs, or of the 3 of diamonds.

The part owns the choice (:meth:`FirstLead.leader`); the game asks it when it deals round 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..cards import NATURAL_MASK, THREE_OF_CLUBS, THREE_OF_DIAMONDS, cards_of
from .base import CHOICE, LEAD, N_, OptionSpec, Part, SheetLine, Words

FIRST_SEAT = "first_seat"
THREE_OF_CLUBS_LEADS = "three_of_clubs"
THREE_OF_DIAMONDS_LEADS = "three_of_diamonds"
FIRST_LEAD_VALUES = (FIRST_SEAT, THREE_OF_CLUBS_LEADS, THREE_OF_DIAMONDS_LEADS)
LEAD_CARD = {THREE_OF_CLUBS_LEADS: THREE_OF_CLUBS, THREE_OF_DIAMONDS_LEADS: THREE_OF_DIAMONDS}


class FirstLead(Part):
    spec = OptionSpec(
        name="first_lead",
        kind=CHOICE,
        default=THREE_OF_CLUBS_LEADS,
        rule="R24",
        choices=FIRST_LEAD_VALUES,
        presets={
            "cardverse": FIRST_SEAT,
            "daifugo": THREE_OF_DIAMONDS_LEADS,
            "uecda": THREE_OF_DIAMONDS_LEADS,
        },
    )
    words = Words(
        label=N_("First lead"),
        help=N_("Who plays first in the first round."),
        sheet=(
            SheetLine(
                N_("The player in the first seat leads the first round, with any play."),
                f"first_lead={FIRST_SEAT}",
                LEAD,
            ),
            SheetLine(
                N_("The holder of the 3 of clubs leads the first round, with any play."),
                f"first_lead={THREE_OF_CLUBS_LEADS}",
                LEAD,
            ),
            SheetLine(
                N_("The holder of the 3 of diamonds leads the first round, with any play."),
                f"first_lead={THREE_OF_DIAMONDS_LEADS}",
                LEAD,
            ),
            SheetLine(
                N_("Every later round is led by the Scum of the round before."),
                "!rounds=1&!@later_leader_named",
                LEAD,
            ),
        ),
    )

    def active(self, options: Mapping[str, Any]) -> bool:
        return False  # asked by the deal (:meth:`leader`), never by the referee's hooks

    def leader(self, value: str, hands: list[int]) -> int:
        """Who leads round 1 under the option's ``value``: seat 0, or the holder of its card.

        With a partial deal (tests, puzzles) where nobody holds that card, the holder of the
        lowest natural card leads; with no natural card at all, seat 0.
        """
        if value == FIRST_SEAT:
            return 0
        card = LEAD_CARD[value]
        for seat, hand in enumerate(hands):
            if hand >> card & 1:
                return seat
        lowest: tuple[int, int] | None = None
        for seat, hand in enumerate(hands):
            naturals = cards_of(hand & NATURAL_MASK)
            if naturals and (lowest is None or naturals[0] < lowest[0]):
                lowest = (naturals[0], seat)
        return lowest[1] if lowest else 0


PART = FirstLead()
