"""Messages between server processes, on Redis pub/sub.

Every process (a *node*) subscribes to its own channel ``cardverse:node:<node id>``; anything
for it is an *envelope* (a JSON object with an ``op``) published there. A table's owner gets the
actions of the connections other processes hold for it (``attach``, ``msg``, ``detach``), and
sends each of those connections its own frames (``frames``, ``close``), already rendered for
that seat by the owner's hidden-card filter: a hand is only ever published to the one node that
holds that seat's socket. ``rpc``/``reply`` answer HTTP reads about a table another node owns.

Why pub/sub and not streams: frames are short-lived and meant for one socket right now; the
truth is the store's log, and a client that missed frames (Redis restarted) is made to reconnect
and gets a full state, and resends the actions it has no acknowledgement for (the seat's
sequence numbers make a resend harmless). Streams would keep and trim a copy of every frame for
nothing, and cost a round trip more per read. PUBLISH also says how many subscribers got a
message: 0 tells at once that the node is gone (its connection to Redis closed).

Order and batching: the envelopes posted to one node during one event-loop turn are published
as one message at the end of the turn (``{"op": "many", "items": [...]}`` when there are
several), so a busy node makes one PUBLISH per turn and node rather than one per client
message; one sender task publishes them in the order they were posted, pipelined on a
connection of its own (one write per batch, one time limit for its answers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from .failures import log_failure

log = logging.getLogger("cardverse.server.bus")

# Envelopes carry frames already rendered as JSON text: compact, and no \u escapes of their
# non-ASCII text (names) to make and to read back.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

PREFIX = "cardverse:node:"
PUBLISH_TIMEOUT = 5.0  # seconds for Redis to answer a batch of PUBLISH (then: reconnect, resend)

Handler = Callable[[dict[str, Any]], Awaitable[None] | None]


class Bus:
    """This node's channel in and the envelopes it sends out."""

    def __init__(self, redis: Any, node: str, handler: Handler) -> None:
        self.redis = redis
        self.node = node
        self.handler = handler
        self._outgoing: asyncio.Queue[tuple[str, str, list[asyncio.Future[int]]]] = asyncio.Queue()
        # this turn's envelopes and their futures, by node (published at the end of the turn)
        self._turn: dict[str, tuple[list[dict[str, Any]], list[asyncio.Future[int]]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.connected = asyncio.Event()  # subscribed to our channel
        self.reconnects = 0
        self.on_reconnect: Callable[[], None] | None = None
        self.published = 0
        self.unheard = 0  # envelopes no node received
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

    def post(self, node: str, envelope: dict[str, Any]) -> asyncio.Future[int]:
        """Send an envelope to a node (in order, at the end of this loop turn, with the others
        of the turn to that node); the future gets how many received it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        queued = self._turn.get(node)
        if queued is None:
            if not self._turn:
                loop.call_soon(self._end_of_turn)
            queued = self._turn[node] = ([], [])
        queued[0].append(envelope)
        queued[1].append(future)
        return future

    def _end_of_turn(self) -> None:
        turn, self._turn = self._turn, {}
        for node, (envelopes, futures) in turn.items():
            body = envelopes[0] if len(envelopes) == 1 else {"op": "many", "items": envelopes}
            self._outgoing.put_nowait((self.channel(node), _dumps(body), futures))

    async def ask(self, node: str, envelope: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send a request to a node and wait for its ``reply``."""
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[rid] = future
        try:
            heard = await self.post(node, {**envelope, "op": "rpc", "rid": rid, "from": self.node})
            if not heard:
                raise ConnectionError(f"node {node} is gone")
            return await asyncio.wait_for(future, timeout)
        finally:
            self._replies.pop(rid, None)

    def reply(self, to: str, rid: str, body: dict[str, Any]) -> None:
        self.post(to, {"op": "reply", "rid": rid, "body": body})

    async def _publish(self, batch: list[tuple[str, str, list[asyncio.Future[int]]]]) -> list[int]:
        """PUBLISH each of ``batch`` in one write on this node's own connection, and read
        the answers (how many received each) within one time limit: no pipeline object,
        pool round trip or timer per message."""
        connection = self._connection
        if connection is None:
            connection = self._connection = await self.redis.connection_pool.get_connection()
        packed = connection.pack_commands(
            [("PUBLISH", channel, text) for channel, text, _ in batch]
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
            while not self._outgoing.empty() and len(batch) < 512:
                batch.append(self._outgoing.get_nowait())
            while True:
                try:
                    counts = await self._publish(batch)
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # Redis is down: the envelopes wait (bounded)
                    await self._drop_connection()
                    log.warning("publishing failed (%s); retrying", error)
                    await asyncio.sleep(0.2)
                    if self._outgoing.qsize() > 100_000:  # pragma: no cover - long outage
                        counts = [0] * len(batch)
                        break
            for (_, _, futures), count in zip(batch, counts, strict=True):
                self.published += 1
                self.unheard += not count
                for future in futures:
                    if not future.done():
                        future.set_result(int(count))

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
                    await self._dispatch(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.connected.clear()
                log.warning("the Redis subscription failed (%s); reconnecting", error)
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _dispatch(self, data: Any) -> None:
        try:
            envelope = json.loads(data)
        except ValueError:
            log.error("an envelope that is not JSON was dropped")
            return
        if envelope.get("op") == "many":
            for item in envelope.get("items") or ():
                if isinstance(item, dict):
                    await self._handle(item)
            return
        await self._handle(envelope)

    async def _handle(self, envelope: dict[str, Any]) -> None:
        if envelope.get("op") == "reply":
            future = self._replies.get(envelope.get("rid", ""))
            if future is not None and not future.done():
                future.set_result(envelope.get("body") or {})
            return
        try:
            result = self.handler(envelope)
            if result is not None:
                await result
        except Exception as failure:  # one line each; the traceback once per place
            log_failure(log, f"handling an envelope ({str(envelope.get('op'))[:20]})", failure)
