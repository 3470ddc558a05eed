"""Command-line start-up benchmark (``make bench``): ``cardverse --help`` and friends.

Each command runs as a fresh process many times; the median wall time is reported (issue 13's
target: ``cardverse --help`` within 80 ms). ``hyperfine`` gives the same figure when it is
installed: ``hyperfine --warmup 3 '.venv/bin/cardverse --help'``. The JSON goes to
``bench/results/cli.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 80.0


def commands() -> dict[str, list[str]]:
    script = shutil.which("cardverse", path=str(Path(sys.executable).parent))
    entry = [script] if script else [sys.executable, "-m", "cardverse"]
    return {
        "cardverse --help": [*entry, "--help"],
        "cardverse --version": [*entry, "--version"],
        "cardverse arena --help": [*entry, "arena", "--help"],
        "cardverse serve --help": [*entry, "serve", "--help"],
        "python -c pass (the floor)": [sys.executable, "-c", "pass"],
    }


def median_ms(command: list[str], runs: int) -> tuple[float, float, list[float]]:
    """Median wall time and median CPU time (user + system, the child's own) in ms; the CPU
    time is what the command costs whatever else the machine runs."""
    times, cpu_times = [], []
    for run in range(runs + 2):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
        if run >= 2:  # two warm-up runs (file cache)
            times.append(wall)
            cpu_times.append(cpu)
    return statistics.median(times), statistics.median(cpu_times), times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="runs per command (median)")
    parser.add_argument("--out", default="bench/results/cli.json")
    args = parser.parse_args(argv)
    results = {}
    for name, command in commands().items():
        median, cpu, times = median_ms(command, args.runs)
        results[name] = {
            "median_ms": round(median, 1),
            "cpu_median_ms": round(cpu, 1),
            "runs_ms": [round(t, 1) for t in times],
        }
        target = f"(target {TARGET_MS:.0f} ms)" if name == "cardverse --help" else ""
        print(f"{name:<30}{median:8.1f} ms wall {cpu:8.1f} ms CPU  {target}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
