"""The multiplayer server: tables with share links, seats, real-time play over WebSocket.

- :mod:`.app`: the ASGI app (:func:`create_app`), its JSON API and WebSocket endpoint;
- :mod:`.protocol`: message models, limits, error codes, the protocol version;
- :mod:`.table`: a table as decide → store → apply → outbox → clock, and the table service
  (the map: docs/server.md); :mod:`.tables` re-exports its names, :mod:`.settings` the defaults;
- :mod:`.store`: the SQLite append-only event log that tables are restored from;
- :mod:`.viewfilter`: the one function every outgoing message to a seat passes through;
- :mod:`.botrunner`: computer players' decisions off the event loop;
- :mod:`.story`: the round's events for the log, the score sheet, final titles, the away list;
- :mod:`.heartbeat`: finding a dead connection within 5 s at both ends;
- :mod:`.cli`: ``cardverse serve``.
"""

from __future__ import annotations

from .protocol import PROTOCOL_VERSION
from .settings import Settings

__all__ = ["PROTOCOL_VERSION", "Settings", "create_app"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
