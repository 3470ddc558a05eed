"""Soak benchmark (``make bench``; not a test): a real server for a long while, with attackers.

Starts ``cardverse serve`` as its own process on 127.0.0.1 with its default settings (durability
FULL with group commit, every abuse limit on) and runs, for ``--duration`` seconds (10 minutes by
default):

- ``--tables`` tables (50), each with two simulated people and two computer players (normal and
  easy; one table in ``--hard-every`` (5) a hard one instead of the normal one); people think
  0.2–1.5 s, play random legal moves, drop their connection now and then and come back with
  their token; games rematch when over. Each
  table's people come from an address of their own (127.0.1.x: Linux routes 127/8 to loopback).
- attackers beside them, from other addresses (127.0.2.x), one attack after another: bad
  messages at the rate limit, a reader that stops reading, a flood of table creations, huge
  bodies, a hidden-hand bomb, silent and half-sent connections, a flood of connections;
- a probe: one more table whose person pings every 50 ms.

Reported (printed, and written to ``bench/results/soak.json``): the server's resident memory
over time (every 10 s), its growth after warm-up, errors (error messages to people, people's
connections closed by the server, HTTP 5xx, tracebacks in the server's log), p50/p99 of actions
(sent → acknowledged) and of the probe, and what the attackers got. Targets (issue 11): memory
flat within 10 % after warm-up, 0 errors, probe p99 under 50 ms.

    .venv/bin/python -m bench.soak --duration 600
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
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

RESULTS = Path(__file__).resolve().parent / "results" / "soak.json"
OPERATOR_TOKEN = secrets.token_urlsafe(16)  # to read the server's own figures at the end


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)


class Soak:
    def __init__(self, args: argparse.Namespace, http: str) -> None:
        self.args = args
        self.http = http
        self.ws = http.replace("http://", "ws://")
        self.port = int(http.rsplit(":", 1)[1])
        self.stopping = False
        self.action_latencies: list[float] = []
        self.probe_rtts: list[float] = []
        self.probe_times: list[float] = []  # when each round trip began (monotonic)
        self.current_attack = ""
        self.slowest: list[tuple[float, float, str]] = []  # (rtt, at, attack)
        self.errors: dict[str, int] = {}
        self.attacks: dict[str, dict[str, int]] = {}
        self.actions = 0
        self.games = 0
        self.reconnects = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def attacked(self, kind: str, outcome: str) -> None:
        entry = self.attacks.setdefault(kind, {})
        entry[outcome] = entry.get(outcome, 0) + 1

    # -- people -----------------------------------------------------------------------------

    async def table(self, index: int) -> list[asyncio.Task[None]]:
        address = f"127.0.1.{index + 1}"
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            answer = await client.post(
                f"{self.http}/api/tables",
                json={"name": "Host", "rules": {"preset": "standard", "players": 4}},
            )
        if answer.status_code != 201:
            raise RuntimeError(f"table {index}: {answer.status_code} {answer.text}")
        created = answer.json()
        table_id = created["table_id"]
        rng = random.Random(index)
        hard = self._hard(index)
        loop = asyncio.get_running_loop()
        host = loop.create_task(
            self.person(table_id, address, {"token": created["token"]}, rng, host=True, hard=hard)
        )
        guest = loop.create_task(
            self.person(table_id, address, {"name": "Guest"}, random.Random(rng.random()))
        )
        return [host, guest]

    async def person(
        self,
        table_id: str,
        address: str,
        join: dict[str, Any],
        rng: random.Random,
        host: bool = False,
        hard: bool = False,
    ) -> None:
        token = join.get("token")
        seq = 0
        bots_added = False
        while not self.stopping:
            stay = rng.uniform(60, 180)  # then the connection "drops" and comes back
            body = {"type": "join", "token": token} if token else {"type": "join", **join}
            try:
                async with websockets.connect(
                    f"{self.ws}/ws/{table_id}",
                    compression=None,
                    max_size=1 << 22,
                    local_addr=(address, 0),
                ) as ws:
                    await ws.send(json.dumps(body))
                    left = time.monotonic() + stay
                    pending: dict[int, float] = {}
                    my_seat = -1
                    acted_v = -1
                    view: dict[str, Any] = {}  # what this person holds of its view
                    while not self.stopping and time.monotonic() < left:
                        try:
                            text = await asyncio.wait_for(ws.recv(), 5)
                        except TimeoutError:
                            await ws.send(json.dumps({"type": "ping"}))  # keep alive
                            continue
                        message = json.loads(text)
                        kind = message["type"]
                        if kind in ("state", "change") and "ack" in message:
                            sent = pending.pop(message["ack"], None)  # a move's ack inside
                            if sent is not None:
                                self.action_latencies.append(time.perf_counter() - sent)
                                self.actions += 1
                        if kind == "welcome":
                            my_seat = message["seat"]
                            token = token or message.get("token")
                            seq = max(seq, message["last_seq"])
                        elif kind == "ack":
                            sent = pending.pop(message["seq"], None)
                            if sent is not None:
                                self.action_latencies.append(time.perf_counter() - sent)
                                self.actions += 1
                        elif kind == "error":
                            self.error("error to a person: " + message["code"])
                        elif kind == "table" and host and my_seat >= 0:
                            seats = message["seats"]
                            if message["phase"] == "lobby" and not bots_added:
                                empty = [s["seat"] for s in seats if s["kind"] == "empty"]
                                if len(empty) == 3:
                                    continue  # the guest has not sat down yet
                                bots_added = True
                                levels = ["hard" if hard else "normal", "easy"]
                                for seat, level in zip(empty, levels, strict=False):
                                    seq += 1
                                    add = {"type": "add_bot", "seq": seq, "level": level}
                                    await ws.send(json.dumps({**add, "seat": seat}))
                                seq += 1
                                await ws.send(json.dumps({"type": "start", "seq": seq}))
                            elif message["phase"] == "over":
                                self.games += 1
                                seq += 1
                                await ws.send(json.dumps({"type": "rematch", "seq": seq}))
                        elif kind in ("state", "change"):
                            # a change names only the fields that changed
                            view = message["view"] if kind == "state" else view
                            if kind == "change":
                                view.update(message["view"])
                            if view.get("turn") != my_seat or not view.get("legal_moves"):
                                continue
                            if message["v"] <= acted_v:
                                continue
                            acted_v = message["v"]
                            await asyncio.sleep(rng.uniform(0.2, 1.5))
                            move = dict(rng.choice(view["legal_moves"]))
                            action = move.pop("action")
                            seq += 1
                            pending[seq] = time.perf_counter()
                            await ws.send(json.dumps({"type": action, "seq": seq, **move}))
            except websockets.ConnectionClosed as closed:
                if not self.stopping:
                    self.error(f"a person's connection closed ({closed.rcvd and closed.rcvd.code})")
            except OSError:
                if not self.stopping:
                    self.error("a person could not connect")
            self.reconnects += 1

    def _hard(self, index: int) -> bool:
        return self.args.hard_every > 0 and index % self.args.hard_every == 0

    # -- the probe --------------------------------------------------------------------------

    async def probe(self) -> None:
        """The probe runs in a process of its own (``--probe``), so that the people's and the
        attackers' work in this process does not count in its round trips."""
        transport = httpx.AsyncHTTPTransport(local_address="127.0.3.1")
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            created = (await client.post(f"{self.http}/api/tables", json={"name": "P"})).json()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.soak",
            "--probe",
            f"{self.ws}/ws/{created['table_id']}",
            created["token"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=str(Path(__file__).resolve().parent.parent),
        )
        assert proc.stdout is not None
        try:
            while True:
                line = await proc.stdout.readline()
                if not line:
                    break
                rtt = float(line)
                self.probe_rtts.append(rtt)
                if rtt > 0.05:
                    slow = (round(rtt * 1000, 1), time.monotonic(), self.current_attack)
                    self.slowest.append(slow)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

    # -- attackers --------------------------------------------------------------------------

    async def attackers(self) -> None:
        attacks = [
            self.bad_messages,
            self.slow_reader,
            self.creation_flood,
            self.huge_bodies,
            self.hidden_hand_bomb,
            self.silent_connections,
            self.connection_flood,
        ]
        round_ = 0
        while not self.stopping:
            attack = attacks[round_ % len(attacks)]
            address = f"127.0.2.{round_ % 250 + 1}"
            round_ += 1
            self.current_attack = attack.__name__
            try:
                await asyncio.wait_for(attack(address), 90)
            except Exception as error:  # an attack that fails is reported, not fatal
                self.attacked(attack.__name__, f"attack failed: {type(error).__name__}")
            self.current_attack = ""
            await asyncio.sleep(2)

    async def _own_table(self, address: str) -> dict[str, Any]:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            answer = await client.post(f"{self.http}/api/tables", json={"name": "Mallory"})
            self.attacked("creating its table", str(answer.status_code))
            answer.raise_for_status()
            return dict(answer.json())

    async def bad_messages(self, address: str) -> None:
        table = await self._own_table(address)
        bad = [
            '{"type": "\\ud800"}',
            "{not json",
            '{"type": "options", "seq": 1, "rules": {"preset": []}}',
            '{"type": "ping", "seq": ' + "9" * 4400 + "}",
            json.dumps({"type": "play", "seq": 2**40, "cards": ["ZZ"]}),
            "[" * 5000,
        ]
        async with websockets.connect(
            f"{self.ws}/ws/{table['table_id']}", compression=None, local_addr=(address, 0)
        ) as ws:
            for i in range(400):
                await ws.send(bad[i % len(bad)])
                if i % 20 == 0:
                    await asyncio.sleep(1)
            with contextlib.suppress(TimeoutError):
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 1))
                    self.attacked("bad_messages", message.get("code", message["type"]))

    async def slow_reader(self, address: str) -> None:
        table = await self._own_table(address)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", self.port))
        head = (
            f"GET /ws/{table['table_id']} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        sock.sendall(head.encode())
        sock.recv(4096)
        setup = [
            {"type": "join", "token": table["token"]},
            {"type": "add_bot", "seq": 1, "level": "easy"},
            {"type": "start", "seq": 2},
        ]
        for message in setup:
            sock.sendall(_frame(json.dumps(message)))
        sock.setblocking(False)
        frame = _frame(json.dumps({"type": "sync"}))
        outcome = "still open"
        for _ in range(950):  # 19 syncs a second (under the rate limit) for 50 s, never reading
            try:
                sock.send(frame)
            except BlockingIOError:
                pass
            except OSError:
                outcome = "aborted by the server"
                break
            await asyncio.sleep(1 / 19)
        sock.close()
        self.attacked("slow_reader", outcome)

    async def creation_flood(self, address: str) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            for _ in range(100):
                answer = await client.post(f"{self.http}/api/tables", json={"name": "Flood"})
                self.attacked("creation_flood", str(answer.status_code))
                if answer.status_code >= 500:
                    self.error("HTTP 5xx")

    async def huge_bodies(self, address: str) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            for path in ("/api/tables", "/i18n/refusal"):

                async def endless() -> Any:
                    chunk = b" " * 65536
                    for _ in range(4096):  # up to 256 MiB, if the server kept reading
                        yield chunk

                with contextlib.suppress(httpx.HTTPError):
                    answer = await client.post(
                        self.http + path,
                        content=endless(),
                        headers={"Content-Type": "application/json"},
                    )
                    self.attacked("huge_bodies", str(answer.status_code))
                    if answer.status_code >= 500:
                        self.error("HTTP 5xx")

    async def hidden_hand_bomb(self, address: str) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        body = {
            "position": {
                "rules": {"preset": "standard", "players": 3},
                "hands": [["3C"], {"count": 2**33}, {"count": 5}],
                "turn": 0,
            },
            "action": {"action": "play", "cards": ["3C"]},
        }
        async with httpx.AsyncClient(transport=transport, timeout=30) as client:
            for _ in range(50):
                answer = await client.post(f"{self.http}/i18n/refusal", json=body)
                self.attacked("hidden_hand_bomb", str(answer.status_code))
                if answer.status_code >= 500:
                    self.error("HTTP 5xx")

    async def silent_connections(self, address: str) -> None:
        socks = []
        for i in range(100):
            sock = socket.create_connection(("127.0.0.1", self.port), source_address=(address, 0))
            if i % 2:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Half: ")
            socks.append(sock)
        await asyncio.sleep(15)  # the server's request time-out is 10 s
        closed = 0
        for sock in socks:
            sock.setblocking(False)
            try:
                closed += sock.recv(1) == b""
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
            sock.close()
        self.attacked("silent_connections", f"{closed} of 100 closed by the server")

    async def connection_flood(self, address: str) -> None:
        table = await self._own_table(address)
        open_ = []
        for _ in range(60):
            try:
                ws = await websockets.connect(
                    f"{self.ws}/ws/{table['table_id']}", compression=None, local_addr=(address, 0)
                )
            except (OSError, websockets.InvalidStatus):
                self.attacked("connection_flood", "refused at the handshake")
                continue
            open_.append(ws)
        await asyncio.sleep(1)
        for ws in open_:
            self.attacked(
                "connection_flood", "closed 4029" if ws.close_code == 4029 else "accepted"
            )
            await ws.close()

    # -- the run ----------------------------------------------------------------------------

    async def run(self, pid: int, log: Path) -> dict[str, Any]:
        args = self.args
        tasks: list[asyncio.Task[None]] = []
        for first in range(0, args.tables, 10):
            made = await asyncio.gather(
                *(self.table(i) for i in range(first, min(args.tables, first + 10)))
            )
            for pair in made:
                tasks.extend(pair)
        loop = asyncio.get_running_loop()
        tasks.append(loop.create_task(self.probe()))
        tasks.append(loop.create_task(self.attackers()))
        started = time.monotonic()
        cpu_start = _cpu_seconds(pid)
        load_start = os.getloadavg()[0]
        memory: list[tuple[float, float]] = []
        while time.monotonic() - started < args.duration:
            memory.append((round(time.monotonic() - started), round(_rss_mib(pid), 1)))
            await asyncio.sleep(10)
        server_cpu = _cpu_seconds(pid) - cpu_start
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.get(
                f"{self.http}/api/operator", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"}
            )
            operator = answer.json() if answer.status_code == 200 else {}
        elapsed = time.monotonic() - started
        load_end = os.getloadavg()[0]
        self.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        tracebacks = log.read_text(errors="replace").count("Traceback")
        if tracebacks:
            self.errors["tracebacks in the server log"] = tracebacks
        warm = [rss for at, rss in memory if at >= args.warmup]
        growth = round(100 * (max(warm) - min(warm)) / min(warm), 1) if warm else None
        probe_after_warmup = self.probe_rtts[int(args.warmup / 0.05) :] or self.probe_rtts
        return {
            "duration_s": args.duration,
            "tables": args.tables,
            "people": 2 * args.tables,
            "computer_players": 2 * args.tables,
            "server_nice": args.server_nice,
            "server_cpu_percent": round(100 * server_cpu / elapsed, 1),
            "server_says": {
                key: operator.get(key)
                for key in ("loop_lag_ms", "commit_ms", "commits", "aborted", "bots", "tables")
            },
            "machine_load_average": [round(load_start, 2), round(load_end, 2)],
            "hard_tables": sum(1 for i in range(args.tables) if self._hard(i)),
            "memory_mib": memory,
            "memory_growth_after_warmup_percent": growth,
            "errors": self.errors,
            "error_count": sum(self.errors.values()),
            "actions": self.actions,
            "games_finished": self.games,
            "reconnects": self.reconnects,
            "action_ms": {
                "p50": _pct(self.action_latencies, 0.5),
                "p99": _pct(self.action_latencies, 0.99),
            },
            "probe_ms": {
                "round_trips": len(self.probe_rtts),
                "p50": _pct(probe_after_warmup, 0.5),
                "p99": _pct(probe_after_warmup, 0.99),
                "max": _pct(probe_after_warmup, 1.0),
                "mean": round(1000 * statistics.fmean(probe_after_warmup), 2)
                if probe_after_warmup
                else None,
            },
            "attacks": self.attacks,
            "probe_over_50ms": [
                {"ms": ms, "at_s": round(at - started, 1), "during": attack or "no attack"}
                for ms, at, attack in sorted(self.slowest, reverse=True)[:20]
            ],
        }


async def _probe(url: str, token: str) -> None:
    """Ping a table every 50 ms; print each round trip (seconds) on a line of its own."""
    async with websockets.connect(url, compression=None, local_addr=("127.0.3.1", 0)) as ws:
        await ws.send(json.dumps({"type": "join", "token": token}))
        n = 0
        while True:
            n += 1
            began = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "seq": n}))
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "pong" and message.get("seq") == n:
                    break
            print(f"{time.perf_counter() - began:.6f}", flush=True)
            await asyncio.sleep(0.05)


