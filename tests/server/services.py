"""Real PostgreSQL and Redis servers for the tests, started in temporary directories on free
ports of 127.0.0.1 and stopped afterwards (no mocks).

``scripts/ensure-services.sh`` (run by ``make unit``) installs Debian's ``redis-server`` and
``postgresql`` when they are missing. A test that needs them is skipped only when the binaries
are truly not there, with a loud reason; under CI (``CI`` set) that is a failure instead.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _missing(what: str) -> None:
    reason = (
        f"{what} is not installed and could not be installed: run scripts/ensure-services.sh "
        "(the scale-out tests need a real PostgreSQL and Redis)"
    )
    if os.environ.get("CI"):
        pytest.fail("CI: " + reason)
    pytest.skip("SKIPPED LOUDLY: " + reason)


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _wait(check: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():  # type: ignore[operator]
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up within {timeout:g} s")


class Postgres:
    """A PostgreSQL cluster of its own (initdb), run as the ``postgres`` user when we are root
    (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        bin_dir = _pg_bin()
        if bin_dir is None:
            _missing("PostgreSQL (initdb, pg_ctl)")
        assert bin_dir is not None
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="cardverse-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "cardverse",
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
        )

    def _run(self, *command: str) -> None:
        subprocess.run(
            [*self.as_user, *command], check=True, capture_output=True, timeout=120, text=True
        )

    @property
    def dsn(self) -> str:
        return f"postgresql://cardverse@127.0.0.1:{self.port}/postgres"

    def start(self) -> Postgres:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} "
            "-c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        return self

    def stop(self, mode: str = "fast") -> None:
        with contextlib.suppress(subprocess.SubprocessError):
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def new_database(self, name: str) -> str:
        """A fresh empty database; returns its address."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://cardverse@127.0.0.1:{self.port}/{name}"

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class Redis:
    """A redis-server of its own, nothing saved to disk."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server") or (
            "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None
        )
        if binary is None:
            _missing("redis-server")
        assert binary is not None
        self.binary = binary
        self.root = Path(tempfile.mkdtemp(prefix="cardverse-redis-"))
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.root),
                "--protected-mode",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait(self._answers, 20, "redis-server")
        return self

    def _answers(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
