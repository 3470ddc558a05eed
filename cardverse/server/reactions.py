"""Quick reactions: a small fixed set (no free text, nothing to moderate), told to everyone.

A part handed to the table's room (:class:`Reactions`). What it owns:

- :data:`REACTIONS`: the keys a ``react`` message may name; each client shows its own words for
  them, translated (cardverse.web.messages).
- ``react`` from a seated person: a ``reaction`` message (``seat``, ``reaction``) to every
  connection of the table, spectators and watch links included. Spectators may not send one
  (``watchers_cannot_react``): an audience of many should not drown the players' table.
- The limit: a seat may react 3 times in a row, then once every 4 seconds
  (``reaction_rate_limited``, with ``retry_after``), whatever its connections.
- Reactions are not stored: they are of the moment, like a glance across the table, and a
  reload does not show old ones. Muting a person is the client's own choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .protocol import ProtocolError

REACTIONS = ("thumbs_up", "wow", "phew", "clap", "well_played", "hurry_up", "good_game")
REACTION_BURST = 3
REACTION_EVERY = 4.0  # seconds per reaction once the burst is spent


class Reactions:
    """The ``react`` message of one table, its limit per seat, and telling everyone."""

    __slots__ = ("_budget", "send_public")

    def __init__(self, send_public: Callable[[dict[str, Any]], None]) -> None:
        self.send_public = send_public
        self._budget: dict[int, tuple[float, float]] = {}  # seat -> (tokens, when); seats only

    def react(self, index: int | None, reaction: str) -> None:
        if index is None:
            raise ProtocolError(
                "watchers_cannot_react", "only the people seated at the table may react"
            )
        budget = self._budget
        now = time.monotonic()
        tokens, last = budget.get(index, (float(REACTION_BURST), now))
        tokens = min(float(REACTION_BURST), tokens + (now - last) / REACTION_EVERY)
        if tokens < 1.0:
            wait = round((1.0 - tokens) * REACTION_EVERY, 1)
            budget[index] = (tokens, now)
            raise ProtocolError(
                "reaction_rate_limited",
                f"at most {REACTION_BURST} reactions in a row, then one every "
                f"{REACTION_EVERY:g} seconds: try again in {wait:g} s",
                retry_after=wait,
            )
        budget[index] = (tokens - 1.0, now)
        self.send_public({"type": "reaction", "seat": index, "reaction": reaction})
