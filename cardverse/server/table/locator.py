"""Where a table lives: in this process (:class:`LocalLocator`) or in a cluster.

The table service and the web app ask their :class:`Locator` instead of testing whether the
server runs alone or with others: to create a table, to find one (this process's copy, or the
node id of the process that owns it), to read from its owner, to load a table that is not in
memory, to restore tables at start, and to let go of a table. The service picks the implementation
from the settings (:func:`cardverse.server.table.service.make_locator`): with ``redis`` set it is
:class:`cardverse.server.cluster.ClusterLocator` (leases, a bus, linked sockets).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ...tabletalk.invites import Directory
    from ..eventlog import EventStore
    from ..settings import Settings
    from .room import Room

CLOSE_MOVED = 1012  # "service restart": the table moved to another process; reconnect


class Locator(Protocol):
    """Where the tables of a service live, and how to reach them."""

    cluster: Any  # the cluster.Cluster of a clustered server (None alone)

    async def create(self, name: str | None, rules: Any, turn_timer: Any) -> tuple[Room, str]:
        """A new table owned by this process, durable: its token may be handed out."""
        ...

    async def find(self, table_id: str, watch: bool = False) -> Room | str | None:
        """This process's table (loaded if need be), the owner's node id, or None."""
        ...

    async def resolve_watch(self, watch_id: str) -> str | None: ...

    async def ask(self, owner: str, what: str, table_id: str) -> dict[str, Any]:
        """A read (``summary``, ``records``) from the process that owns a table."""
        ...

    def load(self, table_id: str) -> Room:
        """A stored table that is not in memory: kept here, or a copy to read."""
        ...

    def newer_tables(self, at_most_every: float = 0.0) -> dict[str, str]:
        """The invite codes of the directory, with tables other processes made since."""
        ...

    def restore_all(self) -> int: ...

    def lost(self, table_id: str, release: bool) -> None: ...

    def released(self, table_id: str) -> None: ...

    def status_written(self) -> None: ...

    def figures(self) -> dict[str, Any]: ...

    def ready(self) -> tuple[bool, str | None]: ...

    def start(self) -> None: ...

    async def close(self) -> None: ...


class Tables(Protocol):
    """What a locator asks of its table service (cardverse.server.table.service)."""

    settings: Settings
    store: EventStore
    directory: Directory
    tables: dict[str, Room]
    watch_index: dict[str, str]

    async def create_saved(
        self,
        name: str | None,
        rules: Any = None,
        turn_timer: Any = ...,
        table_id: str | None = None,
        fence: int = 0,
    ) -> tuple[Room, str]: ...

    def get(self, table_id: str) -> Room | None: ...

    def get_watched(self, watch_id: str) -> Room | None: ...

    def restore(self, table_id: str) -> Room: ...

    def keep(self, table: Room, fence: int) -> Room: ...

    def restore_live(self) -> int: ...

    def lose(self, table_id: str, release: bool = True) -> None: ...


class LocalLocator:
    """One process: every table is this process's, loaded from the store when asked for."""

    cluster: Any = None

    def __init__(self, service: Tables) -> None:
        self.service = service

    async def create(self, name: str | None, rules: Any, turn_timer: Any) -> tuple[Room, str]:
        return await self.service.create_saved(name, rules, turn_timer)

    async def find(self, table_id: str, watch: bool = False) -> Room | str | None:
        service = self.service
        return service.get_watched(table_id) if watch else service.get(table_id)

    async def resolve_watch(self, watch_id: str) -> str | None:
        return self.service.watch_index.get(watch_id)

    async def ask(self, owner: str, what: str, table_id: str) -> dict[str, Any]:
        return {"status": 409}  # no other process owns anything

    def load(self, table_id: str) -> Room:
        service = self.service
        return service.keep(service.restore(table_id), service.store.fence_of(table_id))

    def newer_tables(self, at_most_every: float = 0.0) -> dict[str, str]:
        return self.service.directory.by_code  # nobody else makes tables

    def restore_all(self) -> int:
        return self.service.restore_live()

    def lost(self, table_id: str, release: bool) -> None:
        pass  # no lease to give up

    def released(self, table_id: str) -> None:
        pass

    def status_written(self) -> None:
        pass  # the group commit writes it: no other process loads the table meanwhile

    def figures(self) -> dict[str, Any]:
        return {}

    def ready(self) -> tuple[bool, str | None]:
        return True, None

    def start(self) -> None:
        pass

    async def close(self) -> None:
        pass
