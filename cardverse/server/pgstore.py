"""The PostgreSQL store: the same append-only event log as the SQLite file, for several server
processes on several machines (``cardverse serve --database postgresql://...``).

One connection per process (psycopg 3), used on the event loop like the SQLite file: the
turn's writes go into one transaction committed at the end of the turn (group commit, see
:class:`cardverse.server.store.EventStore`), and nothing is acknowledged before that commit.
``(table_id, n)`` is the primary key of ``events``, so two writers can never both append the
same event; every append first reads the table's fencing number ``FOR SHARE`` (a new owner's
:meth:`claim` must wait for the old owner's open transaction, and the old owner's next write
sees the new number and is refused).

When the database cannot be reached, every read and write raises
:class:`~cardverse.server.store.StoreUnavailable` at once (a reconnection is tried at most every
``retry_interval`` seconds): the server refuses the action with a "try again" error.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import psycopg

from .store import EventStore, FencedOut, StoreUnavailable

log = logging.getLogger("cardverse.server.pgstore")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL DEFAULT 'live',
    fence BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    fence BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, n)
);
CREATE INDEX IF NOT EXISTS tables_updated ON tables (updated);
CREATE INDEX IF NOT EXISTS tables_status ON tables (status);
"""


class PostgresStore(EventStore):
    """Append-only event logs of tables in a PostgreSQL database (one connection, one loop)."""

    _fence_sql = "SELECT fence FROM tables WHERE id = %s FOR SHARE"

    def __init__(
        self,
        dsn: str,
        group_commit: bool = True,
        connect_timeout: float = 2.0,
        retry_interval: float = 0.5,
    ) -> None:
        super().__init__(group_commit)
        self.path = _without_password(dsn)
        self.dsn = dsn
        self.connect_timeout = connect_timeout
        self.retry_interval = retry_interval
        self._conn: psycopg.Connection[Any] | None = None
        self._last_try = float("-inf")
        self.reconnects = 0
        self._writes: list[tuple[str, tuple[Any, ...]]] = []  # waiting for the commit
        self._checked: dict[str, int] = {}  # tables whose fence this transaction checked
        self._connected_once = False
        conn = self._connection()
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(715517)")  # one schema creator at once
            conn.execute(SCHEMA)

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    def _connection(self) -> psycopg.Connection[Any]:
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        now = time.monotonic()
        if now - self._last_try < self.retry_interval:  # it failed a moment ago
            raise StoreUnavailable("the database cannot be reached just now")
        try:
            self._conn = psycopg.connect(
                self.dsn, autocommit=True, connect_timeout=max(1, round(self.connect_timeout))
            )
        except psycopg.Error as error:
            self._conn = None
            self._last_try = now
            self.errors += 1
            raise StoreUnavailable(f"the database cannot be reached: {error}") from None
        if self._connected_once:
            self.reconnects += 1
            log.warning("reconnected to the database")
        self._connected_once = True
        return self._conn

    def _fail(self, error: psycopg.Error) -> StoreUnavailable:
        self.errors += 1
        conn = self._conn
        if conn is not None and conn.broken:
            self._last_try = time.monotonic()
        log.error("the database failed: %s", error)
        return StoreUnavailable(f"the database failed: {error}")

    def _tx_begin(self) -> None:
        self._writes = []
        self._checked = {}
        try:
            self._connection().execute("BEGIN")
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _tx_commit(self) -> None:
        """Send the transaction's writes and its COMMIT in one pipeline: one round trip."""
        conn = self._connection()
        writes, self._writes = self._writes, []
        self._checked = {}
        if conn.info.transaction_status is psycopg.pq.TransactionStatus.INERROR:
            # A statement of this transaction failed: COMMIT would quietly roll it back.
            raise StoreUnavailable("a write of this transaction failed: it is rolled back")
        try:
            with conn.pipeline():
                for sql, params in writes:
                    conn.execute(sql, params)
                conn.execute("COMMIT")
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _tx_rollback(self) -> None:
        self._writes = []
        self._checked = {}
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            return
        conn.execute("ROLLBACK")

    def _statement(self, sql: str, params: tuple[Any, ...]) -> None:
        """Inside a group transaction a write waits for the commit's pipeline (the table's
        fencing number was checked, and its row is locked, at its first write of the
        transaction; a taken event number then fails the whole commit)."""
        if not self._open:
            super()._statement(sql, params)
            return
        if sql.startswith("!"):
            sql = sql[1:].replace(" ON CONFLICT DO NOTHING", "")
        self._writes.append((sql, params))

    def _exec(self, sql: str, params: tuple[Any, ...]) -> int:
        try:
            return self._connection().execute(sql, params).rowcount
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """A read; the transaction's waiting writes go first, in the same round trip (a read
        sees what this process wrote)."""
        try:
            conn = self._connection()
            if not self._writes:
                return conn.execute(sql, params).fetchall()
            writes, self._writes = self._writes, []
            with conn.pipeline():
                for write_sql, write_params in writes:
                    conn.execute(write_sql, write_params)
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _check_fence(self, table_id: str, fence: int) -> None:
        if self._open and self._checked.get(table_id) == fence:
            return  # checked in this transaction, the row locked until its end
        rows = self._query(self._fence_sql, (table_id,))
        if not rows:
            raise FencedOut(f"table {table_id} is not in the store")
        if int(rows[0][0]) > fence:
            raise FencedOut(
                f"table {table_id} belongs to a newer writer (fence {rows[0][0]} > {fence})"
            )
        if self._open:
            self._checked[table_id] = fence

    @property
    def synchronous(self) -> str:
        """PostgreSQL's ``synchronous_commit`` in force (``on``: durable at commit)."""
        try:
            return str(self._query("SHOW synchronous_commit", ())[0][0])
        except StoreUnavailable:
            return "unknown"

    def tables_to_restore(self) -> list[str]:
        return [
            row[0]
            for row in self._query(
                "SELECT id FROM tables WHERE status = 'live' ORDER BY created", ()
            )
        ]

    def close(self) -> None:
        try:
            self.commit()
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _without_password(dsn: str) -> str:
    """The address as it may be logged (no password)."""
    if "@" in dsn and "://" in dsn:
        scheme, rest = dsn.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        user = credentials.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return dsn
