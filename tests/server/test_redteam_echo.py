"""Red team, bad input that looks like a card (issue 28, item 6): an error that repeats the
client's own words (a type, a field, an option named like a card) is let through the hidden-card
filter for that client, so it is answered with its real error, not ``internal``, and raises no
false leak alarm; every card the client did not name is still stopped."""

from __future__ import annotations

import json
from typing import Any

import pytest
from redteam_support import under_probe
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.engine.cards import parse_card
from cardverse.server import viewfilter

LOOKS_LIKE_A_CARD = [  # {seq} is a fresh number for each send
    '{{"type":"AS"}}',
    '{{"type":"sync","10H":1}}',
    '{{"type":"ping","seq":{seq},"QD":[1]}}',
    '{{"type":"options","seq":{seq},"rules":{{"AS":1}}}}',
    '{{"type":"options","seq":{seq},"rules":{{"preset":"standard","7C":true}}}}',
]


@pytest.mark.timeout(60)
def test_card_like_input_gets_its_own_error_and_no_leak_alarm(server: ServerThread) -> None:
    # Before: each of these was answered "internal" (withheld) and logged "view filter stopped".
    table = create_table(server.http, rules={"preset": "standard", "players": 3})

    async def send_all(client: Client, replies: list[dict[str, Any]]) -> None:
        for raw in LOOKS_LIKE_A_CARD:
            client.seq += 1
            mark = len(client.messages)
            await client.send_raw(raw.format(seq=client.seq))
            replies.append(await client.wait_for(lambda m: m["type"] == "error", 10, mark))

    async def attack() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        host, bo = await connect_seated(server, table, ["Bo"])
        watcher = await Client(server.ws_url(table["table_id"]), "watcher").connect()
        in_lobby: list[dict[str, Any]] = []
        await send_all(host, in_lobby)  # the options are read (host, between games)
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await host.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] != "lobby")
        in_game: list[dict[str, Any]] = []
        for client in (host, bo, watcher):  # hands dealt: a seat, another, and no seat
            await send_all(client, in_game)
        for client in (host, bo, watcher):
            await client.close()
        return in_lobby, in_game

    violations = viewfilter.STATS["violations"]
    in_lobby, in_game = run(lambda: under_probe(server, attack))
    assert viewfilter.STATS["violations"] == violations  # no alarm raised
    assert [r["code"] for r in in_lobby] == [
        "unknown_type",
        "bad_message",
        "bad_message",
        "unknown_option",
        "unknown_option",
    ], in_lobby
    assert in_lobby[0]["params"]["type"] == "AS"
    assert [r["params"].get("field") for r in in_lobby[1:3]] == ["10H", "QD"]
    assert '"AS"' in json.dumps(in_lobby[3]) and '"7C"' in json.dumps(in_lobby[4])
    assert "internal" not in [r["code"] for r in in_game], in_game
    assert [r["code"] for r in in_game[::5]] == ["unknown_type"] * 3


def test_the_echo_lets_through_only_the_clients_own_cards() -> None:
    named = viewfilter.named_cards(json.loads('{"type":"options","rules":{"AS":[{"10H":"RJ"}]}}'))
    assert named == (1 << parse_card("AS")) | (1 << parse_card("10H")) | (1 << parse_card("RJ"))
    assert viewfilter.named_cards(None) == 0
    assert viewfilter.named_cards({"type": "ASX", "x": "as"}) == 0  # only exact card names
    error = {"type": "error", "code": "unknown_option", "message": "m", "params": {"o": "AS"}}
    assert viewfilter.render(error, None, None, echo=named) != viewfilter._WITHHELD
    other = {**error, "params": {"o": "KD"}}  # a card the client did not name: still stopped
    violations = viewfilter.STATS["violations"]
    assert viewfilter.render(other, None, None, echo=named) == viewfilter._WITHHELD
    assert viewfilter.STATS["violations"] == violations + 1
    viewfilter.STATS["violations"] = violations  # the stop above was this test's own