def _frame(text: str) -> bytes:
    payload = text.encode()
    mask = b"\x11\x22\x33\x44"
    header = bytearray([0x81, 0x80 | len(payload)]) if len(payload) < 126 else None
    if header is None:
        header = bytearray([0x81, 0x80 | 126]) + len(payload).to_bytes(2, "big")
    return bytes(header) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds")
    parser.add_argument("--warmup", type=float, default=120.0, help="seconds before RSS counts")
    parser.add_argument(
        "--server-nice",
        type=int,
        default=0,
        help="run the server at this nice value (below 0 needs the right to; a shared "
        "machine's other jobs then wait for it, as on a machine of its own)",
    )
    parser.add_argument(
        "--hard-every", type=int, default=5, help="one table in N has a hard player (0: none)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--probe", nargs=2, metavar=("WS_URL", "TOKEN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        with contextlib.suppress(KeyboardInterrupt, websockets.ConnectionClosed):
            asyncio.run(_probe(*args.probe))
        return 0
    args.warmup = min(args.warmup, args.duration / 3)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    with tempfile.TemporaryDirectory() as data:
        log = Path(data) / "server.log"
        with log.open("w") as log_file:
            nice = args.server_nice
            server = subprocess.Popen(
                [
                    *(["nice", "-n", str(nice)] if nice else []),
                    sys.executable,
                    "-m",
                    "cardverse",
                    "serve",
                    "--port",
                    "0",
                    "--data-dir",
                    data,
                    "--hard-time-limit",
                    "0.3",
                    "--log-level",
                    "warning",
                ],
                stdout=subprocess.PIPE,
                stderr=log_file,
                text=True,
                env={**os.environ, "CARDVERSE_OPERATOR_TOKEN": OPERATOR_TOKEN},
            )
            try:
                assert server.stdout is not None
                line = server.stdout.readline()
                if "serving on" not in line:
                    raise RuntimeError(f"the server did not start: {line!r}")
                http = line.split()[3]
                result = asyncio.run(Soak(args, http).run(server.pid, log))
            finally:
                server.terminate()
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.kill()
    result["python"] = platform.python_version()
    result["cpus"] = os.cpu_count()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
