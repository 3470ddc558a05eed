"""Scale-out benchmark (``make bench``; not a test): the server on PostgreSQL and Redis with 1
and with 2 processes (``cardverse serve --workers N``), and failover when an owner is killed.

Starts its own PostgreSQL and redis-server (as the tests do, tests/server/services.py), then:

1. throughput: :mod:`bench.server_bench` (simulated people in this process, the server in its
   own) for each of 1 and 2 worker processes, 250 and 1,000 tables, with no think time and
   with 1 s: actions/s, p50/p99 latency; the ratio of 2 processes to 1;
2. open loop, the target as stated ("at the same p99"): ``server_bench --open-loop`` with 1 and
   2 processes (``--open-tables`` tables, 500 by default): actions fall due at stepped offered
   rates, and each step's p99 counts from when an action fell due; the highest rate carried
   with its p99 within ``--p99-bound`` (100 ms), the ratio of 2 processes to 1, and the CPU
   per action of the server, PostgreSQL and Redis at that rate;
3. the same offered load with 1 and 2 processes (``--load``, ``--repeat`` times alternately):
   the server's CPU per action, medians, and their ratio (the issue's target: at most 1.15);
4. failover: three server processes, one table of four people spread over them, the owner
   SIGKILLed at ``--kills`` random moments (20 by default): acknowledged actions lost (must be
   0) and the time from each kill to the next accepted action.

Results go to ``bench/results/cluster.json``.

    .venv/bin/python -m bench.cluster_bench --duration 15 --kills 20
    .venv/bin/python -m bench.cluster_bench --skip-throughput --kills 0   # the open loop only
    .venv/bin/python -m bench.cluster_bench --skip-throughput --skip-open-loop --kills 0  # ratio
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "cluster.json"
sys.path.insert(0, str(ROOT / "tests" / "server"))  # the services and the cluster support


def throughput(args: argparse.Namespace, pg: Any, redis_url: str) -> list[dict[str, Any]]:
    from bench import server_bench

    runs: list[dict[str, Any]] = []
    for tables in args.tables:
        for think in (0, 1000):
            for workers in (1, 2):
                dsn = pg.new_database(f"bench_{workers}_{tables}_{think}")
                out = Path(tempfile.mkstemp(suffix=".json")[1])
                failed = _run_one(
                    server_bench,
                    [
                        "--tables",
                        str(tables),
                        "--duration",
                        str(args.duration),
                        "--warmup",
                        "5",
                        "--think",
                        str(think),
                        "--workers",
                        str(workers),
                        "--database",
                        dsn,
                        "--redis",
                        redis_url,
                        "--out",
                        str(out),
                    ],
                )
                if failed:  # recorded, and the other runs go on
                    result = {"workers": workers, "tables": tables, "think_ms": think}
                    result["failed"] = failed
                else:
                    result = json.loads(out.read_text())
                out.unlink()
                runs.append(result)
                flush_redis(redis_url)
    return runs


def open_loop(args: argparse.Namespace, pg: Any, redis_server: Any) -> dict[str, Any]:
    """The target as stated: the highest rate each of 1 and 2 processes carries with its p99
    within ``--p99-bound`` (open loop: actions fall due at stepped offered rates, and their
    latency counts from when they fell due), and the ratio of the two."""
    from bench import server_bench

    infra = [
        "--infra-pid",
        f"postgresql={(pg.data / 'postmaster.pid').read_text().split()[0]}",
        "--infra-pid",
        f"redis={redis_server.proc.pid}",
    ]
    runs: list[dict[str, Any]] = []
    for workers in (1, 2):
        dsn = pg.new_database(f"bench_open_{workers}")
        out = Path(tempfile.mkstemp(suffix=".json")[1])
        failed = _run_one(
            server_bench,
            [
                "--open-loop",
                "--tables",
                str(args.open_tables),
                "--p99-bound",
                str(args.p99_bound),
                "--step",
                str(args.step),
                "--workers",
                str(workers),
                "--database",
                dsn,
                "--redis",
                redis_server.url,
                "--out",
                str(out),
                *infra,
            ],
        )
        result = {"workers": workers, "failed": failed} if failed else json.loads(out.read_text())
        out.unlink()
        runs.append(result)
        flush_redis(redis_server.url)
    summary: dict[str, Any] = {"p99_bound_ms": args.p99_bound, "tables": args.open_tables}
    if not any("failed" in run for run in runs):
        one, two = runs
        summary["sustained_actions_per_s"] = [
            one["sustained_actions_per_s"],
            two["sustained_actions_per_s"],
        ]
        summary["ratio"] = round(
            two["sustained_actions_per_s"] / max(1.0, one["sustained_actions_per_s"]), 2
        )
        summary["ratio_by_p99_bound"] = {
            bound: round(rate / max(1.0, one["sustained_by_p99_bound"][bound]), 2)
            for bound, rate in two["sustained_by_p99_bound"].items()
        }
        summary["cpu_ms_per_action_at_sustained"] = [
            {
                key: run["at_the_sustained_rate"][key]
                for key in run["at_the_sustained_rate"]
                if key.endswith("_cpu_ms_per_action")
            }
            if run["at_the_sustained_rate"]
            else None
            for run in runs
        ]
    summary["runs"] = runs
    return summary


def same_load(args: argparse.Namespace, pg: Any, redis_server: Any) -> dict[str, Any]:
    """The target as the scale-out issue states it on a 2-core machine: the server's CPU per
    action with 2 processes against 1, at the same offered load (``--load`` actions/s, open
    loop, one step of ``--duration`` seconds), ``--repeat`` times alternately; the medians and
    their ratio. (Throughput cannot show scaling here: the clients, PostgreSQL and Redis share
    the two cores.)"""
    from bench import server_bench

    infra = [
        "--infra-pid",
        f"postgresql={(pg.data / 'postmaster.pid').read_text().split()[0]}",
        "--infra-pid",
        f"redis={redis_server.proc.pid}",
    ]
    by_workers: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    failures: list[str] = []
    for run in range(args.repeat):
        for workers in (1, 2):
            dsn = pg.new_database(f"bench_load_{workers}_{run}")
            out = Path(tempfile.mkstemp(suffix=".json")[1])
            failed = _run_one(
                server_bench,
                [
                    "--open-loop",
                    "--tables",
                    str(args.load_tables),
                    "--start-rate",
                    str(args.load),
                    "--max-rate",
                    str(args.load),
                    "--refine",
                    "0",
                    "--step",
                    str(args.duration),
                    "--workers",
                    str(workers),
                    "--database",
                    dsn,
                    "--redis",
                    redis_server.url,
                    "--out",
                    str(out),
                    *infra,
                ],
            )
            if failed:
                failures.append(f"{workers} processes: {failed}")
            else:
                by_workers[workers].append(json.loads(out.read_text())["steps"][0])
            out.unlink()
            flush_redis(redis_server.url)
    summary: dict[str, Any] = {
        "offered_per_s": args.load,
        "tables": args.load_tables,
        "repeat": args.repeat,
        "failures": failures,
    }
    keys = ("server_cpu_ms_per_action", "postgresql_cpu_ms_per_action", "redis_cpu_ms_per_action")
    for workers, steps in by_workers.items():
        if steps:
            summary[f"processes_{workers}"] = {
                key: statistics.median(step[key] for step in steps) for key in (*keys, "p99_ms")
            }
            summary[f"processes_{workers}"]["server_cpu_ms_per_action_runs"] = [
                step["server_cpu_ms_per_action"] for step in steps
            ]
    if by_workers[1] and by_workers[2]:
        one = summary["processes_1"]["server_cpu_ms_per_action"]
        two = summary["processes_2"]["server_cpu_ms_per_action"]
        summary["server_cpu_per_action_2_vs_1"] = round(two / max(one, 1e-9), 2)
    return summary


def _run_one(server_bench: Any, argv: list[str]) -> str | None:
    try:
        server_bench.main(argv)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    client.flushall()
    client.close()


def failover(args: argparse.Namespace, pg: Any, redis_url: str) -> dict[str, Any]:
    from cluster_support import Cluster, over
    from server_support import create_table
    from test_cluster import _acked_are_in_the_record, _play, _record, _seat_players

    dsn = pg.new_database("bench_failover")
    root = Path(tempfile.mkdtemp(prefix="cardverse-failover-"))
    cluster = Cluster(root, dsn, redis_url).start(3)
    recoveries: list[float] = []
    acked = lost_checked = 0

    async def body() -> None:
        nonlocal acked
        rng = random.Random(args.seed)
        kills_left = args.kills
        while kills_left:
            table = create_table(cluster.procs[-1].http, rules={"preset": "standard", "rounds": 8})
            table_id = table["table_id"]
            players = await _seat_players(cluster, table, [0, 1, 2, 0])
            while kills_left and not over(players):
                await _play(players, rng, acks=rng.randint(3, 25), timeout=120)
                if over(players):
                    break
                victim = cluster.owner_proc(table_id)
                killed = time.monotonic()
                victim.kill()
                times = await _play(players, rng, acks=1, timeout=60)
                recoveries.append(times[0] - killed)
                kills_left -= 1
                cluster.add()
                cluster.procs = cluster.alive()
            await _play(players, rng, timeout=180)
            record = _record(cluster.alive()[0], table_id)
            acked += _acked_are_in_the_record(players, record)  # raises if one was lost
            for player in players:
                if player.client is not None:
                    await player.client.close()

    try:
        asyncio.run(body())
        lost_checked = 1
    finally:
        cluster.close()
    return {
        "kills": len(recoveries),
        "acknowledged_actions": acked,
        "acknowledged_actions_lost": 0 if lost_checked else None,
        "time_to_next_action_s": {
            "median": round(statistics.median(recoveries), 3),
            "p90": round(sorted(recoveries)[int(0.9 * (len(recoveries) - 1))], 3),
            "max": round(max(recoveries), 3),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[250, 1000])
    parser.add_argument("--duration", type=float, default=15.0, help="seconds measured a run")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--skip-throughput", action="store_true", help="no closed-loop runs")
    parser.add_argument("--skip-open-loop", action="store_true")
    parser.add_argument("--open-tables", type=int, default=500, help="open loop: tables")
    parser.add_argument("--p99-bound", type=float, default=100.0, help="open loop: p99, ms")
    parser.add_argument("--step", type=float, default=5.0, help="open loop: seconds a step")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--skip-same-load", action="store_true", help="no CPU ratio at one load")
    parser.add_argument("--load", type=float, default=800.0, help="same load: actions/s offered")
    parser.add_argument("--load-tables", type=int, default=250, help="same load: tables")
    parser.add_argument("--repeat", type=int, default=3, help="same load: runs (medians)")
    args = parser.parse_args(argv)
    from services import Postgres, Redis

    pg = Postgres().start()
    redis_server = Redis().start()
    result: dict[str, Any] = {"cpus": os.cpu_count()}
    try:
        if not args.skip_throughput:
            runs = throughput(args, pg, redis_server.url)
            result["runs"] = runs
            ratios = []
            for one, two in zip(runs[0::2], runs[1::2], strict=True):
                if "failed" in one or "failed" in two:
                    continue
                ratios.append(
                    {
                        "tables": one["tables"],
                        "think_ms": one["think_ms"],
                        "actions_per_s": [one["actions_per_s"], two["actions_per_s"]],
                        "p99_ms": [one["latency_ms"]["p99"], two["latency_ms"]["p99"]],
                        "ratio": round(two["actions_per_s"] / max(1.0, one["actions_per_s"]), 2),
                    }
                )
            result["two_processes_vs_one"] = ratios
        if not args.skip_same_load:
            result["same_load"] = same_load(args, pg, redis_server)
        if not args.skip_open_loop:
            result["open_loop"] = open_loop(args, pg, redis_server)
        if args.kills:
            result["failover"] = failover(args, pg, redis_server.url)
    finally:
        redis_server.close()
        pg.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    shown = {k: v for k, v in result.items() if k != "runs"}
    if "open_loop" in shown:
        shown["open_loop"] = {k: v for k, v in shown["open_loop"].items() if k != "runs"}
    print(json.dumps(shown, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
