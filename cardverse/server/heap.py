"""Giving the memory the process has freed back to the system (glibc's ``malloc_trim``).

glibc keeps what Python frees in larger blocks (more than 512 bytes: picows' buffers, frames
held for a commit, JSON texts) for the next allocation; a block freed below the top of the heap
is kept even when it spans whole pages, so the heap's resident size stays at its highest. A
busy server frees a few KiB a table that way between its peaks; ``malloc_trim(0)`` hands those
pages back (``MADV_DONTNEED``) in a fraction of a millisecond. :func:`trimmer` is that call
where the C library is glibc, and ``None`` elsewhere (musl, macOS: nothing is done) or when
the environment says ``CARDVERSE_HEAP_TRIM=0`` (docs/deploy.md).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable


def trimmer() -> Callable[[], None] | None:
    """A function that gives the heap's free pages back to the system, or None without glibc."""
    if os.environ.get("CARDVERSE_HEAP_TRIM", "1") == "0":
        return None
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""  # "glibc 2.36"; musl and macOS: none
    except (ValueError, OSError, AttributeError):
        libc = ""
    if not libc.startswith("glibc"):
        return None
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim  # glibc's name on every Linux
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def release() -> None:
        trim(0)

    return release
