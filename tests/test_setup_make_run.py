"""`make run`, the README's first command: where it listens, and that it serves at once.

A new user must see the page without waiting for the compiled engine (scripts/quick_start.py):
when the build is missing the server starts on the pure-Python code while the compile runs in
the background, and says so.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READY_WITHIN = 120.0  # seconds: generous for a loaded two-core machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_page(url: str, process: subprocess.Popen[str]) -> str:
    """The home page's HTML, once the server answers (fails if the process ends first)."""
    deadline = time.monotonic() + READY_WITHIN
    while True:
        assert process.poll() is None, f"the server ended with {process.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return str(response.read().decode("utf-8"))
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)  # polling for a state: the server listening


def stop(process: subprocess.Popen[str]) -> str:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        _, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
    return err


def test_make_run_takes_host_port_and_data(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    process = subprocess.Popen(
        ["make", "-s", "run", "HOST=127.0.0.1", f"PORT={port}", f"DATA={data}"],
        cwd=ROOT,
        env={**os.environ, "CARDVERSE_PURE": "1"},  # never start a compile from a test
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        page = wait_for_page(f"http://127.0.0.1:{port}/", process)
    finally:
        err = stop(process)
    assert "<html" in page.lower()
    assert f"make run: starting the server on http://127.0.0.1:{port}" in err
    assert data.is_dir() and any(data.iterdir()), "the data directory was not used"


def test_without_a_compiled_build_the_server_starts_at_once_and_the_compile_runs_behind(
    tmp_path: Path,
) -> None:
    # A copy of the package with no build at all, as on a new machine; with no C compiler on
    # its PATH the background compile ends quickly (and records why), so the test costs no
    # mypyc time while the path it takes is the real one.
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("*.so", "_compiled.json", "__pycache__")
    shutil.copytree(ROOT / "cardverse", copy / "cardverse", ignore=ignore)
    shutil.copytree(ROOT / "scripts", copy / "scripts", ignore=ignore)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "sh").symlink_to(shutil.which("sh") or "/bin/sh")
    env = {k: v for k, v in os.environ.items() if k != "CARDVERSE_PURE"}
    env["PATH"] = str(tools)
    port = free_port()
    command = [sys.executable, "scripts/quick_start.py", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(tmp_path / "data")]
    process = subprocess.Popen(
        command,
        cwd=copy,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for_page(f"http://127.0.0.1:{port}/", process)
        manifest = copy / "cardverse" / "_compiled.json"
        deadline = time.monotonic() + READY_WITHIN
        while not manifest.exists():  # the background compile's answer
            assert time.monotonic() < deadline, "the background compile never finished"
            time.sleep(0.2)
    finally:
        err = stop(process)
    assert "compiling the engine and bots with mypyc in the background" in err
    assert "The server starts now on the pure-Python code" in err
    assert "no C compiler" in (copy / ".venv" / "compile.log").read_text(encoding="utf-8")
