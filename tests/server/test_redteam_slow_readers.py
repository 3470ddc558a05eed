"""Red team, slow readers: a client that stops reading is aborted (its TCP connection dropped,
not politely closed) once its unread output is over the byte budget or a message is not taken
within the time budget; the server stays responsive and the table is unchanged."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Callable
from typing import Any

import pytest
from redteam_support import (
    is_closed,
    masked_text_frame,
    raw_socket,
    snapshot,
    under_probe,
    wait_until,
    websocket_handshake,
)
from server_support import ServerThread, create_table, run

from cardverse.server.connections import ConnectionLimits

# The heartbeat's pings (a silent socket does not answer them) would close the reader first:
# these tests are about the outbox's own budgets.
NO_PINGS = {"limits": ConnectionLimits(ws_ping_interval=120.0, ws_ping_timeout=120.0)}


async def _silent_seated_reader(server: ServerThread, table: dict[str, Any]) -> socket.socket:
    """A raw WebSocket client that takes seat 0 and then never reads again."""
    sock = raw_socket(server.port, rcvbuf=4096)
    sock.sendall(websocket_handshake(f"/ws/{table['table_id']}", server.port))
    head = sock.recv(4096)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(masked_text_frame(json.dumps({"type": "join", "token": table["token"]})))
    table_id = table["table_id"]
    await wait_until(lambda: server.service.tables[table_id].seats[0].conn is not None)
    return sock


async def _flood_with_syncs(
    sock: socket.socket, server: ServerThread, stop: Callable[[], bool]
) -> int:
    """Ask for the full state again and again without reading the answers."""
    frame = masked_text_frame(json.dumps({"type": "sync"}))
    sent = 0
    sock.setblocking(False)
    try:
        while not stop() and sent < 20_000:
            try:
                sock.send(frame * 50)
            except BlockingIOError:
                pass
            except (ConnectionResetError, BrokenPipeError):
                break
            sent += 50
            await asyncio.sleep(0.05)  # 1000 a second: under the rate limit
    finally:
        sock.setblocking(True)
    return sent


def _abort_case(server: ServerThread, kind: str) -> None:
    table = create_table(server.http, rules={"preset": "standard", "players": 3})
    table_id = table["table_id"]

    async def attack() -> None:
        sock = await _silent_seated_reader(server, table)
        before = snapshot(server, table_id)
        service = server.service
        seat = service.tables[table_id].seats[0]
        flood = asyncio.get_running_loop().create_task(
            _flood_with_syncs(sock, server, lambda: seat.conn is None)
        )
        await wait_until(lambda: service.aborted.get(kind, 0) >= 1, 30)
        await wait_until(lambda: seat.conn is None, 10)
        await flood
        await wait_until(lambda: is_closed(sock), 10)
        sock.close()
        assert snapshot(server, table_id)[1] == before[1]  # nothing was written
        assert service.tables[table_id].summary()["seats"][0]["connected"] is False

    run(lambda: under_probe(server, attack))


@pytest.mark.timeout(90)
def test_a_reader_over_the_byte_budget_is_aborted(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(
        outbox_bytes=64 * 1024, send_timeout=60.0, rate_per_second=2000.0, burst=2000, **NO_PINGS
    )
    _abort_case(server, "unread")


@pytest.mark.timeout(90)
def test_a_reader_over_the_time_budget_is_aborted(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(
        outbox_bytes=1 << 28, send_timeout=0.3, rate_per_second=2000.0, burst=2000, **NO_PINGS
    )
    _abort_case(server, "stalled")
