"""The heartbeat that finds a dead connection within five seconds, at both ends.

The server sends a WebSocket ping every :data:`PING_INTERVAL` seconds and closes a connection
whose pong has not come :data:`PING_TIMEOUT` seconds later (browsers answer pings by
themselves); the seat is then disconnected as after any close (the grace period starts). The
web client sends a ``ping`` message every :data:`CLIENT_PING_MS` and takes the connection as
dead after :data:`CLIENT_SILENCE_MS` without any message (static/js/table-net.js keeps the same
numbers).
"""

from __future__ import annotations

from typing import Any

PING_INTERVAL = 2.0
PING_TIMEOUT = 3.0
CLIENT_PING_MS = 2000
CLIENT_SILENCE_MS = 5000


def uvicorn_ws_options() -> dict[str, Any]:
    """uvicorn's WebSocket keep-alive settings for the heartbeat."""
    return {"ws_ping_interval": PING_INTERVAL, "ws_ping_timeout": PING_TIMEOUT}
