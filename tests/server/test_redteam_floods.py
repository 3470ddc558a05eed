"""Red team, floods of connections: watchers bounded per table, connections per address, the
public part of a change rendered once for every watcher, idle and half-open connections timed
out; the server stays responsive and nothing changes."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import websockets
from redteam_support import (
    is_closed,
    raw_socket,
    snapshot,
    under_probe,
    wait_until,
    websocket_handshake,
)
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.server.connections import ConnectionLimits
from cardverse.server.protocol import CLOSE_IDLE, CLOSE_TOO_MANY, parse_client_message
from cardverse.server.store import Store
from cardverse.server.table import outbox as tables_module
from cardverse.server.tables import Settings, Table, TableService


class _Drain:
    """A light watcher: a WebSocket that reads and drops everything (no model checks)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: Any = None
        self.texts: list[str] = []
        self.task: asyncio.Task[None] | None = None

    async def open(self) -> _Drain:
        self.ws = await websockets.connect(self.url, compression=None)
        self.task = asyncio.get_running_loop().create_task(self._read())
        return self

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in self.ws:
                self.texts.append(text)

    def codes(self) -> list[str]:
        return [json.loads(t).get("code", "") for t in self.texts]

    @property
    def close_code(self) -> int | None:
        return self.ws.close_code if self.ws is not None else None

    async def close(self) -> None:
        await self.ws.close()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


