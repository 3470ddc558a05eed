"""The cost of durability (``make bench``; not a test): the server benchmark run back to back,
in one invocation, with the same tables and duration, under three settings:

- ``FULL`` with group commit (the default: one transaction per event-loop turn for all tables);
- ``FULL`` with a commit per move (what durability would cost without group commit);
- ``NORMAL`` with a commit per move (the old default, which can lose acknowledged actions on a
  power cut).

It prints and writes to ``bench/results/durability.json`` each run's actions per second and
latency (``bench.server_bench`` figures), and the ratio of each to the default.

    .venv/bin/python -m bench.durability_bench --tables 100 --duration 20
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench import server_bench

RESULTS = Path(__file__).resolve().parent / "results" / "durability.json"
RUNS = [("FULL", "group"), ("FULL", "per-move"), ("NORMAL", "per-move")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for synchronous, commit in RUNS:
            out = Path(scratch) / f"{synchronous}-{commit}.json"
            server_bench.main(
                [
                    "--tables",
                    str(args.tables),
                    "--duration",
                    str(args.duration),
                    "--think",
                    str(args.think),
                    "--synchronous",
                    synchronous,
                    "--commit",
                    commit,
                    "--out",
                    str(out),
                ]
            )
            runs.append(json.loads(out.read_text()))
    base = runs[0]["actions_per_s"] or 1.0
    summary = {
        "tables": args.tables,
        "duration_s": args.duration,
        "runs": [
            {
                "synchronous": run["synchronous"],
                "commit": run["commit"],
                "actions_per_s": run["actions_per_s"],
                "relative_to_default": round(run["actions_per_s"] / base, 3),
                "latency_ms": run["latency_ms"],
                "server_cpu_ms_per_action": run["server_cpu_ms_per_action"],
                "errors": run["errors"],
            }
            for run in runs
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
