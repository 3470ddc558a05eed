"""The event log every store keeps: its base class, its errors, and what waits for a commit.

Every change a table accepts (a seat taken, options, bots, the start of a game with its seed,
every action of a game) is one row of its log, written and committed *before* anyone is told of
it. A table's state is rebuilt by replaying its rows in order through the table service and the
rules engine (:meth:`cardverse.server.tables.Table.restore`): the log is the truth.

:class:`EventStore` holds what every store shares: **group commit** (inside a running event
loop, the first write of a loop turn opens a transaction and schedules its commit at the end of
that turn, so every table's changes of one turn cost one commit; whatever must wait for the
commit is handed to :meth:`EventStore.after_commit`), the log's reads and writes in SQL that
each store adapts, and the **fencing number** of the writer that appended each row (a table's
row holds the highest number handed out, :meth:`EventStore.claim`; a write with a lower number
is refused with :class:`FencedOut`). A lobby's changes are coalesced (:meth:`EventStore.replace`),
and a table's ``status`` says whether it was in memory (``live``), unloaded (``idle``), or an
abandoned lobby that expired (``expired``: its events are deleted).

The stores are :class:`cardverse.server.store.Store` (the SQLite file, one process) and
:class:`cardverse.server.pgstore.PostgresStore` (several processes and machines); both depend on
this module and not on each other, and :func:`cardverse.server.stores.open_store` picks one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .jsontext import compact

STATUSES = ("live", "idle", "expired")

log = logging.getLogger("cardverse.server.store")


class StoreError(Exception):
    """A write the store refused or could not make."""


class StoreUnavailable(StoreError):
    """The database cannot be reached or failed: nothing was written; try again later."""


class FencedOut(StoreError):
    """A write by a process whose fencing number is stale (another one owns the table now),
    or of an event number already taken: this process's copy of the table is out of date."""


@dataclass(frozen=True)
class StoredEvent:
    n: int
    kind: str
    data: dict[str, Any]
    at: float


