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

WebSocket ``/ws/{table_id}``: see docs/protocol.md; it is served by picows beside this app, on
the same port (:mod:`.tablesockets`, :mod:`.sockets`). Every resource a client can make the server
spend is bounded here or in :class:`~cardverse.server.tables.Settings`: request bodies (read no
further than the limit), tables created per address, connections per address, each
connection's unread output (in messages and bytes: a connection that does not drain within
``send_timeout`` or the byte budget has its transport aborted), and idle connections.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..guards import SecurityHeaders, origin_allowed
from . import protocol as P
from .answers import (
    TRY_AGAIN_SECONDS,
    AddressLimits,
    client_address,
    error_response,
    find_table,
    no_table,
    read_json_body,
    refusal,
    try_again,
)
from .eventlog import StoreUnavailable
from .protocol import ProtocolError
from .proxies import TrustedProxies, read_networks
from .tables import Settings, TableService

log = logging.getLogger("cardverse.server")


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
    Retry-After); a person's page gets ``page`` (the error page in their language) when one is
    given. (Handlers answer their own outages; this catches any that reaches the app. The
    table WebSockets are not the app's: :mod:`.sockets` answers theirs.)"""

    async def outage(connection: HTTPConnection, exc: Exception) -> Response | None:
        log.warning("%s: %s", connection.url.path[:100], str(exc)[:200])
        assert isinstance(connection, Request)
        if page is not None and not connection.url.path.startswith(SERVER_PREFIXES):
            shown = page(connection, 503, {"Retry-After": str(TRY_AGAIN_SECONDS)})
            if shown is not None:
                return shown
        return refusal(try_again())

    return outage


SERVER_PREFIXES = ("/api/", "/ws/")  # the server's own addresses: machines, answered in JSON


async def create_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    settings = service.settings
    try:
        if not origin_allowed(request, settings.allowed_origins):
            raise ProtocolError("bad_origin", "tables are created from this site's own pages")
        data = await read_json_body(request)
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
        if not limits.may_create(client_address(request)):
            raise ProtocolError(
                "too_many_tables",
                f"at most {settings.create_burst} new tables at once and "
                f"{settings.create_rate * 60:g} a minute from one address: try again later",
                rate_per_minute=settings.create_rate * 60,
                burst=settings.create_burst,
            )
        table, token = await service.locator.create(name, rules, data.get("turn_timer", ...))
    except StoreUnavailable:
        return refusal(try_again())
    except ProtocolError as error:
        response = refusal(error)
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


async def get_table(request: Request) -> Response:
    service: TableService = request.app.state.service
    table_id = request.path_params["table_id"]
    try:
        found = await find_table(service, table_id)
    except StoreUnavailable:
        return refusal(try_again())
    except ProtocolError as error:  # Redis down (try_again), a table moving (server_busy)
        return refusal(error)
    if found is None:
        return error_response(no_table(table_id), 404)
    if isinstance(found, str):
        answer = await service.locator.ask(found, "summary", table_id)
        if answer.get("status") != 200:
            return refusal(try_again())
        return JSONResponse(answer["body"])
    return JSONResponse(found.summary())


async def get_record(request: Request) -> Response:
    service: TableService = request.app.state.service
    watch_id = request.path_params.get("watch_id")
    table_id = watch_id if watch_id is not None else request.path_params["table_id"]
    try:
        found = await find_table(service, table_id, watch=watch_id is not None)
    except StoreUnavailable:
        return refusal(try_again())
    except ProtocolError as error:  # Redis down (try_again), a table moving (server_busy)
        return refusal(error)
    if found is None:
        return error_response(no_table(table_id), 404)
    if isinstance(found, str):
        answer = await service.locator.ask(found, "records", table_id)
        if answer.get("status") != 200:
            return refusal(try_again())
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
        return error_response(missing, 404)
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
        table = service.find_by_code(code, client_address(request))
    except StoreUnavailable:
        return refusal(try_again())
    except ProtocolError as error:
        response = refusal(error)
        if error.code == "too_many_lookups":
            response.headers["Retry-After"] = str(error.params.get("retry_after", 60))
        return response
    if table is None:
        unknown = ProtocolError("unknown_invite_code", "no table has this invite code", typed=code)
        return error_response(unknown, 404)
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
        return error_response(ProtocolError("not_found", "no such page"), 404)
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
    return client_address(request) in settings.operator_addresses


async def operator_info(request: Request) -> Response:
    """Counts for the operator (404 for anyone else: the endpoint is not advertised)."""
    service: TableService = request.app.state.service
    if not _is_operator(request, service.settings):
        return error_response(ProtocolError("not_found", "no such page"), 404)
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
        programs = None
        if settings.uecda_port is not None:  # programs at web tables (docs/uecda.md §10)
            from .programlink import PREBOUND
            from .programs import ProgramPort

            programs = ProgramPort(service, keep_sent=settings.uecda_keep_sent)
            await programs.start(PREBOUND.get(settings.uecda_port))
        app.state.programs = programs
        handoff = getattr(app.state, "handoff", None)  # --workers (connections.uvicorn_config)
        if handoff is not None:
            handoff.start()
        try:
            yield
        finally:
            if handoff is not None:
                await handoff.close()
            if programs is not None:
                await programs.close()
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
