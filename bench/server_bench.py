"""Multiplayer server benchmark (``make bench``; not a test).

Starts ``cardverse serve`` as its own process on 127.0.0.1 (a free port, a fresh data
directory), opens N tables of four simulated people (4·N WebSockets, from this process), and has
every person play a random legal move as soon as its view says it is on turn (with an optional
think time). Games restart with a rematch when they end. After a warm-up it measures, for a fixed
time:

- actions per second accepted by the server;
- the time from sending an action until all four seats have received the state it produced
  (median, 99th percentile, maximum);
- the WebSocket frames and bytes the four seats received per action (all messages: states,
  changes, acks, table messages);
- the server's CPU per action, also over what it spends idle with every seat connected (the
  heartbeat's pings: a cost per second, which weighs more per action the fewer actions a
  loaded machine lets through);
- the server's memory per table (resident memory after the tables are open and playing, minus
  before, divided by N) and its CPU use.

With ``--open-loop`` the people no longer act as fast as they can: actions fall due at an
offered rate (Poisson arrivals), each taken by a table whose seat on turn is ready (the longest
waiting first), and latency counts from when the action fell due (so a server that falls behind
shows it, instead of slowing its clients down). The rate goes up by ``--factor`` a step until
a step misses ``--p99-bound``, then ``--refine`` bisections; the result is the highest rate
carried with its p99 within the bound, with each step's figures (and, with ``--infra-pid``,
the CPU per action of other processes such as PostgreSQL and Redis).

The figures are printed and written to ``bench/results/server.json``.

    .venv/bin/python -m bench.server_bench --tables 250 --duration 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Any

import httpx
import websockets

RESULTS = Path(__file__).resolve().parent / "results" / "server.json"


def _family(pid: int) -> list[int]:
    """The server's process and its direct children (the workers of --workers N)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *map(int, children)]


