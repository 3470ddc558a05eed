"""Hints over the wire (issue 10): ``suggest`` answers with the normal computer player's play
from the seat's own view (R26), one decision per change of the game, and the host can turn
hints off for the table."""

from __future__ import annotations

from typing import Any

import pytest
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.bots import make_bot
from cardverse.engine import from_move, player_view


async def _my_turn(client: Client, start: int = 0) -> dict[str, Any]:
    return await client.wait_for(
        lambda m: (
            m["type"] == "state"
            and m["view"]["turn"] == client.seat
            and bool(m["view"]["legal_moves"])
        ),
        timeout=20,
        start=start,
    )


async def _suggest(client: Client) -> dict[str, Any]:
    client.seq += 1
    seq = client.seq
    start = len(client.messages)
    await client.send({"type": "suggest", "seq": seq})
    return await client.wait_for(
        lambda m: m["type"] in ("suggestion", "error") and m.get("seq") == seq, 20, start
    )


@pytest.mark.timeout(90)
def test_R26_suggest_is_the_normal_players_move_from_the_seats_own_view(
    server: ServerThread,
) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 4, "rounds": 1})
        (host,) = await connect_seated(server, table, [])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        state = await _my_turn(host)
        decisions = server.service.bots.decisions
        reply = await _suggest(host)
        assert reply["type"] == "suggestion", reply
        assert reply["v"] == state["v"] and reply["level"] == "normal"
        action = reply["action"]
        legal = [dict(m) for m in state["view"]["legal_moves"]]
        assert action in legal, (action, legal)
        assert set(action.get("cards", [])) <= set(state["view"]["hand"])
        # The same play as the normal computer player makes from this seat's view, with the
        # seed a stand-in for this seat would use now.
        live = server.service.tables[table["table_id"]]
        view = player_view(live.game, host.seat)
        seed = (live.seed * 1_000_003 + live.v * 101 + host.seat) % (1 << 63)
        expected = from_move(make_bot("normal", seed=seed).choose(view)).to_json(with_seat=False)
        assert action == expected
        # Asking again before anything changes: the same answer, no new decision.
        again = await _suggest(host)
        assert again["action"] == action and again["v"] == reply["v"]
        assert server.service.bots.decisions == decisions + 1
        assert not host.invalid

    run(body)


@pytest.mark.timeout(90)
def test_suggest_is_refused_off_turn_for_spectators_and_outside_a_game(
    server: ServerThread,
) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3, "rounds": 1})
        clients = await connect_seated(server, table, ["Bo", "Cy"])
        host = clients[0]
        lobby = await _suggest(host)
        assert lobby["type"] == "error" and lobby["code"] == "no_game", lobby
        assert (await host.request({"type": "start"}))["type"] == "ack"
        # Three people and no computer player: nothing moves until the one on turn acts.
        state = await host.wait_for(lambda m: m["type"] == "state", 20)
        off_turn = next(c for c in clients if c.seat != state["view"]["turn"])
        refused = await _suggest(off_turn)
        assert refused["type"] == "error" and refused["code"] == "nothing_to_suggest", refused
        watcher = await Client(server.ws_url(table["table_id"]), "watcher").connect()
        await watcher.send({"type": "suggest"})
        error = await watcher.wait_for(lambda m: m["type"] == "error")
        assert error["code"] == "token_missing"
        await watcher.send({"type": "suggest", "seq": 1, "extra": True})
        refused_shape = await watcher.wait_for(
            lambda m: m["type"] == "error" and m["code"] == "bad_message"
        )
        assert "suggest" in refused_shape["message"]

    run(body)


@pytest.mark.timeout(90)
def test_the_host_turns_hints_off_and_suggest_is_refused(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3, "rounds": 1})
        host, guest = await connect_seated(server, table, ["Bo"])
        first = await host.wait_for(lambda m: m["type"] == "table")
        assert first["hints"] is True
        refused = await guest.request({"type": "options", "hints": False})
        assert refused["type"] == "error" and refused["code"] == "not_host"
        mark = len(guest.messages)
        assert (await host.request({"type": "options", "hints": False}))["type"] == "ack"
        told = await guest.wait_for(lambda m: m["type"] == "table" and not m["hints"], start=mark)
        assert told["rules"] == first["rules"]  # nothing else changed
        assert (await host.request({"type": "add_bot", "level": "normal"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await host.wait_for(lambda m: m["type"] == "state", 20)
        reply = await _suggest(host)
        assert reply["type"] == "error" and reply["code"] == "hints_off", reply
        bad = await host.request({"type": "options", "hints": "no"})
        assert bad["type"] == "error" and bad["code"] == "bad_message"

    run(body)


def test_the_hints_option_survives_a_restart(tmp_path: Any) -> None:
    from server_support import running

    async def lobby(server: ServerThread) -> str:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        (host,) = await connect_seated(server, table, [])
        assert (await host.request({"type": "options", "hints": False}))["type"] == "ack"
        assert (await host.request({"type": "options", "turn_timer": 30}))["type"] == "ack"
        await host.close()
        return str(table["table_id"])

    with running(tmp_path / "data") as first:
        table_id = run(lambda: lobby(first))
    with running(tmp_path / "data") as second:
        import httpx

        restored = httpx.get(f"{second.http}/api/tables/{table_id}", timeout=10).json()
        assert restored["hints"] is False and restored["turn_timer"] == 30
