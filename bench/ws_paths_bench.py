"""The WebSocket paths side by side (``make bench``; not a test): the server's CPU per
message round trip of uvicorn's legacy ``websockets`` protocol, its ``websockets-sansio`` one,
``picows`` alone (a WebSocket server written in Cython, outside ASGI), and ``handover``, what
the game server runs: uvicorn reads the upgrade request and hands the connection to picows
(cardverse/server/connections.py and tablesockets.py).

Each server runs in its own process and echoes text frames (behind Starlette's WebSocket route
for the two uvicorn paths; picows calls its listener with each frame, and ``handover`` hands
each message to the callback the game server's table would be).
This process opens ``--connections`` WebSockets and makes round trips of a ``--size``-character
text on each for ``--duration`` seconds, the paths alternately, ``--repeat`` times; the server's
CPU per round trip (median) is what a message costs that path. (The round trips a second
measure this process's client more than the server on a small machine: they are shown, not
compared.)

    .venv/bin/python -m bench.ws_paths_bench --connections 200 --duration 8
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "ws-paths.json"
PATHS = ("websockets", "websockets-sansio", "picows", "handover")


def _serve(path: str) -> None:
    """Run one echo server on a free port; print the port."""
    import socket

    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # Listening before the server has started: a client that connects while it is still
    # starting (a loaded machine) waits instead of being refused and measuring nothing.
    sock.listen(2048)
    port = sock.getsockname()[1]
    if path == "picows":
        from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_create_server

        class Echo(WSListener):  # type: ignore[misc]
            def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
                if frame.msg_type == WSMsgType.TEXT:
                    transport.send(WSMsgType.TEXT, frame.get_payload_as_bytes())
                elif frame.msg_type == WSMsgType.CLOSE:
                    transport.send_close(frame.get_close_code())
                    transport.disconnect()

        async def main() -> None:
            server = await ws_create_server(lambda request: Echo(), sock=sock)
            print(port, flush=True)
            await server.serve_forever()

        asyncio.run(main())
        return
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    if path == "handover":
        from cardverse.server.connections import ConnectionLimits, uvicorn_config
        from cardverse.server.tablesockets import Incoming, SocketHub, TableSocket

        async def serve(sock: TableSocket) -> None:
            def echo(text: Incoming) -> None:
                if isinstance(text, str):
                    sock.send_text(text)

            sock.hand_to(echo)

        config = uvicorn_config(
            Starlette(), ConnectionLimits(), lifespan="off", log_level="warning"
        )
        config.http = type(
            "EchoH11Protocol",
            (config.http,),  # type: ignore[misc]
            {"socket_hub": SocketHub(serve, None, None, 1 << 20)},
        )
        print(port, flush=True)
        uvicorn.Server(config).run(sockets=[sock])
        return

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await websocket.send_text(await websocket.receive_text())

    app = Starlette(routes=[WebSocketRoute("/ws/echo", echo)])
    config = uvicorn.Config(
        app,
        ws=path,  # type: ignore[arg-type]
        ws_per_message_deflate=False,
        lifespan="off",
        log_level="warning",
        ws_ping_interval=None,
    )
    print(port, flush=True)
    uvicorn.Server(config).run(sockets=[sock])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _round_trips(port: int, pid: int, args: argparse.Namespace) -> tuple[int, float, float]:
    import websockets

    text = json.dumps({"type": "change", "pad": "x" * max(0, args.size - 30)})
    stop = asyncio.Event()
    counts = [0] * args.connections

    async def one(index: int) -> None:
        async with websockets.connect(
            f"ws://127.0.0.1:{port}/ws/echo", compression=None, ping_interval=None
        ) as ws:
            while not stop.is_set():
                await ws.send(text)
                await ws.recv()
                counts[index] += 1

    tasks = [asyncio.create_task(one(i)) for i in range(args.connections)]
    await asyncio.sleep(1.0)  # connected and warm
    before, cpu0 = sum(counts), _cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.sleep(args.duration)
    done, cpu = sum(counts) - before, _cpu_seconds(pid) - cpu0
    elapsed = time.perf_counter() - started
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return done, elapsed, cpu


def _measure(path: str, args: argparse.Namespace) -> dict[str, Any]:
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.ws_paths_bench", "--serve", path],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        with contextlib.suppress(ImportError):
            import uvloop

            uvloop.install()
        done, elapsed, cpu = asyncio.run(_round_trips(port, server.pid, args))
        return {
            "round_trips": done,
            "round_trips_per_s": round(done / elapsed),
            "server_cpu_us_per_round_trip": round(1e6 * cpu / max(1, done), 2),
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--serve"]:
        _serve(argv[1])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--size", type=int, default=420, help="characters a message")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    paths = list(PATHS)
    try:
        import picows  # noqa: F401
    except ImportError:
        paths.remove("picows")
    runs: dict[str, list[dict[str, Any]]] = {path: [] for path in paths}
    for _ in range(args.repeat):
        for path in paths:
            runs[path].append(_measure(path, args))
    result: dict[str, Any] = {
        "connections": args.connections,
        "size": args.size,
        "duration_s": args.duration,
        "repeat": args.repeat,
    }
    for path, measured in runs.items():
        result[path] = {
            key: statistics.median(run[key] for run in measured) for key in measured[0]
        } | {"runs": measured}
    base = result["websockets"]["server_cpu_us_per_round_trip"]
    result["cpu_per_round_trip_vs_legacy"] = {
        path: round(result[path]["server_cpu_us_per_round_trip"] / base, 2) for path in paths
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
