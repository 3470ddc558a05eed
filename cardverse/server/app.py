"""The server's ASGI app: the JSON API under ``/api/...`` and the WebSocket under ``/ws/...``.

:func:`create_server_app` builds a Starlette app around one
:class:`~cardverse.server.tables.TableService` (``app.state.service``). It knows nothing of the
web pages: the top-level :mod:`cardverse.application` hands it the page routes, the error pages'
handlers and the page an outage shows to a person (:class:`Pages`).

HTTP:

- ``POST /api/tables`` ``{"name", "rules"?, "turn_timer"?}`` → 201 ``{"table_id", "seat",
  "token", "url", "ws", "protocol"}``: a new table, its creator (the host) in seat 0.
- ``GET /api/tables/{id}``: the public table state (seats, options, phase).
- ``GET /api/tables/{id}/records/{n}``: the game record (notation.md) of finished game ``n``.
- ``GET /api/health`` (``{"ok": true}`` only), ``GET /api/protocol`` (version and schemas);
- ``GET /api/operator``: counts of tables, connections and the store, for the operator only
  (``Authorization: Bearer <operator token>`` or an operator address), 404 otherwise.

WebSocket ``/ws/{table_id}``: see docs/protocol.md. Every resource a client can make the server
spend is bounded here or in :class:`~cardverse.server.tables.Settings`: request bodies (read no
further than the limit), tables created per address, connections per address, each
connection's unread output (in messages and bytes: a connection that does not drain within
``send_timeout`` or the byte budget has its transport aborted), and idle connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..guards import BodyTooLarge, SecurityHeaders, origin_allowed, read_body
from . import protocol as P
from .cluster import CLOSE_TRY_AGAIN
from .eventlog import HeldMessages, StoreUnavailable
from .failures import internal_error, log_failure
from .metrics import observe_action
from .protocol import ProtocolError, parse_client_message
from .proxies import TrustedProxies, read_networks
from .tables import Settings, Table, TableService
from .viewfilter import named_cards, render
from .wire import Synced

log = logging.getLogger("cardverse.server")

MAX_BODY_BYTES = 16 * 1024


class RateLimit:
    """A token bucket: ``rate`` messages a second with bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last = time.monotonic()
        self.dropped = 0  # messages dropped in a row

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.dropped = 0
            return True
        self.dropped += 1
        return False


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


