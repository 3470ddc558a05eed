"""The table WebSocket's transport: picows on the site's one port, beside uvicorn's HTTP.

uvicorn listens and parses every request's head (:class:`~cardverse.server.connections.
TimedH11Protocol`). A WebSocket upgrade to a table's address (``/ws/{table_id}``,
``/ws/watch/{watch_id}``) is handed over there (:func:`hand_over`): the connection's transport
is given to a picows protocol (:class:`TableSocketProtocol`), which answers the handshake and
from then on parses and writes the frames itself, so neither uvicorn's WebSocket protocol nor
Starlette's ``WebSocket`` (an ASGI queue, a task and about 29 KiB a connection) is in the path.
Everything else, plain HTTP included, stays with uvicorn and Starlette.

:class:`TableSocket` is one connection: its frames become messages (text, bytes, or ``None``
when it is gone) handed to a callback once the table is attached (:mod:`.sockets`) or the
socket is linked to another process's table (:mod:`.cluster`), and queued until then (or for
:meth:`TableSocket.receive`).
:class:`SocketHub` owns what the connections of one server share: the heartbeat, one timer for
all of them (a connection that has sent nothing for ``ping_interval`` is pinged, and closed when
nothing comes back within ``ping_timeout``), the largest message, and uvicorn's graceful
shutdown (close code 1012).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Protocol
from urllib.parse import unquote

from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, WSUpgradeRequest
from picows.picows import WSAutoPingStrategy, WSProtocol  # type: ignore[attr-defined]

log = logging.getLogger("cardverse.server")

#: What a socket hands on: a text or binary message, or None once the connection is gone.
Incoming = str | bytes | None

CLOSE_SERVICE_RESTART = 1012  # the server is shutting down: come back (as uvicorn sends)
CLOSE_TOO_BIG = 1009
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_BAD_DATA = 1007  # a text message that is not UTF-8
READ_BUFFER = 2048  # picows grows it when a frame needs more (messages here are small)

_TEXT = WSMsgType.TEXT
_MESSAGES = (WSMsgType.TEXT, WSMsgType.BINARY)  # a text or binary frame

#: The first bytes of a text frame of fewer than 126 bytes (FIN, text, its length).
_SHORT_HEADS = tuple(bytes((0x81, size)) for size in range(126))
# The last text frame made, kept to be written again as it is: a change's frame common to
# several recipients goes to each of them in a row (one encoding, one frame for them all).
_last_text: str | None = None
_last_frame = b""

# picows names each connection's logger after a logging.Logger it is given (one object per
# connection); an adapter is used as it is, one for all.
_PICOWS_LOG = logging.LoggerAdapter(logging.getLogger("cardverse.server.ws"), {})


_NO_HEADERS: Any = None


def _no_headers(headers: Any) -> Any:
    """One empty set of headers of picows' kind (its ``CIMultiDict``), shared by every socket
    whose headers are read (nothing writes to it: picows only does during the handshake)."""
    global _NO_HEADERS
    if _NO_HEADERS is None:
        _NO_HEADERS = type(headers)()
    return _NO_HEADERS


class AddressCounter(Protocol):
    """What counts the open connections of each client address (``answers.AddressLimits``)."""

    def disconnect(self, address: str) -> None: ...


def route(path: bytes) -> tuple[str, bool] | None:
    """The table id and whether it is a watch link, of a WebSocket request's target (None: not
    a table's address)."""
    parts = path.split(b"?", 1)[0].decode("latin-1").split("/")
    # interned: a table's sockets share one string for its id, the table's own (about 70
    # bytes a socket; an interned string goes when nothing holds it any more)
    if len(parts) == 3 and parts[1] == "ws" and parts[2]:
        return sys.intern(unquote(parts[2])), False
    if len(parts) == 4 and parts[1] == "ws" and parts[2] == "watch" and parts[3]:
        return sys.intern(unquote(parts[3])), True
    return None