def _rss_kib(pid: int) -> int:
    if not pid:
        return 0
    total = 0
    for member in _family(pid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def _cpu_seconds(pid: int) -> float:
    if not pid:
        return 0.0
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    for member in _family(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class Bench:
    def __init__(self, args: argparse.Namespace, http: str, ws: str) -> None:
        self.args = args
        self.http = http
        self.ws = ws
        self.measuring = False
        self.stopping = False
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0
        self.games = 0
        # (table, v) -> [send time, seats still to receive]
        self.pending: dict[tuple[str, int], list[Any]] = {}
        self.ready = 0
        self.sent = 0
        self.go = asyncio.Event()
        self.frames = 0  # WebSocket frames the simulated people received while measuring
        self.bytes = 0  # ... and their bytes
        self.gaps = 0  # changes that did not follow the state a seat held (must stay 0)
        self.reconnects = 0  # sockets closed with 1012/1013 that came back with their token
        # Open loop (--open-loop): actions fall due at the offered rate, whatever the server
        # does; each goes to a table whose seat on turn is ready (the longest waiting first),
        # and its latency counts from when it fell due (time spent waiting for a ready table
        # included: no coordinated omission).
        self.rate = 0.0  # offered actions per second (0: none fall due)
        self.waiting_seats: deque[asyncio.Future[float]] = deque()  # ready, waiting for a due
        self.overdue: deque[float] = deque()  # fell due while no seat was ready
        self.service_times: list[float] = []  # from sending (not from falling due)

    async def seat(self, table_id: str, join: dict[str, Any], rng: random.Random) -> None:
        """One simulated person; it comes back with its seat token when the server closes its
        socket with 1012 or 1013 (the table moved to another process; try again)."""
        args = self.args
        seq = 0
        my_seat = -1
        acted_v = -1
        host = "token" in join
        started = False
        loads = json.loads
        while True:
            try:
                async with websockets.connect(
                    f"{self.ws}/ws/{table_id}",
                    compression=None,
                    max_size=1 << 22,
                    ping_interval=None,
                ) as ws:
                    await ws.send(json.dumps({"type": "join", **join}))
                    v_seen = -1
                    turn: int | None = None
                    legal: list[dict[str, Any]] = []
                    async for text in ws:
                        if self.measuring:
                            self.frames += 1
                            self.bytes += len(text.encode())
                        message = loads(text)
                        kind = message["type"]
                        if kind in ("state", "change"):
                            # A simulated person keeps what it needs of its view: the version, whose
                            # turn it is and its legal moves (a change names only what changed).
                            view = message["view"]
                            if kind == "change" and message["from"] != v_seen:
                                self.gaps += 1
                            v = v_seen = message["v"]
                            if "turn" in view:
                                turn = view["turn"]
                            if "legal_moves" in view:
                                legal = view["legal_moves"]
                            self._received(table_id, v)
                            if self.stopping or not legal or turn != my_seat or v <= acted_v:
                                continue
                            acted_v = v
                            due = None
                            if args.open_loop:
                                due = await self._due()
                                if self.stopping:
                                    continue
                            elif args.think > 0:
                                await asyncio.sleep(rng.expovariate(1000.0 / args.think))
                            move = dict(rng.choice(legal))
                            action = move.pop("action")
                            seq += 1
                            self.sent += 1
                            sent = time.perf_counter()
                            self.pending[(table_id, v + 1)] = [
                                sent if due is None else due,
                                4,
                                sent,
                            ]
                            await ws.send(json.dumps({"type": action, "seq": seq, **move}))
                            continue
                        message = loads(text)
                        kind = message["type"]
                        if kind == "welcome":
                            my_seat = message["seat"]
                            if "token" in message:  # the seat's token: for coming back
                                join = {"token": message["token"]}
                            seq = max(seq, message["last_seq"])
                            self.ready += 1
                            continue
                        if kind == "error" or (kind == "ack" and message["duplicate"]):
                            self.errors += 1
                            continue
                        if kind == "table" and host and my_seat >= 0:
                            full = all(s["kind"] != "empty" for s in message["seats"])
                            if message["phase"] == "lobby" and full and not started:
                                started = True
                                await self.go.wait()  # every table starts at once
                                seq += 1
                                await ws.send(json.dumps({"type": "start", "seq": seq}))
                            elif message["phase"] == "over" and not self.stopping:
                                seq += 1
                                self.games += 1
                                await ws.send(json.dumps({"type": "rematch", "seq": seq}))
                            continue
                return  # the server closed normally: the run is over
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                if self.stopping or code not in (1012, 1013):
                    return
                self.reconnects += 1

    def _received(self, table_id: str, v: int) -> None:
        entry = self.pending.get((table_id, v))
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                del self.pending[(table_id, v)]
                if self.measuring:
                    now = time.perf_counter()
                    self.latencies.append(now - entry[0])
                    self.service_times.append(now - entry[2])
                    self.actions += 1

    async def _due(self) -> float:
        """Open loop: wait until an action falls due for this seat; returns when it fell due."""
        if self.overdue:
            return self.overdue.popleft()
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting_seats.append(future)
        return await future

    async def _offer(self) -> None:
        """Open loop: actions fall due at ``self.rate`` a second (Poisson arrivals)."""
        rng = random.Random(self.args.seed)
        next_due = time.perf_counter()
        while not self.stopping:
            if self.rate <= 0:
                await asyncio.sleep(0.02)
                next_due = time.perf_counter()
                continue
            now = time.perf_counter()
            while next_due <= now:
                self._fall_due(next_due)
                next_due += rng.expovariate(self.rate)
            await asyncio.sleep(max(0.0, next_due - time.perf_counter()))

    def _fall_due(self, due: float) -> None:
        while self.waiting_seats:
            future = self.waiting_seats.popleft()
            if not future.done():
                future.set_result(due)
                return
        if len(self.overdue) < 1_000_000:
            self.overdue.append(due)

    async def table(self, client: httpx.AsyncClient, index: int) -> list[asyncio.Task[None]]:
        response = await client.post(
            f"{self.http}/api/tables",
            json={"name": "P0", "rules": {"preset": self.args.preset, "players": 4}},
        )
        response.raise_for_status()
        created = response.json()
        rng = random.Random(index)
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(self.seat(created["table_id"], {"token": created["token"]}, rng))]
        for seat in (1, 2, 3):
            seat_rng = random.Random(rng.random())
            join = {"name": f"P{seat}"}
            tasks.append(loop.create_task(self.seat(created["table_id"], join, seat_rng)))
        return tasks

    async def started(self) -> None:
        """Wait until the server answers (it prints its address once its socket is bound,
        before its application is loaded): memory measured before is a started server's."""
        deadline = time.monotonic() + 120
        async with httpx.AsyncClient(timeout=5) as client:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(self.http + "/api/health")).status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not answer /api/health")
                await asyncio.sleep(0.1)

    async def run(self, server_pid: int) -> dict[str, Any]:
        args = self.args
        await self.started()
        rss_before = _rss_kib(server_pid)
        tasks: list[asyncio.Task[None]] = []
        setup = time.perf_counter()
        async with httpx.AsyncClient(timeout=60) as client:
            for first in range(0, args.tables, 25):
                batch = range(first, min(args.tables, first + 25))
                for made in await asyncio.gather(*(self.table(client, i) for i in batch)):
                    tasks.extend(made)
        deadline = time.monotonic() + 120
        while self.ready < 4 * args.tables and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if self.ready < 4 * args.tables:
            raise RuntimeError(f"only {self.ready} of {4 * args.tables} seats joined")
        setup = time.perf_counter() - setup
        await asyncio.sleep(0.5)
        rss_seated = _rss_kib(server_pid)
        # What the server spends with every seat connected and nobody playing (the heartbeat's
        # pings, timers): a cost per second, not per action.
        idle0, idle_started = _cpu_seconds(server_pid), time.perf_counter()
        await asyncio.sleep(args.idle)
        idle_rate = (_cpu_seconds(server_pid) - idle0) / (time.perf_counter() - idle_started)
        self.go.set()
        if args.open_loop:
            result = await self.stepped(server_pid, setup, rss_before)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            return result
        await asyncio.sleep(args.warmup)
        rss_playing = _rss_kib(server_pid)
        commits0 = await self._commits()
        cpu0 = _cpu_seconds(server_pid)
        own0 = sum(os.times()[:2])
        self.measuring = True
        started = time.perf_counter()
        await asyncio.sleep(args.duration)
        self.measuring = False
        elapsed = time.perf_counter() - started
        cpu = _cpu_seconds(server_pid) - cpu0
        own = sum(os.times()[:2]) - own0
        rss_end = _rss_kib(server_pid)
        commits1 = await self._commits()
        self.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lat = sorted(self.latencies)
        ms = 1000.0

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(p * len(lat)))] * ms if lat else float("nan")

        return {
            "workers": args.workers,
            "store": "postgresql" if args.database else "sqlite",
            "commit": args.commit,
            "synchronous": args.synchronous,
            "tables": args.tables,
            "websockets": 4 * args.tables,
            "think_ms": args.think,
            "duration_s": round(elapsed, 1),
            "actions": self.actions,
            "actions_per_s": round(self.actions / elapsed, 1),
            "latency_ms": {
                "median": round(statistics.median(lat) * ms, 2) if lat else None,
                "p99": round(pct(0.99), 2),
                "max": round(lat[-1] * ms, 2) if lat else None,
            },
            "server_cpu_percent": round(100 * cpu / elapsed, 1),
            "server_cpu_ms_per_action": round(1000 * cpu / max(1, self.actions), 3),
            "server_idle_cpu_percent": round(100 * idle_rate, 1),
            "server_cpu_ms_per_action_over_idle": round(
                1000 * max(0.0, cpu - idle_rate * elapsed) / max(1, self.actions), 3
            ),
            "frames_per_action": round(self.frames / max(1, self.actions), 2),
            "bytes_per_action": round(self.bytes / max(1, self.actions)),
            # the store's group commits: how many actions share one (one process only)
            "actions_per_commit": (
                round(self.actions / (commits1 - commits0), 1)
                if args.workers <= 1
                and commits0 is not None
                and commits1 is not None
                and commits1 > commits0
                else None
            ),
            "gaps": self.gaps,
            "clients_cpu_percent": round(100 * own / elapsed, 1),
            "setup_s": round(setup, 1),
            "server_rss_mib": {
                "before": round(rss_before / 1024, 1),
                "seated": round(rss_seated / 1024, 1),
                "playing": round(rss_playing / 1024, 1),
                "end": round(rss_end / 1024, 1),
            },
            "memory_per_table_kib": round(
                (max(rss_playing, rss_end) - rss_before) / args.tables, 1
            ),
            "games_finished": self.games,
            "actions_sent_in_all": self.sent,
            "errors": self.errors,
            "reconnects": self.reconnects,
        }

    async def step(self, rate: float, server_pid: int, infra: dict[str, int]) -> dict[str, Any]:
        """Offer ``rate`` actions/s: settle, then measure for ``--step`` seconds."""
        args = self.args
        self.rate = 0.0  # let what is on its way finish, forget what fell due before
        drained = time.monotonic() + 10
        recent = time.perf_counter() - 3.0  # older entries may never complete (a game's end)
        while time.monotonic() < drained and any(e[2] > recent for e in self.pending.values()):
            await asyncio.sleep(0.02)
        self.overdue.clear()
        self.rate = rate
        await asyncio.sleep(args.settle)
        self.latencies, self.service_times, self.actions = [], [], 0
        sent0 = self.sent
        lag0 = await self._loop_lag()
        cpu0 = _cpu_seconds(server_pid)
        infra0 = {name: _cpu_seconds(pid) for name, pid in infra.items()}
        own0 = sum(os.times()[:2])
        errors0 = self.errors
        self.measuring = True
        started = time.perf_counter()
        await asyncio.sleep(args.step)
        self.measuring = False
        elapsed = time.perf_counter() - started
        cpu = _cpu_seconds(server_pid) - cpu0
        sent = self.sent - sent0
        own = sum(os.times()[:2]) - own0
        lag = await self._loop_lag()
        actions = max(1, self.actions)
        lat = sorted(self.latencies)
        service = sorted(self.service_times)
        return {
            "offered_per_s": round(rate, 1),
            "actions_per_s": round(sent / elapsed, 1),  # carried: sent as they fell due
            "completed_per_s": round(self.actions / elapsed, 1),  # all four seats told
            "p50_ms": _pct(lat, 0.5),
            "p99_ms": _pct(lat, 0.99),
            "service_p99_ms": _pct(service, 0.99),
            "overdue_at_end": len(self.overdue),
            "server_cpu_percent": round(100 * cpu / elapsed, 1),
            "server_cpu_ms_per_action": round(1000 * cpu / actions, 3),
            **{
                f"{name}_cpu_ms_per_action": round(
                    1000 * (_cpu_seconds(pid) - infra0[name]) / actions, 3
                )
                for name, pid in infra.items()
            },
            "clients_cpu_ms_per_action": round(1000 * own / actions, 3),
            "errors": self.errors - errors0,
            # one process's count: with several, each answer may come from another
            "loop_lags_over_50ms": lag - lag0 if args.workers <= 1 else None,
        }

    async def _loop_lag(self) -> int:
        """The server's count of event-loop delays over 50 ms (one process's, when several
        answer on the port)."""
        return int((await self._operator()).get("loop_lag_ms", {}).get("over_50ms", 0))

    async def _commits(self) -> int | None:
        """The store's commits so far (one process's, when several answer on the port)."""
        commits = (await self._operator()).get("commits")
        return None if commits is None else int(commits)

    async def _operator(self) -> dict[str, Any]:
        """The server's operator figures (``/api/operator``); empty when it does not answer."""
        try:
            async with httpx.AsyncClient(timeout=5) as client:
                answer = await client.get(f"{self.http}/api/operator")
                figures: dict[str, Any] = answer.json()
                return figures
        except Exception:
            return {}

    def sustained(self, step: dict[str, Any], bound: float | None = None) -> bool:
        """The step's offered rate was carried with its p99 within the bound."""
        return (
            step["actions_per_s"] >= 0.9 * step["offered_per_s"]
            and step["overdue_at_end"] <= max(10.0, 0.05 * step["offered_per_s"])
            and step["p99_ms"] <= (self.args.p99_bound if bound is None else bound)
            and not step["errors"]
        )

    async def stepped(self, server_pid: int, setup: float, rss_before: int) -> dict[str, Any]:
        """Open loop at stepped offered rates: up by ``--factor`` until a step misses the
        bound, then ``--refine`` bisections between the best step and the first missed."""
        args = self.args
        infra = dict(_named_pids(args.infra_pid))
        offer = asyncio.get_running_loop().create_task(self._offer())
        steps: list[dict[str, Any]] = []
        good: float | None = None
        bad: float | None = None
        rate = args.start_rate
        try:
            await asyncio.sleep(args.warmup)
            while bad is None and rate <= args.max_rate:
                steps.append(await self.step(rate, server_pid, infra))
                if self.sustained(steps[-1]):
                    good, rate = rate, rate * args.factor
                else:
                    bad = rate
            for _ in range(args.refine if bad is not None else 0):
                rate = ((good or 0.0) + bad) / 2  # type: ignore[operator]
                steps.append(await self.step(rate, server_pid, infra))
                if self.sustained(steps[-1]):
                    good = rate
                else:
                    bad = rate
        finally:
            self.rate = 0.0
            self.stopping = True
            offer.cancel()
            for future in self.waiting_seats:
                future.cancel()
        best = max(
            (s for s in steps if self.sustained(s)), key=lambda s: s["actions_per_s"], default=None
        )
        return {
            "mode": "open-loop",
            "workers": args.workers,
            "store": "postgresql" if args.database else "sqlite",
            "tables": args.tables,
            "websockets": 4 * args.tables,
            "p99_bound_ms": args.p99_bound,
            "sustained_actions_per_s": best["actions_per_s"] if best else 0.0,
            "at_the_sustained_rate": best,
            "first_missed_offered_per_s": bad,
            # the same steps against other bounds (the steps were chosen for --p99-bound)
            "sustained_by_p99_bound": {
                str(round(bound)): max(
                    (s["actions_per_s"] for s in steps if self.sustained(s, bound)), default=0.0
                )
                for bound in sorted({50.0, 100.0, 250.0, args.p99_bound})
            },
            "steps": steps,
            "setup_s": round(setup, 1),
            "memory_per_table_kib": round((_rss_kib(server_pid) - rss_before) / args.tables, 1),
            "gaps": self.gaps,
            "reconnects": self.reconnects,
        }


