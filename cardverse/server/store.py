"""The store: one SQLite file holding an append-only log of events per table.

Every change a table accepts (a seat taken, options, bots, the start of a game with its seed,
every action of a game) is one row in ``events``, written and committed *before* anyone is told
of it. A table's state is rebuilt by replaying its rows in order through the table service and the
rules engine (:meth:`cardverse.server.tables.Table.restore`): the log is the truth.

Durability: the database runs in WAL mode with ``synchronous=FULL`` by default, so a committed
action survives the process being killed and the machine losing power. The fsync that costs is
shared by **group commit**: inside a running event loop, the first write of a loop turn opens a
transaction and schedules its commit at the end of that turn (``loop.call_soon``), so every
table's changes of one turn cost one commit. Whatever must wait for the commit (messages to the
clients: nothing is acknowledged before it is durable) is handed to :meth:`Store.after_commit`.
Outside an event loop, or with ``group_commit=False``, every write commits at once.

A lobby's changes are coalesced (:meth:`Store.replace`: one row holds the lobby as it is), and a
table's ``status`` says whether it was in memory (``live``), unloaded (``idle``), or an abandoned
lobby that expired (``expired``: its events are deleted). Only live tables are restored at start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'live'
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tables_updated ON tables (updated);
"""

DB_NAME = "cardverse.sqlite3"
STATUSES = ("live", "idle", "expired")

log = logging.getLogger("cardverse.server.store")


@dataclass(frozen=True)
class StoredEvent:
    n: int
    kind: str
    data: dict[str, Any]
    at: float


