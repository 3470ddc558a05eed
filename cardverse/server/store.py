"""The store: one SQLite file holding an append-only log of events per table.

Every change a table accepts (a seat taken, options, bots, the start of a game with its seed,
every action of a game) is one row in ``events``, written and committed *before* anyone is told
of it. A table's state is rebuilt by replaying its rows in order through the table service and the
rules engine (:meth:`cardverse.server.tables.Table.restore`): the log is the truth.

The database runs in WAL mode. With ``synchronous=NORMAL`` (the default) a commit survives the
server process being killed at any moment (SIGKILL included); ``synchronous=FULL`` also survives
the machine losing power, at the cost of an fsync per action.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'open'
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


@dataclass(frozen=True)
class StoredEvent:
    n: int
    kind: str
    data: dict[str, Any]
    at: float


class Store:
    """Append-only event logs of tables in one SQLite file (not thread-safe: one event loop)."""

    def __init__(self, path: Path | str, synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous mode {synchronous!r}")
        self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self.db.executescript(SCHEMA)

    @classmethod
    def in_dir(cls, data_dir: Path | str, synchronous: str = "NORMAL") -> Store:
        return cls(Path(data_dir) / DB_NAME, synchronous)

    def close(self) -> None:
        self.db.close()

    # -- writing --------------------------------------------------------------------------------

    def create_table(self, table_id: str, n: int, kind: str, data: dict[str, Any]) -> None:
        """Register a new table with its first event, in one transaction."""
        now = time.time()
        with self._transaction():
            self.db.execute(
                "INSERT INTO tables (id, created, updated) VALUES (?, ?, ?)", (table_id, now, now)
            )
            self.db.execute(
                "INSERT INTO events (table_id, n, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                (table_id, n, kind, _dumps(data), now),
            )

    def append(
        self, table_id: str, n: int, kind: str, data: dict[str, Any], touch: bool = True
    ) -> None:
        """Append event ``n`` of a table and commit; raises if ``n`` is already taken.

        ``touch`` also notes the table as recently changed (for choosing which tables to restore
        at start); a game's moves skip it but for every 64th, which keeps a move to one write.
        """
        now = time.time()
        self.db.execute(
            "INSERT INTO events (table_id, n, kind, data, at) VALUES (?, ?, ?, ?, ?)",
            (table_id, n, kind, _dumps(data), now),
        )
        if touch:
            self.db.execute("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id))

    def set_status(self, table_id: str, status: str) -> None:
        self.db.execute("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))

    # -- reading --------------------------------------------------------------------------------

    def exists(self, table_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return row is not None

    def events(self, table_id: str) -> list[StoredEvent]:
        rows = self.db.execute(
            "SELECT n, kind, data, at FROM events WHERE table_id = ? ORDER BY n", (table_id,)
        ).fetchall()
        return [StoredEvent(n, kind, json.loads(data), at) for n, kind, data, at in rows]

    def tables_to_restore(self, since: float | None = None) -> list[str]:
        """Open tables (optionally only those changed after ``since``), oldest first."""
        if since is None:
            rows = self.db.execute(
                "SELECT id FROM tables WHERE status = 'open' ORDER BY created"
            ).fetchall()
        else:
            rows = self.db.execute(
                "SELECT id FROM tables WHERE status = 'open' AND updated >= ? ORDER BY created",
                (since,),
            ).fetchall()
        return [row[0] for row in rows]

    def _transaction(self) -> _Tx:
        return _Tx(self.db)


class _Tx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        if kind is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
