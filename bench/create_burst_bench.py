"""A burst of new tables against a live one (issue 28, item 9; not a test).

Starts ``cardverse serve`` as its own process (default settings: the SQLite file with
``synchronous=FULL`` and group commit, or ``--database`` PostgreSQL and ``--redis``; at most 10
new tables at once from one address), runs a canary table in a process of its own
(:mod:`bench.canary`: four people playing, each move timed from sending it to its
acknowledgement), and then creates ``--tables`` lobbies from
``--addresses`` loopback addresses (127.0.1.1, 127.0.1.2, ...; as many from each), at most
``--in-flight`` requests at once. It prints, and writes to ``bench/results/create_burst.json``:
the canary's moves before the burst and during it (count, median, p99, max), how long the
burst took, the answers it got, and the server's commits and slowest commit.

    .venv/bin/python -m bench.create_burst_bench --tables 1500 --addresses 150
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

RESULTS = Path(__file__).resolve().parent / "results" / "create_burst.json"
OPERATOR = "create-burst-bench"
CANARY_ADDRESS = "127.0.0.2"


def _stats(latencies: list[float]) -> dict[str, Any]:
    ordered = sorted(latencies)
    if not ordered:
        return {"moves": 0}

    def pct(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(len(ordered) * p))], 2)

    return {
        "moves": len(ordered),
        "median_ms": pct(0.5),
        "p99_ms": pct(0.99),
        "max_ms": round(1000 * ordered[-1], 2),
    }


async def _burst(base: str, tables: int, addresses: int, in_flight: int) -> Counter[int]:
    """``tables`` lobbies from ``addresses`` client addresses, ``in_flight`` at a time."""
    clients = [
        httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(local_address=f"127.0.1.{1 + index}"), timeout=60
        )
        for index in range(addresses)
    ]
    gate = asyncio.Semaphore(in_flight)
    answers: Counter[int] = Counter()

    async def one(number: int) -> None:
        async with gate:
            client = clients[number % addresses]
            reply = await client.post(f"{base}/api/tables", json={"name": f"Burst {number}"})
            answers[reply.status_code] += 1

    try:
        await asyncio.gather(*(one(number) for number in range(tables)))
    finally:
        for client in clients:
            await client.aclose()
    return answers


def _operator(base: str) -> dict[str, Any]:
    reply = httpx.get(
        f"{base}/api/operator", headers={"Authorization": f"Bearer {OPERATOR}"}, timeout=30
    )
    reply.raise_for_status()
    return dict(reply.json())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1500)
    parser.add_argument("--addresses", type=int, default=150, help="at most 254")
    parser.add_argument("--in-flight", type=int, default=64, help="requests at once (64)")
    parser.add_argument(
        "--database", default=None, help="postgresql://...: the server's event log (else SQLite)"
    )
    parser.add_argument("--redis", default=None, help="redis://...: with --database, a cluster")
    parser.add_argument("--label", default="", help="a name for this run in the results")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    data_dir = Path(tempfile.mkdtemp(prefix="cardverse-burst-"))
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "CARDVERSE_OPERATOR_TOKEN": OPERATOR}
    command = [sys.executable, "-m", "cardverse", "serve", "--port", "0"]
    command += ["--data-dir", str(data_dir), "--log-level", "warning", "--turn-timer", "off"]
    command += ["--round-pause", "0", "--bot-processes", "0", "--rate-limit", "1000"]
    command += ["--burst", "1000"]
    if args.database:
        command += ["--database", args.database]
    if args.redis:
        command += ["--redis", args.redis]
    server = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    canary: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer")
            time.sleep(0.05)
        canary = subprocess.Popen(
            [sys.executable, "-m", "bench.canary", base, CANARY_ADDRESS],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        assert canary.stdout is not None and canary.stdin is not None
        ready = canary.stdout.readline()
        if ready.strip() != "ready":
            raise RuntimeError(f"the canary did not start: {ready!r}")
        before = _operator(base)
        time.sleep(2.0)  # the canary's moves without the burst (the baseline)
        began = time.monotonic()
        answers = asyncio.run(_burst(base, args.tables, args.addresses, args.in_flight))
        ended = time.monotonic()
        after = _operator(base)
        canary.stdin.write("stop\n")
        canary.stdin.flush()
        moves: list[list[float]] = json.loads(canary.stdout.readline())
    finally:
        if canary is not None and canary.poll() is None:
            canary.kill()
        server.terminate()
        server.wait(30)
        shutil.rmtree(data_dir, ignore_errors=True)
    quiet = [took for sent, took in moves if sent < began - 0.1]
    during = [took for sent, took in moves if began <= sent <= ended]
    result = {
        "label": args.label,
        "store": "postgresql" if args.database else "sqlite",
        "cluster": bool(args.redis),
        "tables": args.tables,
        "addresses": args.addresses,
        "in_flight": args.in_flight,
        "burst_seconds": round(ended - began, 2),
        "answers": {str(code): count for code, count in sorted(answers.items())},
        "canary_before": _stats(quiet),
        "canary_during": _stats(during),
        "commits_during": after["commits"] - before["commits"],
        "slowest_commit_ms": after["commit_ms"]["max"],
        "loop_lag_max_ms": after["loop_lag_ms"]["max"],
        "load": os.getloadavg()[0],
    }
    print(json.dumps(result, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    runs = json.loads(args.out.read_text()) if args.out.exists() else []
    runs.append(result)
    args.out.write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
