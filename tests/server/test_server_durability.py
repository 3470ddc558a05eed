"""Acknowledged means durable: FULL by default, group commit (one transaction per event-loop
turn for all tables), and no message leaves before the commit of the change it tells."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from cardverse.server.protocol import parse_client_message
from cardverse.server.sockets import WsConnection
from cardverse.server.store import Store
from cardverse.server.tables import Settings, Table, TableService


class _Conn:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)

    def close(self, code: int, reason: str) -> None:
        pass


def _message(data: dict[str, Any]) -> Any:
    return parse_client_message(json.dumps(data))


def _service(tmp_path: Path, database: str | None = None, **settings: Any) -> TableService:
    options = Settings(data_dir=tmp_path, bot_processes=0, database=database, **settings)
    return TableService(options)


def test_the_store_is_full_with_group_commit_by_default(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    assert store.synchronous == "FULL" and store.group_commit
    store.close()
    assert Settings().sqlite_synchronous == "FULL" and Settings().group_commit


def test_one_commit_per_loop_turn_for_every_table(tmp_path: Path, database: str | None) -> None:
    async def body() -> None:
        service = _service(tmp_path, database)
        hosts = []
        for name in ("Ann", "Bo", "Cy"):
            table, token = service.create(name)
            host = _Conn()
            table.attach(host)
            table.handle(host, _message({"type": "join", "token": token}))
            hosts.append((table, host))
        await _until_committed(service)
        commits = service.store.commits
        for table, host in hosts:  # three tables change in one turn of the loop
            table.handle(host, _message({"type": "add_bot", "seq": 1, "level": "easy"}))
        assert service.store.pending and service.store.commits == commits
        await _until_committed(service)  # the turn ends: one commit for the three
        assert service.store.commits == commits + 1
        service.close()

    asyncio.run(asyncio.wait_for(body(), 30))


async def _until_committed(service: TableService) -> None:
    """Let the loop run until nothing waits for a commit (PostgreSQL's lands from its writer
    thread, a moment after the turn)."""
    deadline = time.monotonic() + 10
    await asyncio.sleep(0)
    while service.store.pending:
        assert time.monotonic() < deadline, "the commit did not land in time"
        await asyncio.sleep(0.001)


def test_per_move_commit_commits_each_change(tmp_path: Path, database: str | None) -> None:
    async def body() -> None:
        service = _service(tmp_path, database, group_commit=False)
        table, token = service.create("Ann")
        host = _Conn()
        table.attach(host)
        table.handle(host, _message({"type": "join", "token": token}))
        commits = service.store.commits
        table.handle(host, _message({"type": "add_bot", "seq": 1, "level": "easy"}))
        assert not service.store.pending and service.store.commits == commits + 1
        service.close()

    asyncio.run(asyncio.wait_for(body(), 30))


class _Socket:
    """A WebSocket stand-in that looks at the database whenever a message is sent."""

    def __init__(self, db_path: Path, table_id: str) -> None:
        self.db = sqlite3.connect(str(db_path))
        self.table_id = table_id
        self.sent: list[tuple[str, str]] = []  # (message, the table's last row as committed)
        self.conn: object = None

    def send_text(self, text: str) -> None:
        row = self.db.execute(
            "SELECT data FROM events WHERE table_id = ? ORDER BY n DESC LIMIT 1",
            (self.table_id,),
        ).fetchone()
        self.sent.append((text, row[0]))

    def close(self, code: int, reason: str = "") -> None:
        pass


def test_no_message_leaves_before_its_change_is_committed(tmp_path: Path) -> None:
    async def body() -> None:
        service = _service(tmp_path)
        table, token = service.create("Ann")
        socket = _Socket(service.store.path, table.id)
        conn = WsConnection(socket, service)  # type: ignore[arg-type]
        table.attach(conn)
        table.handle(conn, _message({"type": "join", "token": token}))
        for seq in range(1, 11, 2):
            table.handle(conn, _message({"type": "add_bot", "seq": seq, "level": "easy"}))
            table.handle(conn, _message({"type": "remove_bot", "seq": seq + 1, "seat": 1}))
            await asyncio.sleep(0)
        for _ in range(100):
            if sum('"ack"' in text for text, _ in socket.sent) >= 10:
                break
            await asyncio.sleep(0)
        acks = [(json.loads(text), row) for text, row in socket.sent]
        acks = [(m, json.loads(row)) for m, row in acks if m["type"] == "ack"]
        assert len(acks) == 10
        for ack, committed in acks:
            # The committed lobby row already holds the acknowledged seq.
            assert committed["seats"][0]["last_seq"] >= ack["seq"], (ack, committed)
        table.detach(conn)
        conn.finish()
        service.close()

    asyncio.run(asyncio.wait_for(body(), 30))


@pytest.mark.parametrize("group_commit", [True, False])
def test_the_wal_starts_over_while_tables_keep_committing(
    tmp_path: Path, group_commit: bool
) -> None:
    """The checkpoints' thread rarely finds the WAL fully copied while commits keep coming; the
    event loop copies the rest after it, so the WAL starts over after nearly every checkpoint
    instead of growing for as long as the tables play (a commit a turn, or one a write).
    Without that copy it never started over in 30 checkpoints here, nor in ``server_bench``
    (316 MB in 25 s). The test waits on the thread's count of checkpoints, not on time."""
    wal = tmp_path / "db.sqlite3-wal"

    def starts_over() -> int:
        # The WAL's header counts its starts over (its checkpoint sequence number, bytes 12 to
        # 16); the file is gone once the store is closed.
        return int.from_bytes(wal.read_bytes()[12:16], "big")

    async def body() -> tuple[int, int, int]:
        store = Store(tmp_path / "db.sqlite3", group_commit=group_commit)
        store.create_table("t", 0, "created", {"by": "Ann"})
        store.start_checkpointer(interval=0.02)
        n = 1
        deadline = time.monotonic() + 60  # a loaded machine is slow, never this slow
        while store.checkpoints < 30:  # commits keep coming all the while
            assert time.monotonic() < deadline, f"{store.checkpoints} checkpoints"
            for _ in range(5):
                store.append("t", n, "move", {"play": "x" * 300})
                n += 1
            await asyncio.sleep(0)  # the turn's commit
        checkpoints, starts = store.checkpoints, starts_over()
        store.close()
        return n - 1, checkpoints, starts

    appended, checkpoints, starts = asyncio.run(asyncio.wait_for(body(), 90))
    assert starts >= checkpoints * 2 // 3, (starts, checkpoints)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == appended + 1
