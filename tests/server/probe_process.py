"""The red-team probe as a process of its own: pings a table back to back, timing each round trip.

Run as ``python probe_process.py WS_URL TOKEN``: it joins with the token, makes
:data:`BASELINE` round trips, prints ``ready``, and pings (a ping every few milliseconds) until a
line arrives on stdin (a number on it: that many more round trips, else ten) and prints every
round-trip time (seconds, the baseline first) as one JSON list. Being its own process, its
timings measure the server, not the test process's other work.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import websockets

BASELINE = 50  # round trips before the attack: how responsive the machine is without one


async def main(url: str, token: str) -> None:
    local = ("127.0.0.2", 0)  # the probe's own address (see redteam_support.PROBE_ADDRESS)
    async with websockets.connect(url, compression=None, open_timeout=10, local_addr=local) as ws:
        await ws.send(json.dumps({"type": "join", "token": token}))
        while json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] != "welcome":
            pass
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        rtts: list[float] = []
        n = 0
        extra = 10
        counted = False

        def on_stdin() -> None:
            if not stop.done():
                stop.set_result(sys.stdin.readline())

        while extra > 0:
            if n == BASELINE:
                print("ready", flush=True)
                loop.add_reader(sys.stdin.fileno(), on_stdin)
            if stop.done():
                if not counted:
                    counted = True
                    asked = stop.result().strip()
                    extra = max(10, int(asked)) if asked.isdigit() else 10
                extra -= 1
            n += 1
            began = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "seq": n}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] == "pong" and message.get("seq") == n:
                    break
            rtts.append(time.perf_counter() - began)
            await asyncio.sleep(0.005)
        print(json.dumps(rtts), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
