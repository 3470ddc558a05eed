"""Red team, deeply nested messages (issue 28, item 4): nesting is bounded before anything walks
a message (``bad_message``), the walks keep their own stack, and an unexpected failure is an
``internal`` error frame plus one log line, never a traceback per message."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import websockets
from cluster_support import Cluster
from server_support import ServerProcess, create_table, run

from cardverse.server import protocol as P
from cardverse.server.failures import log_failure

# The message of the issue: 928 bytes, 450 arrays deep.
DEEP = '{"type":"ping","x":' + "[" * 450 + '"\\u0041"' + "]" * 450 + "}"


def test_nesting_is_bounded_before_any_walk() -> None:
    assert len(DEEP) == 928
    with pytest.raises(P.ProtocolError) as refused:
        P.parse_client_message(DEEP)
    assert refused.value.code == "bad_message"
    assert "16 deep" in refused.value.message and refused.value.params["limit"] == 16
    # As deep as allowed is read; brackets inside strings do not count.
    allowed = '{"type":"options","seq":1,"rules":{"x":' + "[" * 14 + "1" + "]" * 14 + "}}"
    assert P.nesting_depth(allowed) == 16
    assert P.parse_client_message(allowed).type == "options"
    with pytest.raises(P.ProtocolError, match="17 deep"):
        P.parse_client_message(allowed.replace("[1]", "[[1]]"))
    quoted = json.dumps({"type": "join", "name": "[" * 20 + "{" * 20})
    assert P.nesting_depth(quoted) == 1
    assert P.parse_client_message(quoted).type == "join"


def test_the_surrogate_walk_keeps_its_own_stack() -> None:
    deep: object = "\ud800"
    for _ in range(100_000):  # far past Python's recursion limit
        deep = [deep]
    assert P._has_surrogate({"x": deep})
    clean: object = "A"
    for _ in range(100_000):
        clean = {"k": clean}
    assert not P._has_surrogate(clean)


def test_an_unexpected_failure_logs_one_line_and_its_traceback_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logging.getLogger("cardverse.test.failures")

    def fail() -> None:
        raise LookupError("a failure " + "x" * 1000)

    with caplog.at_level(logging.ERROR, logger="cardverse.test.failures"):
        for _ in range(50):
            try:
                fail()
            except LookupError as error:
                log_failure(log, "handling a test message", error)
    records = caplog.records
    assert len(records) == 50
    assert records[0].exc_info is not None  # the first time: where it failed
    assert all(r.exc_info is None for r in records[1:])
    assert "50 times" in records[-1].getMessage()
    assert all(len(r.getMessage()) < 400 for r in records)  # the text is cut short


@pytest.mark.timeout(120)
def test_a_flood_of_deep_messages_is_answered_and_the_log_stays_small(tmp_path: Path) -> None:
    # Before: each message crashed its connection's handler (closed 1000, no error) and logged
    # a traceback of about 117 KB: these 20 connections of 10 messages each grew it by 2.3 MB
    # (each connection died at its first message). After: 0 bytes.
    log_path = tmp_path / "server.log"
    server = ServerProcess(
        tmp_path / "data", "--rate-limit", "1000", "--burst", "1000", log_path=log_path
    ).start()
    try:
        table = create_table(server.http)
        before = log_path.stat().st_size

        async def flood() -> list[str]:
            codes: list[str] = []
            for _ in range(20):
                async with websockets.connect(
                    server.ws_url(table["table_id"]), compression=None
                ) as ws:
                    for _ in range(10):
                        await ws.send(DEEP)
                    await ws.send(json.dumps({"type": "ping"}))
                    while True:
                        try:
                            reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        except websockets.ConnectionClosed:
                            codes.append("closed")
                            break
                        if reply["type"] == "error":
                            codes.append(reply["code"])
                        elif reply["type"] == "pong":
                            codes.append("pong")
                            break
            return codes

        codes = run(flood, timeout=100)
        grown = log_path.stat().st_size - before
    finally:
        server.stop()
    assert codes.count("bad_message") == 200 and "closed" not in codes, codes[:12]
    assert codes.count("pong") == 20  # each connection still open after its ten
    assert grown < 16 * 1024, f"the log grew by {grown} bytes"


@pytest.mark.timeout(120)
def test_a_socket_linked_to_another_process_is_answered_too(
    tmp_path: Path, pg_dsn: str, redis_server: Any
) -> None:
    # Before: the owner's handling of a linked socket's message raised, the envelope was
    # dropped with a traceback in the owner's log, and the client heard nothing: 0 of 50
    # answered, 6,023,523 bytes of log on the owner (and the card-like type got internal).
    cluster = Cluster(tmp_path, pg_dsn, redis_server.url).start(2)
    try:
        owner, edge = cluster.procs
        table = create_table(owner.http)
        owner_log = tmp_path / "node1.log"
        before = owner_log.stat().st_size

        async def linked() -> list[str]:
            got: list[str] = []
            async with websockets.connect(edge.ws_url(table["table_id"]), compression=None) as ws:
                for _ in range(50):
                    await ws.send(DEEP)
                await ws.send('{"type":"AS"}')  # a card-like type is answered too (item 6)
                await ws.send(json.dumps({"type": "ping"}))
                while not got or got[-1] != "pong":
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if reply["type"] in ("error", "pong"):
                        got.append(reply.get("code", reply["type"]))
            return got

        got = run(linked, timeout=90)
        grown = owner_log.stat().st_size - before
    finally:
        cluster.close()
    assert got == ["bad_message"] * 50 + ["unknown_type", "pong"], got
    assert grown < 16 * 1024, f"the owner's log grew by {grown} bytes"
