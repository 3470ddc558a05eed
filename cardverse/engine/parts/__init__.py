"""Rules as parts: one module per option, each owning its whole rule (rules.md sections 2, 10).

A part has an :class:`~cardverse.engine.parts.base.OptionSpec` (name, kind, range or choices,
default, per-preset values and locks, rule number, rules page) and the hooks of
:class:`~cardverse.engine.parts.base.Part` that it needs: which plays it adds or forbids, what it
lets cover what, what it clears, what follows a play (order reversal, lock, an owed give or
discard), where a finisher's place comes from. :class:`~cardverse.engine.ruleset.Ruleset` composes
the parts of a table's options; every part combines with every other (R4).

:data:`PARTS` lists every part in the order of the options table.
"""

from __future__ import annotations

from . import (
    downfall,
    eight_stop,
    equal_plays,
    exchange,
    first_lead,
    five_card_sets,
    forbidden_finish,
    jack_back,
    jokers,
    lead_every_round,
    revolution,
    seven_pass,
    spade_three,
    straight_cover,
    straight_revolution,
    straights,
    suit_lock,
    table,
    ten_discard,
)
from .base import OptionSpec, Part, Report

PARTS: tuple[Part, ...] = (
    table.PLAYERS,
    table.ROUNDS,
    equal_plays.PART,
    revolution.PART,
    straights.PART,
    jokers.PART,
    eight_stop.PART,
    exchange.PART,
    first_lead.PART,
    suit_lock.PART,
    jack_back.PART,
    spade_three.PART,
    forbidden_finish.PART,
    downfall.PART,
    seven_pass.PART,
    ten_discard.PART,
    straight_cover.PART,
    straight_revolution.PART,
    five_card_sets.PART,
    lead_every_round.PART,
)

#: every part's trick state, in the options table's order (views and positions show these keys)
REPORTS: tuple[Report, ...] = tuple(report for part in PARTS for report in part.reports)


def _check_reports() -> None:
    taken = 0
    for report in REPORTS:
        if taken & report.mask:
            raise ValueError(f"the trick state {report.name!r} takes bits another part keeps")
        taken |= report.mask
    if len({report.name for report in REPORTS}) != len(REPORTS):
        raise ValueError("two parts report trick state under the same name")


_check_reports()

__all__ = ["PARTS", "REPORTS", "OptionSpec", "Part", "Report"]
