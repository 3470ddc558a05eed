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
frame is rendered once on the owner and sent as received by the socket's node. A busy node
makes one PUBLISH per turn and node; one sender task publishes them in order, pipelined on a
connection of its own (one write per batch, one time limit for its answers). Nobody waits for a
PUBLISH's answer unless it asked to (:meth:`Bus.post` with ``heard=True``); a message that
reached nobody is reported once per message to :meth:`Receiver.unheard`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
from collections.abc import Iterator
from typing import Any, Protocol

from .failures import log_failure

log = logging.getLogger("cardverse.server.bus")

# Control envelopes: compact, and no \u escapes of their non-ASCII text to make and to read back.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

PREFIX = "cardverse:node:"
PUBLISH_TIMEOUT = 5.0  # seconds for Redis to answer a batch of PUBLISH (then: reconnect, resend)
MAX_BATCH = 512  # messages published in one write

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

    def __init__(self, redis: Any, node: str, receiver: Receiver) -> None:
        self.redis = redis
        self.node = node
        self.receiver = receiver
        self._outgoing: asyncio.Queue[tuple[str, str, str, list[asyncio.Future[int]]]] = (
            asyncio.Queue()
        )
        # this turn's records by node, and the futures of those posted with heard=True
        self._turn: dict[str, list[str]] = {}
        self._waiting: dict[str, list[asyncio.Future[int]]] = {}
        self._header = node + "\n"
        self._tasks: list[asyncio.Task[None]] = []
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.connected = asyncio.Event()  # subscribed to our channel
        self.reconnects = 0
        self.on_reconnect: Any = None  # called (no arguments) after a lost subscription is back
        self.published = 0
        self.unheard = 0  # messages no node received
        self._connection: Any = None  # the connection the sender publishes on (its own)

    @staticmethod
    def channel(node: str) -> str:
        return PREFIX + node

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._send())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task

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
        for node, parts in turn.items():
            self._outgoing.put_nowait(
                (node, self.channel(node), "".join(parts), waiting.get(node, []))
            )

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

    async def _publish(
        self, batch: list[tuple[str, str, str, list[asyncio.Future[int]]]]
    ) -> list[int]:
        """PUBLISH each of ``batch`` in one write on this node's own connection, and read
        the answers (how many received each) within one time limit: no pipeline object,
        pool round trip or timer per message."""
        connection = self._connection
        if connection is None:
            connection = self._connection = await self.redis.connection_pool.get_connection()
        packed = connection.pack_commands(
            [("PUBLISH", channel, text) for _, channel, text, _ in batch]
        )
        await connection.send_packed_command(packed, check_health=False)
        counts: list[int] = []
        async with asyncio.timeout(PUBLISH_TIMEOUT):
            for _ in batch:
                answer = await connection.read_response(timeout=math.inf)
                if isinstance(answer, Exception):
                    raise answer
                counts.append(int(answer))
        return counts

    async def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.disconnect()
            with contextlib.suppress(Exception):
                await self.redis.connection_pool.release(connection)

    async def _send(self) -> None:
        try:
            await self._send_forever()
        finally:
            await asyncio.shield(self._drop_connection())

    async def _send_forever(self) -> None:
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty() and len(batch) < MAX_BATCH:
                batch.append(self._outgoing.get_nowait())
            while True:
                try:
                    counts = await self._publish(batch)
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # Redis is down: the messages wait (bounded)
                    await self._drop_connection()
                    log.warning("publishing failed (%s); retrying", error)
                    await asyncio.sleep(0.2)
                    if self._outgoing.qsize() > 100_000:  # pragma: no cover - long outage
                        counts = [0] * len(batch)
                        break
            for (node, _, _, futures), count in zip(batch, counts, strict=True):
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

    # -- receiving ---------------------------------------------------------------------------

    async def _listen(self) -> None:
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel(self.node))
                self.connected.set()
                if not first:
                    self.reconnects += 1
                    log.warning("re-subscribed to Redis after a lost connection")
                    if self.on_reconnect is not None:
                        self.on_reconnect()
                first = False
                while True:
                    # Blocking reads: no timer set and cancelled for every message (a read
                    # with a timeout costs one); a lost connection ends the read with an error.
                    message = await pubsub.get_message(timeout=None)
                    if message is None:  # a subscription's confirmation
                        continue
                    self._dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.connected.clear()
                log.warning("the Redis subscription failed (%s); reconnecting", error)
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

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
