"""Red team, a burst of new tables: creation goes through the group commit like every move, so
a burst shares commits instead of stalling the event loop once per table; and a table's token
is handed out only once the commit holding the table has landed, never before, and never
when that commit failed."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from redteam_support import under_probe
from server_support import ServerProcess, ServerThread, run

from cardverse.server.protocol import ProtocolError
from cardverse.server.store import DB_NAME
from cardverse.server.tables import Settings, TableService

ADDRESSES = 30
PER_ADDRESS = 10  # the default burst of new tables one address may create at once
IN_FLIGHT = 30


@pytest.mark.timeout(240)
def test_a_burst_of_new_tables_shares_commits_and_hands_out_only_saved_tables(
    tmp_path: Path,
) -> None:
    """Issue 28, item 9: 1,500 lobbies from 150 addresses stalled every table (canary max
    649 ms) because each new table was committed on its own before its token was handed out.
    Here 300 tables from 30 addresses, 30 requests at once: they must take far fewer commits
    than tables (main: at least one each), and each answer's table must be in the database,
    committed, when the answer arrives."""
    with ServerThread(tmp_path / "data", create_burst=PER_ADDRESS) as server:
        tables = ADDRESSES * PER_ADDRESS
        database = server.settings.data_dir / DB_NAME

        async def attack() -> tuple[int, list[tuple[str, int]]]:
            store = server.service.store
            commits = store.commits
            committed = sqlite3.connect(str(database))  # sees committed rows only
            seen: list[tuple[str, int]] = []
            clients = [
                httpx.AsyncClient(
                    transport=httpx.AsyncHTTPTransport(local_address=f"127.0.1.{1 + index}"),
                    timeout=60,
                )
                for index in range(ADDRESSES)
            ]
            gate = asyncio.Semaphore(IN_FLIGHT)

            async def one(number: int) -> None:
                async with gate:
                    answer = await clients[number % ADDRESSES].post(
                        f"{server.http}/api/tables", json={"name": f"Burst {number}"}
                    )
                assert answer.status_code == 201, answer.text
                table_id = answer.json()["table_id"]
                row = committed.execute(
                    "SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,)
                ).fetchone()
                seen.append((table_id, int(row[0])))

            try:
                await asyncio.gather(*(one(number) for number in range(tables)))
            finally:
                for client in clients:
                    await client.aclose()
                committed.close()
            return store.commits - commits, seen

        commits, seen = run(lambda: under_probe(server, attack), timeout=200)
        assert len(seen) == tables and len({table_id for table_id, _ in seen}) == tables
        unsaved = [table_id for table_id, events in seen if events != 1]
        assert not unsaved, f"{len(unsaved)} tokens handed out before their table was committed"
        assert commits <= tables // 2, f"{commits} commits for {tables} new tables"


def test_a_new_table_whose_commit_fails_is_refused_and_not_kept(
    tmp_path: Path, pg_dsn: str
) -> None:
    """The commit holding a new table fails (PostgreSQL refuses its batch: another write in it
    takes an event number already taken): the creator is told to try again, never given the
    token, and the table is neither in memory nor in the database."""

    async def body() -> None:
        settings = Settings(data_dir=tmp_path, database=pg_dsn, bot_processes=0)
        service = TableService(settings)
        try:
            first, _ = await service.create_saved("Ann")
            assert list(service.tables) == [first.id]
            # In the same turn as the next table: a write that makes its batch fail.
            service.store.append(first.id, 0, "lobby", {}, fence=first.fence)
            with pytest.raises(ProtocolError) as refused:
                await service.create_saved("Bo")
            assert refused.value.code == "try_again"
            assert service.tables == {}  # both tables of the lost batch left memory
            assert service.store.known_tables() == [first.id]  # the new one was never saved
            again, _ = await service.create_saved("Bo")  # the store goes on
            assert service.store.count_events(again.id) == 1
        finally:
            service.close()

    asyncio.run(asyncio.wait_for(body(), 60))


@pytest.mark.timeout(240)
def test_a_burst_of_new_tables_on_a_cluster_node_gets_no_server_error(
    tmp_path: Path, pg_dsn: str, redis_server: Any
) -> None:
    """Found while measuring item 9: on a cluster node, a burst of new tables ran Redis out of
    connections (redis-py's pool of 100 fails at once when all are in use), and 12 to 27 of
    1,500 creations got a 500 with a traceback in the log (here about 100 of 600). Now a
    command waits its turn for a connection: 600 tables, 200 at once, all created."""
    from cluster_support import FAST_ARGS

    node = ServerProcess(
        tmp_path / "node",
        "--database",
        pg_dsn,
        "--redis",
        redis_server.url,
        *FAST_ARGS,
        # idle connections are not closed under the client in this test: on a loaded machine
        # a kept-alive connection closed by the server just as the client reuses it is a reset
        # with nothing in the log (the keep-alive race every HTTP client meets), not the 500s
        # this test is about
        "--keep-alive",
        "60",
        "--request-timeout",
        "60",
        log_path=tmp_path / "node.log",
    ).start()
    try:
        dropped: list[str] = []

        async def burst() -> Counter[int]:
            answers: Counter[int] = Counter()
            gate = asyncio.Semaphore(200)
            # and the client lets a kept-alive connection go long before the server would
            limits = httpx.Limits(max_connections=200, keepalive_expiry=1.0)
            async with httpx.AsyncClient(timeout=60, limits=limits) as client:

                async def one(number: int) -> None:
                    async with gate:
                        for attempt in range(2):
                            try:
                                answer = await client.post(
                                    f"{node.http}/api/tables", json={"name": f"Burst {number}"}
                                )
                                break
                            except httpx.TransportError as error:
                                # A kept-alive connection reset as it is reused (the server's
                                # idle timer closing it just then: the cause of the resets seen
                                # under load, which the long idle times above rule out): a
                                # browser sends the request again on a new connection, and so
                                # does this client, once. A second drop is a failure.
                                dropped.append(repr(error))
                                if attempt:
                                    answers[0] += 1
                                    return
                    answers[answer.status_code] += 1

                await asyncio.gather(*(one(number) for number in range(600)))
            return answers

        answers = run(burst, timeout=200)
    finally:
        node.stop()
    log = (tmp_path / "node.log").read_text(errors="replace")
    assert answers == Counter({201: 600}), (answers, dropped, log[-4000:])
    assert len(dropped) <= 2, (dropped, log[-4000:])  # a reset now and then, never a pattern
