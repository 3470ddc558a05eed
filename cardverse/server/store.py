"""The SQLite store: one file holding the append-only log of events per table (one process).

Durability: the database runs in WAL mode with ``synchronous=FULL`` by default, so a committed
action survives the process being killed and the machine losing power. The fsync that costs is
shared by the group commit of :class:`~cardverse.server.eventlog.EventStore`; outside an event
loop, or with ``group_commit=False``, every write commits at once. A background thread
checkpoints the WAL. Several processes use :mod:`cardverse.server.pgstore` instead
(:func:`cardverse.server.stores.open_store` picks the store).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from .eventlog import EventStore, FencedOut
from .eventlog import dumps_event as _dumps

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'live',
    fence INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    fence INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tables_updated ON tables (updated);
"""

DB_NAME = "cardverse.sqlite3"

# SQLite's page cache, KiB (the process's, not a table's; SQLite's default is 2 MiB). What an
# append reads again is the last page of each live table's log and the tables' index: 1 MiB
# holds that for about 250 playing tables (measured: an append costs 0.3 µs more than with
# 2 MiB, 0.9 µs with 512 KiB, 3 µs with 256 KiB, 250 tables appending at random).
CACHE_KIB = 1024

# An event appended only by the table's newest writer (its fencing number, see
# EventStore.claim) and only at a free number: one statement for the check and the write.
_FENCED_INSERT = (
    "INSERT INTO events (table_id, n, kind, data, at, fence) SELECT ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT fence FROM tables WHERE id = ?) <= ? ON CONFLICT DO NOTHING"
)

log = logging.getLogger("cardverse.server.store")


class Store(EventStore):
    """Append-only event logs of tables in one SQLite file (not thread-safe: one event loop)."""

    def __init__(
        self, path: Path | str, synchronous: str = "FULL", group_commit: bool = True
    ) -> None:
        super().__init__(group_commit)
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous mode {synchronous!r}")
        self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self.db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self.db.executescript(SCHEMA)
        self._add_fence_columns()
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        # Set by the checkpoints' thread when it has copied the WAL as far as it was when it
        # began; the event loop then copies the rest itself (see :meth:`commit`).
        self._backfilled = False
        self.checkpoints = 0  # the checkpoints' thread's checkpoints so far (tests, operators)

    def _add_fence_columns(self) -> None:
        """A file written before fencing numbers existed gets their columns (all 0)."""
        for table in ("tables", "events"):
            columns = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            if "fence" not in columns:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN fence INTEGER NOT NULL DEFAULT 0")

    def append(
        self,
        table_id: str,
        n: int,
        kind: str,
        data: dict[str, Any],
        touch: bool = True,
        fence: int = 0,
    ) -> None:
        """As :meth:`EventStore.append`, in one statement: the row is inserted only when the
        writer's fencing number is the table's newest (the check and the write are one
        statement; the reason is looked up only when it is refused)."""
        if not self._begin():  # outside the event loop: a transaction of its own
            super().append(table_id, n, kind, data, touch, fence)
            return
        self._written.add(table_id)
        now = time.time()
        db = self.db
        params = (table_id, n, kind, _dumps(data), now, fence, table_id, fence)
        if db.execute(_FENCED_INSERT, params).rowcount != 1:
            self._check_fence(table_id, fence)
            raise FencedOut(f"event {n} of table {table_id} is already taken")
        if touch:
            db.execute("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id))

    def commit(self) -> None:
        """As :meth:`EventStore.commit`; then, once the checkpoints' thread has copied the WAL
        as far as it went when it began, the few frames committed since are copied here too.

        Under a steady flow of commits the thread never finds the WAL fully copied (frames
        come while it copies and syncs), and SQLite starts the WAL over only when it is: it grew
        for as long as the tables played (300 MB in 25 s of ``server_bench``, with the
        WAL-index's shared memory, 2.5 to 3.5 KiB a table of the process's resident memory).
        Here nobody else writes: after this copy the next transaction starts the WAL from its
        beginning (it stays as long as what comes in between two checkpoints)."""
        super().commit()
        if self._backfilled and not self._open:
            self._catch_up()

    def _catch_up(self) -> None:
        self._backfilled = False
        try:
            self.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error:  # pragma: no cover - busy or a failing disk: next time
            log.exception("a WAL checkpoint failed")

    def _tx_begin(self) -> None:
        self.db.execute("BEGIN")

    def _tx_commit(self) -> None:
        self.db.execute("COMMIT")
        if self._backfilled and not self.group_commit:  # (a group's: see commit)
            self._catch_up()

    def _tx_rollback(self) -> None:
        self.db.execute("ROLLBACK")

    def _exec(self, sql: str, params: tuple[Any, ...]) -> int:
        return self.db.execute(sql, params).rowcount

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

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
                    busy, _, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    self._backfilled = not busy
                    self.checkpoints += 1
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
