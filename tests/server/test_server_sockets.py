"""The tables' WebSockets on picows, handed over by uvicorn on the site's one port
(cardverse/server/tablesockets.py): what the frames themselves may do, and the server's stop."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable

import httpx
import websockets
from redteam_support import is_closed, raw_socket, wait_until, websocket_handshake
from server_support import ServerThread, create_table, run


def test_http_and_the_table_websocket_share_one_port(server: ServerThread) -> None:
    table = create_table(server.http)
    assert httpx.get(f"{server.http}/api/health", timeout=10).json()["ok"] is True

    async def body() -> None:
        async with websockets.connect(server.ws_url(table["table_id"])) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert first["type"] == "hello", first

    run(body)


def test_a_message_in_fragments_is_read_as_one(server: ServerThread) -> None:
    table = create_table(server.http)
    text = json.dumps({"type": "join", "token": table["token"]})

    async def body() -> None:
        async with websockets.connect(server.ws_url(table["table_id"])) as ws:
            await ws.send([text[:7], text[7:20], text[20:]])  # three frames, one message
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if message["type"] not in ("hello", "table", "presence"):
                    break
            assert message["type"] == "welcome", message
            assert message["seat"] == 0

    run(body)


def test_fragments_over_the_largest_message_close_the_socket_with_1009(
    server: ServerThread,
) -> None:
    table = create_table(server.http)

    async def body() -> None:
        async with websockets.connect(server.ws_url(table["table_id"])) as ws:
            piece = "x" * 60_000  # each frame under the limit (256 KiB), together over it
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send([piece] * 6)  # the server may close before the last is sent
            await asyncio.wait_for(ws.wait_closed(), 10)
            assert ws.close_code == 1009

    run(body)


def test_text_that_is_not_utf8_closes_the_socket_with_1007(server: ServerThread) -> None:
    table = create_table(server.http)

    async def body() -> None:
        sock = raw_socket(server.port)
        sock.sendall(websocket_handshake(f"/ws/{table['table_id']}", server.port))
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")
        mask = b"\x01\x02\x03\x04"
        payload = b"\xff\xfe{}"
        sock.sendall(
            bytes([0x81, 0x80 | len(payload)])
            + mask
            + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        )
        sock.settimeout(10)
        received = b""
        while b"\x88" not in received:  # the server's close frame
            chunk = sock.recv(4096)
            assert chunk, received
            received += chunk
        close = received[received.index(b"\x88") :]
        assert int.from_bytes(close[2:4], "big") == 1007
        await wait_until(lambda: is_closed(sock), 10)
        sock.close()

    run(body)


def test_a_websocket_to_an_address_that_is_no_table_is_refused(server: ServerThread) -> None:
    # Not handed to picows: uvicorn's own WebSocket protocol takes it, and the app, which has
    # no WebSocket route, refuses it.
    sock = raw_socket(server.port)
    sock.sendall(websocket_handshake("/ws/watch/a/b", server.port))
    sock.settimeout(10)
    assert sock.recv(4096).startswith(b"HTTP/1.1 403")
    sock.close()


def test_a_stopping_server_closes_its_table_websockets_with_1012(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server()
    table = create_table(server.http)

    async def body() -> None:
        async with websockets.connect(server.ws_url(table["table_id"])) as ws:
            json.loads(await asyncio.wait_for(ws.recv(), 10))
            stopping = asyncio.get_running_loop().run_in_executor(
                None, server.__exit__, None, None, None
            )
            await asyncio.wait_for(ws.wait_closed(), 15)
            assert ws.close_code == 1012
            await stopping

    run(body)