@pytest.mark.timeout(90)
def test_watchers_are_bounded_per_table_but_players_always_get_back_in(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(max_watchers=5, standby_timeout=0.5)
    table = create_table(server.http)
    table_id = table["table_id"]

    async def attack() -> None:
        url = server.ws_url(table_id)
        watchers = [await _Drain(url).open() for _ in range(8)]
        live = server.service.tables[table_id]
        await wait_until(lambda: sum(len(w.texts) >= 2 for w in watchers) == 8)
        assert len(live.watchers) == 5
        over = [w for w in watchers if "too_many_watchers" in w.codes()]
        assert len(over) == 3
        # The host comes back with the token while the table is full of watchers.
        host = await Client(url, "host").connect()
        welcome = await host.join(token=table["token"])
        assert welcome["type"] == "welcome" and welcome["seat"] == 0
        before = snapshot(server, table_id)
        # Connections on standby that do not join are closed.
        await wait_until(lambda: all(w.close_code == CLOSE_IDLE for w in over), 10)
        assert len(live.watchers) == 5
        assert snapshot(server, table_id) == before
        for watcher in watchers:
            await watcher.close()
        await host.close()

    run(lambda: under_probe(server, attack))


@pytest.mark.timeout(90)
def test_connections_per_address_are_bounded(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(max_connections_per_address=6)
    table = create_table(server.http)
    url = server.ws_url(table["table_id"])

    async def attack() -> None:
        held = [await _Drain(url).open() for _ in range(6)]  # the limit (the probe: 127.0.0.2)
        await wait_until(lambda: all(len(w.texts) >= 2 for w in held))
        refused = [await _Drain(url).open() for _ in range(5)]
        await wait_until(lambda: all(w.close_code is not None for w in refused), 10)
        assert [w.close_code for w in refused] == [CLOSE_TOO_MANY] * 5, [
            (w.close_code, w.texts) for w in refused
        ]
        for watcher in refused:  # the reader has taken every message before the close
            await asyncio.wait_for(asyncio.shield(watcher.task), 10)  # type: ignore[arg-type]
        assert all(w.codes() == ["too_many_connections"] for w in refused)
        await held[0].close()
        await wait_until(lambda: server.app.state.limits.connections.get("127.0.0.1") == 5)
        again = await _Drain(url).open()
        await wait_until(lambda: len(again.texts) >= 2)
        assert again.close_code is None
        for watcher in [*held[1:], again]:
            await watcher.close()

    run(lambda: under_probe(server, attack))
    limits = server.app.state.limits
    run(lambda: wait_until(lambda: "127.0.0.1" not in limits.connections))


class _TextConn:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)

    def close(self, code: int, reason: str) -> None:
        pass


def test_the_public_part_of_a_change_is_rendered_once_for_all_watchers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def body() -> None:
        settings = Settings(data_dir=tmp_path, bot_processes=0, max_watchers=500)
        service = TableService(settings, Store(tmp_path / "db.sqlite3"))
        table, token = service.create("Ann")
        host = _TextConn()
        table.attach(host)
        table.handle(host, parse_client_message(json.dumps({"type": "join", "token": token})))
        watchers = [_TextConn() for _ in range(300)]
        for watcher in watchers:
            table.attach(watcher)
        renders: list[int | None] = []
        real = tables_module.render

        def counting(message: dict[str, Any], seat: int | None, *args: Any, **kw: Any) -> str:
            renders.append(seat)
            return real(message, seat, *args, **kw)

        monkeypatch.setattr(tables_module, "render", counting)
        marks = [len(w.texts) for w in watchers]
        add = {"type": "add_bot", "seq": 1, "level": "easy", "seat": 1}
        table.handle(host, parse_client_message(json.dumps(add)))
        # One render of the table message for everyone, one for the host's ack.
        assert len(renders) <= 3, renders
        sent = [w.texts[mark] for w, mark in zip(watchers, marks, strict=True)]
        assert len({id(text) for text in sent}) == 1  # the very same text for all
        assert json.loads(sent[0])["type"] == "table"
        service.close()

    asyncio.run(asyncio.wait_for(body(), 30))


@pytest.mark.timeout(90)
def test_many_watchers_do_not_slow_other_tables(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(max_watchers=150, max_connections_per_address=200)
    table = create_table(server.http, rules={"preset": "standard", "players": 3})
    url = server.ws_url(table["table_id"])

    async def attack() -> None:
        watchers = [await _Drain(url).open() for _ in range(60)]
        (host,) = await connect_seated(server, table, [])
        for _ in range(15):  # every toggle is told to 60 watchers
            assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
            assert (await host.request({"type": "remove_bot", "seat": 1}))["type"] == "ack"
            assert (await host.request({"type": "remove_bot", "seat": 2}))["type"] == "ack"
        await wait_until(lambda: all(len(w.texts) >= 45 for w in watchers), 30)
        for watcher in watchers:
            await watcher.close()
        await host.close()

    run(lambda: under_probe(server, attack), timeout=80)


@pytest.mark.timeout(60)
def test_idle_and_half_open_connections_are_timed_out(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(
        ws_idle_timeout=1.0,
        limits=ConnectionLimits(request_timeout=0.5, keep_alive=0.5),
    )
    table = create_table(server.http)

    async def attack() -> None:
        silent = [raw_socket(server.port) for _ in range(20)]
        half_heads = [raw_socket(server.port) for _ in range(20)]
        for sock in half_heads:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        half_body = raw_socket(server.port)
        half_body.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
            b'\r\nContent-Length: 100\r\n\r\n{"name"'
        )
        idle_ws = [await _Drain(server.ws_url(table["table_id"])).open() for _ in range(10)]
        everything = [*silent, *half_heads, half_body]
        await wait_until(lambda: all(is_closed(sock) for sock in everything), 10)
        await wait_until(lambda: all(w.close_code == CLOSE_IDLE for w in idle_ws), 10)
        for sock in everything:
            sock.close()

    # The probe sends a ping every few milliseconds: it is never idle and must stay open.
    run(lambda: under_probe(server, attack))


@pytest.mark.timeout(60)
def test_a_websocket_that_stops_answering_pings_is_closed(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(
        ws_idle_timeout=None,
        limits=ConnectionLimits(ws_ping_interval=0.3, ws_ping_timeout=0.3),
    )
    table = create_table(server.http)

    async def attack() -> None:
        # A half-open WebSocket: the handshake, then nothing, not even a pong.
        sock = raw_socket(server.port)
        sock.sendall(websocket_handshake(f"/ws/{table['table_id']}", server.port))
        await wait_until(lambda: is_closed(sock), 10)
        sock.close()

    run(lambda: under_probe(server, attack))
