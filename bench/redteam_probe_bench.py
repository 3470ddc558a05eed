"""How fast the red-team probe is answered during each attack (not a test): the figure the
red-team tests used to assert, moved here because a time measured on a shared machine is not a
property of the code.

Runs the red-team cases that attack under a probe (tests/server/test_redteam_*.py, through
``redteam_support.under_probe``) with ``CARDVERSE_PROBE_FIGURES`` set, so each case records its
probe's round trips: their p99 during and after the attack, and the p99 of the 50 round trips
before it (how responsive the machine was). Reports each case against the issue's 50 ms, and the
load average, to ``bench/results/redteam_probe.json``.

    .venv/bin/python -m bench.redteam_probe_bench
    .venv/bin/python -m bench.redteam_probe_bench -k floods
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "redteam_probe.json"
TARGET_MS = 50.0  # the probe's p99 during an attack (the red-team issue's figure)


def probed_files() -> list[str]:
    """The red-team test files whose cases attack under a probe."""
    folder = ROOT / "tests" / "server"
    return sorted(
        str(path.relative_to(ROOT))
        for path in folder.glob("test_redteam_*.py")
        if "under_probe" in path.read_text(encoding="utf-8")
    )


def run_cases(select: str | None) -> tuple[list[dict[str, Any]], int]:
    with tempfile.TemporaryDirectory() as folder:
        figures = Path(folder) / "figures.jsonl"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *probed_files()]
        if select:
            command += ["-k", select]
        env = {**os.environ, "CARDVERSE_PROBE_FIGURES": str(figures)}
        code = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        lines = figures.read_text(encoding="utf-8").splitlines() if figures.exists() else []
    return [json.loads(line) for line in lines], code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="select", help="only the cases pytest's -k selects")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    cases, code = run_cases(args.select)
    if not cases:
        print("no probe figures were recorded", file=sys.stderr)
        return 1
    over = [case for case in cases if case["p99_ms"] >= TARGET_MS]
    result = {
        "target_p99_ms": TARGET_MS,
        "cases": len(cases),
        "over_target": len(over),
        "p99_ms_median": round(statistics.median(c["p99_ms"] for c in cases), 2),
        "p99_ms_max": max(c["p99_ms"] for c in cases),
        "baseline_p99_ms_median": round(statistics.median(c["baseline_p99_ms"] for c in cases), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "tests_exit_code": code,
        "by_case": sorted(cases, key=lambda c: -c["p99_ms"]),
        "cpus": os.cpu_count(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    shown = {k: v for k, v in result.items() if k != "by_case"}
    shown["slowest"] = result["by_case"][:5]
    print(json.dumps(shown, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
