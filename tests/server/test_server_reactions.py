"""Quick reactions over the wire (issue 10): a seated person's reaction reaches everyone at the
table (spectators and watch links too) and holds no card; spectators may not send one; only the
fixed set is accepted; a seat is rate-limited."""

from __future__ import annotations

import types
from typing import Any

import pytest
from server_support import Client, ServerThread, connect_seated, create_table, run

from cardverse.server import reactions


async def _react(client: Client, reaction: str) -> None:
    await client.send({"type": "react", "reaction": reaction})


def _reactions(client: Client, start: int = 0) -> list[dict[str, Any]]:
    return [m for m in client.messages[start:] if m["type"] == "reaction"]


@pytest.mark.timeout(60)
def test_a_reaction_reaches_everyone_and_spectators_may_not_send(server: ServerThread) -> None:
    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        host, guest = await connect_seated(server, table, ["Bo"])
        assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        spectator = await Client(server.ws_url(table["table_id"]), "spectator").connect()
        watch_id = server.service.tables[table["table_id"]].watch_id
        watch_url = f"ws://127.0.0.1:{server.port}/ws/watch/{watch_id}"
        audience = await Client(watch_url, "audience").connect()
        await _react(guest, "well_played")
        for client in (host, guest, spectator, audience):
            told = await client.wait_for(lambda m: m["type"] == "reaction")
            assert told == {"type": "reaction", "seat": guest.seat, "reaction": "well_played"}
        raw = [r for c in (host, spectator) for r in c.raw if '"reaction"' in r]
        assert raw and not any('"cards"' in r for r in raw)
        for watcher in (spectator, audience):
            mark = len(watcher.messages)
            await _react(watcher, "clap")
            refused = await watcher.wait_for(lambda m: m["type"] == "error", start=mark)
            assert refused["code"] == "watchers_cannot_react"
        mark = len(host.messages)
        await host.send({"type": "react", "reaction": "You are all terrible"})
        bad = await host.wait_for(lambda m: m["type"] == "error", start=mark)
        assert bad["code"] == "bad_message" and "reaction" in bad["params"]["field"]
        assert len(_reactions(host)) == 1  # neither the spectators' nor the free text went out

    run(body)


@pytest.mark.timeout(60)
def test_reactions_are_rate_limited_per_seat(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = {"now": 1000.0}
    monkeypatch.setattr(reactions, "time", types.SimpleNamespace(monotonic=lambda: clock["now"]))

    async def body() -> None:
        table = create_table(server.http, rules={"preset": "standard", "players": 3})
        host, guest = await connect_seated(server, table, ["Bo"])
        mark = len(guest.messages)
        host_mark = len(host.messages)
        for _ in range(5):
            await _react(host, "hurry_up")

        def errors() -> list[dict[str, Any]]:
            return [m for m in host.messages[host_mark:] if m["type"] == "error"]

        await host.wait_for(lambda m: len(errors()) >= 2, start=host_mark)
        errors_seen = errors()
        assert [e["code"] for e in errors_seen] == ["reaction_rate_limited"] * 2
        assert 0 < errors_seen[0]["params"]["retry_after"] <= reactions.REACTION_EVERY
        await guest.wait_for(lambda m: len(_reactions(guest, mark)) >= 3, start=mark)
        # A second connection of the same seat shares the limit (it is the seat's).
        second = await Client(server.ws_url(table["table_id"]), "host again").connect()
        await second.join(token=table["token"])
        await _react(second, "clap")
        refused = await second.wait_for(lambda m: m["type"] == "error")
        assert refused["code"] == "reaction_rate_limited"
        # Time passes: one more is allowed, then the limit again.
        clock["now"] += reactions.REACTION_EVERY
        await _react(second, "good_game")
        await guest.wait_for(lambda m: m["type"] == "reaction" and m["reaction"] == "good_game")
        told = [m["reaction"] for m in _reactions(guest, mark)]
        assert told == ["hurry_up"] * 3 + ["good_game"]

    run(body)
