"""Red team, resource limits: table creation per address, bodies read no further than the
limit, idle tables unloaded and loaded back, abandoned lobbies expired, only live tables
restored, the lobby's log coalesced, and a stalling player handed to the computer."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from redteam_support import raw_socket, snapshot, tables_besides_probes, under_probe, wait_until
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.server.store import DB_NAME


def _status(server: ServerThread, table_id: str) -> str | None:
    db = sqlite3.connect(str(server.settings.data_dir / DB_NAME))
    try:
        row = db.execute("SELECT status FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else str(row[0])
    finally:
        db.close()


@pytest.mark.timeout(60)
def test_table_creation_is_limited_per_address(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(create_burst=6, create_rate=0.001)

    async def attack() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            return [await http.post("/api/tables", json={"name": "Flood"}) for _ in range(30)]

    answers = run(lambda: under_probe(server, attack))
    assert [a.status_code for a in answers[:6]] == [201] * 6
    refused = answers[6:]
    assert {a.status_code for a in refused} == {429}
    assert all(a.json()["code"] == "too_many_tables" for a in refused)
    assert int(refused[0].headers["retry-after"]) >= 1
    assert tables_besides_probes(server) == 6


@pytest.mark.timeout(60)
def test_a_huge_body_is_not_read_past_the_limit(server: ServerThread) -> None:
    def declared_huge(path: str) -> bytes:
        sock = raw_socket(server.port)
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 268435456\r\n\r\n".encode()
        )
        sock.settimeout(10)
        answer = sock.recv(4096)
        sock.close()
        return answer

    def chunked_forever(path: str) -> tuple[bytes, int]:
        """Send a chunked body without end; how much was sent before the server answered.
        After the answer, go on sending: the server must stop reading (close) soon."""
        sock = raw_socket(server.port)
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
        sent = 0
        sock.setblocking(False)
        answer = b""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and sent < 256 << 20:
            try:
                answer = sock.recv(4096)
                if answer:
                    break
            except BlockingIOError:
                pass
            except ConnectionResetError:
                break
            try:
                sent += sock.send(chunk)
            except BlockingIOError:
                time.sleep(0.001)
            except (BrokenPipeError, ConnectionResetError):
                break
        after = 0
        closed = False
        while time.monotonic() < deadline and after < 64 << 20:
            try:
                after += sock.send(chunk)
            except BlockingIOError:
                try:
                    closed = sock.recv(65536) == b"" or closed
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
                if closed:
                    break
                time.sleep(0.001)
            except OSError:
                closed = True
                break
        sock.close()
        assert closed and after < 16 << 20, f"{after} more bytes were taken after the answer"
        return answer, sent

    async def attack() -> list[tuple[bytes, int]]:
        out = []
        for path in ("/api/tables", "/i18n/refusal"):
            out.append((await asyncio.to_thread(declared_huge, path), 0))
            out.append(await asyncio.to_thread(chunked_forever, path))
        return out

    tables = tables_besides_probes(server)
    for answer, sent in run(lambda: under_probe(server, attack)):
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert sent < 32 << 20, f"{sent} bytes were taken before the answer"
    assert tables_besides_probes(server) == tables


@pytest.mark.timeout(60)
def test_idle_tables_leave_memory_and_come_back(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(idle_unload=0.3, sweep_interval=0.05, lobby_expiry=None)
    table = create_table(server.http, rules={"preset": "standard", "players": 3})
    table_id = table["table_id"]

    async def body() -> None:
        (host,) = await connect_seated(server, table, [])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        state = await host.wait_for(lambda m: m["type"] == "state" and m["view"]["turn"] == 0)
        before = snapshot(server, table_id)
        await host.close()
        service = server.service
        await wait_until(lambda: table_id not in service.tables, 10)
        await wait_until(lambda: _status(server, table_id) == "idle", 10)
        # The next connection loads it back, as it was.
        again = await Client(server.ws_url(table_id), "again").connect()
        welcome = await again.join(token=table["token"])
        assert welcome["type"] == "welcome" and welcome["last_seq"] == host.seq
        back = await again.wait_for(lambda m: m["type"] == "state")
        assert back["v"] == state["v"] and back["view"]["hand"] == state["view"]["hand"]
        assert _status(server, table_id) == "live"
        assert snapshot(server, table_id)[1] == before[1]
        await again.close()

    run(body)
    assert server.service.unloaded >= 1


@pytest.mark.timeout(60)
def test_abandoned_lobbies_expire_but_games_do_not(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(lobby_expiry=0.3, idle_unload=None, sweep_interval=0.05)
    lobby = create_table(server.http)
    played = create_table(server.http, rules={"preset": "standard", "players": 3})

    async def body() -> None:
        (host,) = await connect_seated(server, played, [])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await host.close()
        await wait_until(lambda: lobby["table_id"] not in server.service.tables, 10)
        # The store's write goes through the writer thread: poll for it.
        await wait_until(lambda: _status(server, lobby["table_id"]) == "expired", 10)

    run(body)
    assert snapshot(server, lobby["table_id"]) == ("unloaded", 0)  # its log is gone
    assert httpx.get(f"{server.http}/api/tables/{lobby['table_id']}").status_code == 404
    assert httpx.get(f"{server.http}/t/{lobby['table_id']}").status_code == 404
    assert played["table_id"] in server.service.tables
    assert server.service.expired == 1


@pytest.mark.timeout(60)
def test_only_live_tables_are_restored_at_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = ServerThread(data, idle_unload=0.5, sweep_interval=0.05).__enter__()
    idle = create_table(first.http)
    kept = create_table(first.http)

    async def body() -> None:
        client = await Client(first.ws_url(kept["table_id"])).connect()
        await wait_until(lambda: idle["table_id"] not in first.service.tables, 10)
        # The server stops while the kept table is in use (it is live, the other idle).
        await asyncio.to_thread(first.__exit__, None, None, None)
        await client.close()

    run(body)
    with ServerThread(data, idle_unload=None) as second:
        assert kept["table_id"] in second.service.tables
        assert idle["table_id"] not in second.service.tables
        # An idle table is still there: loaded when asked for.
        assert httpx.get(f"{second.http}/api/tables/{idle['table_id']}").status_code == 200
        assert idle["table_id"] in second.service.tables


@pytest.mark.timeout(60)
def test_lobby_changes_are_coalesced_in_the_log(server: ServerThread) -> None:
    table = create_table(server.http, rules={"preset": "standard", "players": 4})
    table_id = table["table_id"]

    async def attack() -> Client:
        host, bo = await connect_seated(server, table, ["Bo"])
        for _ in range(100):
            assert (await host.request({"type": "add_bot", "level": "hard"}))["type"] == "ack"
            assert (await host.request({"type": "remove_bot", "seat": 2}))["type"] == "ack"
            assert (await host.request({"type": "remove_bot", "seat": 3}))["type"] == "ack"
        assert (await host.request({"type": "add_bot", "level": "easy", "seat": 3}))[
            "type"
        ] == "ack"
        await bo.close()
        return host

    host = run(lambda: under_probe(server, attack))
    events = server.service.store.events(table_id)
    assert [e.kind for e in events] == ["create", "lobby"], [e.kind for e in events]
    from cardverse.server.tables import Table

    restored = Table.restore(server.service, table_id, events)
    live = server.service.tables[table_id]
    assert restored.summary()["seats"][3] == live.summary()["seats"][3]
    assert [s.kind for s in restored.seats] == ["human", "human", "empty", "bot"]
    assert restored.seats[0].last_seq == host.seq == 301

    async def resend() -> None:
        again = await Client(server.ws_url(table_id), "again").connect()
        await again.join(token=table["token"])
        again.seq = 300  # an old message sent again: still known as a duplicate
        reply = await again.request({"type": "remove_bot", "seat": 3})
        assert reply == {"type": "ack", "seq": 301, "duplicate": True}
        await again.close()

    run(resend)
    assert len(server.service.store.events(table_id)) == 2


@pytest.mark.timeout(90)
def test_a_player_who_keeps_timing_out_is_handed_to_the_computer(
    make_server: Callable[..., ServerThread],
) -> None:
    # Computer players think a little: `back` reaches the server before the person's next
    # turn, so each time-out costs the person one turn and the round outlasts three of them.
    server = make_server(
        turn_timer=0.4, timeout_timer=0.1, max_timeouts=3, bot_delay=0.25, bot_delay_jitter=0.0
    )
    table = create_table(server.http, rules={"preset": "standard", "players": 3, "rounds": 3})

    async def body() -> None:
        (host,) = await connect_seated(server, table, [])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        mark = len(host.messages)  # the first turn's state may come right after the ack
        assert (await host.request({"type": "start"}))["type"] == "ack"
        # Let every turn time out and come back each time, until the seat is kept. (Should a
        # busy machine let a round end first, the count starts again in the next round.)
        seen: list[tuple[int, float, str]] = []  # (round, timer, answer to back)
        while not seen or seen[-1][2] != "seat_kept":
            assert len(seen) < 16, seen
            try:
                state = await host.wait_for(
                    lambda m: m["type"] == "state" and m["view"]["turn"] == 0 and m["timer"],
                    5,
                    mark,
                )
            except AssertionError:  # a computer player still stands in: take the seat back
                mark = len(host.messages)
                await host.request({"type": "back"})
                seen.append((-1, 0.0, "retry"))
                continue
            # The time runs out: the computer stands in and plays.
            await host.wait_for(
                lambda m: m["type"] == "presence" and m["seat"] == 0 and m["auto"] == "timeout",
                10,
                mark,
            )
            v = state["v"]
            await host.wait_for(lambda m, v=v: m["type"] == "state" and m["v"] > v, 10, mark)
            kept_at = mark = len(host.messages)  # the next turn's state may come before the ack
            reply = await host.request({"type": "back"})
            answer = reply.get("code", reply["type"])
            seen.append((state["view"]["round"], state["timer"]["ends_in"], answer))
        last_round = [entry for entry in seen if entry[0] == seen[-1][0]]
        assert [answer for _, _, answer in last_round] == ["ack", "ack", "seat_kept"], seen
        timers = [timer for _, timer, _ in last_round]
        assert timers[0] > 0.1 and all(t <= 0.1 for t in timers[1:]), seen
        assert reply["params"]["timeouts"] == 3
        # The computer keeps the seat to the end of the round, and the table moves on.
        seat = server.service.tables[table["table_id"]].seats[0]
        assert seat.kept and seat.auto == "timeout"
        # The next round gives the seat back (it may time out again later in that round).
        game = server.service.tables[table["table_id"]].game
        kept_round = seen[-1][0]
        await wait_until(lambda: game.round_number == kept_round + 1, 30)
        await wait_until(
            lambda: any(
                m["type"] == "presence" and m["seat"] == 0 and m["auto"] is None
                for m in host.messages[kept_at:]
            ),
            10,
        )
        await host.close()

    run(body, timeout=80)


@pytest.mark.timeout(60)
def test_an_unloaded_lobby_expires_too(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(idle_unload=0.05, lobby_expiry=0.5, sweep_interval=0.05)
    lobby = create_table(server.http)
    table_id = lobby["table_id"]

    async def body() -> None:
        await wait_until(lambda: _status(server, table_id) == "idle", 10)  # out of memory
        await wait_until(lambda: _status(server, table_id) == "expired", 10)  # then expired

    run(body)
    assert snapshot(server, table_id) == ("unloaded", 0)
    assert httpx.get(f"{server.http}/api/tables/{table_id}").status_code == 404
