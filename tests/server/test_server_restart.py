"""Nothing accepted is lost: a real server process killed with SIGKILL and started again."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import httpx
import pytest
from server_support import (
    Client,
    ServerProcess,
    norm_action,
    play_randomly,
    record_actions_by_seat,
    run,
)

from cardverse.notation import replay_record

FAST_FLAGS = (
    "--turn-timer",
    "off",
    "--grace",
    "off",
    "--bot-delay",
    "0",
    "--round-pause",
    "0",
    "--bot-processes",
    "0",
)


OPERATOR = {"CARDVERSE_OPERATOR_TOKEN": "operator-token-for-the-test"}


def _durability(server: ServerProcess) -> dict[str, object]:
    answer = httpx.get(
        f"{server.http}/api/operator",
        headers={"Authorization": "Bearer " + OPERATOR["CARDVERSE_OPERATOR_TOKEN"]},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    durability: dict[str, object] = answer.json()["durability"]
    return durability


@pytest.mark.timeout(120)
def test_restart_after_sigkill_loses_nothing_accepted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = ServerProcess(data, *FAST_FLAGS, env=OPERATOR).start()
    second: ServerProcess | None = None
    # Acknowledged means durable by default: FULL, with group commit (no flag given).
    assert _durability(first) == {"synchronous": "FULL", "group_commit": True}
    try:
        created = httpx.post(f"{first.http}/api/tables", json={"name": "Ann"}, timeout=10).json()
        table_id = created["table_id"]

        async def before_kill() -> list[Client]:
            host = await Client(first.ws_url(table_id), "seat0").connect()
            await host.join(token=created["token"])
            clients = [host]
            for name in ("Bo", "Cy"):
                client = await Client(first.ws_url(table_id), name).connect()
                await client.join(name=name)
                clients.append(client)
            # Lobby changes are in the log too.
            assert (await host.request({"type": "options", "rules": {"rounds": 2}}))[
                "type"
            ] == "ack"
            assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
            assert (await host.request({"type": "start"}))["type"] == "ack"

            def far_enough() -> bool:
                state = host.last_state()
                return state is not None and state["at"]["round"] == 2 and state["at"]["step"] >= 6

            await play_randomly(clients, random.Random(21), until=far_enough)
            await asyncio.sleep(0.1)  # let every seat receive the last state
            return clients

        clients = run(before_kill)
        first.kill()  # SIGKILL: no shutdown code runs
        assert first.proc is not None and first.proc.returncode == -9
        second = ServerProcess(data, *FAST_FLAGS).start()
        server2 = second

        async def after_restart() -> None:
            info = httpx.get(f"{server2.http}/api/tables/{table_id}", timeout=10).json()
            assert info["phase"] == "playing" and info["rules"]["rounds"] == 2
            assert [s["kind"] for s in info["seats"]] == ["human", "human", "human", "bot"]
            assert not any(s["connected"] for s in info["seats"][:3])
            again: list[Client] = []
            for old in clients:
                client = await Client(server2.ws_url(table_id), old.label).connect()
                welcome = await client.join(token=old.token)
                assert welcome["type"] == "welcome" and welcome["seat"] == old.seat
                assert welcome["last_seq"] == old.seq  # every acknowledged message is known
                state = await client.wait_for(lambda m: m["type"] == "state")
                before = old.last_state()
                assert before is not None
                assert state["view"] == before["view"] and state["at"] == before["at"]
                client.acked = list(old.acked)
                again.append(client)
            # A message sent again after the restart with its old seq is answered, not applied.
            last = max(again, key=lambda c: len(c.acked))
            repeat = dict(last.acked[-1])
            mark = len(last.messages)
            await last.send(repeat)
            reply = await last.wait_for(
                lambda m: m["type"] in ("ack", "error") and m.get("seq") == repeat["seq"],
                start=mark,
            )
            assert reply == {"type": "ack", "seq": repeat["seq"], "duplicate": True}
            await play_randomly(again, random.Random(22))
            record = httpx.get(f"{server2.http}/api/tables/{table_id}/records/1", timeout=10).json()
            assert replay_record(record).game.over
            by_seat = record_actions_by_seat(record)
            for client in again:
                sent = [
                    norm_action(a) for a in client.acked if a["type"] in ("play", "pass", "give")
                ]
                assert sent == by_seat[client.seat or 0]
            for client in again:
                await client.close()

        run(after_restart)
    finally:
        first.kill()
        if second is not None:
            second.stop()


def test_serve_help_says_full_durability_by_default() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "cardverse", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "FULL (default)" in out and "group (default)" in out
    for flag in ("--outbox-bytes", "--max-watchers", "--create-per-minute", "--idle-unload"):
        assert flag in out
