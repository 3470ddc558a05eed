"""Tables, seats, the host's options (R4 locks), computer players in seats, the HTTP API."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from server_support import Client, ServerThread, connect_seated, create_table, run


@pytest.mark.timeout(60)
def test_R4_options_and_locks(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http)
        host, guest = await connect_seated(server, table, ["Bo"])
        # A locked option of the cardverse preset is refused, naming the option and preset.
        locked = await host.request(
            {"type": "options", "rules": {"preset": "cardverse", "equal_plays": True}}
        )
        assert locked["type"] == "error" and locked["code"] == "option_locked"
        assert locked["rule"] == "R4"
        assert locked["params"]["option"] == "equal_plays"
        assert locked["params"]["preset"] == "cardverse"
        assert "locked" in locked["message"]
        for bad, code in (
            ({"jokers": 3}, "option_out_of_range"),
            ({"colour": "red"}, "unknown_option"),
            ({"preset": "nope"}, "unknown_preset"),
            ({"preset": "cardverse", "players": 8}, "players_out_of_preset_range"),
            ({"revolution": "yes"}, "option_not_boolean"),
        ):
            reply = await host.request({"type": "options", "rules": bad})
            assert reply["code"] == code, (bad, reply)
            assert reply["rule"] == "R4"
        # Only the host changes options.
        assert (await guest.request({"type": "options", "rules": {"rounds": 2}}))[
            "code"
        ] == "not_host"
        # Nothing changed so far.
        info = await host.wait_for(lambda m: m["type"] == "table")
        assert info["rules"]["preset"] == "standard" and info["rules"]["rounds"] == 1
        # A valid change: every connection is told.
        mark = len(guest.messages)
        reply = await host.request(
            {"type": "options", "rules": {"preset": "cardverse", "rounds": 3}, "turn_timer": 30}
        )
        assert reply["type"] == "ack", reply
        info = await guest.wait_for(lambda m: m["type"] == "table", start=mark)
        assert info["rules"]["preset"] == "cardverse"
        assert info["rules"]["rounds"] == 3 and info["rules"]["equal_plays"] is False
        assert info["rules"]["players"] == 4 and info["turn_timer"] == 30
        # Options merge: a change without a preset keeps the preset and other options.
        assert (await host.request({"type": "options", "rules": {"eight_stop": True}}))[
            "type"
        ] == "ack"
        info = await guest.wait_for(lambda m: m["type"] == "table" and m["rules"]["eight_stop"])
        assert info["rules"]["preset"] == "cardverse" and info["rules"]["rounds"] == 3
        # The turn timer: off, or 5 to 600 seconds.
        assert (await host.request({"type": "options", "turn_timer": None}))["type"] == "ack"
        assert (await host.request({"type": "options", "turn_timer": 1}))["code"] == "bad_message"
        # Fewer seats than people: refused; more seats: new empty seats.
        shrink = await host.request({"type": "options", "rules": {"players": 3}})
        assert shrink["type"] == "ack"
        assert (await host.request({"type": "options", "rules": {"players": 5}}))["type"] == "ack"
        info = await guest.wait_for(lambda m: m["type"] == "table" and len(m["seats"]) == 5)
        assert [s["kind"] for s in info["seats"]] == ["human", "human", "empty", "empty", "empty"]
        third = await Client(server.ws_url(table["table_id"]), "third").connect()
        assert (await third.join(name="Cy", seat=4))["seat"] == 4
        occupied = await host.request({"type": "options", "rules": {"players": 4}})
        assert occupied["code"] == "seat_occupied" and occupied["params"]["seat"] == 4
        # No option changes while a game is played.
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        during = await host.request({"type": "options", "rules": {"rounds": 1}})
        assert during["code"] == "game_in_progress"
        for client in (host, guest, third):
            await client.close()

    run(body)


@pytest.mark.timeout(60)
def test_seats_and_computer_players(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 4})
        (host,) = await connect_seated(server, table, [])
        assert (await host.request({"type": "start"}))["code"] == "seats_empty"
        bot = await host.request({"type": "add_bot", "level": "normal", "seat": 2})
        assert bot["type"] == "ack"
        taken = await host.request({"type": "add_bot", "level": "easy", "seat": 2})
        assert taken["code"] == "seat_taken"
        human = await host.request({"type": "remove_bot", "seat": 0})
        assert human["code"] == "not_a_bot"
        missing = await host.request({"type": "add_bot", "level": "easy", "seat": 6})
        assert missing["code"] == "no_such_seat"
        level = await host.request({"type": "add_bot", "level": "genius"})
        assert level["code"] == "bad_message"
        # A person takes seat 1; the host fills the rest, then removes one again.
        guest = await Client(server.ws_url(table["table_id"]), "guest").connect()
        assert (await guest.join(name="Bo"))["seat"] == 1
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        info = await host.wait_for(
            lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["seats"])
        )
        assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot", "bot"]
        assert [s["level"] for s in info["seats"]] == [None, None, "normal", "easy"]
        late = await Client(server.ws_url(table["table_id"]), "late").connect()
        assert (await late.join(name="Cy"))["code"] == "table_full"
        assert (await host.request({"type": "remove_bot", "seat": 3}))["type"] == "ack"
        assert (await late.join(name="Cy"))["seat"] == 3
        # Someone leaves between games: the seat is free again and the token stops working.
        token = guest.token
        assert (await guest.request({"type": "leave"}))["type"] == "ack"
        other = await Client(server.ws_url(table["table_id"]), "other").connect()
        assert (await other.join(token=token))["code"] == "bad_token"
        assert (await other.join(name="Di"))["seat"] == 1
        for client in (host, guest, late, other):
            await client.close()

    run(body)


@pytest.mark.timeout(60)
def test_http_api(server: ServerThread) -> None:
    base = server.http
    created = httpx.post(f"{base}/api/tables", json={"name": "Ann"}, timeout=10)
    assert created.status_code == 201
    body: dict[str, Any] = created.json()
    assert set(body) == {"table_id", "seat", "token", "url", "ws", "protocol"}
    assert len(body["table_id"]) >= 22 and body["url"] == f"/t/{body['table_id']}"
    assert body["ws"] == f"/ws/{body['table_id']}" and body["seat"] == 0
    # Two tables never share an id or a token.
    second = httpx.post(f"{base}/api/tables", json={"name": "Ann"}, timeout=10).json()
    assert second["table_id"] != body["table_id"] and second["token"] != body["token"]
    info = httpx.get(f"{base}/api/tables/{body['table_id']}", timeout=10).json()
    assert info["seats"][0]["name"] == "Ann" and info["host"] == 0
    assert "token" not in str(info) and body["token"] not in str(info)
    for payload, code in (
        ({"name": ""}, "name_empty"),
        ({"name": "x" * 40}, "name_too_long"),
        ({"name": "a\u0007b"}, "name_control_chars"),
        ({"name": "Ann", "rules": {"preset": "cardverse", "jokers": 2}}, "option_locked"),
        ({"name": "Ann", "turn_timer": 0.5}, "bad_message"),
        ({"name": "Ann", "colour": 1}, "bad_message"),
        ([1, 2], "bad_message"),
    ):
        response = httpx.post(f"{base}/api/tables", json=payload, timeout=10)
        assert response.status_code == 400, payload
        assert response.json()["code"] == code, (payload, response.json())
    broken = httpx.post(
        f"{base}/api/tables",
        content=b"{not json",
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert broken.status_code == 400 and broken.json()["code"] == "bad_json"
    assert httpx.get(f"{base}/api/tables/nope", timeout=10).json()["code"] == "no_such_table"
    unfinished = httpx.get(f"{base}/api/tables/{body['table_id']}/records/1", timeout=10)
    assert unfinished.status_code == 404 and unfinished.json()["code"] == "game_not_found"
    assert httpx.get(f"{base}/api/health", timeout=10).json()["ok"] is True
    protocol = httpx.get(f"{base}/api/protocol", timeout=10).json()
    assert protocol["protocol"] == 3 and "client" in protocol and "server" in protocol

    async def unknown_table() -> None:
        client = Client(server.ws_url("no-such-table"), "nobody")
        import websockets

        async with websockets.connect(client.url) as ws:
            first = await ws.recv()
            assert '"no_such_table"' in str(first)
            try:
                await ws.recv()
            except websockets.ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 4004

    run(unknown_table)
