"""The heartbeat that finds a dead connection within five seconds, at both ends.

The server sends a WebSocket ping to a connection it has heard nothing from for
:data:`PING_INTERVAL` seconds, and closes it when nothing (its pong) has come
:data:`PING_TIMEOUT` seconds later (browsers answer pings by themselves; one timer sweeps all
connections: cardverse.server.tablesockets); the seat is then disconnected as after any close
(the grace period starts). The web client (static/js/table-net.js, which gets these numbers
from the page's config) sends a ``ping`` message every :data:`CLIENT_PING_MS` and, checking
every :data:`CLIENT_TICK_MS`, takes the connection as dead after :data:`CLIENT_SILENCE_MS`
without any message.
"""

from __future__ import annotations

PING_INTERVAL = 2.0
PING_TIMEOUT = 3.0
CLIENT_TICK_MS = 1000
CLIENT_PING_MS = 2000
CLIENT_SILENCE_MS = 4000  # + one tick: found within 5 s


def client_settings() -> dict[str, int]:
    """The web client's heartbeat, in milliseconds."""
    return {"tickMs": CLIENT_TICK_MS, "pingMs": CLIENT_PING_MS, "silenceMs": CLIENT_SILENCE_MS}
