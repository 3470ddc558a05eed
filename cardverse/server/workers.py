"""``cardverse serve --workers N``: N server processes on one machine sharing one listening
socket (bound once by the parent, inherited by each child through ``fork``; the kernel hands
each new connection to one of them). The parent only supervises: it restarts a worker that
died (each start is a new node with its own id; its tables are taken over by the others
meanwhile) and stops them all on SIGTERM or SIGINT.

A worker never outlives the parent: each watches a lifeline (:mod:`cardverse.server.lifeline`)
whose writing end only the parent holds. When the parent is gone, however it ended (a SIGKILL
runs none of its clean-up), the worker shuts down as on SIGTERM (it stops listening at once,
so a new ``cardverse serve`` can take the port) and, if that takes longer than
:data:`ORPHAN_GRACE` seconds, ends there."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TextIO

from .lifeline import Lifeline, watch

ORPHAN_GRACE = 10.0  # seconds an orphaned worker may take to shut down cleanly


def _orphaned() -> None:
    """In a worker whose parent is gone: shut down as on SIGTERM, within the grace."""
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_GRACE)
    os._exit(1)


def supervise(count: int, run: Callable[[], None], err: TextIO) -> int:
    children: dict[int, float] = {}  # pid -> when it started
    stopping = False
    lifeline = Lifeline()

    def spawn() -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            watch(lifeline.forked(), _orphaned)
            code = 0
            try:
                run()
            except BaseException:  # pragma: no cover - reported by the worker's own log
                code = 1
            finally:
                sys.stdout.flush()
                os._exit(code)
        children[pid] = time.monotonic()

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(count):
        spawn()
    quick_deaths = 0
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:  # pragma: no cover - a signal; look again
            continue
        started = children.pop(pid, None)
        if stopping or started is None:
            continue
        print(f"cardverse serve: worker {pid} ended ({status}); starting another", file=err)
        quick_deaths = quick_deaths + 1 if time.monotonic() - started < 5 else 0
        if quick_deaths > 3 * count:
            print("cardverse serve: workers keep dying at start; giving up", file=err)
            stop(signal.SIGTERM, None)
            continue
        spawn()
    lifeline.close()
    return 0
