"""Lifelines: a helper process ends soon after the process it serves is gone, however that one
ended (a SIGKILL included, which runs no clean-up of its own).

A lifeline is a pipe nobody writes to. The served process holds its writing end, and no other
process does: the pipe is made after any fork that should not copy it, and a child forked
later closes the copy it got at once (:meth:`Lifeline.forked`). The helper watches the reading
end in a thread of its own (:func:`watch`): while the served process lives the read waits;
when it dies, the kernel closes its end and the read returns end-of-file at once. This works
wherever pipes do, unlike a parent-death signal (Linux only, and only for the direct parent:
the hard players' workers are children of multiprocessing's fork server, not of the server).

Used by ``cardverse serve --workers`` (each worker process shuts down when the supervisor is
gone, so none keeps serving unsupervised or holds the port) and by the hard players' process
pool (each worker ends with its server; then the fork server and resource tracker, which
live as long as a worker or the server holds their own pipes, end too).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable


class Lifeline:
    """A pipe whose writing end this process holds; its reading end goes to the helpers."""

    def __init__(self) -> None:
        self.reading, self.writing = os.pipe()  # neither is inherited across exec

    def forked(self) -> int:
        """In a child made by ``os.fork``: let go of the writing end (the child must not keep
        its own lifeline alive) and return the reading end, to :func:`watch`."""
        os.close(self.writing)
        return self.reading

    def close(self) -> None:
        """Cut the lifeline: every helper watching it ends."""
        for fd in (self.writing, self.reading):
            with contextlib.suppress(OSError):
                os.close(fd)


def watch(reading: int, on_end: Callable[[], None], keep: object = None) -> threading.Thread:
    """Call ``on_end`` (in a daemon thread) once the lifeline read through file descriptor
    ``reading`` is cut. ``keep``: an object that owns ``reading`` (a multiprocessing
    connection), held as long as the watch lasts so that its descriptor stays open."""

    def wait() -> None:
        held = keep  # the owner of the descriptor lives as long as this thread
        while True:
            try:
                if os.read(reading, 64) == b"":
                    break
            except InterruptedError:  # pragma: no cover - retried by Python itself
                continue
            except OSError:
                break
        del held
        on_end()

    thread = threading.Thread(target=wait, name="cardverse-lifeline", daemon=True)
    thread.start()
    return thread
