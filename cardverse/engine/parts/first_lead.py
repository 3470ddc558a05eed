"""Who leads round 1 (R24): seat 0, the holder of the 3 of clubs, or of the 3 of diamonds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import THREE_OF_CLUBS, THREE_OF_DIAMONDS
from .base import CHOICE, OptionSpec, Part

if TYPE_CHECKING:
    from ..options import Rules

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
        summary="Who leads the first round.",
        choices=FIRST_LEAD_VALUES,
        presets={"cardverse": FIRST_SEAT, "daifugo": THREE_OF_DIAMONDS_LEADS},
    )

    def active(self, rules: Rules) -> bool:
        return False  # read by the deal (engine.dealing)


PART = FirstLead()
