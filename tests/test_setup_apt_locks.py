"""The set-up scripts wait for Debian's package locks instead of giving up (scripts/apt-install.sh).

On a fresh cloud machine the system's own updates often hold dpkg's lock when `make test` first
runs. The lock is a fcntl(2) record lock, as dpkg takes it; these tests hold one on a file of
their own (``APT_LOCK_FILES``) and watch the script wait for it, go on once it is free, and give
up with a message past its bound (``APT_LOCK_WAIT``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "apt-install.sh"

HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def held_lock(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A lock file held by another process (as apt-get would hold dpkg's) until its stdin ends."""
    lock = tmp_path / "lock-frontend"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    yield lock, holder
    if holder.poll() is None:
        holder.kill()
        holder.wait()


def _waiter(lock: Path, bound: int) -> subprocess.Popen[str]:
    env = {**os.environ, "APT_LOCK_FILES": str(lock), "APT_LOCK_WAIT": str(bound)}
    return subprocess.Popen(
        ["bash", "-c", f'. "{SCRIPT}" && wait_for_apt_locks'],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_set_up_waits_while_another_apt_holds_the_lock_and_then_goes_on(
    held_lock: tuple[Path, subprocess.Popen[str]],
) -> None:
    lock, holder = held_lock
    waiter = _waiter(lock, bound=600)
    assert waiter.stderr is not None
    first = waiter.stderr.readline()  # said as soon as it finds the lock held
    assert "waiting up to 600 s" in first and str(lock) in first
    assert waiter.poll() is None, "the script went on while the lock was held"
    assert holder.stdin is not None
    holder.stdin.close()  # the other package manager finishes
    holder.wait(timeout=60)
    rest = waiter.stderr.read()
    assert waiter.wait(timeout=120) == 0
    assert "the package locks are free" in rest


def test_the_set_up_gives_up_with_a_message_past_its_bound(
    held_lock: tuple[Path, subprocess.Popen[str]],
) -> None:
    lock, _holder = held_lock
    waiter = _waiter(lock, bound=2)
    _, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 1
    assert f"{lock} is still held after 2 s; giving up" in err


def test_a_free_lock_costs_no_wait_and_no_message(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    lock.write_text("")
    waiter = _waiter(lock, bound=600)
    _, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0
    assert err == ""
