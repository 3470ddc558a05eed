"""The store's event log, the same on both stores: the SQLite file and a real PostgreSQL.

Each table's events are numbered; ``(table, n)`` is unique, so two writers can never both append
the same event; every event holds its writer's fencing number, and a write with a number lower
than the table's newest claim is refused."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cardverse.server.eventlog import EventStore, FencedOut, StoreUnavailable
from cardverse.server.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Opens the store under test (again, for a second writer or after a restart)."""
    opened: list[EventStore] = []
    if request.param == "sqlite":

        def make(**options: Any) -> EventStore:
            store: EventStore = Store(tmp_path / "db.sqlite3", **options)
            opened.append(store)
            return store
    else:
        from cardverse.server.pgstore import PostgresStore

        dsn = request.getfixturevalue("pg_dsn")

        def make(**options: Any) -> EventStore:
            store: EventStore = PostgresStore(dsn, **options)
            opened.append(store)
            return store

    yield make
    for store in opened:
        with contextlib.suppress(Exception):
            store.close()


def test_events_are_kept_in_order_with_their_fencing_number(open_store: Any) -> None:
    store = open_store()
    store.create_table("t1", 0, "create", {"name": "Ann"}, fence=1)
    store.append("t1", 1, "lobby", {"seats": []}, fence=1)
    store.replace("t1", 1, "lobby", {"seats": [1]}, fence=1)
    store.append("t1", 2, "start", {"seed": 5}, fence=1)
    kinds = [(e.n, e.kind) for e in store.events("t1")]
    assert kinds == [(0, "create"), (1, "lobby"), (2, "start")]
    assert store.events("t1")[1].data == {"seats": [1]}
    assert store.fences("t1") == [1, 1, 1]
    assert store.count_events("t1") == 3 and store.exists("t1") and store.status("t1") == "live"
    again = open_store()  # another connection sees the committed log
    assert [e.n for e in again.events("t1")] == [0, 1, 2]


def test_an_event_number_cannot_be_appended_twice(open_store: Any) -> None:
    store = open_store()
    store.create_table("t1", 0, "create", {}, fence=1)
    store.append("t1", 1, "move", {"a": 1}, fence=1)
    other = open_store()  # a second writer with the same fencing number
    with pytest.raises(FencedOut):
        other.append("t1", 1, "move", {"a": 2}, fence=1)
    assert [e.data for e in store.events("t1")] == [{}, {"a": 1}]


def test_a_writer_whose_fence_was_overtaken_cannot_append(open_store: Any) -> None:
    old = open_store()
    old.create_table("t1", 0, "create", {}, fence=1)
    new = open_store()
    fence = new.claim("t1")
    assert fence == 2
    with pytest.raises(FencedOut):
        old.append("t1", 1, "move", {"by": "old"}, fence=1)
    with pytest.raises(FencedOut):
        old.set_status("t1", "idle", fence=1)
    new.append("t1", 1, "move", {"by": "new"}, fence=fence)
    assert [e.data for e in old.events("t1")] == [{}, {"by": "new"}]
    assert old.fences("t1") == [1, 2]


def test_group_commit_holds_callbacks_until_the_commit(open_store: Any) -> None:
    async def body() -> None:
        store = open_store()
        store.create_table("t1", 0, "create", {}, fence=1)
        store.commit()
        told: list[int] = []
        store.append("t1", 1, "move", {}, fence=1)
        store.append("t1", 2, "move", {}, fence=1)
        assert store.pending and store.after_commit(lambda: told.append(store.commits))
        assert told == []
        await _until(lambda: bool(told))
        assert not store.pending
        assert open_store().count_events("t1") == 3

    asyncio.run(asyncio.wait_for(body(), 20))


async def _until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the event loop run until ``condition`` holds (a commit may land on a thread)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.001)


def test_idle_lobbies_expire_and_lose_their_events(open_store: Any) -> None:
    store = open_store()
    store.create_table("lobby", 0, "create", {}, fence=1)
    store.create_table("game", 0, "create", {}, fence=1)
    store.append("game", 1, "start", {"seed": 1}, fence=1)
    store.set_status("lobby", "idle")
    store.set_status("game", "idle")
    assert store.expire_idle_lobbies(before=10**12) == 1
    assert not store.exists("lobby") and store.count_events("lobby") == 0
    assert store.exists("game") and store.tables_to_restore() == []
    assert store.claim("game") == 2 and store.tables_to_restore() == ["game"]


def test_a_postgresql_that_is_down_gives_try_again(postgres: Any, pg_dsn: str) -> None:
    from cardverse.server.pgstore import PostgresStore

    store = PostgresStore(pg_dsn, retry_interval=0.0)
    store.create_table("t1", 0, "create", {}, fence=1)
    postgres.stop("immediate")
    try:
        with pytest.raises(StoreUnavailable):
            store.append("t1", 1, "move", {}, fence=1)
        with pytest.raises(StoreUnavailable):
            store.events("t1")
    finally:
        postgres.start()
    store.append("t1", 1, "move", {}, fence=1)  # it reconnects by itself
    assert store.count_events("t1") == 2 and store.reconnects >= 1
    store.close()


def test_a_read_after_a_postgresql_restart_is_answered_at_once(postgres: Any, pg_dsn: str) -> None:
    # The reader connection died while idle: the first read after the database is back is made
    # again on a new connection instead of telling a reader to try again (a loaded machine
    # met this between a cluster's restart and the next record asked for).
    from cardverse.server.pgstore import PostgresStore

    store = PostgresStore(pg_dsn, retry_interval=0.0)
    store.create_table("t1", 0, "create", {}, fence=1)
    assert store.count_events("t1") == 1  # the reader connection is open
    postgres.stop("immediate")
    postgres.start()
    assert store.count_events("t1") == 1
    assert store.reconnects >= 1
    store.close()


