"""``cardverse serve --workers 2``: a table's socket that lands on the worker not owning the
table is handed to its owner (the connection's descriptor over a Unix socket,
cardverse/server/handoff.py), and served there as a socket of its own; where it cannot be
(the owner's Unix socket missing), it is linked over Redis as before. Whole games, the
hidden-card check (R26), and the owner killed mid-game with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import OPERATOR_TOKEN, Cluster, Player, over, seat_four, start_workers
from server_support import Client, ServerProcess, create_table, play_randomly, run
from test_cluster import _acked_are_in_the_record, _play, _record
from test_server_hidden_cards import check_messages

from cardverse.notation import replay_record


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A short temporary directory for the supervisor's (a Unix socket's path is short)."""
    path = Path(tempfile.mkdtemp(prefix="cvh-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _workers(tmp_path: Path, short_tmp: Path, pg_dsn: str, redis_url: str) -> ServerProcess:
    return start_workers(
        tmp_path / "data",
        pg_dsn,
        redis_url,
        log_path=tmp_path / "workers.log",
        env={"TMPDIR": str(short_tmp)},  # the supervisor's hand-off directory goes there
    )


def _operator(server: ServerProcess) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(
        f"{server.http}/api/operator", headers=OPERATOR_TOKEN, timeout=10
    ).json()
    return answer


def _metric(server: ServerProcess, prefix: str) -> float:
    """The sum over the workers of the metric lines beginning with ``prefix``."""
    text = httpx.get(f"{server.http}/api/metrics", headers=OPERATOR_TOKEN, timeout=10).text
    return sum(
        float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix)
    )


def _per_worker(server: ServerProcess) -> dict[str, dict[str, Any]]:
    """Each worker's operator figures (asked until both have answered)."""
    found: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 30
    while len(found) < 2:
        assert time.monotonic() < deadline, "both workers' figures"
        answer = _operator(server)
        found[answer["node"]] = answer
    return found


SENT = 'cardverse_socket_handoffs_total{result="sent"}'
TAKEN = 'cardverse_socket_handoffs_total{result="taken"}'
LINKED = 'cardverse_connections{kind="linked"}'


async def _until_one_lands_elsewhere(
    server: ServerProcess, table_id: str, clients: list[Client], landed: Any
) -> None:
    """Reconnect seats (with their tokens) until ``landed()`` says a socket went to the worker
    not owning the table (the kernel picks the worker of each connection)."""
    for attempt in range(60):
        if landed():
            return
        seat = 1 + attempt % 3
        old = clients[seat]
        await old.close()
        client = await Client(server.ws_url(table_id), f"seat{seat}").connect()
        assert (await client.join(token=old.token))["type"] == "welcome"
        clients[seat] = client
    raise AssertionError("no socket landed on the other worker in 60 connections")


async def _wait_for(condition: Any, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def _play_game(clients: list[Client], seed: int) -> None:
    """The host starts the game and the four seats play it to its end."""
    assert (await clients[0].request({"type": "start"}))["type"] == "ack"
    await play_randomly(clients, random.Random(seed))


async def _close_and_check(server: ServerProcess, table_id: str, clients: list[Client]) -> None:
    """Close the seats; the stored record is a whole game, and no seat was sent a card it may
    not see (R26)."""
    for client in clients:
        await client.close()
    record = _record(server, table_id)
    assert replay_record(record).game.over
    checked = sum(check_messages(client, record) for client in clients)
    assert checked > 40


@pytest.mark.timeout(180)
def test_R26_a_socket_on_the_sibling_worker_is_handed_to_the_owner_and_plays(
    tmp_path: Path, short_tmp: Path, pg_dsn: str, redis_server: Any
) -> None:
    server = _workers(tmp_path, short_tmp, pg_dsn, redis_server.url)
    try:

        async def body() -> None:
            table = create_table(server.http, rules={"preset": "standard", "rounds": 1})
            table_id = table["table_id"]
            clients = await seat_four(server, table)
            await _until_one_lands_elsewhere(
                server, table_id, clients, lambda: _metric(server, SENT) >= 1
            )
            await _wait_for(lambda: _metric(server, TAKEN) >= 1, "the owner took the socket")
            assert _metric(server, LINKED) == 0  # every socket is served by the owner itself
            # a watch link too: viewers until one lands on the other worker and is handed over
            watch_id = (await clients[0].wait_for(lambda m: m["type"] == "table"))["watch_id"]
            watch_url = server.ws_url(table_id).replace(f"/ws/{table_id}", f"/ws/watch/{watch_id}")
            viewers: list[Client] = []
            sent = _metric(server, SENT)
            while _metric(server, SENT) == sent:
                assert len(viewers) < 40, "no viewer landed on the other worker"
                viewers.append(await Client(watch_url, "viewer").connect())
            assert _metric(server, LINKED) == 0
            # each socket is counted once, where it is served: the owner's per-address count
            owner = Cluster(tmp_path, pg_dsn, redis_server.url).owner(table_id)
            expected = (4, len(viewers), 4 + len(viewers), 4 + len(viewers))

            def counted() -> tuple[int, ...]:
                figures = _per_worker(server)
                mine = figures.get(owner or "", {})
                every = sum(f["connections"] for f in figures.values())
                return (mine.get("seated"), mine.get("watchers"), mine.get("connections"), every)

            await _wait_for(lambda: counted() == expected, f"counted once: {counted()}")
            await _play_game(clients, 7)
            assert _metric(server, LINKED) == 0
            for viewer in viewers:  # the viewers saw the game to its end
                await viewer.wait_for(
                    lambda m: m["type"] in ("state", "change") and m["view"]["phase"] == "game_over"
                )
                await viewer.close()
            await _close_and_check(server, table_id, clients)

        run(body, timeout=150)
    finally:
        server.stop()


@pytest.mark.timeout(180)
def test_R26_without_the_owners_unix_socket_the_socket_is_linked_and_plays(
    tmp_path: Path, short_tmp: Path, pg_dsn: str, redis_server: Any
) -> None:
    server = _workers(tmp_path, short_tmp, pg_dsn, redis_server.url)
    try:
        sockets = list(short_tmp.glob("cardverse-handoff-*/*.sock"))
        assert len(sockets) == 2, sockets  # one a worker
        for path in sockets:
            path.unlink()  # the hand-off cannot happen: each socket must be linked

        async def body() -> None:
            table = create_table(server.http, rules={"preset": "standard", "rounds": 1})
            table_id = table["table_id"]
            clients = await seat_four(server, table)
            await _until_one_lands_elsewhere(
                server, table_id, clients, lambda: _metric(server, LINKED) >= 1
            )
            await _play_game(clients, 8)
            assert _metric(server, SENT) == 0
            await _close_and_check(server, table_id, clients)

        run(body, timeout=150)
    finally:
        server.stop()


@pytest.mark.timeout(240)
def test_the_owner_worker_killed_its_sibling_takes_the_table_and_nothing_acked_is_lost(
    tmp_path: Path, short_tmp: Path, pg_dsn: str, redis_server: Any
) -> None:
    server = _workers(tmp_path, short_tmp, pg_dsn, redis_server.url)
    one_port = Cluster(tmp_path, pg_dsn, redis_server.url)  # players reconnect to its one port
    one_port.procs = [server]
    try:

        async def body() -> None:
            rng = random.Random(2027)
            table = create_table(server.http, rules={"preset": "standard", "rounds": 4})
            table_id = table["table_id"]
            clients = await seat_four(server, table)
            await _until_one_lands_elsewhere(
                server, table_id, clients, lambda: _metric(server, SENT) >= 1
            )
            players = []
            for seat, client in enumerate(clients):
                player = Player(one_port, table_id, seat, client.token or table["token"])
                player.client = client
                player.clients.append(client)
                player.seq = client.seq
                players.append(player)
            assert (await clients[0].request({"type": "start"}))["type"] == "ack"
            players[0].seq = clients[0].seq
            await _play(players, rng, acks=15)
            assert not over(players)
            owner = one_port.owner(table_id)
            deadline = time.monotonic() + 20
            pid = None
            while pid is None:  # ask until the owner worker answers
                assert time.monotonic() < deadline, "the owner worker did not answer"
                found = _operator(server)
                pid = found["pid"] if found["node"] == owner else None
            os.kill(pid, signal.SIGKILL)
            await _play(players, rng, timeout=150)
            assert sum(p.reconnects for p in players) >= 1  # the owner's sockets reconnected
            record = _record(server, table_id)
            assert replay_record(record).game.over
            assert _acked_are_in_the_record(players, record) > 20
            assert one_port.owner(table_id) not in (None, owner)

        run(body, timeout=220)
    finally:
        server.stop()
