"""The story the server keeps for the page (cardverse/tabletalk/story.py), with real WebSocket
clients: the final standings' titles follow the totals (R21, R22), the score sheet, the turn
deadline on the server's clock, and what the stand-in computer player did while a person was
away, which names no card the person may not see (R26)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
from server_support import Client, create_table, run
from test_server_hidden_cards import check_messages

from cardverse.server.viewfilter import STATS
from cardverse.tabletalk.story import final_titles


def test_R22_final_places_and_titles_follow_the_totals_and_ties_share() -> None:
    places, titles = final_titles([10, 10, 5, 3])
    assert places == [0, 0, 2, 3]
    assert titles == {"0": "president", "1": "president", "2": "vice_scum", "3": "scum"}
    places, titles = final_titles([4, 9, 6])
    assert places == [2, 0, 1]
    assert titles == {"0": "scum", "1": "president", "2": "citizen"}


def test_R26_the_away_list_after_a_whole_game_played_by_the_computer(make_server: Any) -> None:
    """A person leaves at once; the computer plays the whole game for them; back with the
    token, they get every action it took, with cards only for the last round's."""
    server = make_server(grace=0.05, turn_timer=30.0)
    violations = STATS["violations"]

    async def body() -> None:
        rules = {"preset": "standard", "players": 3, "rounds": 2}
        table = create_table(server.http, name="Ada", rules=rules)
        url = server.ws_url(table["table_id"])
        host = await Client(url, "Ada").connect()
        hello = await host.wait_for(lambda m: m["type"] == "hello")
        assert abs(hello["server_time"] - time.time() * 1000) < 5000
        await host.join(token=table["token"])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        first = await host.wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        if first["timer"] is not None:  # my turn first: the deadline is on the server's clock
            left = first["timer"]["deadline"] - time.time() * 1000
            assert 25_000 < left <= 30_500
        await host.close()
        deadline = time.monotonic() + 60
        while httpx.get(f"{server.http}/api/tables/{table['table_id']}").json()["phase"] != "over":
            assert time.monotonic() < deadline, "the computer did not finish the game"
            time.sleep(0.05)
        back = await Client(url, "Ada again").connect()
        assert (await back.join(token=table["token"]))["type"] == "welcome"
        state = await back.wait_for(
            lambda m: m["type"] == "state" and m["view"]["seat"] is not None
        )
        away = state["away"]
        assert {entry["round"] for entry in away} == {1, 2}
        for entry in away:
            if entry["action"] == "pass":
                assert "cards" not in entry and "count" not in entry
            elif entry["round"] == 1:
                assert "cards" not in entry and entry["count"] >= 1
            else:
                assert len(entry["cards"]) == entry["count"]
        assert state["log"][0]["event"] == "round_started"
        assert state["log"][-1]["event"] == "game_over"
        score = state["score"]
        assert len(score["rounds"]) == 2
        assert score["totals"] == [sum(points) for points in zip(*score["rounds"], strict=True)]
        places, titles = final_titles(score["totals"])
        assert score["standings"] == places and score["titles"] == titles
        # asking again: the list was given once
        await back.send({"type": "sync"})
        again = await back.wait_for(
            lambda m: m["type"] == "state", start=back.messages.index(state) + 1
        )
        assert "away" not in again and again["log"] == state["log"]
        record = httpx.get(f"{server.http}/api/tables/{table['table_id']}/records/1").json()
        await back.close()
        check_messages(back, record)

    run(body)
    assert STATS["violations"] == violations


def test_the_rounds_log_reads_back_what_was_added_across_its_compressed_pieces() -> None:
    """The round's log (sent again with a full state) keeps the events since the round began,
    the game's start before round 1, whichever of them are compressed."""
    from cardverse.server.table.state import RoundLog

    log = RoundLog()
    start = [{"event": "game_started", "game": 1}, {"event": "round_started", "round": 1}]
    plays = [{"event": "played", "seat": n % 4, "cards": [f"{3 + n % 10}S"]} for n in range(90)]
    texts = log.add(start)
    for play in plays:
        texts += log.add([play])
    assert [json.loads(text) for text in texts] == start + plays
    assert log.events == start + plays and log._pieces  # several pieces by now
    second = [{"event": "round_started", "round": 2}, *plays[:3]]
    log.add(second)
    assert log.events == second  # a new round: the game's start is no longer told
    third = [{"event": "game_started", "game": 2}, {"event": "round_started", "round": 1}]
    log.add(third[:1])
    log.add(third[1:])
    assert log.events == third
