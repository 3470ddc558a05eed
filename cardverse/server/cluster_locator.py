"""Where a table lives when several processes share one log: the cluster's locator.

:class:`ClusterLocator` is the :class:`~cardverse.server.table.locator.Locator` of a server run
with ``--redis``: a table is this process's if it holds the table's lease (taking it, and
loading the table, when nobody does), else another process's, reached through the bus
(:mod:`cardverse.server.cluster`). A table read from the store without its lease is a copy,
never kept; the tables other processes make are looked for in the store; nothing is restored
at start (each table goes to whoever takes its lease).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from . import metrics
from .cluster import Cluster
from .spectators import watch_id_for

if TYPE_CHECKING:
    from .table.locator import Tables
    from .table.room import Room


class ClusterLocator:
    """Tables owned through leases in Redis; the bus reaches the others."""

    def __init__(self, service: Tables, redis_url: str) -> None:
        self.service = service
        self.cluster = Cluster(service, redis_url)
        self._directory_seen = time.time()  # the directory holds the tables made before
        self._directory_looked = float("-inf")  # when the store was last looked in for more

    async def create(self, name: str | None, rules: Any, turn_timer: Any) -> tuple[Room, str]:
        return await self.cluster.create(name, rules, turn_timer)

    async def find(self, table_id: str, watch: bool = False) -> Room | str | None:
        if watch:
            real = await self.cluster.resolve_watch(table_id)
            if real is None:
                return None
            table_id = real
        return await self.cluster.locate(table_id)

    async def resolve_watch(self, watch_id: str) -> str | None:
        return await self.cluster.resolve_watch(watch_id)

    async def ask(self, owner: str, what: str, table_id: str) -> dict[str, Any]:
        return await self.cluster.ask(owner, what, table_id)

    def load(self, table_id: str) -> Room:
        return self.service.restore(table_id)  # only the lease's holder keeps it (locate)

    def newer_tables(self, at_most_every: float = 0.0) -> dict[str, str]:
        """Add the tables other processes made since the last look to the directory (a minute
        of overlap, for clocks apart and commits late; not again within ``at_most_every``
        seconds); returns its codes."""
        directory = self.service.directory
        if time.monotonic() - self._directory_looked < at_most_every:
            return directory.by_code
        self._directory_looked = time.monotonic()
        now = time.time()
        for table_id in self.service.store.tables_created_since(self._directory_seen - 60.0):
            directory.add(table_id, watch_id_for(table_id))
        self._directory_seen = now
        return directory.by_code

    def restore_all(self) -> int:
        return 0  # each table is taken by the process that gets its lease

    def lost(self, table_id: str, release: bool) -> None:
        metrics.LEASES_LOST.inc()
        if release:
            self.cluster.released(table_id)

    def released(self, table_id: str) -> None:
        self.cluster.released(table_id)

    def status_written(self) -> None:
        self.service.store.commit()  # the status is written before another process may load it

    def figures(self) -> dict[str, Any]:
        return {"node": self.cluster.node, "pid": os.getpid()}

    def ready(self) -> tuple[bool, str | None]:
        if not self.cluster.bus.connected.is_set():
            return False, "Redis cannot be reached"
        return True, None

    def start(self) -> None:
        self.cluster.start()

    async def close(self) -> None:
        await self.cluster.close()