class TableSocket(WSListener):
    """One table WebSocket: its request, its frames as messages, its writes and its close."""

    __slots__ = (
        "_fragments",
        "_fragments_size",
        "_pending",
        "_waiter",
        "address",
        "close_sent",
        "conn",
        "counted_by",
        "gone",
        "headers",
        "heard",
        "hub",
        "on_message",
        "peer",
        "ping_sent",
        "silent_sweeps",
        "table_id",
        "transport",
        "watch",
    )

    def __init__(self, hub: SocketHub, request: WSUpgradeRequest, table_id: str, watch: bool):
        self.hub = hub
        self.table_id = table_id
        self.watch = watch
        self.headers: Any = request.headers  # case-insensitive
        self.peer = "unknown"
        self.transport: WSTransport | None = None
        self.conn: Any = None  # sockets.WsConnection, once made
        self.on_message: Callable[[Incoming], None] | None = None
        self._pending: deque[Incoming] | None = None  # made when a message must wait
        self._waiter: asyncio.Future[None] | None = None
        self._fragments: list[bytes] | None = None
        self._fragments_size = 0
        self.gone = False
        self.close_sent = False
        self.heard = True  # a frame came since the heartbeat's last sweep
        self.silent_sweeps = 0
        self.ping_sent: float | None = None
        # What counts the connections of its client's address (told once, when it ends): two
        # fields, not a closure a connection (about 250 bytes).
        self.counted_by: AddressCounter | None = None
        self.address = ""

    # -- picows' callbacks -----------------------------------------------------------------------

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport
        peer = transport.underlying_transport.get_extra_info("peername")
        if peer:
            self.peer = str(peer[0])
        self.hub.connected(self)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        self.heard = True
        kind = frame.msg_type
        if kind in _MESSAGES:
            if frame.fin and self._fragments is None:
                if kind == _TEXT:
                    try:
                        text = frame.get_payload_as_utf8_text()
                    except UnicodeDecodeError:
                        self.close(CLOSE_BAD_DATA, "text is not UTF-8")
                        return
                    self._deliver(text)  # (a decoding error inside is not the client's text)
                else:
                    self._deliver(frame.get_payload_as_bytes())
                return
            self._fragments = [b"T" if kind == WSMsgType.TEXT else b"B"]
            self._fragments_size = 0
            self._fragment(frame)
        elif kind == WSMsgType.CONTINUATION:
            if self._fragments is None:
                self.close(CLOSE_PROTOCOL_ERROR, "unexpected continuation")
                return
            self._fragment(frame)
        elif kind == WSMsgType.CLOSE:
            if not self.close_sent:
                self.close_sent = True
                transport.send_close(frame.get_close_code())
            transport.disconnect()

    def _fragment(self, frame: WSFrame) -> None:
        parts = self._fragments
        assert parts is not None
        self._fragments_size += frame.payload_size
        if self._fragments_size > self.hub.max_size:
            self._fragments = None
            self.close(CLOSE_TOO_BIG, "message too big")
            return
        parts.append(frame.get_payload_as_bytes())
        if not frame.fin:
            return
        self._fragments = None
        data = b"".join(parts[1:])
        if parts[0] == b"B":
            self._deliver(data)
            return
        try:
            self._deliver(data.decode("utf-8"))
        except UnicodeDecodeError:
            self.close(CLOSE_BAD_DATA, "text is not UTF-8")

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.gone = True
        self.hub.disconnected(self)
        counted_by, self.counted_by = self.counted_by, None
        if counted_by is not None:
            counted_by.disconnect(self.address)
        self._deliver(None)

    def pause_writing(self) -> None:
        if self.conn is not None:
            self.conn.pause_writing()

    def resume_writing(self) -> None:
        if self.conn is not None:
            self.conn.resume_writing()

    # -- messages in -----------------------------------------------------------------------------

    def _deliver(self, item: Incoming) -> None:
        handler = self.on_message
        if handler is not None:
            handler(item)
            return
        pending = self._pending
        if pending is None:
            pending = self._pending = deque()
        pending.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def hand_to(self, handler: Callable[[Incoming], None]) -> None:
        """From now on ``handler`` takes each message as it comes (first those that waited)."""
        self.on_message = handler
        pending, self._pending = self._pending, None
        while pending and self.on_message is handler:
            handler(pending.popleft())

    async def receive(self) -> dict[str, Any]:
        """The next message, as an ASGI WebSocket event (``websocket.receive`` with ``text`` or
        ``bytes``, or ``websocket.disconnect``)."""
        while not self._pending:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        pending = self._pending
        assert pending is not None
        item = pending.popleft()
        if item is None:
            pending.appendleft(None)  # gone: every later call says so too
            return {"type": "websocket.disconnect"}
        if isinstance(item, str):
            return {"type": "websocket.receive", "text": item}
        return {"type": "websocket.receive", "bytes": item}

    # -- messages out ----------------------------------------------------------------------------

    def send_text(self, text: str) -> None:
        """Write a text frame. The frame is made here and written to the socket's transport
        (a server's frames are not masked): picows' own ``send`` copies each frame into a
        buffer of the connection's that stays as large as its largest frame (up to 8 KiB)."""
        transport = self.transport
        if transport is None or self.close_sent or self.gone:
            return
        global _last_text, _last_frame
        if text is _last_text:  # the same frame as the one before (a change's common frame)
            transport.underlying_transport.write(_last_frame)
            return
        data = text.encode()
        size = len(data)
        if size < 126:
            head = _SHORT_HEADS[size]
        elif size < 65536:
            head = b"\x81\x7e" + size.to_bytes(2, "big")
        else:
            head = b"\x81\x7f" + size.to_bytes(8, "big")
        frame = head + data
        _last_text, _last_frame = text, frame
        transport.underlying_transport.write(frame)

    def forget_request(self) -> None:
        """Drop the request's and the answer's headers and the request line (read once, when
        the socket is set up; picows keeps both objects for the connection's life, in
        browsers with their cookies): both get one empty set of headers shared by every
        socket (an emptied set of its own still took about 100 bytes)."""
        transport = self.transport
        if transport is not None:
            request = transport.request
            request.headers = _no_headers(request.headers)
            request.method = request.path = request.version = b""
            response = transport.response
            if response is not None:
                response.headers = _no_headers(response.headers)
        self.headers = None

    def buffered(self) -> int:
        """Bytes written and not yet taken by the socket."""
        if self.transport is None or self.gone:
            return 0
        return int(self.transport.underlying_transport.get_write_buffer_size())

    def close(self, code: int, reason: str = "") -> None:
        """Send a close frame; the connection ends when the client answers it, or after the
        heartbeat's time-out."""
        transport = self.transport
        if transport is None or self.gone or self.close_sent:
            return
        self.close_sent = True
        transport.send_close(WSCloseCode(code), reason.encode()[:120])
        self.hub.close_later(self)

    def abort(self) -> None:
        """Drop the connection at once (nothing written is sent)."""
        if self.transport is not None and not self.gone:
            self.transport.disconnect(graceful=False)


