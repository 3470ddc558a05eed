"""Messages between server processes, on Redis pub/sub.

Every process (a *node*) subscribes to its own channel ``cardverse:node:<node id>``. A table's
owner gets the client messages of the sockets other processes hold for it (*links*), and
sends each of those sockets its own frames, already rendered for that seat by the owner's
hidden-card filter: a hand is only ever published to the one node that holds that seat's
socket. Control envelopes (``attach``, ``detach``, ``rpc``/``reply`` for HTTP reads about a
table another node owns) are small JSON objects.

Why pub/sub and not streams: frames are short-lived and meant for one socket right now; the
truth is the store's log, and a client that missed frames (Redis restarted) is made to reconnect
and gets a full state, and resends the actions it has no acknowledgement for (the seat's
sequence numbers make a resend harmless). Streams would keep and trim a copy of every frame for
nothing, and cost a round trip more per read. PUBLISH also says how many subscribers got a
message: 0 tells at once that the node is gone (its connection to Redis closed).

**The message format.** Everything one node posts to another during one event-loop turn goes
out as one Redis message at the end of the turn, in the order it was posted: the sender's node
id and a newline, then records, each a header line and a payload of as many characters as the
header's last field says::

    F<link id> <n>\\n<frame text>             a frame for a linked socket
    C<link id> <code> <n>\\n<reason>          close that socket
    M<link id> <n>\\n<client text>            a linked socket's message, for the owner
    J<n>\\n<JSON envelope>                    a control envelope

Frames and client messages are carried as they are, never quoted into JSON and parsed back: a
frame is rendered once on the owner and sent as received by the socket's node. A record that
does not follow the format is dropped with a line in the log (and the message's records after
it, whose boundaries are then unknown); the records before it stand.

**The connections.** The bus has two connections to Redis of its own, spoken to directly
(:mod:`cardverse.server.redislink`), not through redis-py's client. At the end of a turn every
message made during it is written as PUBLISH commands in one write, without waiting for the
answers; they come back in order on the same connection and are matched to the messages
(nobody waits for one unless it asked to: :meth:`Bus.post` with ``heard=True``; a message that
reached nobody is reported once to :meth:`Receiver.unheard`). A connection that ends, or that
leaves a message unanswered for ``PUBLISH_TIMEOUT`` seconds (looked at once in that time, not
with a timer a message), is made again and the unanswered messages are written again first,
in order. The subscription's connection hands each message to the receiver as it is read; it
is sent a PING after ``HEALTH_INTERVAL`` seconds of silence and made again if the PING is
not answered either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, Protocol

from .failures import log_failure
from .jsontext import compact
from .redislink import RedisLink, command, connect

log = logging.getLogger("cardverse.server.bus")

# Control envelopes: compact, and no \u escapes of their non-ASCII text to make and to read back.
_dumps = compact

PREFIX = "cardverse:node:"
PUBLISH_TIMEOUT = 5.0  # seconds for Redis to answer a PUBLISH (then: reconnect, resend)
HEALTH_INTERVAL = 5.0  # seconds of silence on the subscription before a PING
MAX_WAITING = 100_000  # messages kept while Redis cannot be reached (then: reported unheard)
PING = command(b"PING")
NO_FUTURES: tuple[asyncio.Future[int], ...] = ()

#: A message to send: its node, its text, and the futures told how many received it.
Outgoing = tuple[str, str, Sequence["asyncio.Future[int]"]]

FRAME, CLOSE, MESSAGE, ENVELOPE = "F", "C", "M", "J"


class Receiver(Protocol):
    """What a node does with what reaches its channel (the cluster's :class:`Cluster`)."""

    def envelope(self, envelope: dict[str, Any]) -> None: ...

    def frame(self, link: str, text: str) -> None: ...

    def closed(self, link: str, code: int, reason: str) -> None: ...

    def message(self, node: str, link: str, text: str) -> None: ...

    def unheard(self, node: str) -> None:
        """A message to ``node`` reached nobody (its subscription is gone, or going)."""
        ...


def _resolve(future: asyncio.Future[None], _: object) -> None:
    if not future.done():
        future.set_result(None)


class BadMessage(ValueError):
    """A bus message that does not follow the format (dropped, with a line in the log)."""


def records(data: bytes | str) -> tuple[str, Iterator[tuple[str, list[str], str]]]:
    """A bus message read: its sender's node id, and its records in order, each as (kind,
    the header's fields before the length, payload). Raises :class:`BadMessage`."""
    try:
        text = data.decode() if isinstance(data, bytes) else data
    except UnicodeDecodeError as error:
        raise BadMessage("not UTF-8") from error
    end = text.find("\n")
    if end <= 0:
        raise BadMessage("no sender")
    return text[:end], _records(text, end + 1)


def _records(text: str, at: int) -> Iterator[tuple[str, list[str], str]]:
    size = len(text)
    while at < size:
        end = text.find("\n", at)
        if end < 0:
            raise BadMessage("a record without its header's end")
        kind = text[at]
        fields = text[at + 1 : end].split(" ")
        try:
            length = int(fields.pop())
        except ValueError:
            raise BadMessage("a record without its length") from None
        start = end + 1
        at = start + length
        if length < 0 or at > size:
            raise BadMessage("a record longer than its message")
        yield kind, fields, text[start:at]


class Bus:
    """This node's channel in and the messages it sends out."""

    def __init__(self, url: str | None, node: str, receiver: Receiver) -> None:
        self.url = url  # Redis's (None: a bus that only collects, for tests)
        self.node = node
        self.receiver = receiver
        # this turn's records by node, and the futures of those posted with heard=True
        self._turn: dict[str, list[str]] = {}
        self._waiting: dict[str, list[asyncio.Future[int]]] = {}
        self._header = node + "\n"
        # messages made and not yet written to Redis, and those written and not yet answered:
        # (node, text, the futures told how many received it)
        self._unsent: deque[Outgoing] = deque()
        self._in_flight: deque[Outgoing] = deque()
        self._publisher: RedisLink | None = None
        self._subscriber: RedisLink | None = None
        self._connecting: asyncio.Task[None] | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._watched: Outgoing | None = None  # the oldest unanswered message when it was armed
        self._started = False
        self._resubscribing = False  # the next confirmed subscription follows a lost one
        self._tasks: list[asyncio.Task[None]] = []
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.connected = asyncio.Event()  # subscribed to our channel
        self.reconnects = 0
        self.on_reconnect: Any = None  # called (no arguments) after a lost subscription is back
        self.published = 0
        self.unheard = 0  # messages no node received

    @staticmethod
    def channel(node: str) -> str:
        return PREFIX + node

    def start(self) -> None:
        self._started = True
        self._tasks = [asyncio.get_running_loop().create_task(self._listen())]
        self._ensure_publisher()

    async def close(self) -> None:
        self._started = False
        tasks = [*self._tasks, *([self._connecting] if self._connecting is not None else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._watchdog is not None:
            self._watchdog.cancel()
        for link in (self._publisher, self._subscriber):
            if link is not None:
                link.abort()

    # -- sending -----------------------------------------------------------------------------

    def _parts(self, node: str) -> list[str]:
        parts = self._turn.get(node)
        if parts is None:
            if not self._turn:
                asyncio.get_running_loop().call_soon(self._end_of_turn)
            parts = self._turn[node] = [self._header]
        return parts

    def frame(self, node: str, link: str, text: str) -> None:
        """A frame for the socket ``link`` that ``node`` holds."""
        self._parts(node).append(f"F{link} {len(text)}\n{text}")

    def close_link(self, node: str, link: str, code: int, reason: str) -> None:
        """Close the socket ``link`` that ``node`` holds."""
        self._parts(node).append(f"C{link} {code} {len(reason)}\n{reason}")

    def message(self, node: str, link: str, text: str) -> None:
        """A client's message from our socket ``link``, for the table's owner ``node``."""
        self._parts(node).append(f"M{link} {len(text)}\n{text}")

    def post(
        self, node: str, envelope: dict[str, Any], heard: bool = False
    ) -> asyncio.Future[int] | None:
        """Send a control envelope to a node (in order, at the end of this loop turn, with
        everything else of the turn to that node); with ``heard``, a future that gets how
        many received it."""
        text = _dumps(envelope)
        self._parts(node).append(f"J{len(text)}\n{text}")
        if not heard:
            return None
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(node, []).append(future)
        return future

    def _end_of_turn(self) -> None:
        turn, self._turn = self._turn, {}
        waiting, self._waiting = self._waiting, {}
        unsent = self._unsent
        for node, parts in turn.items():
            unsent.append((node, "".join(parts), waiting.get(node, NO_FUTURES)))
        self._flush()

    def _flush(self) -> None:
        """Write every unsent message to Redis (one write), or have the connection made."""
        link = self._publisher
        if link is None or not link.open:
            self._ensure_publisher()
            return
        unsent, in_flight = self._unsent, self._in_flight
        if not unsent:
            return
        out = []
        while unsent:
            item = unsent.popleft()
            out.append(command(b"PUBLISH", (PREFIX + item[0]).encode(), item[1].encode()))
            in_flight.append(item)
        link.write(b"".join(out))
        if self._watchdog is None:
            self._arm_watchdog()

    def _answered(self, reply: Any) -> None:
        """Redis's answer to the oldest unanswered PUBLISH: how many received it."""
        in_flight = self._in_flight
        if not in_flight:
            log.error("an answer from Redis to nothing the bus sent was dropped")
            return
        if isinstance(reply, Exception) or not isinstance(reply, int):
            log.warning("publishing failed (%s); retrying", reply)
            if self._publisher is not None:
                self._publisher.abort()  # what is unanswered is sent again on a new connection
            return
        node, _, futures = in_flight.popleft()
        self._published(node, futures, reply)

    def _published(self, node: str, futures: Sequence[asyncio.Future[int]], count: int) -> None:
        self.published += 1
        for future in futures:
            if not future.done():
                future.set_result(count)
        if not count:
            self.unheard += 1
            try:
                self.receiver.unheard(node)
            except Exception as failure:
                log_failure(log, "a message that reached nobody", failure)

    def _arm_watchdog(self) -> None:
        """One time limit for Redis's answers, looked at every ``PUBLISH_TIMEOUT`` seconds
        (not a timer a message): a message unanswered for that long drops the connection."""
        self._watched = self._in_flight[0] if self._in_flight else None
        self._watchdog = asyncio.get_running_loop().call_later(PUBLISH_TIMEOUT, self._watch)

    def _watch(self) -> None:
        self._watchdog = None
        if not self._in_flight:
            return
        if self._in_flight[0] is self._watched and self._publisher is not None:
            log.warning("publishing failed (no answer within %g s); retrying", PUBLISH_TIMEOUT)
            self._publisher.abort()
            return
        self._arm_watchdog()

    def _publisher_lost(self, link: RedisLink) -> None:
        """The publishing connection ended: what it did not answer goes out again first."""
        if self._publisher is not link:
            return
        self._publisher = None
        self._in_flight.extend(self._unsent)
        self._unsent, self._in_flight = self._in_flight, deque()
        self._ensure_publisher()

    def _ensure_publisher(self) -> None:
        if not self._started or self.url is None:
            return
        if self._connecting is None or self._connecting.done():
            self._connecting = asyncio.get_running_loop().create_task(self._connect_publisher())

    async def _connect_publisher(self) -> None:
        assert self.url is not None
        while self._started:
            link = RedisLink(self._answered, self._publisher_lost)
            try:
                await connect(self.url, link)
                if not link.open:  # ended as soon as it opened
                    raise ConnectionError("Redis closed the connection")
            except (OSError, TimeoutError) as error:  # Redis is down: the messages wait (bounded)
                link.abort()
                log.warning("publishing failed (%s); retrying", error)
                if len(self._unsent) > MAX_WAITING:  # pragma: no cover - a long outage
                    dropped, self._unsent = self._unsent, deque()
                    for node, _, futures in dropped:
                        self._published(node, futures, 0)
                await asyncio.sleep(0.2)
                continue
            self._publisher = link
            self._flush()
            return

    async def ask(self, node: str, envelope: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request to a node and wait for its ``reply``."""
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[rid] = future
        try:
            posted = self.post(node, {**envelope, "op": "rpc", "rid": rid, "from": self.node}, True)
            assert posted is not None
            if not await posted:
                raise ConnectionError(f"node {node} is gone")
            return await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(rid, None)

    def reply(self, to: str, rid: str, body: dict[str, Any]) -> None:
        self.post(to, {"op": "reply", "rid": rid, "body": body})

    # -- receiving ---------------------------------------------------------------------------

    async def _listen(self) -> None:
        assert self.url is not None
        loop = asyncio.get_running_loop()
        while True:
            lost: asyncio.Future[None] = loop.create_future()
            link = RedisLink(self._heard, partial(_resolve, lost))
            try:
                await connect(self.url, link)
                self._subscriber = link
                link.write(command(b"SUBSCRIBE", self.channel(self.node).encode()))
                await self._keep_alive(link, lost)
                error: Any = "the connection ended"
            except asyncio.CancelledError:
                link.abort()
                raise
            except Exception as failure:
                error = failure
            link.abort()
            self._subscriber = None
            if self.connected.is_set():
                self._resubscribing = True
            self.connected.clear()
            log.warning("the Redis subscription failed (%s); reconnecting", error)
            await asyncio.sleep(0.2)

    async def _keep_alive(self, link: RedisLink, lost: asyncio.Future[None]) -> None:
        """Until the subscription's connection ends: a connection silent for
        ``HEALTH_INTERVAL`` is sent a PING, and dropped if still silent the next time."""
        pinged = False
        while not lost.done():
            await asyncio.wait([lost], timeout=HEALTH_INTERVAL)
            if lost.done():
                return
            if link.heard:
                link.heard = pinged = False
            elif pinged:
                raise ConnectionError(f"Redis did not answer a PING within {HEALTH_INTERVAL:g} s")
            else:
                link.write(PING)
                pinged = True

    def _heard(self, reply: Any) -> None:
        """A reply on the subscription's connection: a message, or the subscription's own."""
        if isinstance(reply, list) and reply:
            kind = reply[0]
            if kind == b"message" and len(reply) == 3:
                self._dispatch(reply[2])
                return
            if kind == b"subscribe":
                self._subscribed()
                return
            if kind == b"pong":
                return
        if isinstance(reply, Exception):
            log.error("Redis refused the bus's subscription (%s)", reply)
            if self._subscriber is not None:
                self._subscriber.abort()
            return
        log.error("an answer from Redis the bus cannot read was dropped")

    def _subscribed(self) -> None:
        self.connected.set()
        if self._resubscribing:
            self._resubscribing = False
            self.reconnects += 1
            log.warning("re-subscribed to Redis after a lost connection")
            if self.on_reconnect is not None:
                self.on_reconnect()

    def _dispatch(self, data: bytes | str) -> None:
        receiver = self.receiver
        try:
            sender, items = records(data)
            for kind, fields, payload in items:
                try:
                    if kind == FRAME:
                        receiver.frame(fields[0], payload)
                    elif kind == MESSAGE:
                        receiver.message(sender, fields[0], payload)
                    elif kind == CLOSE:
                        receiver.closed(fields[0], int(fields[1]), payload)
                    elif kind == ENVELOPE:
                        self._envelope(json.loads(payload))
                    else:
                        log.error("a bus record of an unknown kind was dropped")
                except (IndexError, ValueError):
                    log.error("a malformed bus record was dropped")
                except Exception as failure:  # one line each; the traceback once per place
                    log_failure(log, f"handling a bus record ({kind})", failure)
        except BadMessage as error:
            log.error("a malformed bus message was dropped (%s)", error)

    def _envelope(self, envelope: Any) -> None:
        if not isinstance(envelope, dict):
            raise ValueError("an envelope that is not an object")
        if envelope.get("op") == "reply":
            future = self._replies.get(envelope.get("rid", ""))
            if future is not None and not future.done():
                future.set_result(envelope.get("body") or {})
            return
        self.receiver.envelope(envelope)
