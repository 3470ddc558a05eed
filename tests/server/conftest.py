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