class EventStore:
    """What every store offers: group commit around the writes of one event-loop turn, and
    the table log's reads and writes (implemented by each store in its own SQL)."""

    path: Path | str
    group_commit: bool

    def __init__(self, group_commit: bool) -> None:
        self.group_commit = group_commit
        self.commits = 0  # transactions committed (for the benchmarks)
        self.commit_seconds = 0.0  # time spent committing, in all
        self.slowest_commit = 0.0  # the longest commit (a slow disk stalls the event loop)
        self.errors = 0  # writes or commits that failed (operator figure)
        self._open = False  # a transaction is open, its commit scheduled
        self._waiting: list[Callable[[], None]] = []
        self._written: set[str] = set()  # tables written in the open transaction
        self._turn = 0  # transactions opened so far (see :attr:`ticket`)
        # Called with the tables whose changes of a turn were lost by a failed commit: their
        # copies in memory are ahead of the log and must be reloaded from it.
        self.on_lost: Callable[[set[str]], None] | None = None

    # -- the database's own operations (each store) ---------------------------------------------

    def _tx_begin(self) -> None:
        raise NotImplementedError

    def _tx_commit(self) -> None:
        raise NotImplementedError

    def _tx_rollback(self) -> None:
        raise NotImplementedError

    def _exec(self, sql: str, params: tuple[Any, ...]) -> int:
        """Run one statement; returns the rows it changed."""
        raise NotImplementedError

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    @property
    def synchronous(self) -> str:
        raise NotImplementedError

    def start_checkpointer(self, interval: float = 5.0) -> None:
        """Background upkeep of the database, if it needs any."""

    def close(self) -> None:
        raise NotImplementedError

    # -- transactions ---------------------------------------------------------------------------

    def _begin(self) -> bool:
        """Open the turn's transaction if needed; False when this write commits by itself."""
        if self._open:
            return True
        if not self.group_commit:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._tx_begin()
        self._open = True
        self._turn += 1
        loop.call_soon(self.commit)
        return True

    def commit(self) -> None:
        """Commit the open transaction (if any), then run what waited for it.

        When the commit fails, nothing that waited for it runs (nobody is told of changes that
        are not durable) and :attr:`on_lost` learns which tables' changes were lost."""
        if self._open:
            self._open = False
            written, self._written = self._written, set()
            began = time.perf_counter()
            try:
                self._tx_commit()
            except Exception:
                self.errors += 1
                log.critical(
                    "the store could not commit; the changes of %d table(s) are lost",
                    len(written),
                )
                with contextlib.suppress(Exception):
                    self._tx_rollback()
                self._waiting = []
                if self.on_lost is not None and written:
                    self.on_lost(written)
                raise
            finally:
                self.commits += 1
                took = time.perf_counter() - began
                self.commit_seconds += took
                self.slowest_commit = max(self.slowest_commit, took)
        waiting, self._waiting = self._waiting, []
        for callback in waiting:
            try:
                callback()
            except Exception:  # pragma: no cover - a connection's own failure
                log.exception("a callback after the commit failed")

    def after_commit(self, callback: Callable[[], None]) -> bool:
        """Run ``callback`` once the open transaction is committed; False (not run, not kept)
        when no transaction is open: what it waits for is durable already."""
        if not self._open:
            return False
        self._waiting.append(callback)
        return True

    @property
    def pending(self) -> bool:
        """Whether writes wait for their commit."""
        return self._open

    @property
    def ticket(self) -> object:
        """Which commit :meth:`after_commit` waits for now: a connection holding messages for
        one commit starts a new hold when this changes (a store that writes the next batch
        while the one before is committed has several commits on the way)."""
        return self._turn

    def _run(
        self, table_id: str, fence: int | None, statements: list[tuple[str, tuple[Any, ...]]]
    ) -> None:
        """Run a table's statements in the turn's transaction (or one of their own), after
        checking the writer's fencing number (None: no check, a new table)."""
        if self._begin():
            self._written.add(table_id)
            if fence is not None:
                self._check_fence(table_id, fence)
            for sql, params in statements:
                self._statement(sql, params)
            return
        self._tx_begin()
        try:
            if fence is not None:
                self._check_fence(table_id, fence)
            for sql, params in statements:
                self._statement(sql, params)
        except BaseException:
            with contextlib.suppress(Exception):
                self._tx_rollback()
            raise
        self._tx_commit()
        self.commits += 1

    def _statement(self, sql: str, params: tuple[Any, ...]) -> None:
        if sql.startswith("!"):  # a statement that must change one row, or the event is taken
            if self._exec(sql[1:], params) != 1:
                raise FencedOut(f"event {params[1]} of table {params[0]} is already taken")
            return
        self._exec(sql, params)

    def _check_fence(self, table_id: str, fence: int) -> None:
        rows = self._query(self._fence_sql, (table_id,))
        if not rows:
            raise FencedOut(f"table {table_id} is not in the store")
        if int(rows[0][0]) > fence:
            raise FencedOut(
                f"table {table_id} belongs to a newer writer (fence {rows[0][0]} > {fence})"
            )

    _fence_sql = "SELECT fence FROM tables WHERE id = ?"
    _insert_event = (
        "!INSERT INTO events (table_id, n, kind, data, at, fence) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING"
    )
    _replace_event = (
        "INSERT INTO events (table_id, n, kind, data, at, fence) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (table_id, n) DO UPDATE SET kind = excluded.kind, data = excluded.data, "
        "at = excluded.at, fence = excluded.fence"
    )

    def _sql(self, sql: str) -> str:
        """The statement in this database's placeholders."""
        return sql

    # -- writing --------------------------------------------------------------------------------

    def create_table(
        self, table_id: str, n: int, kind: str, data: dict[str, Any], fence: int = 0
    ) -> None:
        """Register a new table with its first event, in one transaction."""
        now = time.time()
        self._run(
            table_id,
            None,
            [
                (
                    self._sql(
                        "INSERT INTO tables (id, created, updated, status, fence) "
                        "VALUES (?, ?, ?, 'live', ?)"
                    ),
                    (table_id, now, now, fence),
                ),
                (self._sql(self._insert_event), (table_id, n, kind, _dumps(data), now, fence)),
            ],
        )

    def append(
        self,
        table_id: str,
        n: int,
        kind: str,
        data: dict[str, Any],
        touch: bool = True,
        fence: int = 0,
    ) -> None:
        """Append event ``n`` of a table; raises :class:`FencedOut` if ``n`` is already taken
        or a writer with a higher fencing number owns the table.

        ``touch`` also notes the table as recently changed (for finding idle lobbies); a game's
        moves skip it but for every 64th, which keeps a move to one write.
        """
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (self._sql(self._insert_event), (table_id, n, kind, _dumps(data), now, fence))
        ]
        if touch:
            statements.append(
                (self._sql("UPDATE tables SET updated = ? WHERE id = ?"), (now, table_id))
            )
        self._run(table_id, fence, statements)

    def replace(
        self, table_id: str, n: int, kind: str, data: dict[str, Any], fence: int = 0
    ) -> None:
        """Write event ``n`` over the one already there (a coalesced lobby row)."""
        now = time.time()
        self._run(
            table_id,
            fence,
            [
                (self._sql(self._replace_event), (table_id, n, kind, _dumps(data), now, fence)),
                (self._sql("UPDATE tables SET updated = ? WHERE id = ?"), (now, table_id)),
            ],
        )

    def set_status(self, table_id: str, status: str, fence: int | None = None) -> None:
        """``live`` (in memory), ``idle`` (unloaded) or ``expired`` (its events deleted)."""
        if status not in STATUSES:
            raise ValueError(f"unknown table status {status!r}")
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (self._sql("UPDATE tables SET status = ? WHERE id = ?"), (status, table_id))
        ]
        if status == "expired":
            statements.append((self._sql("DELETE FROM events WHERE table_id = ?"), (table_id,)))
        self._run(table_id, fence, statements)

    def claim(self, table_id: str) -> int:
        """Hand the table's next fencing number to a new owner (committed at once, after the
        turn's open transaction): from now on writes with a lower number are refused."""
        self.commit()
        self._tx_begin()
        try:
            self._exec(
                self._sql(
                    "UPDATE tables SET fence = fence + 1, status = 'live' "
                    "WHERE id = ? AND status != 'expired'"
                ),
                (table_id,),
            )
            rows = self._query(
                self._sql("SELECT fence, status FROM tables WHERE id = ?"), (table_id,)
            )
        except BaseException:
            with contextlib.suppress(Exception):
                self._tx_rollback()
            raise
        self._tx_commit()
        self.commits += 1
        if not rows or rows[0][1] == "expired":
            raise FencedOut(f"table {table_id} is not in the store")
        return int(rows[0][0])

    # -- reading --------------------------------------------------------------------------------

    def exists(self, table_id: str) -> bool:
        """Whether the table can be loaded (it is known and has not expired)."""
        rows = self._query(
            self._sql("SELECT 1 FROM tables WHERE id = ? AND status != 'expired'"), (table_id,)
        )
        return bool(rows)

    def events(self, table_id: str) -> list[StoredEvent]:
        rows = self._query(
            self._sql("SELECT n, kind, data, at FROM events WHERE table_id = ? ORDER BY n"),
            (table_id,),
        )
        return [StoredEvent(n, kind, json.loads(data), at) for n, kind, data, at in rows]

    def fences(self, table_id: str) -> list[int]:
        """The fencing number of each event of the table, in order (for tests and audits)."""
        rows = self._query(
            self._sql("SELECT fence FROM events WHERE table_id = ? ORDER BY n"), (table_id,)
        )
        return [int(row[0]) for row in rows]

    def fence_of(self, table_id: str) -> int:
        """The table's newest fencing number (0 for an unknown table)."""
        rows = self._query(self._sql("SELECT fence FROM tables WHERE id = ?"), (table_id,))
        return int(rows[0][0]) if rows else 0

    def count_events(self, table_id: str) -> int:
        rows = self._query(self._sql("SELECT COUNT(*) FROM events WHERE table_id = ?"), (table_id,))
        return int(rows[0][0])

    def status(self, table_id: str) -> str | None:
        rows = self._query(self._sql("SELECT status FROM tables WHERE id = ?"), (table_id,))
        return None if not rows else str(rows[0][0])

    def expire_idle_lobbies(self, before: float) -> int:
        """Expire unloaded tables unchanged since ``before`` (a wall-clock time) where no game
        was ever started; returns how many."""
        rows = self._query(
            self._sql(
                "SELECT id FROM tables AS t WHERE status = 'idle' AND updated < ? AND NOT EXISTS "
                "(SELECT 1 FROM events AS e WHERE e.table_id = t.id AND e.kind = 'start')"
            ),
            (before,),
        )
        for (table_id,) in rows:
            # Only if it is still idle: another process may have just loaded it.
            self._run(
                table_id,
                None,
                [
                    (
                        self._sql(
                            "UPDATE tables SET status = 'expired' WHERE id = ? AND status = 'idle'"
                        ),
                        (table_id,),
                    ),
                    (
                        self._sql(
                            "DELETE FROM events WHERE table_id = ? AND EXISTS "
                            "(SELECT 1 FROM tables WHERE id = ? AND status = 'expired')"
                        ),
                        (table_id, table_id),
                    ),
                ],
            )
        return len(rows)

    def known_tables(self) -> list[str]:
        """Every table that has not expired (the invite codes' and watch links' directory)."""
        rows = self._query("SELECT id FROM tables WHERE status != 'expired'", ())
        return [row[0] for row in rows]

    def tables_created_since(self, when: float) -> list[str]:
        """The tables (not expired) created after ``when`` (a wall-clock time)."""
        rows = self._query(
            self._sql("SELECT id FROM tables WHERE created > ? AND status != 'expired'"), (when,)
        )
        return [row[0] for row in rows]

    def tables_to_restore(self) -> list[str]:
        """The tables that were live (in memory) when the server stopped, oldest first."""
        rows = self._query(
            "SELECT id FROM tables WHERE status IN ('live', 'open') ORDER BY created", ()
        )
        return [row[0] for row in rows]

    async def live_tables(self) -> list[str]:
        """The tables held live by some process (a cluster's scan for orphans, every second or
        so): as :meth:`tables_to_restore`, without holding up the event loop where the store
        can read elsewhere (PostgreSQL)."""
        return self.tables_to_restore()


