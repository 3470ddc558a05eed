"""Red team, process lifetimes: no process a server started outlives it, however it is killed.

Every process a test starts carries a tag of its own in its environment (inherited by all it
starts in turn), so the test finds them all in /proc, whoever their parent is now; whatever a
failing run leaves behind is killed at the end of the test."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import Client, ServerProcess, create_table, play_randomly, run

from cardverse.server.lifeline import Lifeline, watch

TAG = "CARDVERSE_REDTEAM_TAG"
GONE_WITHIN = 30.0  # seconds; the fix ends them within about one (a loaded machine: more)


def _tagged(tag: str) -> dict[int, str]:
    """The live processes (not zombies) whose environment holds ``tag``: pid -> command."""
    found: dict[int, str] = {}
    needle = f"{TAG}={tag}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                state = stat.read().rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if needle not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if state != b"Z":
            found[int(entry)] = command
    return found


def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting until {what}")
        time.sleep(0.05)


def _kill_left(tag: str) -> None:
    """Clean up after a failing run: the tagged processes still there are killed."""
    for pid in _tagged(tag):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _new_tag() -> str:
    return f"{os.getpid()}-{uuid.uuid4().hex}"


async def _play_until_the_pool_runs(server: ServerProcess, tag: str) -> None:
    """A game against a hard computer player, played until its worker pool is up (the fork
    server, one worker forked from it, and the resource tracker)."""
    table = create_table(server.http)
    host = await Client(server.ws_url(table["table_id"]), "host").connect()
    try:
        assert (await host.join(token=table["token"]))["type"] == "welcome"
        assert (await host.request({"type": "add_bot", "level": "hard"}))["type"] == "ack"
        assert (await host.request({"type": "start"}))["type"] == "ack"
        deadline = time.monotonic() + 90

        def pool_up() -> bool:
            assert time.monotonic() < deadline, f"no worker pool: {_tagged(tag)}"
            return len(_helpers(_tagged(tag))) >= 3

        await play_randomly([host], random.Random(7), until=pool_up, timeout=100)
    finally:
        await host.close()


def _helpers(processes: dict[int, str]) -> dict[int, str]:
    return {pid: cmd for pid, cmd in processes.items() if "multiprocessing" in cmd}


@pytest.mark.timeout(400)
def test_a_killed_server_leaves_no_hard_player_process(tmp_path: Path) -> None:
    """Issue 28, item 2: each SIGKILL of a server left its fork server, its worker and its
    resource tracker running (3 processes, about 66 MiB); now they end with it."""
    kills = 3
    left: dict[int, str] = {}
    for kill in range(kills):
        tag = _new_tag()
        server = ServerProcess(
            tmp_path / f"data{kill}",
            "--bot-processes",
            "1",
            "--hard-time-limit",
            "0.05",
            "--bot-delay",
            "0",
            "--turn-timer",
            "off",
            "--grace",
            "off",
            env={TAG: tag},
        ).start()
        try:
            run(lambda: _play_until_the_pool_runs(server, tag), timeout=120)  # noqa: B023
            helpers = _helpers(_tagged(tag))
            assert any("forkserver" in cmd for cmd in helpers.values()), helpers
            assert any("resource_tracker" in cmd for cmd in helpers.values()), helpers
            server.kill()
            try:
                _wait_for(lambda: not _tagged(tag), GONE_WITHIN, "the server's helpers are gone")  # noqa: B023
            except AssertionError:
                left.update(_tagged(tag))
        finally:
            server.kill()
            _kill_left(tag)
    assert not left, f"after {kills} kills, {len(left)} processes were left: {left}"


@pytest.mark.timeout(300)
def test_killing_the_workers_parent_ends_its_workers_and_frees_the_port(
    tmp_path: Path, pg_dsn: str, redis_server: Any
) -> None:
    """Issue 28, item 8: a SIGKILL of ``cardverse serve --workers 2`` left both workers serving
    unsupervised, and the next ``cardverse serve --workers 2`` on that port failed with
    "Address already in use"; now the workers end with their parent and the port is free."""
    from cluster_support import FAST_ARGS

    cluster = ("--workers", "2", "--database", pg_dsn, "--redis", redis_server.url, *FAST_ARGS)
    tag = _new_tag()
    first = ServerProcess(
        tmp_path / "first", *cluster, env={TAG: tag}, log_path=tmp_path / "first.log"
    ).start()
    second: ServerProcess | None = None
    try:
        assert first.proc is not None
        parent = first.proc.pid
        _wait_for(lambda: len(_tagged(tag)) >= 3, 60, "the parent and its two workers run")
        workers = set(_tagged(tag)) - {parent}
        first.kill()
        _wait_for(
            lambda: not (workers & set(_tagged(tag))),
            GONE_WITHIN,
            f"the orphaned workers {sorted(workers)} are gone",
        )
        second = ServerProcess(
            tmp_path / "second",
            *cluster,
            "--port",
            str(first.port),
            env={TAG: tag},
            log_path=tmp_path / "second.log",
        ).start()
        assert second.port == first.port
        health = httpx.get(f"{second.http}/api/health", timeout=10)
        assert health.status_code == 200
    finally:
        first.kill()
        if second is not None:
            second.stop()
        _kill_left(tag)


def test_a_forked_child_drops_the_writing_end_and_ends_when_the_lifeline_is_cut() -> None:
    """A child that kept its copy of the writing end would keep its own lifeline alive and
    never see it cut: :meth:`Lifeline.forked` lets go of it."""
    lifeline = Lifeline()
    pid = os.fork()
    if pid == 0:  # the child: ends with code 0 only through its watch
        try:
            watch(lifeline.forked(), lambda: os._exit(0))
            threading.Event().wait(60)
        finally:
            os._exit(3)
    lifeline.close()
    ended: list[int] = []

    def reaped() -> bool:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            ended.append(os.waitstatus_to_exitcode(status))
        return bool(done)

    try:
        _wait_for(reaped, GONE_WITHIN, "the child saw its lifeline cut")
    finally:
        if not ended:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert ended == [0]
