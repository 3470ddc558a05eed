"""Whole games over real WebSockets: four people, three computer players, a rematch."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from server_support import (
    ServerThread,
    connect_seated,
    create_table,
    norm_action,
    play_randomly,
    record_actions_by_seat,
    run,
)

from cardverse.notation import replay_record


def get_record(server: Any, table_id: str, number: int) -> dict[str, Any]:
    response = httpx.get(f"{server.http}/api/tables/{table_id}/records/{number}", timeout=10)
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


@pytest.mark.timeout(90)
def test_whole_game_of_four_people(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "rounds": 3})
        clients = await connect_seated(server, table, ["Bo", "Cy", "Di"])
        seats = clients[0].messages[-1]
        info = await clients[0].wait_for(
            lambda m: m["type"] == "table" and all(s["connected"] for s in m["seats"])
        )
        assert [s["name"] for s in info["seats"]] == ["Ann", "Bo", "Cy", "Di"]
        assert info["host"] == 0 and info["phase"] == "lobby"
        assert seats is not None
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        for client in clients:
            started = await client.wait_for(
                lambda m: (
                    m["type"] == "state" and any(e["event"] == "game_started" for e in m["events"])
                )
            )
            assert started["view"]["seat"] == client.seat
            assert len(started["view"]["hand"]) == 13
        await play_randomly(clients, random.Random(4))
        finals = [client.last_state() for client in clients]
        for final in finals:
            assert final is not None
            assert final["view"]["phase"] == "game_over"
            assert final["events"][-1]["event"] == "game_over"
        events = [e["event"] for m in clients[1].states() for e in m["events"]]
        assert events.count("round_over") == 3
        assert events.count("round_started") == 3
        assert events.count("game_over") == 1
        assert {"played", "passed", "trick_ended", "went_out", "exchange", "gift"} <= set(events)
        # The record replays through the engine to the same points; every acknowledged action
        # of every person is in it, in order.
        record = get_record(server, table["table_id"], 1)
        replay = replay_record(record)
        assert replay.game.over
        assert replay.game.points == finals[0]["view"]["points"]  # type: ignore[index]
        by_seat = record_actions_by_seat(record)
        for client in clients:
            sent = [norm_action(a) for a in client.acked if a["type"] in ("play", "pass", "give")]
            assert sent == by_seat[client.seat or 0]
        over = await clients[2].wait_for(lambda m: m["type"] == "table" and m["phase"] == "over")
        assert over["records"] == [1]
        for client in clients:
            await client.close()

    run(body)


@pytest.mark.timeout(90)
def test_game_with_three_computer_players(make_server: Any) -> None:
    server = make_server(bot_processes=1, hard_time_limit=0.05)

    async def body() -> None:
        table = create_table(server.http, rules={"preset": "cardverse", "rounds": 2})
        (host,) = await connect_seated(server, table, [])
        for seat, level in ((1, "easy"), (2, "normal"), (3, "hard")):
            reply = await host.request({"type": "add_bot", "level": level, "seat": seat})
            assert reply["type"] == "ack", reply
        info = await host.wait_for(
            lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["seats"])
        )
        assert [s["level"] for s in info["seats"]] == [None, "easy", "normal", "hard"]
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await play_randomly([host], random.Random(7))
        record = get_record(server, table["table_id"], 1)
        assert [p.get("ai") for p in record["players"]] == [None, "easy", "normal", "hard"]
        replay = replay_record(record)  # every computer player's move was legal
        assert replay.game.over
        by_seat = record_actions_by_seat(record)
        assert all(by_seat[seat] for seat in (1, 2, 3))
        played_by = {
            e["seat"] for m in host.states() for e in m["events"] if e["event"] == "played"
        }
        assert {1, 2, 3} <= played_by
        await host.close()

    run(body)


@pytest.mark.timeout(90)
def test_rematch_keeps_seats_and_options(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        clients = await connect_seated(server, table, ["Bo"])
        host = clients[0]
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        early = await host.request({"type": "rematch"})
        assert early["code"] == "game_not_over"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await play_randomly(clients, random.Random(11))
        refused = await clients[1].request({"type": "rematch"})
        assert refused["code"] == "not_host"
        mark = [len(c.messages) for c in clients]
        assert (await host.request({"type": "rematch"}))["type"] == "ack"
        for client, start in zip(clients, mark, strict=True):
            state = await client.wait_for(
                lambda m: (
                    m["type"] == "state"
                    and any(e["event"] == "game_started" and e["game"] == 2 for e in m["events"])
                ),
                start=start,
            )
            assert state["view"]["round"] == 1 and state["view"]["phase"] == "play"
            assert state["view"]["points"] == [0, 0, 0]
            assert state["at"]["game"] == 2
        info = await host.wait_for(lambda m: m["type"] == "table" and m["game"] == 2)
        assert [s["name"] for s in info["seats"]][:2] == ["Ann", "Bo"]
        assert info["rules"]["players"] == 3 and info["records"] == [1]
        await play_randomly(clients, random.Random(12))
        assert get_record(server, table["table_id"], 2)["rules"]["players"] == 3
        for client in clients:
            await client.close()

    run(body)
