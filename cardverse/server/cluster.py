"""Several server processes on one table log: who owns a table, and how connections held by
other processes reach it (``cardverse serve --redis redis://... --database postgresql://...``).

Any process accepts any WebSocket and any HTTP request (no sticky sessions). For a table it
does not hold in memory, :meth:`Cluster.locate` finds its owner through the table's lease
(:mod:`cardverse.server.ownership`); with no owner, this process takes the lease, claims the
table's next fencing number in the store and restores the table from the log. A connection to a
table owned elsewhere is *linked*: its text goes to the owner (``msg``), where a
:class:`ProxyConn` stands for it at the table, so the owner's hidden-card filter renders that
seat's frames, and only those frames are published to the node holding the socket
(:mod:`cardverse.server.bus`).

Failures: a node whose channel has no subscriber (PUBLISH reached nobody) is gone, and its
leases are taken over at once; a stalled node's leases expire after ``lease_ttl``. Connections
linked to a table whose owner changed are closed with code 1012 and reconnect with their seat
tokens (the web client does); they resend the actions they have no acknowledgement for. Live
tables with no owner (all their people were on the dead node, or only computer players sit
there) are found every ``orphan_scan`` seconds and taken over by whichever node gets the lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from . import metrics
from . import protocol as P
from .bus import Bus
from .eventlog import HeldMessages, StoreError
from .failures import internal_error, log_failure
from .ownership import Leases
from .protocol import ProtocolError, parse_client_message
from .table.locator import CLOSE_MOVED
from .table.state import new_table_id
from .viewfilter import named_cards, render
from .wire import Synced

if TYPE_CHECKING:
    from .table.locator import Tables
    from .table.room import Room as Table

log = logging.getLogger("cardverse.server.cluster")

__all__ = ["CLOSE_MOVED", "CLOSE_TRY_AGAIN", "Cluster", "ProxyConn"]
CLOSE_TRY_AGAIN = 1013  # "try again later"
WATCH_PREFIX = "cardverse:watch:"
REDIS_CONNECTIONS = 100  # connections to Redis a process may open at most
REDIS_WAIT = 5.0  # seconds a command may wait for one of them (then: a connection error)


def redis_down() -> ProtocolError:
    """The refusal of a request that needs Redis while it cannot be reached."""
    return ProtocolError("try_again", "the server cannot reach Redis just now: try again")


class ProxyConn:
    """On the owner: a connection that another node holds (see :class:`table.state.Conn`).

    Frames wait for the store's commit like a socket's (nothing is told before it is durable),
    then go out once per loop turn, batched, to that node only."""

    def __init__(self, cluster: Cluster, node: str, cid: str, envelope: dict[str, Any]) -> None:
        self.cluster = cluster
        self.node = node
        self.cid = cid
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.watch_only = bool(envelope.get("watch"))  # its attach envelope says what it is
        self.program = bool(envelope.get("program"))  # a program's, on that node's UECda port
        self.synced: Synced | None = None  # what its client holds of the game (see wire)
        self.closed = False
        self._held = HeldMessages(cluster.service.store, ProxyConn._release, self)

    def send(self, text: str) -> None:
        if not self.closed:
            self._put(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self._put((code, reason))
            self.closed = True

    def _put(self, item: str | tuple[int, str]) -> None:
        if not self._held.hold(item):
            self._queue(item)

    def _release(self, held: list[str | tuple[int, str]]) -> None:
        for item in held:
            self._queue(item)

    def _queue(self, item: str | tuple[int, str]) -> None:
        bus = self.cluster.bus
        if isinstance(item, str):
            bus.frame(self.node, self.cid, item)
        else:
            bus.close_link(self.node, self.cid, item[0], item[1])


@dataclass
class Link:
    """On an edge node: a socket of ours whose table another node owns."""

    conn: Any  # sockets.WsConnection
    table_id: str
    owner: str


class GoneNodes:
    """Nodes seen gone in the last ``keep`` seconds (a node's id is new at every start; a node
    that only lost Redis for a moment comes back, so this is forgotten after a while)."""

    def __init__(self, keep: float = 30.0) -> None:
        self.keep = keep
        self._seen: dict[str, float] = {}

    def add(self, node: str) -> None:
        self._seen[node] = time.monotonic()

    def __contains__(self, node: object) -> bool:
        seen = self._seen.get(str(node))
        if seen is None:
            return False
        if time.monotonic() - seen > self.keep:
            del self._seen[str(node)]
            return False
        return True

    def __iter__(self) -> Any:
        return iter([n for n in list(self._seen) if n in self])


class Cluster:
    """This process's part in a cluster: its leases, its bus, its proxies and links."""

    def __init__(self, service: Tables, redis_url: str) -> None:
        import redis.asyncio as aioredis

        settings = service.settings
        self.service = service
        self.node = uuid.uuid4().hex
        # A bounded pool where a command waits for a free connection: redis-py's default pool
        # fails at once when its 100 connections are in use (a burst of new tables did that).
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url,
            max_connections=REDIS_CONNECTIONS,
            timeout=REDIS_WAIT,
            socket_connect_timeout=2,
            socket_timeout=5,
            health_check_interval=5,
        )
        self.redis = aioredis.Redis.from_pool(pool)
        self.leases = Leases(self.redis, self.node, settings.lease_ttl, settings.lease_renew)
        self.bus = Bus(redis_url, self.node, self)
        self.bus.on_reconnect = self._on_bus_reconnect
        self.proxies: dict[tuple[str, str], ProxyConn] = {}
        self.links: dict[str, Link] = {}
        self.gone = GoneNodes()  # nodes known to be gone (nobody on their channel)
        self._tasks: list[asyncio.Task[None]] = []
        self.ready = False  # the bus is subscribed and Redis answers

    # -- life ----------------------------------------------------------------------------------

    def start(self) -> None:
        self.bus.start()
        self._tasks.append(asyncio.get_running_loop().create_task(Upkeep(self).run()))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        for table_id in list(self.service.tables):
            with contextlib.suppress(Exception):
                await self.leases.release(table_id)
        await self.bus.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    # -- finding a table's owner ---------------------------------------------------------------

    async def create(self, name: str | None, rules: Any, turn_timer: Any) -> tuple[Table, str]:
        """A new table owned by this process from the start (``try_again`` while Redis is
        down)."""
        await self._subscribed()
        for _ in range(5):
            table_id = new_table_id()
            while self.service.directory.code_taken(table_id):  # one table per invite code
                table_id = new_table_id()
            try:
                acquired = await self.leases.acquire(table_id)
            except RedisError:
                raise redis_down() from None
            if acquired:
                break
        else:  # pragma: no cover - 144-bit ids do not collide
            raise ProtocolError("server_busy", "no table id could be had: try again later")
        try:
            table, token = await self.service.create_saved(
                name, rules, turn_timer, table_id=table_id, fence=1
            )
        except BaseException:
            if table_id not in self.service.tables:  # not made, or lost: the lease is nobody's
                with contextlib.suppress(Exception):
                    await self.leases.release(table_id)
            raise
        self._remember_watch(table)
        return table, token

    async def resolve_watch(self, watch_id: str) -> str | None:
        """The table id of a watch link (any table loaded once in the cluster)."""
        local = self.service.watch_index.get(watch_id)
        if local is not None:
            return local
        try:
            found = await self.redis.get(WATCH_PREFIX + watch_id)
        except RedisError:
            raise redis_down() from None
        if found is None:
            return None
        return found.decode() if isinstance(found, bytes) else str(found)

    async def _subscribed(self) -> None:
        """Own no table before this node's channel is heard (others would think it gone)."""
        if not self.bus.connected.is_set():
            try:
                await asyncio.wait_for(self.bus.connected.wait(), 5.0)
            except TimeoutError:
                raise redis_down() from None

    async def locate(self, table_id: str) -> Table | str | None:
        """This process's copy of the table (loaded if nobody owns it), the owner's node id, or
        None (no such table). Raises :class:`StoreUnavailable` while the database is down and
        :class:`ProtocolError` ``try_again`` while Redis is (a table this process holds is
        found without it)."""
        table = self.service.tables.get(table_id)
        if table is not None:
            return table
        try:
            return await self._locate(table_id)
        except RedisError:
            raise redis_down() from None

    async def _locate(self, table_id: str) -> Table | str | None:
        await self._subscribed()
        service = self.service
        for _ in range(10):
            table = service.tables.get(table_id)
            if table is not None:
                return table
            if len(table_id) > 64 or not service.store.exists(table_id):
                return None
            owner = await self.leases.owner(table_id)
            table = service.tables.get(table_id)
            if table is not None:
                return table
            if owner is not None and owner in self.gone:
                await self.leases.release(table_id, holder=owner)
                owner = None
            if owner is None:
                if await self.leases.acquire(table_id):
                    return self.load(table_id)
                continue
            if owner == self.node:  # our lease, but the table is not in memory: load it
                return self.load(table_id)
            return owner
        raise ProtocolError("server_busy", "the table is moving between servers: try again")

    def load(self, table_id: str) -> Table:
        """Claim the table (its next fencing number) and restore it from the log."""
        service = self.service
        try:
            fence = service.store.claim(table_id)
            table = service.restore(table_id)
        except BaseException:
            asyncio.get_running_loop().create_task(self._release(table_id))
            raise
        table.fence = fence
        service.tables[table_id] = table
        service.directory.add(table_id, table.watch_id)
        self._remember_watch(table)
        if fence > 1:
            metrics.LEASE_MOVES.inc()
            self.leases.moves += 1
        table.go_live()
        log.info("took table %s (fence %d)", table_id, fence)
        return table

    def _remember_watch(self, table: Table) -> None:
        asyncio.get_running_loop().create_task(self._set_watch(table.watch_id, table.id))

    async def _set_watch(self, watch_id: str, table_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.redis.set(WATCH_PREFIX + watch_id, table_id)

    async def _release(self, table_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.leases.release(table_id)

    def released(self, table_id: str) -> None:
        """The table left this process's memory: give its lease up."""
        asyncio.get_running_loop().create_task(self._release(table_id))

    # -- reads for HTTP ------------------------------------------------------------------------

    async def ask(self, owner: str, what: str, table_id: str, **params: Any) -> dict[str, Any]:
        try:
            return await self.bus.ask(owner, {"what": what, "t": table_id, **params}, timeout=5.0)
        except (ConnectionError, TimeoutError):
            self.gone.add(owner)
            return {"status": 503}

    # -- a socket linked to a table owned elsewhere ----------------------------------------------

    async def serve_remote(self, websocket: Any, conn: Any, table_id: str, owner: str) -> bool:
        """Serve a socket whose table ``owner`` holds; False if the owner turned out to be gone
        before anything was sent (locate again)."""
        settings = self.service.settings
        cid = secrets.token_hex(8)
        self.links[cid] = Link(conn, table_id, owner)
        attach: dict[str, Any] = {"op": "attach", "t": table_id, "c": cid, "from": self.node}
        attach.update(watch=conn.watch_only, program=getattr(conn, "program", False))
        posted = self.bus.post(owner, attach, heard=True)
        assert posted is not None
        if not await posted:
            self.links.pop(cid, None)
            self.gone.add(owner)
            return False
        metrics.CONNECTIONS.labels("linked").inc()
        loop = asyncio.get_running_loop()
        finished: asyncio.Future[None] = loop.create_future()
        wait = settings.ws_idle_timeout  # None: no limit
        idle: asyncio.TimerHandle | None = None

        def finish() -> None:
            if not finished.done():
                finished.set_result(None)

        def on_message(item: Any) -> None:
            # Each message is handed over as it is read (as for a socket of this process's
            # tables): no task wakes, no future or timer is made for it.
            if item is None:
                finish()
            elif not conn.closing:
                self._from_linked(conn, owner, cid, item if isinstance(item, str) else None)

        def idle_check() -> None:
            # One idle timer a socket, not moved for every message: when it goes off it looks
            # at when the last message came (the rate limit's clock).
            nonlocal idle
            assert wait is not None
            left = conn.limit.last + wait - time.monotonic()
            if left <= 0:
                idle = None
                conn.close(P.CLOSE_IDLE, "no message for too long")
                finish()
            else:
                idle = loop.call_later(left, idle_check)

        if wait is not None:
            idle = loop.call_later(wait, idle_check)
        try:
            websocket.hand_to(on_message)
            await finished
        finally:
            if idle is not None:
                idle.cancel()
            metrics.CONNECTIONS.labels("linked").dec()
            link = self.links.pop(cid, None)
            if link is not None and owner not in self.gone:
                self.bus.post(owner, {"op": "detach", "c": cid, "from": self.node})
        return True

    def _from_linked(self, conn: Any, owner: str, cid: str, text: str | None) -> None:
        """A message of a linked socket: rate-limited here, read at the owner (a flood
        closes the socket, which ends its loop)."""
        settings = self.service.settings
        if not conn.limit.allow():
            if conn.limit.dropped > settings.flood_limit:
                conn.close(P.CLOSE_FLOOD, "too many messages")
            elif conn.limit.dropped == 1:
                error = P.rate_limited(settings.rate_per_second, settings.burst)
                conn.send(render(error.to_message(), None, None))
            return
        if text is None:
            error = ProtocolError("bad_json", "send JSON text messages, not binary ones")
            conn.send(render(error.to_message(), None, None))
            return
        self.bus.message(owner, cid, text)

    def _close_links(self, table_ids: set[str] | None, reason: str) -> None:
        for cid, link in list(self.links.items()):
            if table_ids is None or link.table_id in table_ids:
                self.links.pop(cid, None)
                link.conn.close(CLOSE_MOVED, reason)

    def _on_bus_reconnect(self) -> None:
        """Frames may have been lost while Redis was away: linked sockets reconnect (and get
        a full state), and the proxies of other nodes' sockets are dropped (they reattach)."""
        self._close_links(None, "the server lost its messages for a moment: reconnect")
        for proxy in list(self.proxies.values()):
            self.drop_proxy(proxy)

    # -- the bus's records (see bus.Receiver) ----------------------------------------------------

    def unheard(self, node: str) -> None:
        """A message to ``node`` reached nobody: the proxies of its sockets are dropped, and
        our sockets linked to its tables find their owner again (they reconnect); if it owned
        tables our sockets use, it is taken for gone (its leases may be taken over at once).
        A node that only holds sockets of our tables is not: it may be re-subscribing."""
        owned = False
        for cid, link in list(self.links.items()):
            if link.owner == node:
                owned = True
                self.links.pop(cid, None)
                link.conn.close(CLOSE_MOVED, "the table is moving to another server: reconnect")
        if owned:
            self.gone.add(node)
        for proxy in [p for p in self.proxies.values() if p.node == node]:
            self.drop_proxy(proxy)

    def drop_proxy(self, proxy: ProxyConn) -> None:
        self.proxies.pop((proxy.node, proxy.cid), None)
        proxy.closed = True
        table = proxy.table
        if table is not None:
            table.detach(proxy)

    def frame(self, link: str, text: str) -> None:
        """A frame from a table's owner for our socket ``link``, sent as it came."""
        found = self.links.get(link)
        if found is not None:  # committed by the owner: it does not wait for our commit
            send = getattr(found.conn, "send_committed", None)
            (send or found.conn.send)(text)

    def closed(self, link: str, code: int, reason: str) -> None:
        found = self.links.pop(link, None)
        if found is not None:
            found.conn.close(code, reason)

    def envelope(self, envelope: dict[str, Any]) -> None:
        op = envelope.get("op")
        if op == "attach":
            self._attach(envelope)
        elif op == "detach":
            proxy = self.proxies.get((envelope.get("from", ""), envelope.get("c", "")))
            if proxy is not None:
                self.drop_proxy(proxy)
        elif op == "rpc":
            self._answer(envelope)

    def _attach(self, envelope: dict[str, Any]) -> None:
        node, cid = str(envelope["from"]), str(envelope["c"])
        table = self.service.tables.get(str(envelope["t"]))
        if table is None:  # not ours (any more): the socket must find the owner again
            self.bus.close_link(node, cid, CLOSE_MOVED, "the table moved")
            return
        proxy = ProxyConn(self, node, cid, envelope)
        self.proxies[(node, cid)] = proxy
        table.attach(proxy)

    def message(self, node: str, cid: str, text: str) -> None:
        """A client's message from a socket ``node`` holds for one of our tables."""
        proxy = self.proxies.get((node, cid))
        if proxy is None:  # not attached here (any more): the socket must find the owner again
            self.bus.close_link(node, cid, CLOSE_MOVED, "the table moved")
            return
        table = proxy.table
        if table is None:
            return
        try:
            message = parse_client_message(text)
        except ProtocolError as error:  # it may repeat the client's own words (cards)
            echo = named_cards(error.received)
            proxy.send(render(error.to_message(), proxy.seat, table.game, echo=echo))
            return
        except Exception as failure:  # told to the client, as on a socket of this process
            log_failure(log, "reading a linked client's message", failure)
            proxy.send(render(internal_error(), proxy.seat, table.game))
            return
        started = time.perf_counter()
        table.handle(proxy, message)
        metrics.observe_action(message.type, time.perf_counter() - started)

    def _answer(self, envelope: dict[str, Any]) -> None:
        node, rid = str(envelope.get("from", "")), str(envelope.get("rid", ""))
        table = self.service.tables.get(str(envelope.get("t", "")))
        if table is None:
            self.bus.reply(node, rid, {"status": 409})
            return
        what = envelope.get("what")
        if what == "summary":
            self.bus.reply(node, rid, {"status": 200, "body": table.summary()})
        elif what == "records":
            self.bus.reply(node, rid, {"status": 200, "records": list(table.records)})
        else:
            self.bus.reply(node, rid, {"status": 400})


class Upkeep:
    """A cluster's rounds: renew its leases, watch the owners of linked tables, adopt orphans."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.service = cluster.service
        self.leases = cluster.leases
        self._last_scan = 0.0
        self._silent: set[str] = set()  # nodes with nobody on their channel at the last scan

    async def run(self) -> None:
        cluster = self.cluster
        settings = self.service.settings
        tick = min(settings.lease_renew, settings.orphan_scan, 1.0)
        last_renew = 0.0
        while True:
            await asyncio.sleep(tick)
            try:
                now = time.monotonic()
                if now - last_renew >= settings.lease_renew - tick / 2:
                    last_renew = now
                    await self._renew()
                await self._watch_links()
                if now - self._last_scan >= settings.orphan_scan - tick / 2:
                    self._last_scan = now
                    await self._adopt_orphans()
                cluster.ready = cluster.bus.connected.is_set()
            except asyncio.CancelledError:
                raise
            except StoreError as error:
                log.warning("cluster upkeep: the store failed (%s)", error)
            except Exception as error:
                cluster.ready = False
                log.warning("cluster upkeep failed (%s); next time", error)

    async def _renew(self) -> None:
        lost = await self.leases.renew(list(self.service.tables))
        for table_id in lost:
            log.warning("lost the lease of table %s to another process", table_id)
            self.service.lose(table_id, release=False)

    async def _watch_links(self) -> None:
        tables = sorted({link.table_id for link in self.cluster.links.values()})
        owners = dict(zip(tables, await self.leases.owners(tables), strict=True))
        moved = {  # links made while Redis answered are left for the next round
            link.table_id
            for link in self.cluster.links.values()
            if link.table_id in owners
            and (owners[link.table_id] != link.owner or link.owner in self.cluster.gone)
        }
        if moved:
            self.cluster._close_links(moved, "the table moved to another server: reconnect")

    async def _adopt_orphans(self) -> None:
        service = self.service
        live = [t for t in await service.store.live_tables() if t not in service.tables]
        if not live:
            return
        random.shuffle(live)
        owners = await self.leases.owners(live)
        gone, node = self.cluster.gone, self.cluster.node
        others = sorted({o for o in owners if o is not None and o != node} - set(gone))
        if others:  # a node with nobody on its channel is gone: no need to wait for its leases
            counts = await self.cluster.redis.pubsub_numsub(*[Bus.channel(o) for o in others])
            silent = {o for o, (_, count) in zip(others, counts, strict=True) if not count}
            for quiet in silent & self._silent:  # seen so twice in a row (not a reconnection)
                gone.add(quiet)
            self._silent = silent
        for table_id, owner in zip(live, owners, strict=True):
            if owner is not None and owner not in gone:
                continue
            if owner is not None:
                await self.leases.release(table_id, holder=owner)
            if table_id not in service.tables and await self.leases.acquire(table_id):
                if service.store.status(table_id) != "live":
                    # The scan read the table as live just before its owner unloaded it (the
                    # status is written before the lease is given up): it is no orphan.
                    await self.leases.release(table_id)
                    continue
                try:
                    self.cluster.load(table_id)
                except Exception:
                    log.exception("could not take over table %s", table_id)
