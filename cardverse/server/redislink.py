"""The bus's own connections to Redis: RESP spoken directly on an asyncio protocol.

The cluster's bus (:mod:`cardverse.server.bus`) sends and receives a Redis message for nearly
every action, so its two connections (one that publishes, one subscribed to the node's channel)
do not go through redis-py's client: there each PUBLISH and each message read costs a
coroutine chain, a stream read, a time limit and a parse in Python. Here a connection is a
:class:`RedisLink`, an :class:`asyncio.Protocol` whose bytes go to hiredis's reader as they
arrive; each reply is handed to a callback, in order, with nothing allocated per reply beyond
the reply itself. Everything else the cluster asks of Redis (leases, the watch links) stays on
redis-py, where a command is rare.

The URL is read as redis-py reads it (``redis://[[user]:password@]host[:port][/db]``,
``rediss://`` for TLS with the system's certificates, ``unix:///path``); a password is sent
with ``AUTH`` when the connection opens. The database number does not matter to pub/sub.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from typing import Any, cast

import hiredis
from redis.asyncio.connection import SSLConnection, parse_url

from .failures import log_failure

log = logging.getLogger("cardverse.server.bus")

CONNECT_TIMEOUT = 2.0  # seconds to open a connection and authenticate


def command(*parts: bytes) -> bytes:
    """One Redis command in RESP (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n" % len(part))
        out.append(part)
        out.append(b"\r\n")
    return b"".join(out)


class RedisLink(asyncio.Protocol):
    """One connection to Redis: ``write`` sends bytes (commands in RESP), every reply goes to
    ``on_reply`` in order (an error reply as a :class:`hiredis.ReplyError`), and ``on_lost``
    is called once (with the link) when the connection ends (by either side)."""

    def __init__(
        self, on_reply: Callable[[Any], None], on_lost: Callable[[RedisLink], None]
    ) -> None:
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self.heard = False  # bytes came since the owner last looked (liveness)
        self._reader = hiredis.Reader()
        self._answer: asyncio.Future[Any] | None = None  # while opening: the next reply
        self._lost = False

    # -- asyncio's callbacks ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)

    def data_received(self, data: bytes) -> None:
        self.heard = True
        reader = self._reader
        try:
            reader.feed(data)
            while not self._lost and (reply := reader.gets()) is not False:
                answer = self._answer
                if answer is not None:
                    self._answer = None
                    if not answer.done():
                        answer.set_result(reply)
                    continue
                try:
                    self.on_reply(reply)
                except Exception as failure:  # the owner's fault, not the connection's
                    log_failure(log, "handling an answer from Redis", failure)
        except hiredis.ProtocolError as error:  # not Redis speaking: end the connection
            self._end(ConnectionError(f"Redis's answer could not be read ({error})"))

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(exc or ConnectionError("Redis closed the connection"))

    # -- ours ------------------------------------------------------------------------------------

    @property
    def open(self) -> bool:
        return self.transport is not None and not self._lost

    def write(self, data: bytes) -> None:
        if self.transport is not None and not self._lost:
            self.transport.write(data)

    def abort(self) -> None:
        """End the connection now (what was written and not answered is taken as lost)."""
        if self.transport is not None:
            self.transport.abort()
        self._end(ConnectionError("the connection to Redis was dropped"))

    async def request(self, data: bytes) -> Any:
        """Write a command and wait for its reply (only while the connection opens: later
        replies go to ``on_reply``)."""
        self._answer = asyncio.get_running_loop().create_future()
        self.write(data)
        return await self._answer

    def _end(self, error: BaseException) -> None:
        if self._lost:
            return
        self._lost = True
        answer, self._answer = self._answer, None
        if answer is not None and not answer.done():
            answer.set_exception(error)
        if self.transport is not None:
            self.transport.close()
        self.on_lost(self)


async def connect(url: str, link: RedisLink) -> RedisLink:
    """Open ``link``'s connection to the Redis at ``url`` (and authenticate); raises
    ``ConnectionError`` or ``OSError`` (or ``TimeoutError``) when it cannot."""
    params = parse_url(url)
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(CONNECT_TIMEOUT):
        if "path" in params:
            await loop.create_unix_connection(lambda: link, params["path"])
        else:
            tls = None
            if params.get("connection_class") is SSLConnection:
                tls = ssl.create_default_context()
            host, port = params.get("host", "localhost"), int(params.get("port", 6379))
            await loop.create_connection(lambda: link, host, port, ssl=tls)
        password = params.get("password")
        if password is not None:
            username = params.get("username")
            who = (username.encode(),) if username else ()
            reply = await link.request(command(b"AUTH", *who, password.encode()))
            if isinstance(reply, Exception):
                link.abort()
                raise ConnectionError(f"Redis refused the password: {reply}")
    return link
