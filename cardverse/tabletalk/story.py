"""The story of a table's game as the server keeps it for the page: the round's events (the
"What happened" log, sent again with a full state so it survives a reload), the score sheet,
the final standings with their titles, and what a computer player did while it stood in for an
absent person (the "while you were away" list).

Everything here holds only what the seat receiving it may see (rules R26): the round's events
are those already told during this round (private exchange cards stay marked ``_private`` and
are resolved per seat by the server's view filter when it sends them); the away list names the
cards of plays of the current round only (played cards are public), and only counts for earlier
rounds, whose deals are gone.
"""

from __future__ import annotations

from typing import Any

from ..engine import Game
from ..engine.scoring import round_points, standings, titles_by_seat


class RoundStory:
    """The events told since the current round began (with the game's start before round 1)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            kind = event.get("event")
            if kind == "game_started":
                self.events = []
            elif kind == "round_started":
                keep = self.events[-1:] if self.events else []
                self.events = [e for e in keep if e.get("event") == "game_started"]
            self.events.append(event)


def final_titles(totals: list[int]) -> tuple[list[int], dict[str, str]]:
    """Each seat's place by total points (0 = first, ties shared) and the title of that place
    (tied seats share the higher title)."""
    places = standings(totals)
    order = sorted(range(len(totals)), key=lambda seat: (places[seat], seat))
    by_position = titles_by_seat(order)
    return places, {str(seat): by_position[order[places[seat]]] for seat in range(len(totals))}


def score_sheet(game: Game) -> dict[str, Any]:
    """Points per round per seat, the totals and, once the game is over, the final standings."""
    sheet: dict[str, Any] = {
        "rounds": [round_points(list(order)) for order in game.places],
        "totals": list(game.points),
        "standings": None,
        "titles": None,
    }
    if game.over:
        sheet["standings"], sheet["titles"] = final_titles(list(game.points))
    return sheet


class AwayLog:
    """What the stand-in computer player did for each seat since it began standing in."""

    def __init__(self) -> None:
        self._actions: dict[int, list[dict[str, Any]]] = {}

    def start(self, seat: int) -> None:
        self._actions[seat] = []

    def record(self, seat: int, round_number: int, action: dict[str, Any]) -> None:
        entries = self._actions.get(seat)
        if entries is not None:
            entries.append({"round": round_number, **action})

    def take(self, seat: int, game: Game | None) -> list[dict[str, Any]]:
        """The seat's list as it may be sent now (and forget it): cards of earlier rounds
        become a count."""
        entries = self._actions.pop(seat, None) or []
        current = game.round_number if game is not None else None
        out: list[dict[str, Any]] = []
        for entry in entries:
            item = {"round": entry["round"], "action": entry["action"]}
            cards = entry.get("cards")
            if cards is not None:
                item["count"] = len(cards)
                if entry["round"] == current:
                    item["cards"] = list(cards)
                    if entry.get("jokers"):
                        item["jokers"] = dict(entry["jokers"])
            out.append(item)
        return out