class HeldMessages:
    """A connection's messages waiting for the store's commits (nothing is told before it is
    durable), released in order, each with the commit it waited for."""

    __slots__ = ("_items", "_ticket", "owner", "release", "store")

    def __init__(
        self, store: EventStore, release: Callable[[Any, list[Any]], None], owner: object
    ) -> None:
        """``release(owner, items)`` takes the items of each commit, in order: a class's own
        function and the connection, rather than a bound method kept for each connection (64
        bytes)."""
        self.store = store
        self.release = release
        self.owner = owner
        self._items: list[Any] | None = None
        self._ticket: object = None

    def hold(self, item: Any) -> bool:
        """Keep ``item`` until what was written so far is committed; False (not kept) when
        nothing waits for a commit: it may go out at once."""
        store = self.store
        if not store.pending:
            return False
        ticket = store.ticket
        if self._items is None or self._ticket != ticket:
            items: list[Any] = []
            self._items, self._ticket = items, ticket
            store.after_commit(partial(self._released, items))
        self._items.append(item)
        return True

    @property
    def holding(self) -> bool:
        """Whether anything waits for a commit now."""
        return bool(self._items)

    def clear(self) -> None:
        """Drop what is held (the connection is gone)."""
        if self._items is not None:
            self._items.clear()

    def _released(self, items: list[Any]) -> None:
        if self._items is items:
            self._items, self._ticket = None, None
        self.release(self.owner, items)


_encode = compact


def dumps_event(data: dict[str, Any]) -> str:
    """An event's data as the log stores it (compact JSON text)."""
    return _encode(data)


_dumps = dumps_event
