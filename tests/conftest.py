"""The whole test session: how pytest-xdist shares the tests out between its workers.

`make unit` runs ``pytest -n 2 --dist loadgroup``. The red-team tests that probe a table's round
trips while they attack (tests/server/redteam_support.py, ``under_probe``) are slowed most by a
cluster test on the other worker (three server processes, Redis and PostgreSQL), so those
tests and the cluster tests form one group, run one after another on one worker and never at
the same time as each other; the other worker runs the rest meanwhile.

The group is made here, by the scheduler, from the tests' files: pytest-xdist 3.8 marks a
test's group (``xdist_group``) by changing its node id, which pytest 9.2 no longer reads, so a
marked test is not grouped at all there (pytest-xdist issue 1386).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

QUIET_GROUP = "probes_and_cluster"
ROOT = Path(__file__).resolve().parents[1]


@cache
def in_quiet_group(path: str) -> bool:
    """Whether the tests of the file at ``path`` (from the repository's root) are in the group."""
    name = path.rsplit("/", 1)[-1]
    if name == "test_cluster.py":
        return True
    if name.startswith("test_redteam_"):
        return "under_probe" in (ROOT / path).read_text(encoding="utf-8")
    return False


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own choice
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class QuietProbes(LoadGroupScheduling):  # type: ignore[misc]
        """Load groups, with the probing and the cluster tests in one."""

        def _split_scope(self, nodeid: str) -> str:
            if in_quiet_group(nodeid.split("::", 1)[0]):
                return QUIET_GROUP
            return str(super()._split_scope(nodeid))

    return QuietProbes(config, log)