class AddressLimits:
    """Per client address: open WebSocket connections, and a table-creation token bucket."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.connections: dict[str, int] = {}
        self.creations: dict[str, RateLimit] = {}

    def connect(self, address: str) -> bool:
        count = self.connections.get(address, 0)
        if count >= self.settings.max_connections_per_address:
            return False
        self.connections[address] = count + 1
        return True

    def disconnect(self, address: str) -> None:
        count = self.connections.get(address, 0) - 1
        if count > 0:
            self.connections[address] = count
        else:
            self.connections.pop(address, None)

    def may_create(self, address: str) -> bool:
        bucket = self.creations.get(address)
        if bucket is None:
            if len(self.creations) > 100_000:  # forget full buckets first
                self.creations = {a: b for a, b in self.creations.items() if b.tokens < b.burst - 1}
            bucket = RateLimit(self.settings.create_rate, self.settings.create_burst)
            self.creations[address] = bucket
        return bucket.allow()


def _address(connection: HTTPConnection) -> str:
    client = connection.client
    return client.host if client is not None else "unknown"


def _error_response(error: ProtocolError, status: int) -> JSONResponse:
    return JSONResponse(error.to_message(), status_code=status)


def _no_table(table_id: str) -> ProtocolError:
    return ProtocolError("no_such_table", "no table has this id", table_id=table_id[:64])


async def _read_json_body(request: Request) -> Any:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ProtocolError(
            "bad_content_type",
            "send the request body as application/json",
            content_type=content_type[:60],
        )
    try:
        body = await read_body(request, MAX_BODY_BYTES)
    except ClientDisconnect:
        raise ProtocolError("bad_json", "the request body was cut off") from None
    except BodyTooLarge as error:
        raise ProtocolError(
            "message_too_large",
            f"a request body may hold at most {MAX_BODY_BYTES} bytes",
            limit=MAX_BODY_BYTES,
            size=error.size,
        ) from None
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise ProtocolError(
            "bad_json",
            "the request body is not valid JSON (numbers have at most 4300 digits)",
        ) from None


def _status_of(error: ProtocolError) -> int:
    return {
        "message_too_large": 413,
        "bad_content_type": 415,
        "bad_origin": 403,
        "too_many_tables": 429,
        "too_many_lookups": 429,
        "server_busy": 503,
        "try_again": 503,
    }.get(error.code, 400)


TRY_AGAIN_SECONDS = 5  # Retry-After of a 503: the database or Redis is down, or a table moving


def _refusal(error: ProtocolError) -> JSONResponse:
    """An HTTP answer to a refused request: its status, and Retry-After when it is 503."""
    status = _status_of(error)
    response = _error_response(error, status)
    if status == 503:
        response.headers["Retry-After"] = str(TRY_AGAIN_SECONDS)
    return response


OUTAGES: tuple[type[Exception], ...] = (StoreUnavailable, RedisError)


#: A page for a person (``request``, status, headers), or None where machines are answered.
ErrorPage = Callable[[Request, int, dict[str, str]], Response | None]


@dataclass(frozen=True)
class Pages:
    """What the web layer adds to the server's app, handed in by :mod:`cardverse.application`:
    its routes, its exception handlers (error pages), and the page a person gets when the
    database or Redis is down (None where it answers machines: they get ``try_again``)."""

    routes: Sequence[BaseRoute] = ()
    exception_handlers: dict[Any, Any] = field(default_factory=dict)
    outage_page: ErrorPage | None = None


def outage_handler(page: ErrorPage | None) -> Callable[..., Any]:
    """The handler of a request that met the database or Redis down: ``try_again`` (503,
    Retry-After; a WebSocket: the error, then close code 1013); a person's page gets ``page``
    (the error page in their language) when one is given. (Handlers answer their own outages;
    this catches any that reaches the app.)"""

    async def outage(connection: HTTPConnection, exc: Exception) -> Response | None:
        log.warning("%s: %s", connection.url.path[:100], str(exc)[:200])
        if connection.scope["type"] == "websocket":
            assert isinstance(connection, WebSocket)
            with contextlib.suppress(Exception):
                if connection.application_state is WebSocketState.CONNECTING:
                    await connection.accept()
                await connection.send_text(render(_try_again().to_message(), None, None))
                await connection.close(CLOSE_TRY_AGAIN, "try again")
            return None
        assert isinstance(connection, Request)
        if page is not None and not connection.url.path.startswith(SERVER_PREFIXES):
            shown = page(connection, 503, {"Retry-After": str(TRY_AGAIN_SECONDS)})
            if shown is not None:
                return shown
        return _refusal(_try_again())

    return outage


SERVER_PREFIXES = ("/api/", "/ws/")  # the server's own addresses: machines, answered in JSON


async def create_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    settings = service.settings
    try:
        if not origin_allowed(request, settings.allowed_origins):
            raise ProtocolError("bad_origin", "tables are created from this site's own pages")
        data = await _read_json_body(request)
        if not isinstance(data, dict):
            raise ProtocolError("bad_message", "the body must be a JSON object")
        unknown = sorted(set(data) - {"name", "rules", "turn_timer"})
        if unknown:
            raise ProtocolError(
                "bad_message", f"unknown field {unknown[0]!r}", field=str(unknown[0])[:40]
            )
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise ProtocolError("bad_message", "name must be a string", field="name")
        rules = data.get("rules")
        if rules is not None and not isinstance(rules, dict):
            raise ProtocolError("bad_message", "rules must be a rules object", field="rules")
        limits: AddressLimits = request.app.state.limits
        if not limits.may_create(_address(request)):
            raise ProtocolError(
                "too_many_tables",
                f"at most {settings.create_burst} new tables at once and "
                f"{settings.create_rate * 60:g} a minute from one address: try again later",
                rate_per_minute=settings.create_rate * 60,
                burst=settings.create_burst,
            )
        table, token = await service.locator.create(name, rules, data.get("turn_timer", ...))
    except StoreUnavailable:
        return _refusal(_try_again())
    except ProtocolError as error:
        response = _refusal(error)
        if error.code == "too_many_tables":
            response.headers["Retry-After"] = str(max(1, round(1 / settings.create_rate)))
        return response
    return JSONResponse(
        {
            "table_id": table.id,
            "seat": 0,
            "token": token,
            "url": f"/t/{table.id}",
            "ws": f"/ws/{table.id}",
            "protocol": P.PROTOCOL_VERSION,
        },
        status_code=201,
    )


def _try_again() -> ProtocolError:
    return ProtocolError(
        "try_again", "the server cannot reach its database just now: try again in a moment"
    )


async def _find(service: TableService, table_id: str, watch: bool = False) -> Table | str | None:
    """The table here (loaded if need be), the node id of the process that owns it (several
    processes), or None."""
    return await service.locator.find(table_id, watch)


async def get_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    table_id = request.path_params["table_id"]
    try:
        found = await _find(service, table_id)
    except StoreUnavailable:
        return _refusal(_try_again())
    except ProtocolError as error:  # Redis down (try_again), a table moving (server_busy)
        return _refusal(error)
    if found is None:
        return _error_response(_no_table(table_id), 404)
    if isinstance(found, str):
        answer = await service.locator.ask(found, "summary", table_id)
        if answer.get("status") != 200:
            return _refusal(_try_again())
        return JSONResponse(answer["body"])
    return JSONResponse(found.summary())


async def get_record(request: Request) -> Response:
    service: TableService = request.app.state.service
    watch_id = request.path_params.get("watch_id")
    table_id = watch_id if watch_id is not None else request.path_params["table_id"]
    try:
        found = await _find(service, table_id, watch=watch_id is not None)
    except StoreUnavailable:
        return _refusal(_try_again())
    except ProtocolError as error:  # Redis down (try_again), a table moving (server_busy)
        return _refusal(error)
    if found is None:
        return _error_response(_no_table(table_id), 404)
    if isinstance(found, str):
        answer = await service.locator.ask(found, "records", table_id)
        if answer.get("status") != 200:
            return _refusal(_try_again())
        records: list[str] = list(answer["records"])
    else:
        records = found.records
    number: int = request.path_params["number"]
    if not 1 <= number <= len(records):
        missing = ProtocolError(
            "game_not_found",
            f"this table has {len(records)} finished game(s); a game still being "
            "played has no record to download yet",
            games=len(records),
        )
        return _error_response(missing, 404)
    return Response(
        records[number - 1],
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="cardverse-{table_id}-{number}.json"'
        },
    )


async def find_invite(request: Request) -> Response:
    """``GET /api/invites/{code}``: the table of an invite code (failed look-ups are limited
    per address and for everyone: cardverse.tabletalk.invites)."""
    service: TableService = request.app.state.service
    code = request.path_params["code"][:40]
    try:
        table = service.find_by_code(code, _address(request))
    except StoreUnavailable:
        return _refusal(_try_again())
    except ProtocolError as error:
        response = _refusal(error)
        if error.code == "too_many_lookups":
            response.headers["Retry-After"] = str(error.params.get("retry_after", 60))
        return response
    if table is None:
        unknown = ProtocolError("unknown_invite_code", "no table has this invite code", typed=code)
        return _error_response(unknown, 404)
    return JSONResponse({"table_id": table.id, "url": f"/t/{table.id}"})


async def health(request: Request) -> Response:
    """For load balancers: ``alive`` (the process answers) and ``ready`` (it can serve tables:
    its store answers, and with several processes its Redis link is up); 503 when not ready."""
    service: TableService = request.app.state.service
    ready, why = service_ready(service)
    body: dict[str, Any] = {"ok": True, "alive": True, "ready": ready}
    if why:
        body["why"] = why
    if request.url.path.endswith("/live"):
        return JSONResponse(body)
    return JSONResponse(
        body, status_code=200 if ready or request.url.path == "/api/health" else 503
    )


def service_ready(service: TableService) -> tuple[bool, str | None]:
    try:
        service.store.exists("")  # a cheap read: the database answers
    except StoreUnavailable:
        return False, "the database cannot be reached"
    return service.locator.ready()


async def metrics_endpoint(request: Request) -> Response:
    """Prometheus metrics, for the operator only (404 for anyone else)."""
    service: TableService = request.app.state.service
    if not _is_operator(request, service.settings):
        return _error_response(ProtocolError("not_found", "no such page"), 404)
    from .metrics import render_metrics

    body, content_type = render_metrics(service)
    return Response(body, media_type=content_type)


def _is_operator(request: Request, settings: Settings) -> bool:
    token = settings.operator_token
    given = request.headers.get("authorization", "")
    if token and given.startswith("Bearer "):
        import hmac

        if hmac.compare_digest(given[len("Bearer ") :].encode(), token.encode()):
            return True
    return _address(request) in settings.operator_addresses


async def operator_info(request: Request) -> Response:
    """Counts for the operator (404 for anyone else: the endpoint is not advertised)."""
    service: TableService = request.app.state.service
    if not _is_operator(request, service.settings):
        return _error_response(ProtocolError("not_found", "no such page"), 404)
    limits: AddressLimits = request.app.state.limits
    return JSONResponse(
        {
            **service.counts(),
            "connections": sum(limits.connections.values()),
            "addresses": len(limits.connections),
        }
    )


async def protocol_info(request: Request) -> Response:
    return JSONResponse(P.json_schemas())


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
    address = _address(websocket)
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
            found = await _find(service, table_id, watch)
            real_id = table_id
            if watch and isinstance(found, str):
                real_id = await service.locator.resolve_watch(table_id) or table_id
        except (StoreUnavailable, RedisError, ProtocolError) as failure:  # a backend is down
            if not isinstance(failure, ProtocolError):
                log.warning("a WebSocket could not find its table: %s", str(failure)[:200])
            refusal = failure if isinstance(failure, ProtocolError) else _try_again()
            await _try_again_later(websocket, conn, refusal)
            return
        if found is None:
            await websocket.send_text(render(_no_table(table_id).to_message(), None, None))
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


def create_server_app(settings: Settings, pages: Pages | None = None) -> Starlette:
    """The server's ASGI app on ``settings``, with the web layer's ``pages`` if given (the
    whole site is :func:`cardverse.application.create_app`)."""
    pages = pages or Pages()
    service = TableService(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restored = service.restore_all()
        if restored:
            log.info("restored %d table(s) from %s", restored, service.store.path)
        service.start()
        service.locator.start()
        try:
            yield
        finally:
            await service.locator.close()
            service.close()

    handlers: dict[Any, Any] = dict(pages.exception_handlers)
    outage = outage_handler(pages.outage_page)
    for kind in OUTAGES:
        handlers[kind] = outage
    app = Starlette(
        routes=[
            Route("/api/health", health, methods=["GET"]),
            Route("/api/health/live", health, methods=["GET"]),
            Route("/api/health/ready", health, methods=["GET"]),
            Route("/api/metrics", metrics_endpoint, methods=["GET"]),
            Route("/api/protocol", protocol_info, methods=["GET"]),
            Route("/api/operator", operator_info, methods=["GET"]),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/tables/{table_id}", get_table, methods=["GET"]),
            Route("/api/invites/{code}", find_invite, methods=["GET"]),
            Route("/api/tables/{table_id}/records/{number:int}", get_record, methods=["GET"]),
            Route("/api/watch/{watch_id}/records/{number:int}", get_record, methods=["GET"]),
            WebSocketRoute("/ws/{table_id}", table_socket),
            WebSocketRoute("/ws/watch/{watch_id}", table_socket),
            *pages.routes,  # the web pages, handed in (cardverse.application)
        ],
        # the web's error pages, handed in; try_again when a backend is down
        exception_handlers=handlers,
        lifespan=lifespan,
        middleware=[
            Middleware(TrustedProxies, networks=read_networks(settings.trusted_proxies)),
            Middleware(SecurityHeaders),
        ],
    )
    app.state.service = service
    app.state.limits = AddressLimits(settings)
    app.state.settings = settings
    return app
