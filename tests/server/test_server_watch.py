"""The watch link (issue 10): a viewer over a whole game never gets a hidden card, never learns
the table's share link, cannot take a seat, and can download the record."""

from __future__ import annotations

import random

import httpx
import pytest
from server_support import Client, ServerThread, create_table, play_randomly, run
from test_server_hidden_cards import check_messages


@pytest.mark.timeout(90)
def test_R26_a_watch_link_viewer_sees_only_public_cards_and_cannot_sit(
    server: ServerThread,
) -> None:
    async def body() -> None:
        rules = {"preset": "standard", "players": 4, "rounds": 2, "jokers": 1}
        table = create_table(server.http, name="Ada", rules=rules)
        table_id = table["table_id"]
        host = await Client(server.ws_url(table_id), "Ada").connect()
        await host.join(token=table["token"])
        info = await host.wait_for(lambda m: m["type"] == "table")
        watch_id = info["watch_id"]
        assert watch_id != table_id and table_id not in watch_id
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        watch_url = server.ws_url(table_id).replace(f"/ws/{table_id}", f"/ws/watch/{watch_id}")
        viewer = await Client(watch_url, "audience").connect()
        refused = await viewer.join(name="Eve")
        assert refused["code"] == "watch_only"
        assert (await viewer.join(token=table["token"]))["code"] == "watch_only"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        await play_randomly([host], random.Random(11))
        await viewer.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] == "game_over")
        response = httpx.get(f"{server.http}/api/watch/{watch_id}/records/1", timeout=10)
        assert response.status_code == 200
        record = response.json()
        await viewer.close()
        assert check_messages(viewer, record) > 10
        leaks = [raw[:200] for raw in viewer.raw if table_id in raw]
        assert not leaks, leaks
        wrong = httpx.get(f"{server.http}/api/watch/{'x' * 24}/records/1", timeout=10)
        assert wrong.status_code == 404

    run(body)