def _pct(values: list[float], p: float) -> float:
    """The ``p`` quantile of sorted seconds, in ms (NaN when there are none)."""
    if not values:
        return float("nan")
    return round(values[min(len(values) - 1, int(p * len(values)))] * 1000.0, 2)


def _named_pids(given: list[str] | None) -> list[tuple[str, int]]:
    """``name=pid`` pairs: other processes (and their children) whose CPU is counted too."""
    pairs = []
    for item in given or []:
        name, _, pid = item.partition("=")
        pairs.append((name, int(pid)))
    return pairs


async def _main(args: argparse.Namespace, http: str, ws: str, pid: int) -> dict[str, Any]:
    bench = Bench(args, http, ws)
    return await bench.run(pid)


def build_parser() -> argparse.ArgumentParser:
    """The benchmark's options (also read by bench.live_table_memory)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    parser.add_argument(
        "--idle", type=float, default=3.0, help="seconds the server's idle CPU is measured"
    )
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean think time per action, ms (0: none)"
    )
    parser.add_argument("--preset", default="standard")
    parser.add_argument(
        "--commit", default="group", choices=["group", "per-move"], help="the server's commits"
    )
    parser.add_argument(
        "--synchronous", default="FULL", choices=["NORMAL", "FULL"], help="SQLite's setting"
    )
    parser.add_argument("--uvloop", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--url", help="measure a server already running there (e.g. http://127.0.0.1:8000)"
    )
    parser.add_argument("--server-pid", type=int, help="that server's process id (memory, CPU)")
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes (needs --database, --redis)"
    )
    parser.add_argument("--database", help="postgresql://... for the server's event log")
    parser.add_argument("--redis", help="redis://... for several processes")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the JSON goes")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs, one after the other: the median is reported"
    )
    parser.add_argument(
        "--open-loop",
        action="store_true",
        help="offer actions at stepped rates; report the highest carried within --p99-bound",
    )
    parser.add_argument("--p99-bound", type=float, default=100.0, help="open loop: p99, ms")
    parser.add_argument("--start-rate", type=float, default=250.0, help="open loop: actions/s")
    parser.add_argument("--max-rate", type=float, default=20000.0, help="open loop: actions/s")
    parser.add_argument("--factor", type=float, default=1.5, help="open loop: rate step factor")
    parser.add_argument("--refine", type=int, default=3, help="open loop: bisection steps")
    parser.add_argument("--step", type=float, default=5.0, help="open loop: seconds measured")
    parser.add_argument("--settle", type=float, default=2.0, help="open loop: seconds first")
    parser.add_argument("--seed", type=int, default=15, help="open loop: the arrivals' seed")
    parser.add_argument(
        "--infra-pid",
        action="append",
        metavar="NAME=PID",
        help="open loop: another process (and its children) whose CPU per action is counted",
    )
    return parser


def server_command(args: argparse.Namespace, data: str) -> list[str]:
    """The command line of the server the benchmark starts (a free port, ``data`` its data)."""
    return [
        sys.executable,
        "-m",
        "cardverse",
        "serve",
        "--port",
        "0",
        "--data-dir",
        data,
        "--turn-timer",
        "off",
        "--grace",
        "off",
        "--round-pause",
        "0",
        "--rate-limit",
        "10000",
        "--burst",
        "10000",
        "--commit",
        args.commit,
        "--sqlite-synchronous",
        args.synchronous,
        # Every simulated person comes from 127.0.0.1: lift the per-address limits.
        "--create-burst",
        "100000",
        "--max-connections-per-address",
        "100000",
        "--max-connections",
        "100000",
        "--log-level",
        "warning",
        "--operator-addresses",
        "127.0.0.1",
        *(["--workers", str(args.workers)] if args.workers > 1 else []),
        *(["--database", args.database] if args.database else []),
        *(["--redis", args.redis] if args.redis else []),
    ]


def median_of(runs: list[Any]) -> Any:
    """The runs' median, leaf by leaf: numbers are the median of the runs' numbers (each run
    measured alone, one after the other), anything else is the first run's."""
    first = runs[0]
    if isinstance(first, dict):
        return {
            key: median_of([run[key] for run in runs if isinstance(run, dict) and key in run])
            for key in first
        }
    if isinstance(first, int | float) and not isinstance(first, bool):
        numbers = [run for run in runs if isinstance(run, int | float)]
        middle = statistics.median(numbers)
        return round(middle, 3) if isinstance(middle, float) else middle
    return first


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.repeat > 1:  # one server and one run after the other; the median of each figure
        runs = []
        for _ in range(args.repeat):
            once = [*(argv if argv is not None else sys.argv[1:]), "--repeat", "1"]
            main(once)
            runs.append(json.loads(args.out.read_text()))
        result = median_of(runs)
        result["repeat"] = args.repeat
        result["runs"] = runs
        return _report(result, args.out)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    if args.uvloop:
        with contextlib.suppress(ImportError):
            import uvloop

            uvloop.install()
    if args.url:
        ws = args.url.replace("http://", "ws://")
        result = asyncio.run(_main(args, args.url, ws, args.server_pid or 0))
        return _report(result, args.out)
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            server_command(args, data),
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            if "serving on" not in line:
                raise RuntimeError(f"the server did not start: {line!r}")
            http = line.split()[3]
            ws = http.replace("http://", "ws://")
            result = asyncio.run(_main(args, http, ws, server.pid))
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    return _report(result, args.out)


def _report(result: dict[str, Any], out: Path) -> int:
    result["python"] = platform.python_version()
    result["cpus"] = os.cpu_count()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
