"""Lead every round (R46): every round is led by the holder of the card ``first_lead`` names,
after the exchange, not only the first (R24's lead of the previous Scum does not apply).

With ``first_lead`` on the first seat, seat 0 leads every round. The game asks the part once the
exchange is over (:meth:`LeadEveryRound.round_leader`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import BOOL, LEAD, N_, OptionSpec, Part, SheetLine, Words
from .first_lead import PART as FIRST_LEAD


class LeadEveryRound(Part):
    spec = OptionSpec(
        name="lead_every_round",
        kind=BOOL,
        default=False,
        rule="R46",
        presets={"uecda": True},
        page="lead-every-round",
    )
    words = Words(
        label=N_("Same lead every round"),
        help=N_("Every round is led like the first, not by the Scum."),
        sheet=(
            SheetLine(
                N_(
                    "Every round is led like the first: by whoever holds that card once the card "
                    "exchange is over."
                ),
                "lead_every_round&!first_lead=first_seat&!rounds=1",
                LEAD,
            ),
            SheetLine(
                N_("Every round is led by the player in the first seat."),
                "lead_every_round&first_lead=first_seat&!rounds=1",
                LEAD,
            ),
        ),
    )

    def active(self, options: Mapping[str, Any]) -> bool:
        return bool(options["lead_every_round"])

    def round_leader(self, rules: Any, hands: list[int]) -> int | None:
        return FIRST_LEAD.leader(rules.first_lead, hands)


PART: LeadEveryRound = LeadEveryRound()
