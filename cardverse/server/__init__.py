"""The multiplayer server: tables with share links, seats, real-time play over WebSocket.

- :mod:`.app`: the server's ASGI app (:func:`~.app.create_server_app`), its JSON API and
  WebSocket endpoint; the whole site, with the web pages, is
  :func:`cardverse.application.create_app`;
- :mod:`.protocol`: what the server receives (models), limits, error codes, the version;
- :mod:`.sent`: what the server sends, as JSON schema (the view's from the engine's description);
- :mod:`.table`: a table as decide → store → apply → outbox → clock, and the table service
  (the map: docs/server.md); :mod:`.tables` re-exports its names, :mod:`.settings` the defaults;
- :mod:`.stores`: :func:`~.stores.open_store`, the event log a server runs on (:mod:`.store`:
  SQLite, :mod:`.pgstore`: PostgreSQL, both on :mod:`.eventlog`'s base and errors);
- :mod:`.viewfilter`: the one function every outgoing message to a seat passes through;
- :mod:`.botrunner`: computer players' decisions off the event loop;
- :mod:`.cli`: the options of ``cardverse serve`` (their defaults are :class:`Settings`').

What the web pages share with the server (narration, story, invites, heartbeat) is in
:mod:`cardverse.tabletalk`, below both; this package imports nothing from :mod:`cardverse.web`.
"""

from __future__ import annotations

from .protocol import PROTOCOL_VERSION
from .settings import Settings

__all__ = ["PROTOCOL_VERSION", "Settings"]
