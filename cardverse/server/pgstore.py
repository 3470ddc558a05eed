"""The PostgreSQL store: the same append-only event log as the SQLite file, for several server
processes on several machines (``cardverse serve --database postgresql://...``).

Two connections per process (psycopg 3). The **writer** connection belongs to a thread of its
own: a loop turn's writes are gathered into a *batch* (group commit, see
:class:`cardverse.server.eventlog.EventStore`), and at the end of the turn the batch goes to the
writer thread, which sends it in one transaction while the event loop goes on serving. While a
batch is being written, the next one gathers the writes of the following turns and is sent as
soon as the first is durable (one batch in flight at a time, so batches commit in order). What
waits for a batch (every message that tells of its changes) runs on the event loop once that
batch is committed: nothing is acknowledged before it is durable. The **reader** connection
serves the event loop's reads and fencing claims; a read about a table with writes still on
their way first waits for them (a read sees what this process wrote).

``(table_id, n)`` is the primary key of ``events``, so two writers can never both append the same
event. A batch first reads the fencing numbers of the tables it writes ``FOR SHARE`` (a new
owner's :meth:`claim` waits for the batch's transaction, and the old owner's next batch sees the
new number and is refused): a refused batch is rolled back whole and its tables leave memory
(:attr:`EventStore.on_lost`; their people reconnect and the log reloads them).

When the database cannot be reached, writes and reads raise
:class:`~cardverse.server.eventlog.StoreUnavailable` at once (a reconnection is tried at most every
``retry_interval`` seconds): the server refuses the action with a "try again" error. Before a
turn's first write the reader connection's socket is looked at (no round trip): a server that
shut down has said so there, and the action is refused before anything changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

import psycopg

from .eventlog import EventStore, FencedOut, StoreError, StoreUnavailable

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
CREATE INDEX IF NOT EXISTS tables_created ON tables (created);
"""

FENCES = "SELECT id, fence FROM tables WHERE id = ANY(%s) FOR SHARE"
_LIVE_TABLES = "SELECT id FROM tables WHERE status = 'live' ORDER BY created"


@dataclass(eq=False)
class Batch:
    """The writes of one or more loop turns, committed in one transaction."""

    writes: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    fences: dict[str, int] = field(default_factory=dict)  # table -> its writes' fencing number
    created: set[str] = field(default_factory=set)  # tables whose row this batch inserts
    written: set[str] = field(default_factory=set)
    waiting: list[Callable[[], None]] = field(default_factory=list)
    loop: asyncio.AbstractEventLoop | None = None  # told when the writer is done with it
    done: threading.Event = field(default_factory=threading.Event)  # written, or failed
    took: float = 0.0  # seconds its transaction took
    error: BaseException | None = None  # why it could not be committed
    landed: bool = False  # its result was taken on the event loop


