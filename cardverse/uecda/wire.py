"""One program's TCP connection in the UECda protocol (docs/uecda.md, section 1): whole tables
and ints read and written with time limits, and every failure turned into :class:`ProgramLost`.

The reference server takes a table from a single ``read()``; here a table is read until its 480
bytes are in, but its bytes must follow the first one within a time limit, so that a short
message is told from a slow one. Nothing here knows the game.
"""

from __future__ import annotations

import socket
import struct
import time

from .tables import TABLE_BYTES, Table, read_table, write_table

INT_BYTES = 4


class ProgramLost(Exception):
    """The program's connection cannot go on; the message says why (for the server's log)."""


def read_exact(
    sock: socket.socket,
    size: int,
    first_timeout: float | None,
    rest_timeout: float | None,
    whole: bool = False,
) -> bytes:
    """``size`` bytes: the first within ``first_timeout`` seconds (None: no limit), the whole
    message within ``rest_timeout`` of the first byte (with ``whole``: within ``first_timeout``
    of the call). Raises :class:`ProgramLost` on a closed connection, a short message or a
    timeout."""
    data = bytearray()
    deadline: float | None = None  # set when the first byte is in
    if whole and first_timeout is not None:
        deadline = time.monotonic() + first_timeout
    while len(data) < size:
        if not data:
            timeout = first_timeout
            if deadline is not None:
                timeout = max(deadline - time.monotonic(), 0.001)
        elif deadline is None:
            timeout = None
        else:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                raise ProgramLost(_short(len(data), size))
        try:
            sock.settimeout(timeout)
            chunk = sock.recv(size - len(data))
        except TimeoutError:
            if data:
                raise ProgramLost(_short(len(data), size)) from None
            raise ProgramLost(f"sent nothing within {first_timeout:g} s") from None
        except OSError as error:
            raise ProgramLost(f"connection failed: {error.strerror or error}") from None
        if not chunk:
            if data:
                raise ProgramLost(
                    f"closed its connection after {len(data)} of {size} bytes (a short message)"
                )
            raise ProgramLost("closed its connection")
        if not data and rest_timeout is not None and not whole:
            deadline = time.monotonic() + rest_timeout
        data += chunk
    return bytes(data)


def _short(got: int, size: int) -> str:
    return f"sent {got} of {size} bytes, then nothing more in time (a short message)"


def receive_table(
    sock: socket.socket,
    first_timeout: float | None,
    rest_timeout: float | None,
    whole: bool = False,
) -> Table:
    return read_table(read_exact(sock, TABLE_BYTES, first_timeout, rest_timeout, whole))


def send_bytes(sock: socket.socket, data: bytes, timeout: float | None) -> None:
    try:
        sock.settimeout(timeout)
        sock.sendall(data)
    except TimeoutError:
        raise ProgramLost(f"read nothing of what was sent for {timeout:g} s") from None
    except OSError as error:
        raise ProgramLost(f"connection failed: {error.strerror or error}") from None


def table_bytes(table: Table) -> bytes:
    return write_table(table)


def int_bytes(value: int) -> bytes:
    return struct.pack(">I", value)
