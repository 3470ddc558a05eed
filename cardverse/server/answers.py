"""What the server's HTTP and WebSocket endpoints share: the limits per client address (open
sockets, a token bucket of table creations), reading a bounded JSON body, and the refusals they
answer with (status codes, ``try_again`` with Retry-After while a backend is down)."""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import JSONResponse

from ..guards import BodyTooLarge, read_body
from .protocol import ProtocolError
from .tables import Settings, Table, TableService

MAX_BODY_BYTES = 16 * 1024


class RateLimit:
    """A token bucket: ``rate`` messages a second with bursts up to ``burst``."""

    __slots__ = ("burst", "dropped", "last", "rate", "tokens")

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


def client_address(connection: HTTPConnection) -> str:
    client = connection.client
    return client.host if client is not None else "unknown"


def error_response(error: ProtocolError, status: int) -> JSONResponse:
    return JSONResponse(error.to_message(), status_code=status)


def no_table(table_id: str) -> ProtocolError:
    return ProtocolError("no_such_table", "no table has this id", table_id=table_id[:64])


def try_again() -> ProtocolError:
    return ProtocolError(
        "try_again", "the server cannot reach its database just now: try again in a moment"
    )


async def read_json_body(request: Request) -> Any:
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


def status_of(error: ProtocolError) -> int:
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


def refusal(error: ProtocolError) -> JSONResponse:
    """An HTTP answer to a refused request: its status, and Retry-After when it is 503."""
    status = status_of(error)
    response = error_response(error, status)
    if status == 503:
        response.headers["Retry-After"] = str(TRY_AGAIN_SECONDS)
    return response


async def find_table(
    service: TableService, table_id: str, watch: bool = False
) -> Table | str | None:
    """The table here (loaded if need be), the node id of the process that owns it (several
    processes), or None."""
    return await service.locator.find(table_id, watch)
