"""The WebSocket endpoint ``/ws/{table_id}`` (and ``/ws/watch/{watch_id}``): accepting a socket
within the address's limits, finding its table (here, or linked to the process that owns it),
reading its messages under the rate and idle limits, and :class:`WsConnection`, the bounded
outbox its table writes to (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque

from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..guards import origin_allowed
from . import protocol as P
from .answers import AddressLimits, RateLimit, client_address, find_table, no_table, try_again
from .cluster import CLOSE_TRY_AGAIN
from .eventlog import HeldMessages, StoreUnavailable
from .failures import internal_error, log_failure
from .metrics import observe_action
from .protocol import ProtocolError, parse_client_message
from .tables import Table, TableService
from .viewfilter import named_cards, render
from .wire import Synced

log = logging.getLogger("cardverse.server")


class WsConnection:
    """One browser tab's WebSocket: an outbox drained in order by a writer task.

    The outbox is bounded in messages and in bytes; a message the socket does not take within
    ``send_timeout`` (a client that stopped reading) or an outbox over its bounds aborts the
    transport: nothing more is queued or waited for. While the store has a transaction open,
    messages wait for its commit (:meth:`EventStore.after_commit`): nothing is told before it is
    durable.
    """

    def __init__(self, websocket: WebSocket, service: TableService) -> None:
        settings = service.settings
        self.websocket = websocket
        self.service = service
        self.store = service.store
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False  # over the table's watcher limit: may only join
        self.watch_only = False  # made with the watch link: may never take a seat
        self.synced: Synced | None = None  # what it holds of the game (the table keeps it)
        self.limit = RateLimit(settings.rate_per_second, settings.burst)
        self.outbox_limit = settings.outbox_limit
        self.outbox_bytes = settings.outbox_bytes
        self.send_timeout = settings.send_timeout
        self.outbox: deque[str | tuple[int, str]] = deque()
        self.queued = 0  # bytes (characters) in the outbox
        self._held = HeldMessages(self.store, self._release)  # waiting for the store's commit
        self._wakeup: asyncio.Future[None] | None = None
        self.closing = False
        self.aborted = False
        self.writer: asyncio.Task[None] | None = None
        self._sending_since: float | None = None  # when the message being sent was taken
        self._watchdog: asyncio.TimerHandle | None = None  # see _watch_sending

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def _put(self, item: str | tuple[int, str]) -> None:
        if not self._held.hold(item):
            self._enqueue(item)

    def _release(self, held: list[str | tuple[int, str]]) -> None:
        for item in held:
            self._enqueue(item)

    def _enqueue(self, item: str | tuple[int, str]) -> None:
        if self.aborted:
            return
        if isinstance(item, str):
            self.queued += len(item)
            if self.queued > self.outbox_bytes or len(self.outbox) >= self.outbox_limit:
                self.abort("unread", "it does not read its messages")
                return
        self.outbox.append(item)
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def send(self, text: str) -> None:
        if self.closing:
            return
        self._put(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closing:
            self.closing = True
            self._put((code, reason))

    def abort(self, kind: str, why: str) -> None:
        """Drop the connection at once: the transport is aborted, nothing queued is sent.
        ``kind`` counts it (``unread``: over the outbox's bounds; ``stalled``: over time)."""
        if self.aborted:
            return
        self.service.aborted[kind] = self.service.aborted.get(kind, 0) + 1
        self.aborted = self.closing = True
        self.outbox.clear()
        self._held.clear()
        self.queued = 0
        log.warning("aborting a connection: %s", why)
        transport = _transport(self.websocket)
        if transport is not None:
            transport.abort()
        writer = self.writer
        if writer is not None and not writer.done() and writer is not asyncio.current_task():
            writer.cancel()

    def _watch_sending(self) -> None:
        """The send watchdog: a message taken longer than ``send_timeout`` aborts the
        connection. One timer a connection, looking at when the current send began, instead
        of a timer moved for every message; it lapses while nothing is being sent."""
        self._watchdog = None
        since = self._sending_since
        if since is None or self.aborted:
            return
        loop = asyncio.get_running_loop()
        due = since + self.send_timeout
        if loop.time() >= due:
            self.abort("stalled", f"a message was not taken within {self.send_timeout:g} s")
        else:
            self._watchdog = loop.call_at(due, self._watch_sending)

    async def _write(self) -> None:
        websocket = self.websocket
        outbox = self.outbox
        loop = asyncio.get_running_loop()
        try:
            while True:
                while outbox:
                    item = outbox.popleft()
                    self._sending_since = loop.time()
                    if self._watchdog is None:
                        self._watchdog = loop.call_at(
                            self._sending_since + self.send_timeout, self._watch_sending
                        )
                    if isinstance(item, str):
                        self.queued -= len(item)
                        await websocket.send_text(item)
                        continue
                    code, reason = item
                    if websocket.application_state is not WebSocketState.DISCONNECTED:
                        await websocket.close(code, reason)
                    return
                self._sending_since = None
                self._wakeup = loop.create_future()
                await self._wakeup
                self._wakeup = None
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        except asyncio.CancelledError:
            return
        except Exception:  # pragma: no cover - a transport failure
            log.exception("writing to a connection failed")
        finally:
            self.closing = True
            self._sending_since = None
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None

    async def finish(self) -> None:
        """Stop the writer once the queued messages are out (the reader has ended)."""
        self.closing = True
        self._put((1000, ""))
        if self.writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self.writer), timeout=self.send_timeout)
            if not self.writer.done():
                self.abort("stalled", "it did not take its last messages")


