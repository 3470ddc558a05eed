"""A canary table for the benchmarks: how long a live table's moves take while something else
loads the server. A process of its own, so that its timings measure the server and not the
load generator's own work.

Run as ``python -m bench.canary HTTP_BASE ADDRESS``: from client address ``ADDRESS`` (a loopback
address of its own, outside the load's per-address limits) it creates a table, seats four
people on it, starts a game and has whoever is on turn play a random legal move, one move at a
time with a short pause between them. It prints ``ready`` once moves flow, plays until a line
arrives on stdin, and prints every move as ``[sent_at, seconds]`` (``sent_at`` on the
system-wide monotonic clock, which the load generator shares) in one JSON list: the time from
sending the move to its acknowledgement, which the server sends after the commit that holds
the move.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from typing import Any

import httpx
import websockets

PAUSE = 0.005  # seconds between one move's acknowledgement and the next move
READY_AFTER = 50  # moves before "ready"


class Seat:
    """One person's socket and what it knows of the game (its view, kept up from changes)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seat = -1
        self.view: dict[str, Any] = {}
        self.v = -1
        self.acks: dict[int, asyncio.Future[None]] = {}
        self.updated = asyncio.Event()

    async def read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "welcome":
                self.seat = message["seat"]
            if kind == "state":
                self.view = message["view"]
                self.v = message["v"]
            elif kind == "change":
                delta = {k: v for k, v in message["view"].items() if k not in ("history", "at")}
                delta.pop("history_at", None)
                self.view.update(delta)
                self.v = message["v"]
            seq = message.get("ack") if kind in ("state", "change") else None
            if kind in ("ack", "error"):
                seq = message.get("seq")
            if seq is not None and seq in self.acks and not self.acks[seq].done():
                if kind == "error":
                    self.acks[seq].set_exception(RuntimeError(json.dumps(message)))
                else:
                    self.acks[seq].set_result(None)
            self.updated.set()


async def main(base: str, address: str) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(transport=transport, timeout=30) as client:
        answer = await client.post(
            f"{base}/api/tables",
            json={"name": "Canary", "rules": {"preset": "standard", "players": 4, "rounds": 20}},
        )
    answer.raise_for_status()
    table = answer.json()
    ws_url = base.replace("http://", "ws://") + table["ws"]
    seats: list[Seat] = []
    readers = []
    for index in range(4):
        ws = await websockets.connect(
            ws_url, compression=None, open_timeout=30, local_addr=(address, 0)
        )
        seat = Seat(ws)
        readers.append(asyncio.ensure_future(seat.read()))
        join: dict[str, Any] = {"type": "join"}
        join.update({"token": table["token"]} if index == 0 else {"name": f"C{index}"})
        await ws.send(json.dumps(join))
        seats.append(seat)
    seq = 0

    async def request(seat: Seat, message: dict[str, Any]) -> float:
        nonlocal seq
        seq += 1
        done = asyncio.get_running_loop().create_future()
        seat.acks[seq] = done
        began = time.monotonic()
        await seat.ws.send(json.dumps({**message, "seq": seq}))
        await asyncio.wait_for(done, 60)
        return began

    while any(seat.seat < 0 for seat in seats):
        await asyncio.sleep(0.01)
    await request(seats[0], {"type": "start"})
    rng = random.Random(1)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: stop.done() or stop.set_result(None))
    moves: list[list[float]] = []
    acted: dict[int, int] = {}
    while not stop.done():
        host = seats[0]
        if host.view.get("phase") == "game_over":
            await request(host, {"type": "rematch"})
            continue
        on_turn = [
            s
            for s in seats
            if s.view.get("turn") == s.seat
            and s.view.get("legal_moves")
            and acted.get(s.seat, -1) < s.v
        ]
        if not on_turn:
            waits = [asyncio.ensure_future(s.updated.wait()) for s in seats]
            for s in seats:
                s.updated.clear()
            await asyncio.wait([*waits, stop], timeout=1, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
            continue
        seat = on_turn[0]
        acted[seat.seat] = seat.v
        move = dict(rng.choice(seat.view["legal_moves"]))
        kind = move.pop("action")
        began = await request(seat, {"type": kind, **move})
        moves.append([began, time.monotonic() - began])
        if len(moves) == READY_AFTER:
            print("ready", flush=True)
        await asyncio.sleep(PAUSE)
    print(json.dumps(moves), flush=True)
    for seat in seats:
        await seat.ws.close()
    for reader in readers:
        reader.cancel()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
