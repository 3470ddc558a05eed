"""Test support: a real uvicorn server (in a thread or a process) and WebSocket clients.

Every wait is bounded: a test that goes wrong fails with a timeout instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from cardverse.application import create_app
from cardverse.server.connections import ConnectionLimits, uvicorn_config
from cardverse.server.sent import SERVER_MESSAGE
from cardverse.server.tables import Settings

FAST = {
    "turn_timer": None,
    "grace": None,
    "bot_delay": 0.0,
    "round_pause": 0.0,
    "hard_time_limit": 0.05,
    "bot_processes": 0,
    "rate_per_second": 1000.0,
    "burst": 1000,
    "create_burst": 1000,  # tests create many tables from 127.0.0.1
}


class ServerThread:
    """A uvicorn server on 127.0.0.1 and a free port, run in a background thread."""

    def __init__(
        self, data_dir: Path, limits: ConnectionLimits | None = None, **settings: Any
    ) -> None:
        self.settings = Settings(data_dir=data_dir, **{**FAST, **settings})
        self.app = create_app(settings=self.settings)
        config = uvicorn_config(
            self.app,
            limits or ConnectionLimits(),
            host="127.0.0.1",
            port=0,
            log_level="warning",
            ws_max_size=1 << 18,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.port = 0

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)

    @property
    def service(self) -> Any:
        return self.app.state.service

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{table_id}"


class ServerProcess:
    """``cardverse serve`` as a real process (for the SIGKILL test)."""

    def __init__(
        self,
        data_dir: Path,
        *extra: str,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.log_path = log_path  # where its log goes (else a pipe nobody reads: keep it quiet)
        self.extra = extra
        self.env = env or {}
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> ServerProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cardverse",
                "serve",
                "--port",
                "0",
                "--data-dir",
                str(self.data_dir),
                "--log-level",
                "warning",
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if self.log_path is None else self.log_path.open("ab"),
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = _readline_with_timeout(self.proc, 30)
        if "serving on" not in line:
            self.kill()
            raise RuntimeError(f"server did not start: {line!r}")
        self.port = int(line.split("http://127.0.0.1:")[1].split()[0])
        # Wait until it answers.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http}/api/health", timeout=2).status_code == 200:
                    return self
            time.sleep(0.05)
        raise RuntimeError("server did not answer")

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, table_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{table_id}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def _readline_with_timeout(proc: subprocess.Popen[str], timeout: float) -> str:
    result: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: result.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    return result[0] if result else ""


def create_table(base: str, name: str = "Ann", **body: Any) -> dict[str, Any]:
    response = httpx.post(f"{base}/api/tables", json={"name": name, **body}, timeout=10)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def apply_change(state: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The full state that ``change`` makes of ``state`` (docs/protocol.md, *Changes*), as a
    client builds it: the view's fields replaced, the history continued from ``history_at``."""
    assert change["from"] == state["v"], ("a change that does not follow", state["v"], change)
    view = dict(state["view"])
    delta = dict(change["view"])
    if "history" in delta:
        at = delta.pop("history_at")
        assert at <= len(view["history"]), ("history gap", at, len(view["history"]))
        view["history"] = view["history"][:at] + delta.pop("history")
    assert "history_at" not in delta
    view.update(delta)
    merged = {
        "type": "state",
        "v": change["v"],
        "at": change["at"],
        "view": view,
        "timer": change["timer"],
        "events": change["events"],
        "score": change.get("score") or state["score"],
        "change": True,  # made here from a change message
    }
    return merged


