"""The HTTP server's side of connections: uvicorn's settings and idle/half-open time-outs, and
where a table's WebSocket leaves uvicorn.

uvicorn closes a keep-alive connection that stays idle *between* requests, but keeps a
connection that never sends a request, or stops half-way through a request's head or body, for
ever. :class:`TimedH11Protocol` closes such a connection after ``request_timeout`` seconds, and
stops reading a request whose answer was sent before its body was read (a body over the limit
is not parsed to its end on the event loop). An upgrade to a table's WebSocket is handed to
picows on the same connection (:mod:`.tablesockets`; one port for the whole site), which keeps
it to the heartbeat (``ws_ping_interval``/``ws_ping_timeout``, :mod:`cardverse.tabletalk.
heartbeat`: half-open sockets) and to the server's idle time-out for WebSockets
(:attr:`~cardverse.server.tables.Settings.ws_idle_timeout`). :func:`uvicorn_config` gathers
every setting the server runs with, for ``cardverse serve`` and the tests alike: a server
started without it has no table WebSockets.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..tabletalk.heartbeat import PING_INTERVAL, PING_TIMEOUT
from .protocol import MAX_MESSAGE_BYTES
from .tablesockets import SocketHub, hand_over, route

if TYPE_CHECKING:
    from .handoff import Handoff


@dataclass(frozen=True)
class ConnectionLimits:
    """Time-outs and limits of the HTTP server (seconds)."""

    request_timeout: float = 10.0  # a request's head and body arrive within this
    keep_alive: float = 5.0  # an idle keep-alive connection is closed after this
    ws_ping_interval: float = PING_INTERVAL  # a WebSocket is pinged this often ...
    ws_ping_timeout: float = PING_TIMEOUT  # ... and closed when the answer is later (heartbeat)
    max_connections: int = 4000  # open connections over this are answered 503


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request does not arrive in time."""

    request_timeout = 10.0
    DISCARD_LIMIT = 64 * 1024
    socket_hub: SocketHub | None = None  # the app's table WebSockets (picows), if it has any
    handoff: Handoff | None = None  # --workers: sockets passed to a sibling owning their table

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.handoff is not None:
            self.handoff.server_state = self.server_state
        self._request_timer: asyncio.TimerHandle | None = None
        self._discarded: int | None = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._discarded is not None:
            self._discarded += len(data)
            if self._discarded > self.DISCARD_LIMIT:
                self._discarded = None
                self.transport.close()
                return
        super().data_received(data)
        if self._discarded is not None and self.conn.their_state is not h11.SEND_BODY:
            self._discarded = None  # the dropped body ended: the connection goes on

    def _arm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
        self._request_timer = self.loop.call_later(self.request_timeout, self._on_request_timeout)

    def on_response_complete(self) -> None:
        # Answered before the body was read to its end (too large, wrong type): the rest of a
        # short body is read and dropped (the connection stays usable), but past
        # DISCARD_LIMIT bytes the connection is closed rather than parse more on the loop.
        self._discarded = 0 if self.conn.their_state is h11.SEND_BODY else None
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request (keep-alive) gets its own time

    def connection_lost(self, exc: Exception | None) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """A table's WebSocket goes to picows (:mod:`.tablesockets`); any other to uvicorn's."""
        hub = self.socket_hub
        found = route(event.target) if hub is not None else None
        if hub is None or found is None:
            super().handle_websocket_upgrade(event)
            return
        head = [event.method, b" ", event.target, b" HTTP/1.1\r\n"]
        for name, value in self.headers:
            head += [name, b": ", value, b"\r\n"]
        head.append(b"\r\n")
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None
        if self.handoff is not None:
            self.handoff.upgrade(self, b"".join(head), *found)
        else:
            hand_over(hub, self, b"".join(head))

    def _on_request_timeout(self) -> None:
        self._request_timer = None
        transport = self.transport
        if transport.is_closing() or transport.get_protocol() is not self:
            return  # closed, or upgraded to a WebSocket
        waiting_for_client = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
        if self.cycle is not None and not self.cycle.response_complete:
            waiting_for_client = self.conn.their_state is h11.SEND_BODY
        if waiting_for_client:
            transport.close()
        else:  # the application is still answering: look again later
            self._arm()


def uvicorn_config(app: Any, limits: ConnectionLimits, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for the app with these limits (``options`` are passed on)."""
    max_size = options.get("ws_max_size", 64 * MAX_MESSAGE_BYTES)
    state = getattr(app, "state", None)
    hub = handoff = None
    if state is not None and getattr(state, "service", None) is not None:
        # imported here: the endpoint imports the metrics, which must come after
        # PROMETHEUS_MULTIPROC_DIR is set (cli.serve with --workers)
        from .sockets import socket_server

        serve = socket_server(state)
        table_settings = state.service.settings
        idle = (table_settings.ws_idle_timeout, table_settings.standby_timeout)
        hub = SocketHub(serve, limits.ws_ping_interval, limits.ws_ping_timeout, max_size, idle)
        directory = table_settings.handoff_dir
        if directory and getattr(state.service.locator, "cluster", None) is not None:
            from .handoff import Handoff

            handoff = Handoff(hub, state.service, directory, limits.max_connections)
            state.handoff = handoff  # started and stopped by the app's lifespan
    protocol = type(
        "TimedH11Protocol",
        (TimedH11Protocol,),
        {"request_timeout": limits.request_timeout, "socket_hub": hub, "handoff": handoff},
    )
    settings: dict[str, Any] = {
        "http": protocol,
        # uvicorn's upgrade is taken only with a WebSocket protocol set: the tables' is handed
        # to picows (TimedH11Protocol.handle_websocket_upgrade); any other WebSocket address
        # gets websockets' sans-I/O protocol, and the app, which has no WebSocket route, 403.
        # No per-message compression anywhere (frames are small and each is sent once).
        "ws": "websockets-sansio",
        "ws_max_size": max_size,  # 64 × MAX_MESSAGE_BYTES: larger is closed (1009), smaller but
        # over MAX_MESSAGE_BYTES is refused with a message
        "ws_per_message_deflate": False,
        "ws_ping_interval": limits.ws_ping_interval,
        "ws_ping_timeout": limits.ws_ping_timeout,
        "timeout_keep_alive": limits.keep_alive,
        "limit_concurrency": limits.max_connections,
        "lifespan": "on",
        # X-Forwarded-For is read by the app's own middleware, from trusted proxies only
        # (cardverse.server.proxies); uvicorn's would believe it from 127.0.0.1.
        "proxy_headers": False,
        "timeout_graceful_shutdown": 3,
        **options,
    }
    return uvicorn.Config(app, **settings)
