"""What guards every HTTP request: bounded bodies, the site's own origin, security headers.

- :func:`read_body` reads a request body chunk by chunk and stops at a byte limit (a declared
  ``Content-Length`` over the limit is refused before anything is read);
- :func:`origin_allowed` says whether a request (or a WebSocket handshake) comes from the site
  itself or from an origin the operator allowed;
- :class:`SecurityHeaders` is an ASGI middleware adding a strict Content-Security-Policy (no
  inline script, no framing) and the other headers to every HTTP response.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
DEFAULT_REFERRER_POLICY = b"same-origin"


class BodyTooLarge(Exception):
    """The request body is over the limit (``size`` is what was seen when reading stopped)."""

    def __init__(self, limit: int, size: int) -> None:
        super().__init__(f"a request body may hold at most {limit} bytes")
        self.limit = limit
        self.size = size


async def read_body(request: Request, limit: int) -> bytes:
    """The body, read no further than ``limit`` bytes; raises :class:`BodyTooLarge`."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise BodyTooLarge(limit, int(declared))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(limit, size)
        chunks.append(chunk)
    return b"".join(chunks)


def origin_allowed(connection: HTTPConnection, allowed: Iterable[str] = ()) -> bool:
    """Whether the request's ``Origin`` is the site itself (same host and port as the
    ``Host`` header) or one of ``allowed`` (``scheme://host[:port]``, or ``*`` for any).

    A request without an ``Origin`` header (not sent by a browser page) is allowed: the check
    is against other sites' pages acting with a visitor's browser.
    """
    origin = connection.headers.get("origin")
    if origin is None:
        return True
    allowed = list(allowed)
    if "*" in allowed or origin in allowed:
        return True
    parts = urlsplit(origin)
    host = connection.headers.get("host")
    return parts.scheme in ("http", "https") and host is not None and parts.netloc == host


class SecurityHeaders:
    """Adds the security headers to every HTTP response (a page may set its own
    ``Referrer-Policy``, e.g. the table page's ``no-referrer``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                for name, value in SECURITY_HEADERS:
                    if name not in names:
                        headers.append((name, value))
                if b"referrer-policy" not in names:
                    headers.append((b"referrer-policy", DEFAULT_REFERRER_POLICY))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