class Store:
    """Append-only event logs of tables in one SQLite file (not thread-safe: one event loop)."""

    def __init__(
        self, path: Path | str, synchronous: str = "FULL", group_commit: bool = True
    ) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous mode {synchronous!r}")
        self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self.db.executescript(SCHEMA)
        self.group_commit = group_commit
        self.commits = 0  # transactions committed (for the benchmarks)
        self.commit_seconds = 0.0  # time spent committing, in all
        self.slowest_commit = 0.0  # the longest commit (a slow disk stalls the event loop)
        self._open = False  # a transaction is open, its commit scheduled
        self._waiting: list[Callable[[], None]] = []
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()

    def start_checkpointer(self, interval: float = 5.0) -> None:
        """Move WAL checkpoints out of the commits: SQLite would otherwise run one inside the
        commit that fills the WAL (writing and syncing the database file, on the event loop);
        a thread of its own runs them instead, every ``interval`` seconds."""
        if self._checkpointer is not None or str(self.path) == ":memory:":
            return
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._stop_checkpoints.clear()
        self._checkpointer = threading.Thread(
            target=self._checkpoints, args=(interval,), name="cardverse-checkpoints", daemon=True
        )
        self._checkpointer.start()

    def _checkpoints(self, interval: float) -> None:
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA synchronous=FULL")
            while not self._stop_checkpoints.wait(interval):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error:  # pragma: no cover - busy or a failing disk: next time
                    log.exception("a WAL checkpoint failed")
        finally:
            db.close()

    @classmethod
    def in_dir(
        cls, data_dir: Path | str, synchronous: str = "FULL", group_commit: bool = True
    ) -> Store:
        return cls(Path(data_dir) / DB_NAME, synchronous, group_commit)

    @property
    def synchronous(self) -> str:
        """SQLite's synchronous level in force: OFF, NORMAL, FULL or EXTRA."""
        level = int(self.db.execute("PRAGMA synchronous").fetchone()[0])
        return ("OFF", "NORMAL", "FULL", "EXTRA")[level]

    def close(self) -> None:
        self.commit()
        if self._checkpointer is not None:
            self._stop_checkpoints.set()
            self._checkpointer.join(timeout=10)
            self._checkpointer = None
        self.db.close()

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
        self.db.execute("BEGIN")
        self._open = True
        loop.call_soon(self.commit)
        return True

    def commit(self) -> None:
        """Commit the open transaction (if any), then run what waited for it."""
        if self._open:
            self._open = False
            began = time.perf_counter()
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error:
                log.critical("the store could not commit; changes of this turn are lost")
                self.db.execute("ROLLBACK")
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

    def _run(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        if self._begin():
            for sql, params in statements:
                self.db.execute(sql, params)
            return
        self.db.execute("BEGIN")
        try:
            for sql, params in statements:
                self.db.execute(sql, params)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        self.commits += 1

    # -- writing --------------------------------------------------------------------------------

    def create_table(self, table_id: str, n: int, kind: str, data: dict[str, Any]) -> None:
        """Register a new table with its first event, in one transaction."""
        now = time.time()
        self._run(
            [
                (
                    "INSERT INTO tables (id, created, updated, status) VALUES (?, ?, ?, 'live')",
                    (table_id, now, now),
                ),
                (
                    "INSERT INTO events (table_id, n, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                    (table_id, n, kind, _dumps(data), now),
                ),
            ]
        )

    def append(
        self, table_id: str, n: int, kind: str, data: dict[str, Any], touch: bool = True
    ) -> None:
        """Append event ``n`` of a table; raises if ``n`` is already taken.

        ``touch`` also notes the table as recently changed (for finding idle lobbies); a game's
        moves skip it but for every 64th, which keeps a move to one write.
        """
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO events (table_id, n, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                (table_id, n, kind, _dumps(data), now),
            )
        ]
        if touch:
            statements.append(("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id)))
        self._run(statements)

    def replace(self, table_id: str, n: int, kind: str, data: dict[str, Any]) -> None:
        """Write event ``n`` over the one already there (a coalesced lobby row)."""
        now = time.time()
        self._run(
            [
                (
                    "INSERT OR REPLACE INTO events (table_id, n, kind, data, at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (table_id, n, kind, _dumps(data), now),
                ),
                ("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id)),
            ]
        )

    def set_status(self, table_id: str, status: str) -> None:
        """``live`` (in memory), ``idle`` (unloaded) or ``expired`` (its events deleted)."""
        if status not in STATUSES:
            raise ValueError(f"unknown table status {status!r}")
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))
        ]
        if status == "expired":
            statements.append(("DELETE FROM events WHERE table_id = ?", (table_id,)))
        self._run(statements)

    # -- reading --------------------------------------------------------------------------------

    def exists(self, table_id: str) -> bool:
        """Whether the table can be loaded (it is known and has not expired)."""
        row = self.db.execute(
            "SELECT 1 FROM tables WHERE id = ? AND status != 'expired'", (table_id,)
        ).fetchone()
        return row is not None

    def events(self, table_id: str) -> list[StoredEvent]:
        rows = self.db.execute(
            "SELECT n, kind, data, at FROM events WHERE table_id = ? ORDER BY n", (table_id,)
        ).fetchall()
        return [StoredEvent(n, kind, json.loads(data), at) for n, kind, data, at in rows]

    def count_events(self, table_id: str) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,))
        return int(row.fetchone()[0])

    def status(self, table_id: str) -> str | None:
        row = self.db.execute("SELECT status FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else str(row[0])

    def expire_idle_lobbies(self, before: float) -> int:
        """Expire unloaded tables unchanged since ``before`` (a wall-clock time) where no game
        was ever started; returns how many."""
        rows = self.db.execute(
            "SELECT id FROM tables AS t WHERE status = 'idle' AND updated < ? AND NOT EXISTS "
            "(SELECT 1 FROM events AS e WHERE e.table_id = t.id AND e.kind = 'start')",
            (before,),
        ).fetchall()
        for (table_id,) in rows:
            self.set_status(table_id, "expired")
        return len(rows)

    def tables_to_restore(self) -> list[str]:
        """The tables that were live (in memory) when the server stopped, oldest first."""
        rows = self.db.execute(
            "SELECT id FROM tables WHERE status IN ('live', 'open') ORDER BY created"
        ).fetchall()
        return [row[0] for row in rows]

    def known_tables(self) -> list[str]:
        """Every table that has not expired (the invite codes' and watch links' directory)."""
        rows = self.db.execute("SELECT id FROM tables WHERE status != 'expired'").fetchall()
        return [row[0] for row in rows]


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