class TableSocketProtocol(WSProtocol):  # type: ignore[misc]
    """picows' protocol for a connection handed over by uvicorn: counted among uvicorn's
    connections (limit and graceful shutdown) until it ends."""

    __slots__ = ("server_state",)

    def __init__(self, hub: SocketHub, server_state: Any) -> None:
        super().__init__(
            None,  # host and port (a client's)
            None,  # path (a client's)
            False,  # the server's side
            hub.listener_for,
            _PICOWS_LOG,
            True,  # an exception in a callback closes the connection
            None,  # the handshake is already here (uvicorn read it)
            False,  # picows' own pings: a task per connection; SocketHub pings them all
            20.0,
            20.0,
            WSAutoPingStrategy.PING_WHEN_IDLE,
            True,  # answer pings
            hub.max_size,
            None,  # extra headers
            READ_BUFFER,
        )
        self.server_state = server_state
        server_state.connections.add(self)

    def feed(self, data: bytes) -> None:
        """Data read before the hand-over (the request's head)."""
        while data:
            buffer = self.get_buffer(len(data))
            taken = min(len(buffer), len(data))
            buffer[:taken] = data[:taken]
            self.buffer_updated(taken)
            data = data[taken:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.server_state.connections.discard(self)
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """uvicorn is stopping: tell the client to come back (1012), then close."""
        listener = self.listener
        if isinstance(listener, TableSocket) and not listener.close_sent:
            listener.close(CLOSE_SERVICE_RESTART, "the server is restarting")
        self.transport.disconnect()


class SocketHub:
    """The table WebSockets of one server: where a new one is served (``serve``, given each
    :class:`TableSocket` once its handshake is done), the heartbeat, the largest message."""

    def __init__(
        self,
        serve: Callable[[TableSocket], Coroutine[Any, Any, None]],
        ping_interval: float | None,
        ping_timeout: float | None,
        max_size: int,
        idle_timeouts: tuple[float | None, ...] = (),
    ) -> None:
        self.serve = serve
        self.ping_interval = ping_interval
        self.ping_timeout = ping_timeout
        self.max_size = max_size
        self.sockets: set[TableSocket] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        # The sweep also asks each connection whether it has been idle too long (its own
        # time-outs, ``idle_timeouts``, are checked to a quarter of the shortest).
        periods = [p for p in (ping_interval, ping_timeout, *idle_timeouts) if p]
        self.sweep_every = min(periods) / 4 if periods else 0.0

    def listener_for(self, request: WSUpgradeRequest) -> TableSocket | None:
        found = route(request.path)
        if found is None:
            return None  # picows answers 404
        return TableSocket(self, request, *found)

    def connected(self, sock: TableSocket) -> None:
        self.sockets.add(sock)
        loop = asyncio.get_running_loop()
        if self._sweeper is None and self.sweep_every:
            self._sweeper = loop.call_later(self.sweep_every, self._sweep)
        task = loop.create_task(self.serve(sock))
        task.add_done_callback(_log_failure)

    def disconnected(self, sock: TableSocket) -> None:
        self.sockets.discard(sock)

    def close_later(self, sock: TableSocket) -> None:
        """After a close frame: the client's answer ends the connection; without one it ends
        after the heartbeat's time-out (or 3 s)."""
        transport = sock.transport
        if transport is not None:
            asyncio.get_running_loop().call_later(self.ping_timeout or 3.0, transport.disconnect)

    def _sweep(self) -> None:
        """The heartbeat: ping a connection silent for ``ping_interval``; close one that has
        not answered a ping within ``ping_timeout``; and let each connection close itself when
        it has sent no message for too long (``check_idle``: one timer for all of them)."""
        self._sweeper = None
        if not self.sockets:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        clock = time.monotonic()
        interval, timeout = self.ping_interval, self.ping_timeout
        silent_for = interval / self.sweep_every if interval else None
        for sock in list(self.sockets):
            conn = sock.conn
            if conn is not None:
                conn.check_idle(clock)
            if sock.heard:
                sock.heard = False
                sock.silent_sweeps = 0
                sock.ping_sent = None
                continue
            sock.silent_sweeps += 1
            transport = sock.transport
            if transport is None or sock.close_sent:
                continue
            if sock.ping_sent is not None:
                if timeout and now - sock.ping_sent >= timeout:
                    log.info("closing a WebSocket that did not answer its ping")
                    transport.disconnect(graceful=False)
            elif silent_for is not None and sock.silent_sweeps >= silent_for:
                transport.send_ping()
                sock.ping_sent = now
        self._sweeper = loop.call_later(self.sweep_every, self._sweep)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("serving a WebSocket failed", exc_info=task.exception())


def _nothing(data: bytes) -> None:
    """(Never called: picows' protocol is a buffered one.)"""


class _HandedOver(asyncio.Protocol):
    # a plain function, not a method: reading it makes no bound method (64 bytes a connection)
    data_received = staticmethod(_nothing)


#: Set on a transport between uvicorn's protocol and picows': uvloop keeps the last plain
#: protocol's ``data_received`` when it is given a buffered one, which kept uvicorn's whole
#: HTTP protocol (its parser, headers and scope: about 1.8 KiB) alive for each connection.
_HANDED_OVER = _HandedOver()


def hand_over(hub: SocketHub, http: Any, head: bytes) -> None:
    """Give the connection of uvicorn's HTTP protocol ``http`` (its request's ``head`` read) to
    picows."""
    http.connections.discard(http)
    protocol = TableSocketProtocol(hub, http.server_state)
    transport = http.transport
    protocol.connection_made(transport)
    transport.set_protocol(_HANDED_OVER)
    transport.set_protocol(protocol)
    protocol.feed(head)
