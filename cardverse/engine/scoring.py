"""Places, titles and points (R20–R22)."""

from __future__ import annotations

from typing import Final

PRESIDENT: Final = "president"
VICE_PRESIDENT: Final = "vice_president"
CITIZEN: Final = "citizen"
VICE_SCUM: Final = "vice_scum"
SCUM: Final = "scum"
TITLES: Final = (PRESIDENT, VICE_PRESIDENT, CITIZEN, VICE_SCUM, SCUM)


def title_for_place(place: int, players: int) -> str:
    """The title of a 0-based finishing place (R21)."""
    if place == 0:
        return PRESIDENT
    if place == players - 1:
        return SCUM
    if players >= 4 and place == 1:
        return VICE_PRESIDENT
    if players >= 4 and place == players - 2:
        return VICE_SCUM
    return CITIZEN


def titles_by_seat(order: list[int]) -> dict[int, str]:
    """Each seat's title from a round's finishing order."""
    return {seat: title_for_place(place, len(order)) for place, seat in enumerate(order)}


def round_points(order: list[int]) -> list[int]:
    """Points each seat earns from a finished round's order: N for 1st … 1 for last (R22)."""
    players = len(order)
    points = [0] * players
    for place, seat in enumerate(order):
        points[seat] = players - place
    return points


def standings(totals: list[int]) -> list[int]:
    """The final place of each seat (0-based) by total points; equal totals share a place."""
    return [sum(1 for other in totals if other > mine) for mine in totals]


__all__ = [
    "round_points",
    "standings",
    "title_for_place",
    "titles_by_seat",
]