def _transport(websocket: WebSocket) -> asyncio.Transport | None:
    """The connection's transport (uvicorn's protocol object is the ASGI ``send``'s owner)."""
    owner = getattr(getattr(websocket, "_send", None), "__self__", None)
    transport = getattr(owner, "transport", None)
    return transport if isinstance(transport, asyncio.BaseTransport) else None  # type: ignore[return-value]


async def _refuse_socket(websocket: WebSocket, error: ProtocolError, code: int) -> None:
    await websocket.accept()
    await websocket.send_text(render(error.to_message(), None, None))
    await websocket.close(code, error.code)


async def table_socket(websocket: WebSocket) -> None:
    service: TableService = websocket.app.state.service
    settings = service.settings
    limits: AddressLimits = websocket.app.state.limits
    watch_id = websocket.path_params.get("watch_id")
    table_id = watch_id if watch_id is not None else websocket.path_params["table_id"]
    if not origin_allowed(websocket, settings.allowed_origins):
        error = ProtocolError("bad_origin", "this table is played from this site's own pages")
        await _refuse_socket(websocket, error, P.CLOSE_BAD_ORIGIN)
        return
    address = client_address(websocket)
    if not limits.connect(address):
        error = ProtocolError(
            "too_many_connections",
            f"at most {settings.max_connections_per_address} connections from one address",
            limit=settings.max_connections_per_address,
        )
        await _refuse_socket(websocket, error, P.CLOSE_TOO_MANY)
        return
    try:
        await _serve_socket(websocket, service, table_id, watch=watch_id is not None)
    finally:
        limits.disconnect(address)


async def _serve_socket(
    websocket: WebSocket, service: TableService, table_id: str, *, watch: bool = False
) -> None:
    settings = service.settings
    await websocket.accept()
    conn = WsConnection(websocket, service)
    conn.watch_only = watch  # a watch link: it may never take a seat
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
            await _try_again_later(websocket, conn, refusal)
            return
        if found is None:
            await websocket.send_text(render(no_table(table_id).to_message(), None, None))
            await websocket.close(P.CLOSE_NO_TABLE, "no such table")
            return
        if not isinstance(found, str):
            break
        if conn.writer is None:
            conn.start()  # the table is another process's: this socket is linked to it
        if await service.cluster.serve_remote(websocket, conn, real_id, found):
            await conn.finish()
            return
    else:
        await _try_again_later(websocket, conn, None)
        return
    table = found
    if conn.writer is None:
        conn.start()
    table.attach(conn)
    loop = asyncio.get_running_loop()
    try:
        # One idle timer a connection, not set and cancelled for every message: it goes off
        # between ``wait`` and ``wait`` + a slack (a tenth of it, 10 s at most) after the
        # last message, and is moved on only when a message leaves it less than ``wait``.
        async with asyncio.timeout(None) as idle:
            while not conn.closing:
                wait = settings.standby_timeout if conn.standby else settings.ws_idle_timeout
                when = idle.when()
                if wait is None:
                    if when is not None:
                        idle.reschedule(None)
                else:
                    earliest, slack = loop.time() + wait, min(10.0, wait / 10)
                    if when is None or not earliest <= when <= earliest + slack:
                        idle.reschedule(earliest + slack)
                incoming = await websocket.receive()
                if incoming["type"] == "websocket.disconnect":
                    break
                text = incoming.get("text")
                current = conn.table
                if current is None:  # replaced by a newer connection
                    break
                if not conn.limit.allow():
                    if conn.limit.dropped > settings.flood_limit:
                        conn.close(P.CLOSE_FLOOD, "too many messages")
                        break
                    if conn.limit.dropped == 1:
                        error = P.rate_limited(settings.rate_per_second, settings.burst)
                        conn.send(render(error.to_message(), conn.seat, current.game))
                    continue
                if text is None:
                    error = ProtocolError("bad_json", "send JSON text messages, not binary ones")
                    conn.send(render(error.to_message(), conn.seat, current.game))
                    continue
                try:
                    message = parse_client_message(text)
                except ProtocolError as error:  # it may repeat the client's own words (cards)
                    echo = named_cards(error.received)
                    conn.send(render(error.to_message(), conn.seat, current.game, echo=echo))
                    continue
                except Exception as failure:  # never the client's fault: it is told, goes on
                    log_failure(log, "reading a client message", failure)
                    conn.send(render(internal_error(), conn.seat, current.game))
                    continue
                started = time.perf_counter()
                current.handle(conn, message)
                observe_action(message.type, time.perf_counter() - started)
    except TimeoutError:
        conn.close(P.CLOSE_IDLE, "no message for too long")
    except WebSocketDisconnect:
        pass
    finally:
        if conn.table is not None:
            conn.table.detach(conn)
        await conn.finish()


async def _try_again_later(
    websocket: WebSocket, conn: WsConnection, refusal: ProtocolError | None
) -> None:
    """Tell a socket why it must come back later (``refusal``), and close it with 1013."""
    text = render(refusal.to_message(), None, None) if refusal is not None else None
    if conn.writer is None:  # nothing else writes to the socket yet
        if text is not None:
            await websocket.send_text(text)
        await websocket.close(CLOSE_TRY_AGAIN, "try again")
        return
    if text is not None:
        conn.send(text)
    conn.close(CLOSE_TRY_AGAIN, "try again")
    await conn.finish()
