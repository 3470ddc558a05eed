"""Several server processes on a real PostgreSQL and a real Redis (started by the tests).

The four people of a table sit on three different processes; the table's owner is killed
(SIGKILL) or stalled (SIGSTOP) in the middle of games; Redis and PostgreSQL restart. Nothing
acknowledged is ever lost, no stalled owner appends, and no message to a seat holds a card it may
not see (R26)."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cluster_support import Cluster, Player, over
from server_support import Client, create_table, norm_action, record_actions_by_seat, run
from test_server_hidden_cards import CARD, check_messages

from cardverse.notation import replay_record


@pytest.fixture
def cluster(tmp_path: Path, pg_dsn: str, redis_server: Any) -> Iterator[Cluster]:
    running = Cluster(tmp_path, pg_dsn, redis_server.url)
    try:
        yield running.start(3)
    finally:
        running.close()


def _record(proc: Any, table_id: str, number: int = 1) -> dict[str, Any]:
    answer = httpx.get(f"{proc.http}/api/tables/{table_id}/records/{number}", timeout=10)
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    return record


async def _seat_players(cluster: Cluster, table: dict[str, Any], on: list[int]) -> list[Player]:
    """The host and three more people, seat i connected to process ``on[i]``."""
    procs = cluster.procs
    host = Player(cluster, table["table_id"], 0, table["token"])
    await host.connect(procs[on[0]])
    players = [host]
    for seat in (1, 2, 3):
        client = await Client(procs[on[seat]].ws_url(table["table_id"]), f"seat{seat}").connect()
        welcome = await client.join(name=f"P{seat}")
        assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
        player = Player(cluster, table["table_id"], seat, welcome["token"])
        player.client = client
        player.clients.append(client)
        player.seq = client.seq
        players.append(player)
    assert host.client is not None
    host.client.seq = host.seq
    assert (await host.client.request({"type": "start"}))["type"] == "ack"
    host.seq = host.client.seq
    return players


def _acked_are_in_the_record(players: list[Player], record: dict[str, Any]) -> int:
    """Every acknowledged action of every seat is in the record, in order; returns how many."""
    by_seat = record_actions_by_seat(record)
    count = 0
    for player in players:
        sent = [norm_action(a) for a in player.acked if a["type"] in ("play", "pass", "give")]
        stored = iter(by_seat[player.seat])
        missing = [a for a in sent if not any(a == s for s in stored)]
        assert not missing, (player.seat, missing[:3])  # a subsequence: none lost
        count += len(sent)
    return count


async def _play(
    players: list[Player], rng: random.Random, *, acks: int | None = None, timeout: float = 90
) -> list[float]:
    """Play on (reconnecting players whose socket closed) until the game is over, or until
    ``acks`` more actions were acknowledged; returns the times of the acknowledgements."""
    deadline = time.monotonic() + timeout
    times: list[float] = []
    while not over(players) and (acks is None or len(times) < acks):
        assert time.monotonic() < deadline, "the game did not go on in time"
        progressed = False
        for player in players:
            if not player.usable():
                await player.reconnect(deadline)
            result = await player.act(rng)
            if result == "ack":
                times.append(time.monotonic())
            progressed |= bool(result)
        if not progressed:
            await asyncio.sleep(0.01)
    return times


def _frames_went_only_to_their_sockets_process(
    published: list[tuple[str, str]], raws: dict[int, set[str]]
) -> int:
    """Every frame published on Redis reached a client of one process only, and every frame
    on one node's channel belongs to the same process (no hand crosses to another node)."""
    by_channel: dict[str, set[int]] = {}
    frames = 0
    for channel, data in published:
        envelope = json.loads(data)
        if envelope.get("op") != "frames":
            continue
        for text in envelope["texts"]:
            frames += 1
            holders = {index for index, got in raws.items() if text in got}
            assert holders, f"a frame published on {channel} reached no client"
            if CARD.search(text):
                known = by_channel.setdefault(channel, set(holders))
                known &= holders
                assert known, f"frames with cards on {channel} went to several processes"
    return frames


@pytest.mark.timeout(240)
def test_R26_four_seats_on_three_processes_play_a_whole_game(cluster: Cluster) -> None:
    import redis.asyncio as aioredis

    async def body() -> None:
        monitor = aioredis.from_url(cluster.redis_url)
        pubsub = monitor.pubsub()
        await pubsub.psubscribe("cardverse:node:*")
        published: list[tuple[str, str]] = []

        async def listen() -> None:
            async for message in pubsub.listen():
                if message["type"] == "pmessage":
                    published.append((message["channel"].decode(), message["data"].decode()))

        listener = asyncio.get_running_loop().create_task(listen())
        table = create_table(cluster.procs[0].http, rules={"preset": "standard", "rounds": 2})
        on = [0, 1, 2, 1]  # seats 1 and 3 on the second process, seat 2 on the third
        players = await _seat_players(cluster, table, on)
        await _play(players, random.Random(15))
        # the record, asked of a process that does not own the table (over Redis)
        owner = cluster.owner_proc(table["table_id"])
        other = next(p for p in cluster.procs if p is not owner)
        record = _record(other, table["table_id"])
        assert replay_record(record).game.over
        checked = 0
        for player in players:
            assert player.reconnects == 0
            assert player.client is not None
            await player.client.close()
            checked += check_messages(player.client, record)
        assert checked > 100
        assert _acked_are_in_the_record(players, record) > 40
        listener.cancel()
        await pubsub.aclose()
        await monitor.aclose()
        raws: dict[int, set[str]] = {}
        for player in players:
            assert player.client is not None
            raws.setdefault(on[player.seat], set()).update(player.client.raw)
        assert _frames_went_only_to_their_sockets_process(published, raws) > 100

    run(body, timeout=220)


@pytest.mark.timeout(300)
def test_owner_killed_at_random_moments_loses_no_acknowledged_action(cluster: Cluster) -> None:
    """SIGKILL of the owning process at 5 random moments (20 in bench/cluster_bench.py)."""
    kills = 5

    async def body() -> None:
        rng = random.Random(2026)
        table = create_table(cluster.procs[0].http, rules={"preset": "standard", "rounds": 8})
        table_id = table["table_id"]
        players = await _seat_players(cluster, table, [0, 1, 2, 0])
        recoveries: list[float] = []
        for _ in range(kills):
            await _play(players, rng, acks=rng.randint(3, 25))
            assert not over(players), "the game ended before every kill"
            victim = cluster.owner_proc(table_id)
            killed = time.monotonic()
            victim.kill()
            times = await _play(players, rng, acks=1, timeout=60)
            recoveries.append(times[0] - killed)
            cluster.add()  # a new process takes the dead one's place
        await _play(players, rng, timeout=120)
        record = _record(cluster.alive()[0], table_id)
        assert replay_record(record).game.over
        assert _acked_are_in_the_record(players, record) > 50
        print(
            f"\nfailover: {kills} kills, time to the next accepted action median "
            f"{statistics.median(recoveries):.2f} s, max {max(recoveries):.2f} s"
        )
        assert max(recoveries) < 20  # the 5 s target is the benchmark's to measure

    run(body, timeout=280)
