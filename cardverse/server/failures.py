"""Unexpected failures while serving a client's message: what the client is told and what the
log says.

A message that makes the server fail (a bug, never the client's fault) is answered with the
``internal`` error (nothing was changed) and the connection stays open. The log gets one line
per failure; the traceback is written only the first time a place in the code fails that way
(per process), so that a client repeating the message cannot flood the log with tracebacks.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

from .protocol import ERROR_CODES, ProtocolError

_seen: dict[tuple[str, str, int], int] = {}  # (exception type, file, line) -> failures so far


def internal_error(seq: int | None = None) -> dict[str, Any]:
    """The ``internal`` error message (the server failed; nothing was changed)."""
    return ProtocolError("internal", ERROR_CODES["internal"]).to_message(seq)


def log_failure(log: logging.Logger, what: str, error: BaseException) -> None:
    """Log an unexpected failure: one line, with the traceback the first time its place fails."""
    frames = traceback.extract_tb(error.__traceback__)
    where = frames[-1] if frames else None
    key = (type(error).__name__, where.filename, where.lineno or 0) if where else ("?", "?", 0)
    count = _seen.get(key, 0) + 1
    known = key in _seen or len(_seen) < 1000  # a bounded memory of places
    if known:
        _seen[key] = count
    place = f"{where.filename}:{where.lineno}" if where else "?"
    summary = f"{what} failed: {type(error).__name__}: {str(error)[:200]} (at {place}"
    if count == 1 and known:
        log.error("%s; first time there)", summary, exc_info=error)
    else:
        log.error("%s; %d times there, traceback logged the first time)", summary, count)
