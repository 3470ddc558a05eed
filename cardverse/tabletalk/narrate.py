"""The protocol's events, told from the engine's events (never re-derived from the game's state).

:func:`protocol_events` turns what :meth:`Game.apply` (or :meth:`Game.start_next_round`) returned
into the ``event`` objects of docs/protocol.md. Cards that only two seats may see (an exchange
give, a seven pass) go under ``_private``, which :mod:`cardverse.server.viewfilter` resolves per
recipient.
"""

from __future__ import annotations

from typing import Any

from ..engine import from_move, mask_names
from ..engine.cards import SUIT_NAMES
from ..engine.events import (
    Discarded,
    Event,
    ExchangeGift,
    GameOver,
    Gave,
    JackBackChanged,
    LockOn,
    OwedAction,
    Passed,
    Played,
    RevolutionChanged,
    RoundOver,
    RoundStarted,
    TrickEnded,
    WentOut,
)


def protocol_events(events: list[Event]) -> list[dict[str, Any]]:
    """The protocol form of ``events``, in order (game_over is the table's to add)."""
    out: list[dict[str, Any]] = []
    for event in events:
        told = _tell(event)
        if told is not None:
            out.append(told)
    return out


def _tell(event: Event) -> dict[str, Any] | None:
    if isinstance(event, Played):
        played = from_move(event.move, event.seat)
        told: dict[str, Any] = {"event": "play", "seat": event.seat, "cards": list(played.cards)}
        if played.jokers:
            told["jokers"] = dict(played.jokers)
        return told
    if isinstance(event, Passed):
        return {"event": "pass", "seat": event.seat}
    if isinstance(event, TrickEnded):
        return {
            "event": "trick_won",
            "seat": event.winner,
            "leader": event.leader,
            "cleared": event.cleared,
        }
    if isinstance(event, RevolutionChanged):
        return {"event": "revolution", "on": event.on}
    if isinstance(event, JackBackChanged):
        return {"event": "jack_back", "on": event.on}
    if isinstance(event, LockOn):
        return {"event": "lock", "suits": [SUIT_NAMES[s] for s in range(4) if event.suits >> s & 1]}
    if isinstance(event, OwedAction):
        told = {"event": "owed", "seat": event.seat, "kind": event.owed, "count": event.number}
        if event.receiver >= 0:
            told["to"] = event.receiver
        return told
    if isinstance(event, Gave):
        return {
            "event": "seven_pass",
            "seat": event.seat,
            "to": event.receiver,
            "count": event.number,
            "_private": {"seats": [event.seat, event.receiver], "cards": mask_names(event.cards)},
        }
    if isinstance(event, Discarded):
        return {"event": "discard", "seat": event.seat, "cards": mask_names(event.cards)}
    if isinstance(event, WentOut):
        return {"event": "went_out", "seat": event.seat, "place": event.place + 1, "how": event.how}
    if isinstance(event, ExchangeGift):
        if event.automatic:
            return None  # the automatic gifts are in each pair's view (R25), as before
        return {
            "event": "give",
            "seat": event.giver,
            "to": event.receiver,
            "count": event.number,
            "_private": {"seats": [event.giver, event.receiver], "cards": mask_names(event.cards)},
        }
    if isinstance(event, RoundOver):
        return {
            "event": "round_over",
            "round": event.round,
            "places": list(event.places),
            "titles": {str(seat): event.titles[seat] for seat in event.places},
            "round_points": list(event.points),
            "points": list(event.totals),
        }
    if isinstance(event, GameOver | RoundStarted):
        return None  # the table tells these with its own facts (game number, new deal)
    return None  # pragma: no cover - every event kind is handled above
