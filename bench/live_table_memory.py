"""What a live table's memory consists of (``make bench``; not a test).

Starts ``cardverse serve`` under :mod:`tracemalloc` (one frame per allocation), opens the
tables of :mod:`bench.server_bench` and lets them play, and compares a snapshot taken while
they play with one taken before the first table: the difference, per table, grouped by the
source file (and the lines) that allocated it. The resident memory per table
(``server_bench``'s figure) also holds what tracemalloc cannot see (the C allocations of the
event loop and its sockets, allocator slack); both are printed.

    .venv/bin/python -m bench.live_table_memory --tables 250 --duration 6
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bench.server_bench import Bench, _rss_kib, build_parser, server_command

RESULTS = Path(__file__).resolve().parent / "results" / "live-table-memory.json"


def _traced_server(snapshots: str, frames: int, argv: list[str]) -> int:
    """Run the server, writing a tracemalloc snapshot at each SIGUSR1."""
    tracemalloc.start(frames)
    taken = [0]

    def snap(signum: int, frame: object) -> None:
        taken[0] += 1
        path = Path(snapshots) / f"snap-{taken[0]}.pickle"
        snapshot = tracemalloc.take_snapshot()
        partial = path.with_suffix(".part")
        partial.write_bytes(pickle.dumps(snapshot))
        partial.rename(path)

    signal.signal(signal.SIGUSR1, snap)
    from cardverse.cli import main

    return main(argv)


def _snapshot(directory: Path, number: int, pid: int) -> tracemalloc.Snapshot:
    os.kill(pid, signal.SIGUSR1)
    path = directory / f"snap-{number}.pickle"
    deadline = time.monotonic() + 120
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the server wrote no snapshot")
        time.sleep(0.05)
    return pickle.loads(path.read_bytes())  # type: ignore[no-any-return]


def _where(filename: str) -> str:
    """A file's name from the package on (cardverse/..., uvicorn/..., asyncio/...)."""
    parts = Path(filename).parts
    for anchor in ("cardverse", "site-packages", "python3.11", "python3.12", "python3.13"):
        if anchor in parts:
            index = parts.index(anchor)
            rest = parts[index + 1 :] if anchor != "cardverse" else parts[index:]
            return "/".join(rest)
    return filename


async def _measure(args: Any, http: str, pid: int, snapshots: Path) -> dict[str, Any]:
    bench = Bench(args, http, http.replace("http://", "ws://"))
    await bench.started()  # the application loaded: its imports are not a table's
    rss_before = _rss_kib(pid)
    before = await asyncio.to_thread(_snapshot, snapshots, 1, pid)
    run = asyncio.get_running_loop().create_task(bench.run(pid))
    while not bench.measuring and not run.done():
        await asyncio.sleep(0.1)
    await asyncio.sleep(min(3.0, args.duration / 2))
    rss_playing = _rss_kib(pid)
    playing = await asyncio.to_thread(_snapshot, snapshots, 2, pid)
    await run
    tables = args.tables
    by_file = playing.compare_to(before, "filename")
    by_line = playing.compare_to(before, "lineno")
    traced = sum(stat.size_diff for stat in by_file)
    return {
        "tables": tables,
        "rss_kib_per_table": round((rss_playing - rss_before) / tables, 1),
        "traced_kib_per_table": round(traced / 1024 / tables, 1),
        "by_file_kib_per_table": {
            _where(stat.traceback[0].filename): round(stat.size_diff / 1024 / tables, 2)
            for stat in by_file[: args.top]
            if stat.size_diff > 0
        },
        "by_line_kib_per_table": {
            f"{_where(stat.traceback[0].filename)}:{stat.traceback[0].lineno}": round(
                stat.size_diff / 1024 / tables, 2
            )
            for stat in by_line[: args.top]
            if stat.size_diff > 0
        },
        **(
            {"by_traceback_kib_per_table": _tracebacks(playing, before, args)}
            if args.frames > 1
            else {}
        ),
    }


def _tracebacks(
    playing: tracemalloc.Snapshot, before: tracemalloc.Snapshot, args: Any
) -> dict[str, float]:
    """The largest growths by whole traceback (``--frames`` deep), innermost frame first."""
    found = {}
    for stat in playing.compare_to(before, "traceback")[: args.top]:
        if stat.size_diff <= 0:
            continue
        where = " < ".join(
            f"{_where(frame.filename)}:{frame.lineno}" for frame in reversed(stat.traceback)
        )
        found[where] = round(stat.size_diff / 1024 / args.tables, 2)
    return found


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--traced-server"]:
        return _traced_server(argv[1], int(argv[2]), argv[3:])
    parser = build_parser()
    parser.add_argument("--top", type=int, default=25, help="files and lines listed")
    parser.add_argument(
        "--frames",
        type=int,
        default=1,
        help="frames kept per allocation (over 1: the largest tracebacks are listed too)",
    )
    parser.set_defaults(duration=6.0, out=RESULTS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as snaps:
        command = server_command(args, data)
        serve = command.index("serve")
        command = [
            sys.executable,
            "-m",
            "bench.live_table_memory",
            "--traced-server",
            snaps,
            str(args.frames),
            *command[serve:],
        ]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            if "serving on" not in line:
                raise RuntimeError(f"the server did not start: {line!r}")
            http = line.split()[3]
            result = asyncio.run(_measure(args, http, server.pid, Path(snaps)))
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