class Client:
    """A real WebSocket client: keeps every message, validates each against the models.

    A ``change`` message is kept as the full ``state`` it makes of the one before (marked
    ``"change": True``; :func:`apply_change`), preceded by the ``ack`` it carries, so tests read
    full states whichever way the server told them; ``raw`` keeps the text as it came (for a
    folded ack, that of the ack itself) and ``wire`` the messages as they came."""

    def __init__(self, url: str, label: str = "") -> None:
        self.url = url
        self.label = label
        self.ws: Any = None
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.wire: list[dict[str, Any]] = []
        self.broken: list[str] = []  # changes that could not be applied
        self.seq = 0
        self.seat: int | None = None
        self.token: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.closed: Any = None  # the close frame's (code, reason) once closed
        self.acked: list[dict[str, Any]] = []  # messages sent and acknowledged
        self.invalid: list[tuple[str, str]] = []  # messages that do not fit the models

    async def connect(self) -> Client:
        self.ws = await asyncio.wait_for(
            websockets.connect(self.url, max_size=1 << 22, compression=None), timeout=10
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await self.wait_for(lambda m: m["type"] == "table", timeout=10)
        return self

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                self.wire.append(message)
                try:
                    SERVER_MESSAGE.validate_python(message)
                except Exception as error:
                    self.invalid.append((text, str(error)))
                if message["type"] in ("state", "change") and "ack" in message:
                    ack = {"type": "ack", "seq": message["ack"], "duplicate": False}
                    self.raw.append(json.dumps(ack))
                    self.messages.append(ack)
                if message["type"] == "change":
                    state = self.last_state()
                    try:
                        assert state is not None, "a change before any state"
                        message = apply_change(state, message)
                    except AssertionError as error:
                        self.broken.append(f"{error}: {text}")
                        self.invalid.append((text, str(error)))
                        continue
                self.raw.append(text)
                self.messages.append(message)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = (self.ws.close_code, self.ws.close_reason)
            self._changed.set()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._reader, timeout=5)

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def wait_for(
        self,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = 10.0,
        start: int = 0,
    ) -> dict[str, Any]:
        """The first message from index ``start`` matching ``predicate``."""
        deadline = time.monotonic() + timeout
        index = start
        while True:
            while index < len(self.messages):
                message = self.messages[index]
                index += 1
                if predicate(message):
                    return message
            if self.invalid:
                raise AssertionError(f"{self.label}: invalid server message {self.invalid[0]}")
            if self.closed is not None:
                raise AssertionError(f"{self.label}: connection closed {self.closed}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                tail = self.messages[-5:]
                raise AssertionError(f"{self.label}: timed out; last messages {tail}")
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout=remaining)

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send with the next seq; return the ack or error answering it."""
        self.seq += 1
        seq = self.seq
        start = len(self.messages)
        await self.send({**message, "seq": seq})
        reply = await self.wait_for(
            lambda m: m["type"] in ("ack", "error") and m.get("seq") == seq, timeout, start
        )
        if reply["type"] == "ack":
            self.acked.append({**message, "seq": seq})
        return reply

    async def join(
        self, name: str | None = None, token: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        start = len(self.messages)
        body: dict[str, Any] = {"type": "join", **extra}
        if name is not None:
            body["name"] = name
        if token is not None:
            body["token"] = token
        await self.send(body)
        reply = await self.wait_for(lambda m: m["type"] in ("welcome", "error"), 10, start)
        if reply["type"] == "welcome":
            self.seat = reply["seat"]
            self.token = reply.get("token") or token
            self.seq = max(self.seq, reply["last_seq"])
        return reply

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "state"]

    def last_state(self) -> dict[str, Any] | None:
        for message in reversed(self.messages):
            if message["type"] == "state":
                return message
        return None


async def connect_seated(server: Any, table: dict[str, Any], names: list[str]) -> list[Client]:
    """The host (table creator) and one client per further name, all seated."""
    host = await Client(server.ws_url(table["table_id"]), "seat0").connect()
    welcome = await host.join(token=table["token"])
    assert welcome["type"] == "welcome", welcome
    clients = [host]
    for index, name in enumerate(names, start=1):
        client = await Client(server.ws_url(table["table_id"]), f"seat{index}").connect()
        reply = await client.join(name=name)
        assert reply["type"] == "welcome", reply
        clients.append(client)
    return clients


def choose_random(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    move = dict(rng.choice(view["legal_moves"]))
    kind = move.pop("action")
    return {"type": kind, **move}


async def play_randomly(
    clients: list[Client],
    rng: random.Random,
    *,
    until: Callable[[], bool] | None = None,
    timeout: float = 60.0,
    max_actions: int = 5000,
) -> int:
    """Every client plays a random legal move whenever its latest state says it is on turn,
    until the game is over (or ``until()``). Returns the number of actions sent."""
    acted: dict[int, int] = {}
    sent = 0
    deadline = time.monotonic() + timeout

    def over() -> bool:
        state = clients[0].last_state()
        return state is not None and state["view"]["phase"] == "game_over"

    while not (until() if until else over()):
        if time.monotonic() > deadline:
            raise AssertionError("the game did not finish in time")
        progressed = False
        for client in clients:
            client._changed.clear()
        for client in clients:
            state = client.last_state()
            if state is None:
                continue
            view = state["view"]
            if view["turn"] != client.seat or not view["legal_moves"]:
                continue
            if acted.get(client.seat or 0, -1) >= state["v"]:
                continue
            acted[client.seat or 0] = state["v"]
            reply = await client.request(choose_random(view, rng))
            assert reply["type"] == "ack", reply
            sent += 1
            progressed = True
            if sent > max_actions:
                raise AssertionError("too many actions")
        if not progressed:
            waits = [asyncio.create_task(c._changed.wait()) for c in clients]
            await asyncio.wait(waits, timeout=0.2, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
    return sent


@contextlib.contextmanager
def running(data_dir: Path, **settings: Any) -> Iterator[ServerThread]:
    with ServerThread(data_dir, **settings) as server:
        yield server


def run(coroutine_function: Callable[[], Awaitable[Any]], timeout: float = 120.0) -> Any:
    """Run an async test body with an overall time limit."""

    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine_function(), timeout=timeout)

    return asyncio.run(bounded())


def norm_action(action: dict[str, Any]) -> tuple[str, frozenset[str], tuple[tuple[str, str], ...]]:
    kind = action.get("action") or action["type"]
    return (
        kind,
        frozenset(c.upper() for c in action.get("cards", [])),
        tuple(sorted((action.get("jokers") or {}).items())),
    )


def record_actions_by_seat(record: dict[str, Any]) -> dict[int, list[Any]]:
    """Each seat's own actions in a record (give-backs and plays/passes), in order; the
    automatic gifts of the exchange are left out."""
    players = len(record["players"])
    gifts = 1 if players == 3 else 2
    out: dict[int, list[Any]] = {seat: [] for seat in range(players)}
    for round_ in record["rounds"]:
        for action in round_.get("exchange", [])[gifts:]:
            out[action["seat"]].append(norm_action(action))
        for action in round_["actions"]:
            out[action["seat"]].append(norm_action(action))
    return out
