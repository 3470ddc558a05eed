"""Red-team test support: a probe table that keeps being served during an attack, and a
snapshot of what an attack must not change.

Every red-team case runs its attack while :class:`Probe` pings a table of its own, and then
checks what does not depend on the machine's speed: the probe was answered throughout (every
ping got its pong; a server blocked for longer than the probe's generous wait fails), it is
answered after the attack, and :func:`snapshot` of the tables is what it was (or what the test
expects). How *fast* the probe was answered is a figure, not a test: with
``CARDVERSE_PROBE_FIGURES=<file>`` each case adds a line of its round trips' p99 there, and
``python -m bench.redteam_probe_bench`` runs the cases and reports them against the issue's
50 ms. All traffic goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from server_support import ServerThread

PROBE_SCRIPT = Path(__file__).with_name("probe_process.py")
BASELINE = 50  # the probe's round trips before the attack (probe_process.BASELINE)


class Probe:
    """A seated client on its own table, in a process of its own (``probe_process.py``),
    sending ``ping`` back to back and timing each round trip."""

    def __init__(self, server: ServerThread) -> None:
        self.server = server
        self.rtts: list[float] = []
        self.proc: subprocess.Popen[str] | None = None
        self.table_id = ""

    async def start(self) -> Probe:
        table = await asyncio.to_thread(_probe_table, self.server.http)
        self.table_id = table["table_id"]
        self.proc = subprocess.Popen(
            [sys.executable, str(PROBE_SCRIPT), self.server.ws_url(self.table_id), table["token"]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = await asyncio.wait_for(asyncio.to_thread(self._readline), 30)
        assert line.strip() == "ready", line
        return self

    def _readline(self) -> str:
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.readline()

    async def stop(self, more: int = 10) -> float:
        """Stop pinging (after ``more`` round trips); the p99 of the round trips (seconds)."""
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(f"{more}\n")
        proc.stdin.flush()
        try:
            line = await asyncio.wait_for(asyncio.to_thread(self._readline), 30)
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            await asyncio.to_thread(proc.wait, 10)
        # The probe waits up to 10 s for each pong (probe_process.py): a server that an attack
        # blocks that long, or that dropped the probe, leaves it without its figures.
        assert line.strip(), f"the probe was not answered throughout (exit {proc.returncode})"
        self.rtts = json.loads(line)
        return self.p99()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def p99(self) -> float:
        """The p99 of the round trips from the attack on."""
        attack = self.rtts[BASELINE:]
        assert len(attack) >= 10, f"the probe made only {len(attack)} round trips"
        return _p99(attack)

    def baseline_p99(self) -> float:
        """The p99 of the round trips before the attack (how responsive the machine was)."""
        return _p99(self.rtts[:BASELINE])


PROBE_ADDRESS = "127.0.0.2"  # the probe's own client address: outside the attacks' limits


def _probe_table(base: str) -> dict[str, Any]:
    transport = httpx.HTTPTransport(local_address=PROBE_ADDRESS)
    with httpx.Client(transport=transport, timeout=10) as client:
        answer = client.post(f"{base}/api/tables", json={"name": "Probe"})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def tables_besides_probes(server: ServerThread) -> int:
    """How many tables the server holds, the probes' own left out."""
    return sum(1 for t in server.service.tables.values() if t.seats[0].name != "Probe")


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def under_probe(server: ServerThread, attack: Callable[[], Awaitable[Any]]) -> Any:
    """Run ``attack`` while a probe pings its own table; the probe must be answered throughout
    and after it (:meth:`Probe.stop` fails otherwise), and its table must not change."""
    probe = await Probe(server).start()
    before = snapshot(server, probe.table_id)
    try:
        result = await attack()
        after = snapshot(server, probe.table_id)
        await probe.stop()  # ten more round trips: the server serves others after the attack
    finally:
        probe.kill()
    assert len(probe.rtts) >= BASELINE + 10, f"the probe made {len(probe.rtts)} round trips"
    _record_figure(probe)
    assert after == before, "the probe's table changed"
    return result


def _record_figure(probe: Probe) -> None:
    """With ``CARDVERSE_PROBE_FIGURES`` set, add this case's probe figures to that file (one
    JSON line; read by ``bench.redteam_probe_bench``)."""
    path = os.environ.get("CARDVERSE_PROBE_FIGURES")
    if not path:
        return
    case = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0]
    figure = {
        "case": case,
        "p99_ms": round(1000 * probe.p99(), 2),
        "baseline_p99_ms": round(1000 * probe.baseline_p99(), 2),
        "round_trips": len(probe.rtts) - BASELINE,
        "load": round(os.getloadavg()[0], 2),
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(figure) + "\n")


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
