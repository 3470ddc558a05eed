"""Bad input gets a clear error (code, rule where one applies, message) and changes nothing;
the connection stays open except for a flood."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.server.protocol import MAX_MESSAGE_BYTES


async def _still_open(client: Client) -> None:
    mark = len(client.messages)
    await client.send({"type": "ping", "seq": 999_999})
    pong = await client.wait_for(lambda m: m["type"] == "pong", start=mark, timeout=5)
    assert pong["seq"] == 999_999


async def _error(client: Client, raw: str | bytes) -> dict[str, Any]:
    mark = len(client.messages)
    await client.send_raw(raw)
    reply = await client.wait_for(lambda m: m["type"] == "error", start=mark, timeout=5)
    assert reply["message"], reply
    await _still_open(client)
    return reply


async def _snapshot(client: Client) -> tuple[Any, Any]:
    mark = len(client.messages)
    await client.send({"type": "sync"})
    table = await client.wait_for(lambda m: m["type"] == "table", start=mark)
    state = await client.wait_for(lambda m: m["type"] == "state", start=mark)
    return table, {"v": state["v"], "at": state["at"], "view": state["view"]}


@pytest.mark.timeout(90)
def test_bad_input_is_refused_clearly_and_changes_nothing(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        clients = await connect_seated(server, table, ["Bo", "Cy"])
        host = clients[0]
        # Before joining: no seat, so no action.
        stranger = await Client(server.ws_url(table["table_id"]), "stranger").connect()
        reply = await _error(stranger, json.dumps({"type": "pass", "seq": 1}))
        assert reply["code"] == "token_missing" and reply["seq"] == 1
        assert (await host.request({"type": "start"}))["type"] == "ack"
        state = await host.wait_for(lambda m: m["type"] == "state")
        turn = state["view"]["turn"]
        on_turn, waiting = clients[turn], clients[(turn + 1) % 3]
        before = await _snapshot(host)

        cases: list[tuple[Client, str | bytes, str, str | None]] = [
            (host, "{not json", "bad_json", None),
            (host, b"\x00\x01binary", "bad_json", None),
            (host, "[1, 2, 3]", "bad_message", None),
            (host, json.dumps({"seq": 1}), "bad_message", None),
            (host, json.dumps({"type": "dance", "seq": 50}), "unknown_type", None),
            (host, json.dumps({"type": "play", "seq": 50}), "bad_message", None),
            (host, json.dumps({"type": "pass", "seq": "50"}), "bad_message", None),
            (host, json.dumps({"type": "pass", "seq": 0}), "bad_message", None),
            (host, json.dumps({"type": "pass", "seq": 50, "extra": 1}), "bad_message", None),
            (
                host,
                json.dumps({"type": "ping", "pad": "x" * MAX_MESSAGE_BYTES}),
                "message_too_large",
                None,
            ),
            (waiting, json.dumps({"type": "pass", "seq": 50}), "not_your_turn", "R12"),
            (on_turn, json.dumps({"type": "play", "seq": 50, "cards": ["ZZ"]}), "bad_action", None),
            (
                on_turn,
                json.dumps({"type": "give", "seq": 50, "cards": ["3C"]}),
                "not_exchange",
                "R25",
            ),
            (on_turn, json.dumps({"type": "pass", "seq": 50}), "pass_on_lead", "R8"),
            (host, json.dumps({"type": "join", "name": "Again"}), "already_seated", None),
            (host, json.dumps({"type": "start", "seq": 50}), "game_in_progress", None),
            (clients[1], json.dumps({"type": "start", "seq": 50}), "not_host", None),
        ]
        # A card that is not in the hand of the seat on turn (R8).
        hand = set(state["view"]["hand"]) if host is on_turn else None
        foreign = next(c for c in _all_cards() if hand is None or c not in hand)
        if host is not on_turn:
            mine = await on_turn.wait_for(lambda m: m["type"] == "state")
            foreign = next(c for c in _all_cards() if c not in mine["view"]["hand"])
        cases.append(
            (
                on_turn,
                json.dumps({"type": "play", "seq": 50, "cards": [foreign]}),
                "card_not_in_hand",
                "R8",
            )
        )
        for client, raw, code, rule in cases:
            reply = await _error(client, raw)
            assert reply["code"] == code, (raw, reply)
            assert reply.get("rule") == rule, (raw, reply)
        assert await _snapshot(host) == before  # nothing changed
        # A repeated message is answered, not applied twice.
        legal = (await on_turn.wait_for(lambda m: m["type"] == "state"))["view"]["legal_moves"]
        move = {"type": "play", "cards": legal[0]["cards"]}
        if legal[0].get("jokers"):
            move["jokers"] = legal[0]["jokers"]
        first = await on_turn.request(move)
        assert first == {"type": "ack", "seq": on_turn.seq, "duplicate": False}
        after_one = await _snapshot(host)
        assert after_one[1]["v"] == before[1]["v"] + 1
        mark = len(on_turn.messages)
        await on_turn.send({**move, "seq": on_turn.seq})
        again = await on_turn.wait_for(lambda m: m["type"] == "ack", start=mark)
        assert again["duplicate"] is True
        assert await _snapshot(host) == after_one
        for client in (*clients, stranger):
            await client.close()

    run(body)


def _all_cards() -> list[str]:
    return [
        rank + suit
        for rank in ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
        for suit in "CDHS"
    ]


@pytest.mark.timeout(60)
def test_display_names_are_checked(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http)
        client = await Client(server.ws_url(table["table_id"]), "names").connect()
        for name, code in (
            ("", "name_empty"),
            ("   ", "name_empty"),
            ("x" * 25, "name_too_long"),
            ("bell\u0007", "name_control_chars"),
            ("new\nline", "name_control_chars"),
            ("zero\u200bwidth", "name_control_chars"),
        ):
            reply = await client.join(name=name)
            assert reply["type"] == "error" and reply["code"] == code, (name, reply)
        missing = await client.join()
        assert missing["code"] == "name_empty"
        info = await client.wait_for(lambda m: m["type"] == "table")
        assert [s["kind"] for s in info["seats"]] == ["human", "empty", "empty", "empty"]
        ok = await client.join(name="  Łukasz 🂡 " + "y" * 14)
        assert ok["type"] == "welcome" and ok["name"] == "Łukasz 🂡 " + "y" * 14
        await client.close()

    run(body)


@pytest.mark.timeout(60)
def test_a_flood_is_rate_limited_then_closed(make_server: Any) -> None:
    server = make_server(rate_per_second=5.0, burst=5, flood_limit=30)

    async def body() -> None:
        table = create_table(server.http)
        client = await Client(server.ws_url(table["table_id"]), "flood").connect()
        mark = len(client.messages)
        for _ in range(10):
            await client.send({"type": "ping"})
        limited = await client.wait_for(lambda m: m["type"] == "error", start=mark)
        assert limited["code"] == "rate_limited" and limited["params"]["rate"] == 5.0
        pongs = [m for m in client.messages[mark:] if m["type"] == "pong"]
        assert 5 <= len(pongs) <= 6
        await asyncio.sleep(1.0)
        await _still_open(client)  # slowing down is enough
        for _ in range(200):
            await client.send({"type": "ping"})
            if client.closed is not None:
                break
        for _ in range(100):
            if client.closed is not None:
                break
            await asyncio.sleep(0.05)
        assert client.closed is not None and client.closed[0] == 4008

    run(body)
