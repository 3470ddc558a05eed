"""Fixtures of the server tests: a real uvicorn server on a free port, per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import ServerThread


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with ServerThread(tmp_path / "data") as running:
        yield running


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., ServerThread]]:
    """Start a server with chosen settings (stopped at the end of the test)."""
    started: list[ServerThread] = []

    def make(**settings: Any) -> ServerThread:
        running = ServerThread(tmp_path / f"data{len(started)}", **settings).__enter__()
        started.append(running)
        return running

    yield make
    for running in started:
        running.__exit__(None, None, None)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL server for this test process (see services.py)."""
    from services import Postgres

    server = Postgres().start()
    yield server
    server.close()


@pytest.fixture
def pg_dsn(postgres: Any, request: pytest.FixtureRequest) -> str:
    """The address of a fresh database of its own for one test."""
    import re

    name = re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:50]
    return str(postgres.new_database(f"t_{name}"))


@pytest.fixture
def redis_server() -> Iterator[Any]:
    """A real redis-server of its own for one test (it may restart it)."""
    from services import Redis

    server = Redis().start()
    yield server
    server.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str | None:
    """Each store in turn: None (the SQLite file) or a fresh PostgreSQL database's address."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("pg_dsn"))
