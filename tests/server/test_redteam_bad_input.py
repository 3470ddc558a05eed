"""Red team, bad input: sizes checked before any work, every bad input a 4xx (or a protocol
error) that says what was wrong, nothing changed, and the server responsive meanwhile."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from redteam_support import snapshot, tables_besides_probes, under_probe
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.notation import NotationError, read_position
from cardverse.server.protocol import MAX_SEQ
from cardverse.server.tables import Table


def _position(hidden: Any) -> dict[str, Any]:
    return {
        "rules": {"preset": "standard", "players": 3},
        "hands": [["3C", "4D"], {"count": hidden}, {"count": 5}],
        "turn": 0,
    }


def test_hidden_hand_count_is_bounded_before_anything_is_built() -> None:
    # A count of 2**40 used to build a 2**40-bit placeholder before the deck check.
    for count in (2**40, 10**30, 53):
        with pytest.raises(NotationError, match="more cards than the deck"):
            read_position(_position(count))
    with pytest.raises(NotationError, match="hidden hand"):
        read_position(_position(-1))
    with pytest.raises(NotationError, match="more cards than the deck"):
        read_position(_position(50))  # 2 + 50 + 5 > 52
    assert read_position(_position(7)).counts == [2, 7, 5]


@pytest.mark.timeout(60)
def test_huge_hidden_count_is_refused_at_once_and_the_server_stays_responsive(
    server: ServerThread,
) -> None:
    async def attack() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            answers = []
            for count in (2**33, 2**62, 10**40):
                body = {"position": _position(count), "action": {"action": "play", "cards": ["3C"]}}
                answers.append(await http.post("/i18n/refusal", json=body))
            return answers

    answers = run(lambda: under_probe(server, attack))
    for answer in answers:
        assert answer.status_code == 400, answer.text
        data = answer.json()
        assert data["legal"] is None and "more cards than the deck" in data["error"]
        assert data["text"]  # the unknown-refusal sentence, translated


@pytest.mark.timeout(60)
def test_bad_http_input_is_a_4xx_with_a_clear_message(server: ServerThread) -> None:
    huge_number = "9" * 5000

    async def attack() -> list[tuple[httpx.Response, int, str]]:
        cases: list[tuple[str, str, dict[str, Any], int, str]] = [
            ("post", "/api/tables", {"json": {"name": "A", "rules": {"preset": []}}}, 400, "pre"),
            ("post", "/api/tables", {"json": {"name": "A", "rules": {"preset": {}}}}, 400, "pre"),
            (
                "post",
                "/api/tables",
                {
                    "content": '{"name": "A", "turn_timer": ' + huge_number + "}",
                    "headers": {"content-type": "application/json"},
                },
                400,
                "JSON",
            ),
            ("get", "/i18n/error?code=not_your_turn&params=[1]", {}, 400, "params"),
            ("get", "/i18n/error?code=not_your_turn&names={}", {}, 400, "names"),
            ("get", "/i18n/error?code=x&params=" + huge_number, {}, 400, "params"),
            ("get", '/i18n/error?code=too_few&params={"count":{"a":1}}', {}, 400, "params"),
            ("get", "/i18n/error?code=" + "c" * 100, {}, 400, "code"),
            ("get", '/i18n/error?code=not_your_turn&names=["a",1]', {}, 400, "names"),
            ("post", "/i18n/refusal", {"content": b"\xff\xfe not json"}, 400, "JSON"),
            ("post", "/i18n/refusal", {"json": [1, 2]}, 400, "object"),
        ]
        out = []
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            for method, url, options, status, word in cases:
                answer = await getattr(http, method)(url, **options)
                out.append((answer, status, word))
            # A good query still works, and a count that is not a number reads as one.
            good = await http.get('/i18n/error?code=too_few&params={"count":"x"}')
            out.append((good, 200, "text"))
        return out

    tables_before = tables_besides_probes(server)
    for answer, status, word in run(lambda: under_probe(server, attack)):
        assert answer.status_code == status, (answer.request.url, answer.text)
        assert word.lower() in answer.text.lower(), answer.text
    assert tables_besides_probes(server) == tables_before


@pytest.mark.timeout(60)
def test_bad_websocket_input_is_an_error_not_internal(server: ServerThread) -> None:
    table = create_table(server.http)

    async def attack() -> list[dict[str, Any]]:
        host = await Client(server.ws_url(table["table_id"]), "host").connect()
        await host.join(token=table["token"])
        before = snapshot(server, table["table_id"])
        replies = []
        raw_cases = [
            '{"type": "\\ud800"}',  # a lone surrogate in the type (echoed in the error)
            '{"type": "join", "name": "\\udfff"}',
            '{"type": "options", "seq": 1, "rules": {"preset": []}}',
            '{"type": "options", "seq": 1, "rules": {"preset": {"a": 1}}}',
            '{"type": "ping", "seq": ' + "9" * 4000 + "}",  # parsed, then out of bounds
            '{"type": "ping", "seq": ' + "9" * 4400 + "}",  # over 4300 digits and 4096 bytes
            '{"type": "pass", "seq": ' + str(MAX_SEQ + 1) + "}",
        ]
        for raw in raw_cases:
            mark = len(host.messages)
            await host.send_raw(raw)
            replies.append(await host.wait_for(lambda m: m["type"] == "error", 5, mark))
        mark = len(host.messages)
        await host.send({"type": "ping", "seq": 5})
        await host.wait_for(lambda m: m["type"] == "pong", 5, mark)  # still open
        assert snapshot(server, table["table_id"]) == before
        await host.close()
        return replies

    replies = run(lambda: under_probe(server, attack))
    codes = [reply["code"] for reply in replies]
    assert codes == [
        "bad_json",
        "bad_json",
        "unknown_preset",
        "unknown_preset",
        "bad_message",
        "message_too_large",
        "bad_message",
    ], replies
    assert "surrogate" in replies[0]["message"]


@pytest.mark.timeout(60)
def test_seq_is_bounded_and_a_seat_resets_it_on_rejoin(server: ServerThread) -> None:
    table = create_table(server.http, rules={"preset": "standard", "players": 3})

    async def body() -> None:
        host, bo = await connect_seated(server, table, ["Bo"])
        host.seq = MAX_SEQ - 1
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert server.service.tables[table["table_id"]].seats[0].last_seq == MAX_SEQ
        # Every further seq is a duplicate or out of bounds: the seat is stuck ...
        stuck = await host.request({"type": "remove_bot", "seat": 2})
        assert stuck["type"] == "error" and stuck["code"] == "bad_message"
        # ... until it joins again with reset_seq.
        await host.close()
        again = await Client(server.ws_url(table["table_id"]), "again").connect()
        welcome = await again.join(token=table["token"], reset_seq=True)
        assert welcome["type"] == "welcome" and welcome["last_seq"] == 0
        again.seq = 0
        reply = await again.request({"type": "remove_bot", "seat": 2})
        assert reply == {"type": "ack", "seq": 1, "duplicate": False}
        # The reset is in the log: a restored table has it too.
        service = server.service
        table_id = table["table_id"]
        restored = Table.restore(service, table_id, service.store.events(table_id))
        assert restored.seats[0].last_seq == 1
        await again.close()
        await bo.close()

    run(body)


def test_hello_tells_the_seq_bound(server: ServerThread) -> None:
    table = create_table(server.http)

    async def body() -> None:
        client = await Client(server.ws_url(table["table_id"])).connect()
        hello = next(m for m in client.messages if m["type"] == "hello")
        assert hello["limits"]["max_seq"] == MAX_SEQ
        await client.close()

    run(body)
    assert json.dumps(MAX_SEQ) == "2147483647"
