"""The protocol's events, told from the engine's events (never re-derived from the game's state).

:func:`protocol_events` turns what :meth:`Game.apply` (or :meth:`Game.start_next_round`) returned
into the ``event`` objects of docs/protocol.md. Each is named by its engine event's ``kind``
(``played``, ``passed``, ``trick_ended``, ``revolution``, ``owed``, ``gave``, ``discarded``,
``went_out``, ``exchange``, ``round_over``, and each part's trick state under its report's name:
a jack back, a lock) and carries the engine's values: a place counts from 0 (first place is 0),
as in the engine. Cards are named as in notation.md. Which seats may see an event's cards is the
engine's to say (:func:`cardverse.engine.events.for_seat`): cards that only some seats may see
(an exchange give-back, a seven pass) go under ``_private``, naming those seats, and the
server's view filter resolves them per recipient; the rest of the event is encoded once for
everyone.
"""

from __future__ import annotations

from typing import Any

from ..engine import from_move, mask_names
from ..engine.events import (
    Discarded,
    Event,
    ExchangeGift,
    GameOver,
    Gave,
    OwedAction,
    Passed,
    Played,
    RevolutionChanged,
    RoundOver,
    RoundStarted,
    TrickEnded,
    TrickStateChanged,
    WentOut,
    for_seat,
)


def protocol_events(events: list[Event], players: int) -> list[dict[str, Any]]:
    """The protocol form of ``events`` at a table of ``players`` seats, in order (game_over is
    the table's to add)."""
    out: list[dict[str, Any]] = []
    for event in events:
        told = _tell(event)
        if told is not None:
            if isinstance(event, Gave | ExchangeGift):
                _cards_for_whom_may_see(told, event, players)
            out.append(told)
    return out


def _cards_for_whom_may_see(told: dict[str, Any], event: Gave | ExchangeGift, players: int) -> None:
    """Put a passed hand's cards in ``told`` for the seats that :func:`for_seat` lets see them:
    in the open when every seat may, else under ``_private`` with those seats."""
    cards = mask_names(event.cards)
    if for_seat(event, None) is event:
        told["cards"] = cards
        return
    seats = [seat for seat in range(players) if for_seat(event, seat) is event]
    told["_private"] = {"seats": seats, "cards": cards}


def _tell(event: Event) -> dict[str, Any] | None:
    if isinstance(event, Played):
        played = from_move(event.move, event.seat)
        told: dict[str, Any] = {
            "event": event.kind,
            "seat": event.seat,
            "cards": list(played.cards),
        }
        if played.jokers:
            told["jokers"] = dict(played.jokers)
        return told
    if isinstance(event, Passed):
        return {"event": event.kind, "seat": event.seat}
    if isinstance(event, TrickEnded):
        return {
            "event": event.kind,
            "seat": event.winner,
            "leader": event.leader,
            "cleared": event.cleared,
        }
    if isinstance(event, RevolutionChanged):
        return {"event": event.kind, "on": event.on}
    if isinstance(event, TrickStateChanged):
        report = event.report
        return {"event": event.kind, report.event_key: report.to_json(event.value)}
    if isinstance(event, OwedAction):
        told = {"event": event.kind, "seat": event.seat, "kind": event.owed, "count": event.number}
        if event.receiver >= 0:
            told["to"] = event.receiver
        return told
    if isinstance(event, Gave):
        return {
            "event": event.kind,
            "seat": event.seat,
            "to": event.receiver,
            "count": event.number,
        }
    if isinstance(event, Discarded):
        return {"event": event.kind, "seat": event.seat, "cards": mask_names(event.cards)}
    if isinstance(event, WentOut):
        return {"event": event.kind, "seat": event.seat, "place": event.place, "how": event.how}
    if isinstance(event, ExchangeGift):
        if event.automatic:
            return None  # the automatic gifts are in each pair's view (R25), as before
        return {
            "event": event.kind,
            "seat": event.giver,
            "to": event.receiver,
            "count": event.number,
        }
    if isinstance(event, RoundOver):
        return {
            "event": event.kind,
            "round": event.round,
            "places": list(event.places),
            "titles": {str(seat): event.titles[seat] for seat in event.places},
            "round_points": list(event.points),
            "points": list(event.totals),
        }
    if isinstance(event, GameOver | RoundStarted):
        return None  # the table tells these with its own facts (game number, new deal)
    return None  # pragma: no cover - every event kind is handled above
