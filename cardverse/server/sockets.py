"""The WebSocket endpoint ``/ws/{table_id}`` (and ``/ws/watch/{watch_id}``): accepting a socket
within the address's limits, finding its table (here, or linked to the process that owns it),
reading its messages under the rate and idle limits, and :class:`WsConnection`, what its table
writes to (docs/protocol.md). The frames themselves are picows' (:mod:`.tablesockets`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

from redis.exceptions import RedisError

from . import protocol as P
from .answers import AddressLimits, RateLimit, find_table, no_table, try_again
from .cluster import CLOSE_TRY_AGAIN
from .eventlog import HeldMessages, StoreUnavailable
from .failures import internal_error, log_failure
from .metrics import observe_action
from .protocol import ProtocolError, parse_client_message
from .proxies import client_address, read_networks
from .tables import Table, TableService
from .tablesockets import Incoming, TableSocket
from .viewfilter import named_cards, render
from .wire import Synced

log = logging.getLogger("cardverse.server")


class WsConnection:
    """One browser tab's WebSocket, as its table sees it: messages written straight to the
    socket, in order, each once the store has committed what it tells (nothing is told before
    it is durable: :meth:`EventStore.after_commit`).

    A client that does not read is dropped: while the socket's write buffer is over its high
    mark (``pause_writing``), a buffer over ``outbox_bytes``, more than ``outbox_limit``
    messages written, or ``send_timeout`` seconds without it draining, abort the transport.
    """

    __slots__ = (
        "_held",
        "_idle",
        "_paused_writes",
        "_stall",
        "aborted",
        "closing",
        "limit",
        "program",
        "seat",
        "service",
        "settings",
        "sock",
        "standby",
        "synced",
        "table",
        "watch_only",
    )

    def __init__(self, sock: TableSocket, service: TableService) -> None:
        settings = service.settings
        self.sock = sock
        self.service = service
        self.settings = settings
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False  # over the table's watcher limit: may only join
        self.watch_only = False  # made with the watch link: may never take a seat
        # a program's, through the UECda port (programlink.ProgramSocket): it may join as one
        self.program: bool = getattr(sock, "program", False)
        self.synced: Synced | None = None  # what it holds of the game (the table keeps it)
        self.limit = RateLimit(settings.rate_per_second, settings.burst)
        # waiting for the store's commit
        self._held = HeldMessages(service.store, WsConnection._release, self)
        self.closing = False
        self.aborted = False
        self._paused_writes: int | None = None  # messages written while the socket is full
        self._stall: asyncio.TimerHandle | None = None
        self._idle = False  # its idle time is watched (see arm_idle)
        sock.conn = self

    def _put(self, item: str | tuple[int, str]) -> None:
        if not self._held.hold(item):
            self._write(item)

    def _release(self, held: list[str | tuple[int, str]]) -> None:
        for item in held:
            self._write(item)

    def _write(self, item: str | tuple[int, str]) -> None:
        if self.aborted:
            return
        if not isinstance(item, str):
            self.sock.close(*item)
            return
        self.sock.send_text(item)
        if self._paused_writes is not None:
            self._paused_writes += 1
            settings = self.settings
            if (
                self._paused_writes > settings.outbox_limit
                or self.sock.buffered() > settings.outbox_bytes
            ):
                self.abort("unread", "it does not read its messages")

    def send(self, text: str) -> None:
        if not self.closing and not self._held.hold(text):
            self._write(text)

    def send_committed(self, text: str) -> None:
        """A frame whose changes are durable already (a linked table's, which its owner sent
        after its own commit): it waits for no commit here, only behind what is held."""
        if self.closing:
            return
        if self._held.holding:
            self._put(text)
        else:
            self._write(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closing:
            self.closing = True
            self._put((code, reason))

    def abort(self, kind: str, why: str) -> None:
        """Drop the connection at once: the transport is aborted, nothing held is sent.
        ``kind`` counts it (``unread``: over the outbox's bounds; ``stalled``: over time)."""
        if self.aborted:
            return
        self.service.aborted[kind] = self.service.aborted.get(kind, 0) + 1
        self.aborted = self.closing = True
        self._held.clear()
        log.warning("aborting a connection: %s", why)
        self._stop_timers()
        self.sock.abort()

    def pause_writing(self) -> None:
        """The socket's write buffer went over its high mark: the client reads slower than it
        is written to. It must drain within ``send_timeout``."""
        self._paused_writes = 0
        if self.sock.buffered() > self.settings.outbox_bytes:
            self.abort("unread", "it does not read its messages")
            return
        if self._stall is None:
            timeout = self.settings.send_timeout
            self._stall = asyncio.get_running_loop().call_later(
                timeout,
                lambda: self.abort("stalled", f"a message was not taken within {timeout:g} s"),
            )

    def resume_writing(self) -> None:
        self._paused_writes = None
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def finish(self) -> None:
        """The client's side ended, or this side is done: close (after what is held)."""
        self.close(1000, "")

    # -- reading, once the table is attached ---------------------------------------------------

    def arm_idle(self) -> None:
        """From now on the connection is closed once it has sent no message for too long (the
        rate limit's clock says when the last one came). No timer of its own: the socket hub's
        sweep asks every connection (:meth:`check_idle`)."""
        self._idle = True
        self.check_idle(time.monotonic())

    def check_idle(self, now: float) -> None:
        """Close the connection if its last message came too long before ``now``."""
        if not self._idle or self.closing:
            return
        settings = self.settings
        wait = settings.standby_timeout if self.standby else settings.ws_idle_timeout
        if wait is not None and now - self.limit.last >= wait:
            self._idle = False
            self.close(P.CLOSE_IDLE, "no message for too long")
            self._end()

    def on_message(self, text: Incoming) -> None:
        """One message from the client (None: the connection is gone)."""
        current = self.table
        if text is None or current is None:  # gone, or replaced by a newer connection
            self._end()
            return
        if self.closing:
            return
        settings = self.settings
        if not self.limit.allow():
            if self.limit.dropped > settings.flood_limit:
                self.close(P.CLOSE_FLOOD, "too many messages")
                self._end()
            elif self.limit.dropped == 1:
                error = P.rate_limited(settings.rate_per_second, settings.burst)
                self.send(render(error.to_message(), self.seat, current.game))
            return
        if not isinstance(text, str):
            error = ProtocolError("bad_json", "send JSON text messages, not binary ones")
            self.send(render(error.to_message(), self.seat, current.game))
            return
        try:
            message = parse_client_message(text)
        except ProtocolError as error:  # it may repeat the client's own words (cards)
            echo = named_cards(error.received)
            self.send(render(error.to_message(), self.seat, current.game, echo=echo))
            return
        except Exception as failure:  # never the client's fault: it is told, goes on
            log_failure(log, "reading a client message", failure)
            self.send(render(internal_error(), self.seat, current.game))
            return
        started = time.perf_counter()
        current.handle(self, message)
        observe_action(message.type, time.perf_counter() - started)

    # What its socket calls with each message (TableSocket.hand_to): the connection itself,
    # not a bound method of it kept for each connection (64 bytes).
    __call__ = on_message

    def _end(self) -> None:
        """Reading is over: leave the table, and close once what is held is out."""
        self.sock.on_message = _ignore
        if self.table is not None:
            self.table.detach(self)
        self.finish()
        self._idle = False

    def _stop_timers(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
        self._stall = None
        self._idle = False


def _ignore(item: Incoming) -> None:
    return None


def origin_allowed(sock: TableSocket, allowed: tuple[str, ...] | list[str]) -> bool:
    """The socket's ``Origin`` is the site itself (same host and port as ``Host``) or one of
    ``allowed`` (see :func:`cardverse.guards.origin_allowed`, the same rule for HTTP)."""
    origin = sock.headers.get("origin")
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    parts = urlsplit(origin)
    host = sock.headers.get("host")
    return parts.scheme in ("http", "https") and host is not None and parts.netloc == host


def _refuse(sock: TableSocket, error: ProtocolError, code: int) -> None:
    sock.send_text(render(error.to_message(), None, None))
    sock.close(code, error.code)


def socket_server(state: object) -> Callable[[TableSocket], Coroutine[Any, Any, None]]:
    """What serves each new table socket of the app whose ``state`` this is."""

    async def serve(sock: TableSocket) -> None:
        await table_socket(state, sock)

    return serve


async def table_socket(state: object, sock: TableSocket) -> None:
    service: TableService = state.service  # type: ignore[attr-defined]
    limits: AddressLimits = state.limits  # type: ignore[attr-defined]
    settings = service.settings
    if not origin_allowed(sock, settings.allowed_origins):
        error = ProtocolError("bad_origin", "this table is played from this site's own pages")
        _refuse(sock, error, P.CLOSE_BAD_ORIGIN)
        return
    networks = read_networks(settings.trusted_proxies)
    address = client_address(sock.peer, sock.headers.getall("x-forwarded-for", []), networks)
    sock.forget_request()  # the headers are read
    if not limits.connect(address):
        error = ProtocolError(
            "too_many_connections",
            f"at most {settings.max_connections_per_address} connections from one address",
            limit=settings.max_connections_per_address,
        )
        _refuse(sock, error, P.CLOSE_TOO_MANY)
        return
    if sock.gone:
        limits.disconnect(address)
        return
    sock.counted_by, sock.address = limits, address  # told once, when the connection ends
    conn = WsConnection(sock, service)
    conn.watch_only = sock.watch  # a watch link: it may never take a seat
    await _serve_socket(sock, conn, service)


async def _serve_socket(sock: TableSocket, conn: WsConnection, service: TableService) -> None:
    table_id, watch = sock.table_id, sock.watch
    for _ in range(3):
        try:
            found = await find_table(service, table_id, watch)
            real_id = table_id
            if watch and isinstance(found, str):
                real_id = await service.locator.resolve_watch(table_id) or table_id
        except (StoreUnavailable, RedisError, ProtocolError) as failure:  # a backend is down
            if not isinstance(failure, ProtocolError):
                log.warning("a WebSocket could not find its table: %s", str(failure)[:200])
            refusal = failure if isinstance(failure, ProtocolError) else try_again()
            _try_again_later(conn, refusal)
            return
        if sock.gone:
            return
        if found is None:
            conn.send(render(no_table(table_id).to_message(), None, None))
            conn.close(P.CLOSE_NO_TABLE, "no such table")
            return
        if not isinstance(found, str):
            break
        # the table is another process's: this socket is linked to it
        if await service.cluster.serve_remote(sock, conn, real_id, found):
            conn.finish()
            return
    else:
        _try_again_later(conn, None)
        return
    table = found
    table.attach(conn)
    conn.arm_idle()
    sock.hand_to(conn)  # (conn.on_message: the connection is called, no bound method kept)


def _try_again_later(conn: WsConnection, refusal: ProtocolError | None) -> None:
    """Tell a socket why it must come back later (``refusal``), and close it with 1013."""
    if refusal is not None:
        conn.send(render(refusal.to_message(), None, None))
    conn.close(CLOSE_TRY_AGAIN, "try again")
