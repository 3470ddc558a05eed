"""The cluster bus's own CPU per message (not a test): two buses in this process, one Redis.

Node ``a`` sends node ``b`` a turn of three records (two frames of a change, one client
message) and waits until ``b`` has them, ``--turns`` times: one Redis message a turn, as at a
light load. The figure is this process's CPU time per turn (both ends of the bus: making,
writing, reading and dispatching the message); Redis's own CPU is not in it. Starts its own
redis-server (tests/server/services.py) unless given ``--redis``.

    .venv/bin/python -m bench.bus_bench --turns 3000 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "server"))  # the services

FRAME = json.dumps(
    {
        "type": "change",
        "seq": 12,
        "events": [{"type": "played", "seat": 2, "cards": ["3S", "3H"]}],
        "view": {"turn": 3, "hand_sizes": [5, 6, 7, 8]},
    }
)
CLIENT = '{"type":"play","cards":["3S"],"seq":4}'


class Counter:
    """A receiver that counts what reaches it and wakes the sender at a target."""

    def __init__(self) -> None:
        self.count = 0
        self.target = 0
        self.waiter: asyncio.Future[None] | None = None

    def _got(self) -> None:
        self.count += 1
        if self.waiter is not None and self.count >= self.target and not self.waiter.done():
            self.waiter.set_result(None)

    def envelope(self, envelope: dict[str, Any]) -> None:
        self._got()

    def frame(self, link: str, text: str) -> None:
        self._got()

    def message(self, node: str, link: str, text: str) -> None:
        self._got()

    def closed(self, link: str, code: int, reason: str) -> None:
        self._got()

    def unheard(self, node: str) -> None:
        raise AssertionError(f"a message to {node} reached nobody")


async def measure(url: str, turns: int) -> dict[str, float]:
    from cardverse.server.bus import Bus

    got = Counter()
    a, b = Bus(url, "a", Counter()), Bus(url, "b", got)
    a.start()
    b.start()
    try:
        await asyncio.wait_for(b.connected.wait(), 10)
        loop = asyncio.get_running_loop()

        async def run(count: int) -> None:
            for _ in range(count):
                got.target = got.count + 3
                got.waiter = loop.create_future()
                a.frame("b", "l1", FRAME)
                a.frame("b", "l2", FRAME)
                a.message("b", "l3", CLIENT)
                await asyncio.wait_for(got.waiter, 10)

        await run(300)  # warm up
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await run(turns)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        await a.close()
        await b.close()
    return {"cpu_us_per_turn": 1e6 * cpu / turns, "wall_us_per_turn": 1e6 * wall / turns}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--redis", help="a Redis to use (default: one of its own)")
    args = parser.parse_args(argv)
    server = None
    url = args.redis
    if url is None:
        from services import Redis

        server = Redis().start()
        url = server.url
    try:
        import uvloop

        runs = [uvloop.run(measure(url, args.turns)) for _ in range(args.repeat)]
    finally:
        if server is not None:
            server.close()
    result = {
        "turns": args.turns,
        "cpu_us_per_turn_median": round(statistics.median(r["cpu_us_per_turn"] for r in runs), 1),
        "runs": [{k: round(v, 1) for k, v in r.items()} for r in runs],
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
