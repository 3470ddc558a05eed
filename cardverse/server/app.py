"""The ASGI application: the JSON API under ``/api/...`` and the WebSocket under ``/ws/...``.

:func:`create_app` builds a Starlette app around one :class:`~cardverse.server.tables.TableService`
(``app.state.service``). Page routes (``/``, ``/t/{table_id}``) are left free for the web layer,
which mounts its templates and static files on the same app.

HTTP:

- ``POST /api/tables`` ``{"name", "rules"?, "turn_timer"?}`` → 201 ``{"table_id", "seat",
  "token", "url", "ws", "protocol"}``: a new table, its creator (the host) in seat 0.
- ``GET /api/tables/{id}``: the public table state (seats, options, phase).
- ``GET /api/tables/{id}/records/{n}``: the game record (notation.md) of finished game ``n``.
- ``GET /api/health``, ``GET /api/protocol`` (version and JSON schemas).

WebSocket ``/ws/{table_id}``: see docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..web import error_handlers, web_routes
from . import protocol as P
from .protocol import ProtocolError, parse_client_message
from .tables import Settings, Table, TableService
from .viewfilter import render

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
    """One browser tab's WebSocket: an outbox drained in order by a writer task."""

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.table: Table | None = None
        self.limit = RateLimit(settings.rate_per_second, settings.burst)
        self.outbox_limit = settings.outbox_limit
        self.outbox: deque[str | tuple[int, str]] = deque()
        self._wakeup: asyncio.Future[None] | None = None
        self.closing = False
        self.writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def _put(self, item: str | tuple[int, str]) -> None:
        self.outbox.append(item)
        wakeup = self._wakeup
        if wakeup is not None and not wakeup.done():
            wakeup.set_result(None)

    def send(self, text: str) -> None:
        if self.closing:
            return
        if len(self.outbox) >= self.outbox_limit:
            log.warning("closing a connection that does not read its messages")
            self.close(P.CLOSE_SLOW, "too many unread messages")
            return
        self._put(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closing:
            self.closing = True
            self._put((code, reason))

    async def _write(self) -> None:
        websocket = self.websocket
        outbox = self.outbox
        loop = asyncio.get_running_loop()
        try:
            while True:
                while outbox:
                    item = outbox.popleft()
                    if isinstance(item, str):
                        await websocket.send_text(item)
                        continue
                    code, reason = item
                    if websocket.application_state is not WebSocketState.DISCONNECTED:
                        await websocket.close(code, reason)
                    return
                self._wakeup = loop.create_future()
                await self._wakeup
                self._wakeup = None
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        except Exception:  # pragma: no cover - a transport failure
            log.exception("writing to a connection failed")
        finally:
            self.closing = True

    async def finish(self) -> None:
        """Stop the writer once the queued messages are out (the reader has ended)."""
        self.closing = True
        self._put((1000, ""))
        if self.writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(self.writer, timeout=2.0)
            if not self.writer.done():
                self.writer.cancel()


def _error_response(error: ProtocolError, status: int) -> JSONResponse:
    return JSONResponse(error.to_message(), status_code=status)


def _no_table(table_id: str) -> ProtocolError:
    return ProtocolError("no_such_table", "no table has this id", table_id=table_id[:64])


async def _read_json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise ProtocolError(
            "message_too_large",
            f"a request body may hold at most {MAX_BODY_BYTES} bytes",
            limit=MAX_BODY_BYTES,
            size=len(body),
        )
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise ProtocolError("bad_json", "the request body is not valid JSON") from None


async def create_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    try:
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
        table, token = service.create(name, rules, data.get("turn_timer", ...))
    except ProtocolError as error:
        return _error_response(error, 400)
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


async def get_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    table_id = request.path_params["table_id"]
    table = service.get(table_id)
    if table is None:
        return _error_response(_no_table(table_id), 404)
    return JSONResponse(table.summary())


async def get_record(request: Request) -> Response:
    service: TableService = request.app.state.service
    table_id = request.path_params["table_id"]
    table = service.get(table_id)
    if table is None:
        return _error_response(_no_table(table_id), 404)
    number: int = request.path_params["number"]
    if not 1 <= number <= len(table.records):
        error = ProtocolError(
            "game_not_found",
            f"this table has {len(table.records)} finished game(s); a game still being "
            "played has no record to download yet",
            games=len(table.records),
        )
        return _error_response(error, 404)
    return Response(
        table.records[number - 1],
        media_type="application/json",
        headers={
            "Content-Disposition": f'attachment; filename="cardverse-{table_id}-{number}.json"'
        },
    )


async def health(request: Request) -> Response:
    service: TableService = request.app.state.service
    return JSONResponse({"ok": True, "tables": len(service.tables)})


async def protocol_info(request: Request) -> Response:
    return JSONResponse(P.json_schemas())


async def table_socket(websocket: WebSocket) -> None:
    service: TableService = websocket.app.state.service
    settings = service.settings
    table_id = websocket.path_params["table_id"]
    await websocket.accept()
    table = service.get(table_id)
    if table is None:
        await websocket.send_text(render(_no_table(table_id).to_message(), None, None))
        await websocket.close(P.CLOSE_NO_TABLE, "no such table")
        return
    conn = WsConnection(websocket, settings)
    conn.start()
    table.attach(conn)
    try:
        while not conn.closing:
            incoming = await websocket.receive()
            if incoming["type"] == "websocket.disconnect":
                break
            text = incoming.get("text")
            current = conn.table
            if current is None:
                break
            if not conn.limit.allow():
                if conn.limit.dropped > settings.flood_limit:
                    conn.close(P.CLOSE_FLOOD, "too many messages")
                    break
                if conn.limit.dropped == 1:
                    error = ProtocolError(
                        "rate_limited",
                        f"at most {settings.rate_per_second:g} messages a second: "
                        "messages are dropped until you slow down",
                        rate=settings.rate_per_second,
                        burst=settings.burst,
                    )
                    conn.send(render(error.to_message(), conn.seat, current.game))
                continue
            if text is None:
                error = ProtocolError("bad_json", "send JSON text messages, not binary ones")
                conn.send(render(error.to_message(), conn.seat, current.game))
                continue
            try:
                message = parse_client_message(text)
            except ProtocolError as error:
                conn.send(render(error.to_message(), conn.seat, current.game))
                continue
            current.handle(conn, message)
    except WebSocketDisconnect:
        pass
    finally:
        if conn.table is not None:
            conn.table.detach(conn)
        await conn.finish()


def create_app(
    data_dir: str | Path = "data", settings: Settings | None = None, **overrides: Any
) -> Starlette:
    """The server's ASGI app; ``settings`` (or keyword overrides of :class:`Settings`)."""
    if settings is None:
        settings = Settings(data_dir=Path(data_dir), **overrides)
    elif overrides:
        raise TypeError("pass either settings or keyword overrides, not both")
    service = TableService(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restored = service.restore_all()
        if restored:
            log.info("restored %d table(s) from %s", restored, service.store.path)
        try:
            yield
        finally:
            service.close()

    app = Starlette(
        routes=[
            Route("/api/health", health, methods=["GET"]),
            Route("/api/protocol", protocol_info, methods=["GET"]),
            Route("/api/tables", create_table, methods=["POST"]),
            Route("/api/tables/{table_id}", get_table, methods=["GET"]),
            Route("/api/tables/{table_id}/records/{number:int}", get_record, methods=["GET"]),
            WebSocketRoute("/ws/{table_id}", table_socket),
            *web_routes(),  # the pages (cardverse.web)
        ],
        exception_handlers=error_handlers(),  # error pages in the site's layout (cardverse.web)
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.settings = settings
    return app