class PostgresStore(EventStore):
    """Append-only event logs of tables in a PostgreSQL database (a reader connection for the
    event loop, a writer connection and thread for the batches)."""

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
        self._conn: psycopg.Connection[Any] | None = None  # the reader (event loop)
        self._last_try = float("-inf")
        self.reconnects = 0
        self._connected_once = False
        self._writer_conn: psycopg.Connection[Any] | None = None  # the writer thread's
        self._writer_lock = threading.Lock()
        self._scanner: psycopg.Connection[Any] | None = None  # the orphan scan's (a thread)
        self._scanner_lock = threading.Lock()
        self._writer: threading.Thread | None = None
        self._to_write: queue.SimpleQueue[Batch | None] = queue.SimpleQueue()
        self._batch: Batch | None = None  # gathering writes
        self._in_flight: Batch | None = None  # being written by the writer thread
        self._down_until = float("-inf")  # a batch failed: refuse writes at once until then
        self._probed = float("-inf")  # when the reader connection's socket was last looked at
        conn = self._connection()
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(715517)")  # one schema creator at once
            conn.execute(SCHEMA)

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s")

    # -- connections ------------------------------------------------------------------------------

    def _open_connection(self) -> psycopg.Connection[Any]:
        return psycopg.connect(
            self.dsn, autocommit=True, connect_timeout=max(1, round(self.connect_timeout))
        )

    def _connection(self) -> psycopg.Connection[Any]:
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        now = time.monotonic()
        if now - self._last_try < self.retry_interval:  # it failed a moment ago
            raise StoreUnavailable("the database cannot be reached just now")
        try:
            self._conn = self._open_connection()
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

    def _probe(self) -> None:
        """Raise :class:`StoreUnavailable` if the database said, unasked, that it is going
        away (a readable socket on the idle reader connection), and cannot be reached again."""
        conn = self._connection()
        try:
            readable = select.select([conn.fileno()], [], [], 0)[0]
        except (OSError, ValueError):
            readable = [True]
        if not readable:
            return
        try:
            conn.execute("SELECT 1")  # a notice, or the end of the connection: find out
        except psycopg.Error:
            conn.close()
            self._connection()

    def _fail(self, error: psycopg.Error) -> StoreUnavailable:
        self.errors += 1
        conn = self._conn
        if conn is not None and conn.broken:
            self._last_try = time.monotonic()
        log.error("the database failed: %s", error)
        return StoreUnavailable(f"the database failed: {error}")

    # -- the reader connection (the event loop's reads, claims) -----------------------------------

    def _tx_begin(self) -> None:
        try:
            self._connection().execute("BEGIN")
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _tx_commit(self) -> None:
        conn = self._connection()
        if conn.info.transaction_status is psycopg.pq.TransactionStatus.INERROR:
            raise StoreUnavailable("a statement of this transaction failed: it is rolled back")
        try:
            conn.execute("COMMIT")
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _tx_rollback(self) -> None:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            return
        conn.execute("ROLLBACK")

    def _exec(self, sql: str, params: tuple[Any, ...]) -> int:
        try:
            return self._connection().execute(sql, params).rowcount
        except psycopg.Error as error:
            raise self._fail(error) from None

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """A read on the reader connection; a read about a table whose writes are on their
        way waits for them first (a read sees what this process wrote)."""
        if params and self._writing(params[0]):
            with contextlib.suppress(StoreError):  # a failed batch went to on_lost already
                self.commit()
        conn = self._connection()
        idle = conn.info.transaction_status is psycopg.pq.TransactionStatus.IDLE
        try:
            return conn.execute(sql, params).fetchall()
        except psycopg.Error as error:
            if not (idle and conn.broken):
                raise self._fail(error) from None
        # The connection died while it sat idle (the database restarted, and its notice was
        # not read yet): a read outside a transaction is safe to make once more, on a new one.
        try:
            return self._connection().execute(sql, params).fetchall()
        except psycopg.Error as error:
            raise self._fail(error) from None

    def claim(self, table_id: str) -> int:
        with contextlib.suppress(StoreError):  # a failed batch went to on_lost already
            self.commit()
        return super().claim(table_id)

    def _writing(self, table_id: object) -> bool:
        return any(
            batch is not None and table_id in batch.written
            for batch in (self._batch, self._in_flight)
        )

    # -- writes: batches ---------------------------------------------------------------------------

    def _run(
        self, table_id: str, fence: int | None, statements: list[tuple[str, tuple[Any, ...]]]
    ) -> None:
        batch = self._gathering()
        if batch is None:  # outside an event loop: a transaction of its own, now
            self.commit()
            batch = Batch()
            self._add(batch, table_id, fence, statements)
            self._write(batch, self._connection, on_writer=False)
            self.commits += 1
            return
        self._add(batch, table_id, fence, statements)

    def _add(
        self,
        batch: Batch,
        table_id: str,
        fence: int | None,
        statements: list[tuple[str, tuple[Any, ...]]],
    ) -> None:
        batch.written.add(table_id)
        if fence is None:
            batch.created.add(table_id)
        elif table_id not in batch.fences or fence < batch.fences[table_id]:
            batch.fences[table_id] = fence
        for sql, params in statements:
            if sql.startswith("!"):  # must insert its row: a taken event number fails it all
                sql = sql[1:].replace(" ON CONFLICT DO NOTHING", "")
            batch.writes.append((sql, params))

    def _gathering(self) -> Batch | None:
        """The batch this turn's writes go into (opened, its sending scheduled), or None when
        writes commit one by one (no event loop, or ``group_commit`` off)."""
        if self._batch is not None:
            return self._batch
        if not self.group_commit:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        now = time.monotonic()
        if now < self._down_until:
            raise StoreUnavailable("the database failed a moment ago: try again")
        if now - self._probed >= 0.01:  # at most a hundred looks a second
            self._probed = now
            self._probe()
        self._batch = Batch()
        if self._in_flight is None:
            loop.call_soon(self._send_gathered)
        return self._batch

    def _send_gathered(self) -> None:
        """The end of a turn (or of the batch before): the gathered batch goes to the writer."""
        batch = self._batch
        if batch is None or self._in_flight is not None:
            return
        self._batch = None
        self._in_flight = batch
        if self._writer is None:
            self._writer = threading.Thread(
                target=self._writes, name="cardverse-pg-writer", daemon=True
            )
            self._writer.start()
        with contextlib.suppress(RuntimeError):  # none while closing: commit() waits instead
            batch.loop = asyncio.get_running_loop()
        self._to_write.put(batch)

    def _writes(self) -> None:
        """The writer thread: each batch in turn, then the event loop is told."""
        while True:
            batch = self._to_write.get()
            if batch is None:
                return
            try:
                batch.took = self._write(batch, self._writer_connection)
            except BaseException as error:
                batch.error = error
            batch.done.set()
            loop = batch.loop
            if loop is not None:
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                    loop.call_soon_threadsafe(self._landed, batch)

    def _landed(self, batch: Batch) -> None:
        """On the event loop: a batch's commit finished; run what waited for it, or, when it
        failed, drop that and the batch gathered since (its changes may build on the failed
        ones) and hand their tables to :attr:`on_lost`."""
        if batch.landed:
            return
        batch.landed = True
        if self._in_flight is batch:
            self._in_flight = None
        error = batch.error
        self.commits += 1
        if error is None:
            self.commit_seconds += batch.took
            self.slowest_commit = max(self.slowest_commit, batch.took)
            for callback in batch.waiting:
                try:
                    callback()
                except Exception:  # pragma: no cover - a connection's own failure
                    log.exception("a callback after the commit failed")
            if self._batch is not None:
                self._send_gathered()
            return
        lost = set(batch.written)
        later, self._batch = self._batch, None
        if later is not None:
            lost |= later.written
        self.errors += 1
        if isinstance(error, StoreUnavailable):
            self._down_until = time.monotonic() + self.retry_interval
        log.critical(
            "the store could not commit (%s); the changes of %d table(s) are lost", error, len(lost)
        )
        if self.on_lost is not None and lost:
            self.on_lost(lost)

    def _writer_connection(self) -> psycopg.Connection[Any]:
        """The writer thread's connection, opened again if the database closed it."""
        conn = self._writer_conn
        if conn is not None and not conn.closed and not conn.broken:
            try:
                readable = select.select([conn.fileno()], [], [], 0)[0]
            except (OSError, ValueError):
                readable = [True]
            if not readable:
                return conn
            conn.close()  # idle, yet the server spoke: it is closing the connection
        try:
            self._writer_conn = self._open_connection()
        except psycopg.Error as error:
            self._writer_conn = None
            raise StoreUnavailable(f"the database cannot be reached: {error}") from None
        return self._writer_conn

    def _write(
        self,
        batch: Batch,
        connection: Callable[[], psycopg.Connection[Any]],
        on_writer: bool = True,
    ) -> float:
        """Write a batch in one transaction: its tables' fencing numbers are checked (their
        rows locked) in the first round trip, its statements and the COMMIT sent in the second
        (runs of the same statement as one ``executemany``). Returns the seconds it took."""
        began = time.perf_counter()
        with self._writer_lock if on_writer else contextlib.nullcontext():
            conn = connection()
            checks = [t for t in batch.fences if t not in batch.created]
            try:
                with conn.pipeline() as pipeline:
                    conn.execute("BEGIN")
                    if checks:
                        rows = conn.execute(FENCES, (checks,))
                        pipeline.sync()
                        _check_fences(batch, checks, dict(rows.fetchall()))
                    cursor = conn.cursor()
                    for sql, run in groupby(batch.writes, key=lambda write: write[0]):
                        cursor.executemany(sql, [params for _, params in run])
                    conn.execute("COMMIT")
            except psycopg.errors.UniqueViolation:
                _rollback(conn)
                raise FencedOut("an event number of this batch is already taken") from None
            except FencedOut:
                _rollback(conn)
                raise
            except psycopg.Error as error:
                _rollback(conn)
                log.error("the database failed: %s", error)
                raise StoreUnavailable(f"the database failed: {error}") from None
        return time.perf_counter() - began

    # -- group commit, the loop's side -------------------------------------------------------------

    def commit(self) -> None:
        """Wait until every write made so far is committed (the event loop waits too), and run
        what waited for it; raises the failure of a batch that could not be committed."""
        while self._in_flight is not None or self._batch is not None:
            batch = self._in_flight
            if batch is None:
                self._send_gathered()
                continue
            batch.done.wait()
            error = batch.error
            self._landed(batch)
            if error is not None:
                raise error

    def after_commit(self, callback: Callable[[], None]) -> bool:
        batch = self._batch or self._in_flight
        if batch is None:
            return False
        batch.waiting.append(callback)
        return True

    @property
    def pending(self) -> bool:
        return self._batch is not None or self._in_flight is not None

    @property
    def ticket(self) -> object:
        return self._batch or self._in_flight

    @property
    def synchronous(self) -> str:
        """PostgreSQL's ``synchronous_commit`` in force (``on``: durable at commit)."""
        try:
            return str(self._query("SHOW synchronous_commit", ())[0][0])
        except StoreUnavailable:
            return "unknown"

    def tables_to_restore(self) -> list[str]:
        return [row[0] for row in self._query(_LIVE_TABLES, ())]

    async def live_tables(self) -> list[str]:
        """The live tables, read on a connection of the scan's own in a thread: the event
        loop goes on serving while the database answers."""
        return await asyncio.to_thread(self._scan_live)

    def _scan_live(self) -> list[str]:
        with self._scanner_lock:
            conn = self._scanner
            try:
                if conn is None or conn.closed or conn.broken:
                    conn = self._scanner = self._open_connection()
                return [row[0] for row in conn.execute(_LIVE_TABLES).fetchall()]
            except psycopg.Error as error:
                self._scanner = None
                if conn is not None:
                    with contextlib.suppress(psycopg.Error):
                        conn.close()
                raise StoreUnavailable(f"the database failed: {error}") from None

    def close(self) -> None:
        try:
            self.commit()
        finally:
            if self._writer is not None:
                self._to_write.put(None)
                self._writer.join(timeout=30)
                self._writer = None
            with self._scanner_lock:
                for conn in (self._conn, self._writer_conn, self._scanner):
                    if conn is not None:
                        conn.close()
                self._conn = self._writer_conn = self._scanner = None


def _check_fences(batch: Batch, checks: list[str], found: dict[str, int]) -> None:
    for table_id in checks:
        if table_id not in found:
            raise FencedOut(f"table {table_id} is not in the store")
        if int(found[table_id]) > batch.fences[table_id]:
            raise FencedOut(
                f"table {table_id} belongs to a newer writer "
                f"(fence {found[table_id]} > {batch.fences[table_id]})"
            )


def _rollback(conn: psycopg.Connection[Any]) -> None:
    if conn.closed or conn.broken:
        return
    try:
        if conn.info.transaction_status is not psycopg.pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")
    except psycopg.Error:
        conn.close()


def _without_password(dsn: str) -> str:
    """The address as it may be logged (no password)."""
    if "@" in dsn and "://" in dsn:
        scheme, rest = dsn.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        user = credentials.split(":", 1)[0]
        return f"{scheme}://{user}@{host}"
    return dsn
