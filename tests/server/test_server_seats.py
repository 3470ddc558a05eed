"""Seats and the host: leaving at any time, the host's seat controls, host handover, and a
table whose people all left (issue 10)."""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest
from server_support import (
    FAST,
    Client,
    ServerThread,
    connect_seated,
    create_table,
    play_randomly,
    run,
)


def _table(client: Client, start: int = 0) -> dict[str, Any]:
    tables = [m for m in client.messages[start:] if m["type"] == "table"]
    assert tables, "no table message"
    return tables[-1]


@pytest.mark.timeout(90)
def test_leave_during_a_game_a_computer_player_takes_over_and_the_token_brings_you_back(
    server: ServerThread,
) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "rounds": 2, "players": 3})
        clients = await connect_seated(server, table, ["Bo", "Cy"])
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        leaver = clients[2]
        token, seat = leaver.token, leaver.seat
        mark = len(clients[0].messages)
        assert (await leaver.request({"type": "leave"}))["type"] == "ack"
        gone = await clients[0].wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == seat, start=mark
        )
        assert gone["auto"] == "left"
        # The stand-in plays for the seat while the others play on.
        rng = random.Random(5)
        await play_randomly(
            clients[:2],
            rng,
            until=lambda: any(
                e.get("seat") == seat and e["event"] in ("played", "passed")
                for s in clients[0].states()[-3:]
                for e in s["events"]
            ),
        )
        # Back with the token: the same seat, no stand-in any more.
        back = await Client(server.ws_url(table["table_id"]), "back").connect()
        welcome = await back.join(token=token)
        assert welcome["type"] == "welcome" and welcome["seat"] == seat and welcome["resumed"]
        state = await back.wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        assert "hand" in state["view"] and state["view"]["seat"] == seat
        assert _table(back)["seats"][seat]["auto"] is None
        # Leaving again, for good: at the end of the game the seat is a computer player's.
        assert (await back.request({"type": "leave"}))["type"] == "ack"
        await play_randomly(clients[:2], rng)
        over = await clients[0].wait_for(lambda m: m["type"] == "table" and m["phase"] == "over")
        assert over["seats"][seat]["kind"] == "bot" and over["seats"][seat]["level"] == "normal"
        late = await Client(server.ws_url(table["table_id"]), "late").connect()
        assert (await late.join(token=token))["code"] == "bad_token"

    run(body)


@pytest.mark.timeout(60)
def test_host_replaces_an_absent_person_moves_and_removes_people(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 4})
        host, bo, cy = await connect_seated(server, table, ["Bo", "Cy"])
        # Not the host: refused.
        assert (await bo.request({"type": "remove", "seat": 2}))["code"] == "not_host"
        # Move Cy from seat 2 to the empty seat 3; Cy is told and keeps the token.
        assert (await host.request({"type": "move_seat", "seat": 2, "to": 3}))["type"] == "ack"
        moved = await cy.wait_for(lambda m: m["type"] == "moved")
        assert moved["seat"] == 3
        taken = await host.request({"type": "move_seat", "seat": 1, "to": 3})
        assert taken["code"] == "seat_taken"
        assert (await host.request({"type": "move_seat", "seat": 2, "to": 0}))[
            "code"
        ] == "not_a_person"
        # Remove Bo from the lobby: told, watching, and the token refused afterwards.
        bo_token = bo.token
        assert (await host.request({"type": "remove", "seat": 1}))["type"] == "ack"
        lost = await bo.wait_for(lambda m: m["type"] == "seat_lost")
        assert lost["reason"] == "removed"
        again = await Client(server.ws_url(table["table_id"]), "again").connect()
        assert (await again.join(token=bo_token))["code"] == "bad_token"
        assert (await host.request({"type": "remove", "seat": 0}))["code"] == "not_yourself"
        # Fill and start; Cy goes away; a connected person cannot be replaced, an absent one can.
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        assert (await host.request({"type": "replace", "seat": 3}))["code"] == "person_present"
        cy_token = cy.token
        mark = len(host.messages)
        await cy.close()
        await host.wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == 3 and not m["connected"],
            start=mark,
        )
        mark = len(host.messages)
        assert (await host.request({"type": "replace", "seat": 3}))["type"] == "ack"
        seats = (await host.wait_for(lambda m: m["type"] == "table", start=mark))["seats"]
        assert seats[3]["kind"] == "bot" and seats[3]["level"] == "normal"
        late = await Client(server.ws_url(table["table_id"]), "late").connect()
        assert (await late.join(token=cy_token))["code"] == "bad_token"
        assert (await host.request({"type": "remove", "seat": 3}))["code"] == "game_in_progress"
        bad = await host.request({"type": "replace", "seat": 9})
        assert bad["code"] == "bad_message"

    run(body)


@pytest.mark.timeout(60)
def test_host_handover_when_the_host_leaves_or_stays_away(
    make_server: Any,
) -> None:
    server = make_server(**{**FAST, "grace": 0.3})

    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 4})
        host, bo, cy = await connect_seated(server, table, ["Bo", "Cy"])
        # The host goes away: after the grace period Bo (next in seat order) hosts.
        await host.close()
        changed = await cy.wait_for(lambda m: m["type"] == "host_changed", timeout=10)
        assert changed == {"type": "host_changed", "host": 1, "previous": 0, "reason": "away"}
        assert (await bo.wait_for(lambda m: m["type"] == "host_changed"))["host"] == 1
        assert _table(cy)["host"] == 1
        # The new host leaves: Cy hosts, and everyone is told.
        assert (await bo.request({"type": "leave"}))["type"] == "ack"
        changed = await cy.wait_for(lambda m: m["type"] == "host_changed" and m["reason"] == "left")
        assert changed["host"] == 2 and changed["previous"] == 1
        assert (await cy.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"

    run(body)


@pytest.mark.timeout(60)
def test_a_game_whose_people_all_left_ends_and_its_record_stays(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        host, bo = await connect_seated(server, table, ["Bo"])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        watcher = await Client(server.ws_url(table["table_id"]), "watch").connect()
        assert (await host.request({"type": "leave"}))["type"] == "ack"
        assert (await bo.request({"type": "leave"}))["type"] == "ack"
        over = await watcher.wait_for(lambda m: m["type"] == "table" and m["phase"] == "over")
        assert over["records"] == [1] and over["host"] is None
        assert all(s["kind"] == "bot" for s in over["seats"])
        response = httpx.get(f"{server.http}/api/tables/{table['table_id']}/records/1", timeout=10)
        assert response.status_code == 200
        record = json.loads(response.text)
        assert len(record["rounds"]) == 1 and "result" not in record
        # Restored from the store, the table is the same.
        service = server.service
        restored = type(service.tables[table["table_id"]]).restore(
            service, table["table_id"], service.store.events(table["table_id"])
        )
        assert restored.phase == "over" and restored.records[0] == response.text

    run(body)
