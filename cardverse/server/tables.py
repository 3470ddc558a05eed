"""The table service's names where other code imports them (the parts are in
:mod:`cardverse.server.table`; docs/server.md has the map).

A :class:`Table` is one table at its share link (:class:`cardverse.server.table.room.Room`):
its seats, the host, options, the game in progress and the finished games' records. Every
change is an *event*: decided, stored, applied, and only then told to the connections;
restoring a table is a fold of its log.
"""

from __future__ import annotations

from .settings import Settings
from .table.room import Room as Table
from .table.service import TableService
from .table.state import Conn, Seat, TablePhase, new_table_id, new_token, token_hash

__all__ = [
    "Conn",
    "Seat",
    "Settings",
    "Table",
    "TablePhase",
    "TableService",
    "new_table_id",
    "new_token",
    "token_hash",
]
