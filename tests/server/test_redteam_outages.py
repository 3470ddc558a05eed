"""Red team, Redis or PostgreSQL down (issue 28, item 5): every request that needs the missing
service is answered with the documented ``try_again`` (HTTP 503 with Retry-After; a WebSocket
gets the error and close code 1013), never a 500, a reset or a silent close; what does not need
it goes on. The services are the real ones the fixtures start, stopped for the test."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from cluster_support import Cluster
from server_support import ServerThread, create_table, run

from cardverse.server.spectators import watch_id_for
from cardverse.tabletalk.invites import invite_code_for


@pytest.fixture
def two_processes(tmp_path: Path, pg_dsn: str, redis_server: Any) -> Iterator[Cluster]:
    running = Cluster(tmp_path, pg_dsn, redis_server.url)
    try:
        yield running.start(2)
    finally:
        running.close()


# Longer than the whole test: the owner keeps its table's lease through the Redis pause below.
# (With the tests' 2 s leases, the lease expired in a paused Redis as soon as it resumed, and the
# other process could adopt the table before Redis was stopped: it then served the table, and
# the owner, cut off from Redis, kept a stale copy; which of them held the table depended on the
# machine's load.)
LEASE_LONGER_THAN_THE_TEST = ("--lease-ttl", "600")


@pytest.fixture
def two_processes_long_leases(tmp_path: Path, pg_dsn: str, redis_server: Any) -> Iterator[Cluster]:
    running = Cluster(tmp_path, pg_dsn, redis_server.url, extra_args=LEASE_LONGER_THAN_THE_TEST)
    try:
        yield running.start(2)
    finally:
        running.close()


def _is_try_again(answer: httpx.Response) -> bool:
    return (
        answer.status_code == 503
        and int(answer.headers.get("retry-after", "0")) >= 1
        and answer.headers["content-type"].startswith("application/json")
        and answer.json()["code"] == "try_again"
    )


async def _socket_told(url: str) -> tuple[list[str], int | None]:
    """The error codes a new WebSocket is sent before it closes, and its close code."""
    codes: list[str] = []
    async with websockets.connect(url, compression=None, open_timeout=30) as ws:
        try:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if message["type"] == "error":
                    codes.append(message["code"])
        except websockets.ConnectionClosed:
            pass
        return codes, ws.close_code


@pytest.mark.timeout(180)
def test_redis_down_every_request_that_needs_it_is_told_try_again(
    two_processes_long_leases: Cluster, redis_server: Any
) -> None:
    # Before: GET /api/tables/<id> and /api/watch/<wid>/records/1 answered 500 (also from the
    # owner), and while Redis stalled a WebSocket's handler died on Redis's error (the socket
    # closed 1006 with nothing said).
    cluster = two_processes_long_leases
    owner, other = cluster.procs
    table = create_table(owner.http)
    table_id = table["table_id"]
    assert cluster.owner(table_id) == cluster.node_of(owner)  # the maker holds the lease
    watch_id = watch_id_for(table_id)
    assert httpx.get(f"{other.http}/api/tables/{table_id}", timeout=30).status_code == 200
    # Redis stalls (paused: its connections stay open, its answers do not come).
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        codes, close = run(lambda: _socket_told(other.ws_url(table_id)), timeout=60)
        assert codes == ["try_again"] and close == 1013, (codes, close)  # before: 1006, nothing
        answer = httpx.get(f"{other.http}/api/tables/{table_id}", timeout=30)
        assert _is_try_again(answer), (answer.status_code, answer.text[:200])  # before: 500
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)
    assert cluster.owner(table_id) == cluster.node_of(owner)  # it still holds the table
    # Redis is gone (stopped: its connections close).
    redis_server.stop()
    try:
        # The process that does not hold the table cannot find its owner.
        for path in (f"/api/tables/{table_id}", f"/api/watch/{watch_id}/records/1"):
            answer = httpx.get(other.http + path, timeout=30)
            assert _is_try_again(answer), (path, answer.status_code, answer.text[:200])
        created = httpx.post(f"{other.http}/api/tables", json={"name": "Bo"}, timeout=30)
        assert _is_try_again(created), (created.status_code, created.text[:200])
        for url in (other.ws_url(table_id), f"ws://127.0.0.1:{other.port}/ws/watch/{watch_id}"):
            codes, close = run(lambda url=url: _socket_told(url), timeout=60)
            assert codes == ["try_again"] and close == 1013, (url, codes, close)
        # An invite code is found in the database, which is up.
        code = invite_code_for(table_id)
        found = httpx.get(f"{other.http}/api/invites/{code}", timeout=30)
        assert found.status_code == 200 and found.json()["table_id"] == table_id
        # The owner serves its table without Redis.
        mine = httpx.get(f"{owner.http}/api/tables/{table_id}", timeout=30)
        assert mine.status_code == 200 and mine.json()["table_id"] == table_id
    finally:
        redis_server.start()
    deadline = time.monotonic() + 60
    while True:  # and once Redis is back, so is everything
        answer = httpx.get(f"{other.http}/api/tables/{table_id}", timeout=30)
        if answer.status_code == 200:
            break
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)


@pytest.mark.timeout(120)
def test_postgresql_down_every_request_that_needs_it_is_told_try_again(
    tmp_path: Path, pg_dsn: str, postgres: Any
) -> None:
    # Before: the table page and the join form answered 500 while PostgreSQL was down.
    with ServerThread(tmp_path / "data", database=pg_dsn) as server:
        table = create_table(server.http)
        postgres.stop("fast")
        try:
            unknown = "nosuchtable1"
            answer = httpx.get(f"{server.http}/api/tables/{unknown}", timeout=30)
            assert _is_try_again(answer), (answer.status_code, answer.text[:200])
            created = httpx.post(f"{server.http}/api/tables", json={"name": "Bo"}, timeout=30)
            assert _is_try_again(created), (created.status_code, created.text[:200])
            page = httpx.get(f"{server.http}/t/{unknown}", timeout=30)
            assert page.status_code == 503 and int(page.headers["retry-after"]) >= 1
            assert "Try again in a moment" in page.text  # the error page, for a person
            codes, close = run(lambda: _socket_told(server.ws_url(unknown)), timeout=60)
            assert codes == ["try_again"] and close == 1013, (codes, close)
            # The table in memory is still shown.
            mine = httpx.get(f"{server.http}/api/tables/{table['table_id']}", timeout=30)
            assert mine.status_code == 200
        finally:
            postgres.start()


@pytest.mark.timeout(120)
def test_postgresql_down_invite_look_ups_are_told_try_again(
    two_processes: Cluster, postgres: Any
) -> None:
    # Before: the process that did not make the table answered 500 to its invite code (by the
    # API and by the join form) and to its page while PostgreSQL was down.
    owner, other = two_processes.procs
    table_id = create_table(owner.http)["table_id"]
    code = invite_code_for(table_id)
    postgres.stop("fast")
    try:
        answer = httpx.get(f"{other.http}/api/invites/{code}", timeout=30)
        assert _is_try_again(answer), (answer.status_code, answer.text[:200])
        for path in (f"/join?code={code}", f"/t/{table_id}"):
            page = httpx.get(other.http + path, timeout=30)
            assert page.status_code == 503 and int(page.headers["retry-after"]) >= 1, path
    finally:
        postgres.start()
    # Back: the code finds its table, and the outage did not count as a miss.
    deadline = time.monotonic() + 60
    while True:
        answer = httpx.get(f"{other.http}/api/invites/{code}", timeout=30)
        if answer.status_code == 200:
            break
        assert answer.status_code == 503 and time.monotonic() < deadline, answer.text
        time.sleep(0.2)
    assert answer.json()["table_id"] == table_id
