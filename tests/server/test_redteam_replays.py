"""Red team, slow replay uploads (issue 28, item 3): a record is received before a replay slot
is taken, so clients that trickle their records in hold no slot and block nobody's replays."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import time

import httpx
import pytest
from redteam_support import under_probe
from server_support import ServerThread, run

from cardverse.engine import Game, rules_from_dict
from cardverse.notation import record_to_json
from cardverse.web.replay import READ_SECONDS


def _finished_game_record(seed: int) -> bytes:
    game = Game(rules_from_dict({"preset": "standard", "players": 3, "rounds": 1}), seed=seed)
    chooser = random.Random(seed)
    while not game.over:
        if game.phase.value == "round_over":
            game.start_next_round()
        else:
            game.apply(chooser.choice(game.legal_moves()), game.turn)
    return json.dumps(record_to_json(game)).encode()


def _trickle(port: int, address: str, until: float) -> int:
    """Send records a byte at a time (reconnecting whenever the server cuts one off) until
    ``until``; how many uploads the server cut off."""
    cut = 0
    while time.monotonic() < until:
        sock = socket.create_connection(
            ("127.0.0.1", port), timeout=30, source_address=(address, 0)
        )
        try:
            sock.sendall(
                b"POST /replay/read HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
            )
            sock.setblocking(False)
            while time.monotonic() < until:
                try:
                    if sock.recv(4096) == b"":
                        break
                    cut += 1  # answered (408): the connection closes next
                except BlockingIOError:
                    pass
                with contextlib.suppress(BlockingIOError):
                    sock.send(b" ")
                time.sleep(0.2)
        except OSError:
            pass
        finally:
            sock.close()
    return cut


@pytest.mark.timeout(90)
def test_slow_uploads_do_not_block_other_replays(server: ServerThread) -> None:
    # Before: the two trickling uploads held both replay slots, and every replay asked for
    # meanwhile was refused (429).
    record = _finished_game_record(11)
    duration = READ_SECONDS + 4  # past one cut-off of the slow uploads, and their reconnection

    async def attack() -> tuple[list[int], int]:
        until = time.monotonic() + duration
        slow = [
            asyncio.create_task(asyncio.to_thread(_trickle, server.port, f"127.0.30.{n}", until))
            for n in (1, 2)
        ]
        await asyncio.sleep(1.0)  # both uploads have begun
        statuses = []
        n = 0
        while time.monotonic() < until - 0.5:
            n += 1
            transport = httpx.AsyncHTTPTransport(local_address=f"127.0.31.{n}")
            async with httpx.AsyncClient(transport=transport, timeout=30) as http:
                answer = await http.post(
                    f"{server.http}/replay/read",
                    content=record,
                    headers={"Content-Type": "application/json"},
                )
            statuses.append(answer.status_code)
            if answer.status_code == 200:
                assert answer.json()["over"] is True
            await asyncio.sleep(0.25)
        cut = sum(await asyncio.gather(*slow))
        return statuses, cut

    statuses, cut = run(lambda: under_probe(server, attack), timeout=80)
    assert len(statuses) >= 10, statuses
    assert statuses.count(200) == len(statuses), statuses
    assert cut >= 2  # each slow upload was answered (408) within the time limit
