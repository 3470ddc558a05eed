"""The table's own CPU per action, without sockets (``make bench``; not a test).

:mod:`bench.server_bench` measures the whole server, whose CPU on a shared machine also moves
with the load of everything else. This one runs tables in this process with connections that
only keep the frames they are sent (four seats and a spectator a table), plays random legal
moves through ``Table.handle`` (the client message parsed as the server parses it), and counts
this process's CPU time per action: the decision, the store's write, the view's encoding, the
hidden-card filter and the frames. ``--profile`` adds where that time goes (cProfile, the
functions with the most time of their own and in all).

    .venv/bin/python -m bench.wire_bench --actions 20000
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from cardverse.engine import from_move
from cardverse.server.protocol import parse_client_message
from cardverse.server.tables import Settings, Table, TableService

RESULTS = Path(__file__).resolve().parent / "results" / "wire.json"


class FrameSink:
    """A connection that keeps only how many frames and characters it was sent."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.watch_only = False
        self.synced: Any = None
        self.frames = 0
        self.chars = 0
        self.token: str | None = None

    def send(self, text: str) -> None:
        self.frames += 1
        self.chars += len(text)
        if self.token is None and '"token":"' in text:
            self.token = json.loads(text).get("token")

    def close(self, code: int, reason: str) -> None:
        pass


def _send(table: Table, conn: FrameSink, message: dict[str, Any]) -> None:
    table.handle(conn, parse_client_message(json.dumps(message)))


class Run:
    def __init__(self, service: TableService, tables: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tables: list[tuple[Table, list[FrameSink], list[int]]] = []
        for _ in range(tables):
            table, token = service.create("P0", {"preset": "standard", "players": 4})
            conns = [FrameSink() for _ in range(5)]  # four seats and a spectator
            for conn in conns:
                table.attach(conn)
            _send(table, conns[0], {"type": "join", "token": token})
            for index in range(1, 4):
                _send(table, conns[index], {"type": "join", "name": f"P{index}"})
            self.tables.append((table, conns, [10] * 4))
        self.actions = 0

    def step(self) -> None:
        """One action at each table (a new game where one ended)."""
        for table, conns, seq in self.tables:
            game = table.game
            if table.phase != "playing" or game is None:
                seq[0] += 1
                kind = "start" if table.phase == "lobby" else "rematch"
                _send(table, conns[0], {"type": kind, "seq": seq[0]})
                continue
            if game.phase.value == "round_over":
                table._next_round(table.v)
                continue
            turn = game.turn
            if turn is None:
                continue
            move = from_move(self.rng.choice(game.legal_moves())).to_json(with_seat=False)
            kind = move.pop("action")
            seq[turn] += 1
            _send(table, conns[turn], {"type": kind, "seq": seq[turn], **move})
            self.actions += 1

    def frames(self) -> tuple[int, int]:
        conns = [conn for _, conns, _ in self.tables for conn in conns]
        return sum(c.frames for c in conns), sum(c.chars for c in conns)


def measure(args: argparse.Namespace, profile: cProfile.Profile | None) -> dict[str, Any]:
    async def body() -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as data:
            settings = Settings(
                data_dir=Path(data), turn_timer=None, grace=None, bot_delay=0, round_pause=0
            )
            settings.bot_processes = 0
            service = TableService(settings)
            run = Run(service, args.tables, args.seed)
            while run.actions < args.warmup:
                run.step()
                await asyncio.sleep(0)
            run.actions = 0
            frames0, chars0 = run.frames()
            cpu = 0.0
            while run.actions < args.actions:
                started = time.process_time()
                if profile is not None:
                    profile.enable()
                run.step()
                if profile is not None:
                    profile.disable()
                cpu += time.process_time() - started
                await asyncio.sleep(0)  # the store's group commit runs between the steps
            frames, chars = run.frames()
            service.close()
            return {
                "actions": run.actions,
                "cpu_ms_per_action": round(1000 * cpu / run.actions, 4),
                "frames_per_action": round((frames - frames0) / run.actions, 2),
                "chars_per_action": round((chars - chars0) / run.actions),
            }

    return asyncio.run(body())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20_000, help="actions measured a run")
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs (the median is reported)")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--profile", action="store_true", help="cProfile one more run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    runs = [measure(args, None) for _ in range(args.repeat)]
    result: dict[str, Any] = {
        "tables": args.tables,
        "cpu_ms_per_action": statistics.median(r["cpu_ms_per_action"] for r in runs),
        "frames_per_action": statistics.median(r["frames_per_action"] for r in runs),
        "chars_per_action": statistics.median(r["chars_per_action"] for r in runs),
        "runs": runs,
    }
    if args.profile:
        profile = cProfile.Profile()
        measure(args, profile)
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumtime").print_stats(40)
        print(text.getvalue())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
