"""Red-team test support: a probe table that measures the server's responsiveness during an
attack, and a snapshot of what an attack must not change.

Every red-team case runs its attack while :class:`Probe` pings a table of its own, and then
checks that the probe's p99 stayed under :data:`PROBE_P99_LIMIT` and that :func:`snapshot` of the
tables is what it was (or what the test expects). All traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from server_support import Client, ServerThread, create_table

PROBE_P99_LIMIT = 0.050  # seconds


class Probe:
    """A seated client on its own table sending ``ping`` back to back; keeps each round trip."""

    def __init__(self, server: ServerThread) -> None:
        self.server = server
        self.rtts: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self.client: Client | None = None
        self.table_id = ""

    async def start(self) -> Probe:
        table = await asyncio.to_thread(create_table, self.server.http, "Probe")
        self.table_id = table["table_id"]
        self.client = await Client(self.server.ws_url(self.table_id), "probe").connect()
        welcome = await self.client.join(token=table["token"])
        assert welcome["type"] == "welcome", welcome
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def _run(self) -> None:
        client = self.client
        assert client is not None
        n = 0
        while True:
            n += 1
            start = len(client.messages)
            began = time.perf_counter()
            await client.send({"type": "ping", "seq": n})
            await client.wait_for(
                lambda m, n=n: m["type"] == "pong" and m.get("seq") == n, 10, start
            )
            self.rtts.append(time.perf_counter() - began)
            await asyncio.sleep(0.005)  # a ping every few milliseconds, not a flood

    async def stop(self) -> float:
        """Stop pinging; the p99 of the round trips (seconds)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.client is not None:
            await self.client.close()
        return self.p99()

    def p99(self) -> float:
        assert len(self.rtts) >= 10, f"the probe made only {len(self.rtts)} round trips"
        ordered = sorted(self.rtts)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def under_probe(server: ServerThread, attack: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``attack`` while a probe pings; assert the probe's p99 stayed under the limit."""
    probe = await Probe(server).start()
    before = snapshot(server, probe.table_id)
    try:
        result = await attack()
        # Keep probing a little after the attack: the server must have recovered too.
        target = len(probe.rtts) + 10
        await wait_until(lambda: len(probe.rtts) >= target, 10)
        after = snapshot(server, probe.table_id)
    finally:
        p99 = await probe.stop()
    assert p99 < PROBE_P99_LIMIT, f"probe p99 {p99 * 1000:.1f} ms during the attack"
    assert after == before, "the probe's table changed"
    return result


def snapshot(server: ServerThread, table_id: str) -> tuple[str, int]:
    """What a table is (its public state) and how long its log is."""
    service = server.service
    table = service.tables.get(table_id)
    summary = json.dumps(table.summary(), sort_keys=True) if table is not None else "unloaded"
    return summary, _count_events(server, table_id)


def _count_events(server: ServerThread, table_id: str) -> int:
    import sqlite3

    from cardverse.server.store import DB_NAME

    db = sqlite3.connect(str(server.settings.data_dir / DB_NAME))
    try:
        row = db.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,))
        return int(row.fetchone()[0])
    finally:
        db.close()


async def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``predicate`` until it holds (bounded)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for a condition")
        await asyncio.sleep(0.01)


def raw_socket(port: int, rcvbuf: int | None = None) -> socket.socket:
    """A plain TCP socket to the server (127.0.0.1), optionally with a small receive buffer."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", port))
    return sock


def websocket_handshake(path: str, port: int, origin: str | None = None) -> bytes:
    head = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n"
    )
    if origin is not None:
        head += f"Origin: {origin}\r\n"
    return (head + "\r\n").encode()


def masked_text_frame(text: str) -> bytes:
    """A client's WebSocket text frame (masked, as clients must)."""
    payload = text.encode()
    mask = b"\x01\x02\x03\x04"
    header = bytearray([0x81])
    if len(payload) < 126:
        header.append(0x80 | len(payload))
    else:
        header.append(0x80 | 126)
        header += len(payload).to_bytes(2, "big")
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes(header) + mask + body


def is_closed(sock: socket.socket) -> bool:
    """Whether the server closed (or reset) this socket; reads and drops what it sent."""
    sock.setblocking(False)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True
    finally:
        sock.setblocking(True)
