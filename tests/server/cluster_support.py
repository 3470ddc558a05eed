"""Test support for the scale-out tests: server processes on one PostgreSQL and one Redis,
clients that reconnect to a live process with their seat token, and a random player that keeps
playing through failovers."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from server_support import Client, ServerProcess

OPERATOR = "cluster-test-operator"
FAST_ARGS = (
    "--turn-timer",
    "off",
    "--grace",
    "off",
    "--bot-delay",
    "0",
    "--round-pause",
    "0",
    "--hard-time-limit",
    "0.05",
    "--bot-processes",
    "0",
    "--rate-limit",
    "1000",
    "--burst",
    "1000",
    "--create-burst",
    "1000",
    "--lease-ttl",
    "2",
)
OPERATOR_TOKEN = {"Authorization": f"Bearer {OPERATOR}"}


def start_workers(
    data_dir: Path,
    pg_dsn: str,
    redis_url: str,
    *extra: str,
    log_path: Path,
    env: dict[str, str] | None = None,
) -> ServerProcess:
    """``cardverse serve --workers 2`` on PostgreSQL and Redis (with :data:`FAST_ARGS` and
    ``extra``), returned once both workers answer on its one port."""
    server = ServerProcess(
        data_dir,
        "--workers",
        "2",
        "--database",
        pg_dsn,
        "--redis",
        redis_url,
        *FAST_ARGS,
        *extra,
        env={"CARDVERSE_OPERATOR_TOKEN": OPERATOR, **(env or {})},
        log_path=log_path,
    ).start()
    nodes: set[str] = set()
    deadline = time.monotonic() + 30
    while len(nodes) < 2:
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError("one port, two worker processes answering")
        answer = httpx.get(f"{server.http}/api/operator", headers=OPERATOR_TOKEN, timeout=10)
        nodes.add(answer.json()["node"])
    return server


async def seat_four(server: ServerProcess, table: dict[str, Any]) -> list[Client]:
    """Four people at a new table (made by ``create_table``): the host with its token, then
    three by name; each connection landing on whichever worker the kernel picks."""
    host = await Client(server.ws_url(table["table_id"]), "seat0").connect()
    assert (await host.join(token=table["token"]))["type"] == "welcome"
    clients = [host]
    for seat in (1, 2, 3):
        client = await Client(server.ws_url(table["table_id"]), f"seat{seat}").connect()
        assert (await client.join(name=f"P{seat}"))["type"] == "welcome"
        clients.append(client)
    return clients


class Cluster:
    """Server processes on one database and one Redis; a killed one can be replaced."""

    def __init__(
        self, root: Path, dsn: str, redis_url: str, extra_args: tuple[str, ...] = ()
    ) -> None:
        self.root = root
        self.dsn = dsn
        self.redis_url = redis_url
        self.extra_args = extra_args  # after FAST_ARGS (the last of an option counts)
        self.procs: list[ServerProcess] = []
        self.paused: list[ServerProcess] = []  # stopped with SIGSTOP: not to connect to
        self.started = 0

    def start(self, count: int) -> Cluster:
        for _ in range(count):
            self.add()
        return self

    def add(self) -> ServerProcess:
        self.started += 1
        proc = ServerProcess(
            self.root / f"node{self.started}",
            "--database",
            self.dsn,
            "--redis",
            self.redis_url,
            *FAST_ARGS,
            *self.extra_args,
            env={"CARDVERSE_OPERATOR_TOKEN": OPERATOR},
            log_path=self.root / f"node{self.started}.log",
        ).start()
        self.procs.append(proc)
        return proc

    def alive(self) -> list[ServerProcess]:
        return [
            p
            for p in self.procs
            if p.proc is not None and p.proc.poll() is None and p not in self.paused
        ]

    def node_of(self, proc: ServerProcess) -> str:
        answer = httpx.get(
            f"{proc.http}/api/operator",
            headers={"Authorization": f"Bearer {OPERATOR}"},
            timeout=10,
        )
        return str(answer.json()["node"])

    def owner(self, table_id: str) -> str | None:
        import redis

        client = redis.Redis.from_url(self.redis_url)
        try:
            value = client.get(f"cardverse:lease:{table_id}")
        finally:
            client.close()
        return None if value is None else value.decode()

    def owner_proc(self, table_id: str, timeout: float = 15.0) -> ServerProcess:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            owner = self.owner(table_id)
            for proc in self.alive():
                if owner is not None and self.node_of(proc) == owner:
                    return proc
            time.sleep(0.05)
        raise AssertionError("no live process owns the table")

    def close(self) -> None:
        import signal

        for proc in self.procs:
            if proc.proc is not None and proc.proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.proc.send_signal(signal.SIGCONT)
            proc.stop()


class Player:
    """One person at the table: a client connected to some process, reconnected (to any live
    process, with the seat token) whenever its socket closes."""

    def __init__(self, cluster: Cluster, table_id: str, seat: int, token: str) -> None:
        self.cluster = cluster
        self.table_id = table_id
        self.seat = seat
        self.token = token
        self.client: Client | None = None
        self.clients: list[Client] = []  # every connection it had, in order
        self.acked: list[dict[str, Any]] = []
        self.seq = 0
        self.reconnects = 0
        self.acted_v = -1  # the state version this seat last acted on

    async def connect(self, proc: ServerProcess) -> None:
        client = await Client(proc.ws_url(self.table_id), f"seat{self.seat}").connect()
        client.seq = self.seq
        welcome = await client.join(token=self.token)
        assert welcome["type"] == "welcome", welcome
        self.seq = max(self.seq, client.seq)
        self.client = client
        self.clients.append(client)

    def usable(self) -> bool:
        return self.client is not None and self.client.closed is None

    async def reconnect(self, deadline: float) -> None:
        """Connect again to a live process until one takes the seat back."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.close()
        self.reconnects += 1
        while True:
            alive = self.cluster.alive()
            proc = alive[(self.seat + self.reconnects) % len(alive)]
            try:
                await self.connect(proc)
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def act(self, rng: random.Random) -> str:
        """Play a random legal move if it is this seat's turn: 'ack', 'error', 'lost' (no
        answer: the socket closed or the owner died) or '' (not its turn)."""
        client = self.client
        assert client is not None
        state = client.last_state()
        if state is None:
            return ""
        view = state["view"]
        if view["turn"] != self.seat or not view["legal_moves"] or view["phase"] == "game_over":
            return ""
        if state["v"] <= self.acted_v and not state.get("log"):
            return ""  # already acted on this state (its successor is on its way)
        self.acted_v = state["v"]
        move = dict(rng.choice(view["legal_moves"]))
        kind = move.pop("action")
        message = {"type": kind, **move}
        client.seq = self.seq
        try:
            reply = await client.request(message, timeout=8)
        except (AssertionError, websockets.ConnectionClosed):  # closed or timed out: no ack
            self.seq = client.seq
            return "lost"
        self.seq = client.seq
        if reply["type"] == "ack":
            self.acked.append({**message, "seq": client.seq})
            return "ack"
        self.acted_v = -1  # refused: the same state may be acted on again
        return "error"


def over(players: list[Player]) -> bool:
    for player in players:
        if player.usable():
            assert player.client is not None
            state = player.client.last_state()
            if state is not None and state["view"]["phase"] == "game_over":
                return True
    return False
