"""Reconnection with the seat token, the latest tab wins, turn timer and disconnection takeover."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from server_support import Client, ServerThread, connect_seated, create_table, play_randomly, run


def _step(client: Client) -> int:
    state = client.last_state()
    return -1 if state is None else int(state["at"]["step"])


@pytest.mark.timeout(90)
def test_reconnection_gives_the_seat_back_with_its_full_view(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "rounds": 2})
        clients = await connect_seated(server, table, ["Bo", "Cy", "Di"])
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        rng = random.Random(3)
        await play_randomly(clients, rng, until=lambda: _step(clients[0]) >= 10)
        await asyncio.sleep(0.05)
        leaving = clients[2]
        token, seq, seat = leaving.token, leaving.seq, leaving.seat
        before = leaving.last_state()
        assert before is not None
        mark = len(clients[0].messages)
        await leaving.close()
        gone = await clients[0].wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == seat, start=mark
        )
        assert gone["connected"] is False and gone["auto"] is None
        # A wrong token, and a token of another table, do not give the seat.
        back = await Client(server.ws_url(table["table_id"]), "back").connect()
        assert (await back.join(token="not-a-token"))["code"] == "bad_token"
        other = create_table(server.http)
        assert (await back.join(token=other["token"]))["code"] == "bad_token"
        mark = len(clients[0].messages)
        welcome = await back.join(token=token)
        assert welcome["type"] == "welcome" and welcome["resumed"] is True
        assert welcome["seat"] == seat and welcome["last_seq"] == seq and "token" not in welcome
        state = await back.wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        assert state["events"] == []
        assert state["view"] == before["view"]  # nothing happened meanwhile
        assert state["v"] == before["v"]
        returned = await clients[0].wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == seat, start=mark
        )
        assert returned["connected"] is True
        # A second tab with the same token: the latest wins, the older one is told and closed.
        tab = await Client(server.ws_url(table["table_id"]), "tab").connect()
        assert (await tab.join(token=token))["type"] == "welcome"
        replaced = await back.wait_for(lambda m: m["type"] == "replaced")
        assert "newer" in replaced["message"]
        for _ in range(100):
            if back.closed is not None:
                break
            await asyncio.sleep(0.05)
        assert back.closed is not None and back.closed[0] == 4001
        clients[2] = tab
        await play_randomly(clients, rng)
        assert clients[2].last_state()["view"]["phase"] == "game_over"  # type: ignore[index]
        for client in clients:
            await client.close()

    run(body)


@pytest.mark.timeout(90)
def test_turn_timer_runs_out_and_a_computer_player_stands_in(make_server: Any) -> None:
    server = make_server(turn_timer=0.4)

    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        clients = await connect_seated(server, table, ["Bo", "Cy"])
        assert (await clients[0].request({"type": "start"}))["type"] == "ack"
        first = await clients[0].wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        turn = first["view"]["turn"]
        assert first["timer"]["seat"] == turn and 0 < first["timer"]["ends_in"] <= 0.4
        slow = clients[turn]
        # Nobody acts: the timer runs out and a normal computer player plays for that seat.
        auto = await clients[0].wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == turn and m["auto"], timeout=5
        )
        assert auto["auto"] == "timeout" and auto["connected"] is True
        played = await clients[0].wait_for(
            lambda m: (
                m["type"] == "state"
                and any(
                    e["event"] in ("played", "passed") and e["seat"] == turn for e in m["events"]
                )
            ),
            timeout=5,
        )
        assert played["at"]["step"] == 1
        # The person takes the seat back.
        mark = len(clients[0].messages)
        assert (await slow.request({"type": "back"}))["type"] == "ack"
        again = await clients[0].wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == turn, start=mark
        )
        assert again["auto"] is None
        assert (await slow.request({"type": "back"}))["code"] == "not_auto"
        # Everyone stays idle: every seat is taken over in turn and the game still ends.
        final = await clients[0].wait_for(
            lambda m: m["type"] == "state" and m["view"]["phase"] == "game_over", timeout=60
        )
        assert final["view"]["phase"] == "game_over"
        for client in clients:
            await client.close()

    run(body)


@pytest.mark.timeout(90)
def test_disconnected_player_is_stood_in_for_after_the_grace_period(make_server: Any) -> None:
    server = make_server(grace=0.3)

    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        host, guest = await connect_seated(server, table, ["Bo"])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await host.wait_for(lambda m: m["type"] == "state" and m["view"]["seat"] is not None)
        token = guest.token
        await guest.close()
        auto = await host.wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == 1 and m["auto"], timeout=5
        )
        assert auto == {"type": "presence", "seat": 1, "connected": False, "auto": "disconnected"}
        rng = random.Random(5)

        def guest_played() -> bool:
            return any(
                e["event"] in ("played", "passed") and e["seat"] == 1
                for m in host.states()
                for e in m["events"]
            )

        await play_randomly([host], rng, until=lambda: guest_played() or _over(host))
        assert guest_played()
        # Back with the token: the seat is the person's again, with its full view.
        mark = len(host.messages)
        returned = await Client(server.ws_url(table["table_id"]), "guest2").connect()
        assert (await returned.join(token=token))["type"] == "welcome"
        state = await returned.wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        assert state["view"]["seat"] == 1 and "legal_moves" in state["view"]
        presence = await host.wait_for(
            lambda m: m["type"] == "presence" and m["seat"] == 1, start=mark
        )
        assert presence == {"type": "presence", "seat": 1, "connected": True, "auto": None}
        if not _over(host):
            await play_randomly([host, returned], rng)
        assert _over(host)
        await host.close()
        await returned.close()

    run(body)


def _over(client: Client) -> bool:
    state = client.last_state()
    return state is not None and state["view"]["phase"] == "game_over"