def test_a_sqlite_file_from_before_fencing_opens_with_fence_zero(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE tables (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL,"
        " status TEXT NOT NULL DEFAULT 'live');"
        "CREATE TABLE events (table_id TEXT NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL,"
        " data TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (table_id, n)) WITHOUT ROWID;"
        "INSERT INTO tables VALUES ('old', 1, 1, 'live');"
        "INSERT INTO events VALUES ('old', 0, 'create', '{}', 1);"
    )
    db.commit()
    db.close()
    store = Store(path)
    assert store.fences("old") == [0] and store.fence_of("old") == 0
    store.append("old", 1, "move", {}, fence=0)
    assert [e.n for e in store.events("old")] == [0, 1]
    store.close()


def test_the_sqlite_page_cache_is_bounded_to_its_setting(tmp_path: Path) -> None:
    from cardverse.server.store import CACHE_KIB

    store = Store(tmp_path / "events.sqlite3")
    try:
        assert store.db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB  # KiB
        assert CACHE_KIB <= 1024  # the process's cache, counted against its tables' memory
    finally:
        store.close()


def test_a_read_sees_the_writes_of_the_open_transaction(open_store: Any) -> None:
    async def body() -> None:
        store = open_store()
        store.create_table("t1", 0, "create", {}, fence=1)
        store.append("t1", 1, "move", {"a": 1}, fence=1)  # the turn's transaction is open
        assert store.pending
        assert [e.n for e in store.events("t1")] == [0, 1]
        store.append("t1", 2, "move", {"a": 2}, fence=1)
        await _until(lambda: not store.pending)
        assert open_store().count_events("t1") == 3

    asyncio.run(asyncio.wait_for(body(), 20))


def _row_locked(dsn: str, table_id: str) -> Any:
    """Another session holding the table's row (a batch that must read its fence waits)."""
    import psycopg

    blocker = psycopg.connect(dsn)
    blocker.execute("SELECT fence FROM tables WHERE id = %s FOR UPDATE", (table_id,))
    return blocker


def test_the_event_loop_goes_on_while_a_batch_is_committed(pg_dsn: str) -> None:
    """PostgreSQL: the commit runs on the writer thread; the next turns' writes gather into the
    next batch, and each message is released with the commit it waited for, in order."""
    from cardverse.server.eventlog import HeldMessages
    from cardverse.server.pgstore import PostgresStore

    async def body() -> None:
        store = PostgresStore(pg_dsn)
        released: list[list[str]] = []
        held = HeldMessages(store, lambda _owner, items: released.append(items), None)
        try:
            store.create_table("t1", 0, "create", {}, fence=1)
            store.create_table("t2", 0, "create", {}, fence=1)
            store.commit()
            blocker = _row_locked(pg_dsn, "t1")
            store.append("t1", 1, "move", {}, fence=1)
            assert held.hold("ack t1")
            await _until(lambda: store._in_flight is not None)  # sent, waiting for the lock
            turns = 0
            while turns < 5:  # the loop is not blocked by the commit
                turns += 1
                await asyncio.sleep(0)
            store.append("t2", 1, "move", {}, fence=1)  # the next batch gathers meanwhile
            assert held.hold("ack t2") and store.pending
            assert released == [] and open_store_count(pg_dsn, "t1") == 1
            blocker.commit()
            blocker.close()
            await _until(lambda: len(released) == 2)
            assert released == [["ack t1"], ["ack t2"]] and not store.pending
            assert open_store_count(pg_dsn, "t2") == 2
        finally:
            store.close()

    asyncio.run(asyncio.wait_for(body(), 30))


def test_a_refused_batch_loses_its_tables_and_the_batch_gathered_after_it(pg_dsn: str) -> None:
    """PostgreSQL: a batch whose table was claimed by a newer writer is rolled back whole;
    nothing that waited for it (or for the batch after it, which may build on it) is told, and
    the tables of both go to ``on_lost``."""
    from cardverse.server.pgstore import PostgresStore

    async def body() -> None:
        store = PostgresStore(pg_dsn)
        lost: list[set[str]] = []
        store.on_lost = lost.append
        told: list[str] = []
        try:
            for table_id in ("t1", "t2", "t3"):
                store.create_table(table_id, 0, "create", {}, fence=1)
            store.commit()
            blocker = _row_locked(pg_dsn, "t1")
            store.append("t1", 1, "move", {}, fence=1)
            store.after_commit(lambda: told.append("t1"))
            await _until(lambda: store._in_flight is not None)
            store.append("t2", 1, "move", {}, fence=1)
            store.after_commit(lambda: told.append("t2"))
            blocker.execute("UPDATE tables SET fence = 2 WHERE id = 't1'")  # a new owner
            blocker.commit()
            blocker.close()
            await _until(lambda: bool(lost))
            assert lost == [{"t1", "t2"}] and told == [] and not store.pending
            assert open_store_count(pg_dsn, "t1") == 1 and open_store_count(pg_dsn, "t2") == 1
            store.append("t3", 1, "move", {}, fence=1)  # the store goes on
            store.after_commit(lambda: told.append("t3"))
            await _until(lambda: told == ["t3"])
            assert open_store_count(pg_dsn, "t3") == 2
        finally:
            store.close()

    asyncio.run(asyncio.wait_for(body(), 30))


def open_store_count(dsn: str, table_id: str) -> int:
    """The events of a table as another connection sees them (committed only)."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM events WHERE table_id = %s", (table_id,)
        ).fetchone()
    assert row is not None
    return int(row[0])
