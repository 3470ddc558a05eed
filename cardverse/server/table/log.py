"""A table's log as the room writes it: the store holds every event, memory only the count.

:class:`TableLog` appends an event to the store (the first one creates the table there) under
this process's fencing number, and coalesces lobby changes: a run of them is one ``lobby`` row
(the lobby as it is after them), rewritten in place, so toggling options or seats does not grow
the log. What is in memory of the log is its length and the row of that lobby, nothing more:
the events themselves are folded into the state (:mod:`.apply`) and kept by the store.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..eventlog import EventStore
from .state import LOBBY_EVENTS, TablePhase


class TableLog:
    """Where the next event of one table goes in the store."""

    __slots__ = ("fence", "lobby_row", "n", "store", "table_id")

    def __init__(self, store: EventStore, table_id: str) -> None:
        self.store = store
        self.table_id = table_id
        self.n = 0  # events in the log
        self.fence = 0  # this process's fencing number for the table (see store.claim)
        self.lobby_row: int | None = None  # the coalesced lobby row at the log's end, if any

    def write(
        self,
        kind: str,
        data: dict[str, Any],
        phase: TablePhase,
        apply: Callable[[], None],
        lobby: Callable[[], dict[str, Any]],
        undo: Callable[[dict[str, Any]], None],
    ) -> None:
        """Store event ``kind`` and ``apply`` it (before storing for a coalesced lobby change,
        whose row is the ``lobby`` snapshot after it; ``undo`` puts the lobby back if the store
        refuses); raises what the store raises (nothing is applied then)."""
        store, fence = self.store, self.fence
        if kind in LOBBY_EVENTS and self.n > 0 and phase != "playing":
            before = lobby()
            apply()
            snapshot = lobby()
            try:
                if self.lobby_row is not None:
                    store.replace(self.table_id, self.lobby_row, "lobby", snapshot, fence=fence)
                else:
                    store.append(self.table_id, self.n, "lobby", snapshot, fence=fence)
                    self.lobby_row = self.n
                    self.n += 1
            except Exception:  # not stored: the lobby is as it was
                undo(before)
                raise
            return
        if self.n == 0:
            store.create_table(self.table_id, 0, kind, data, fence=fence)
        else:
            touch = kind != "move" or self.n % 64 == 0
            store.append(self.table_id, self.n, kind, data, touch, fence=fence)
        self.lobby_row = None
        self.n += 1
        apply()
