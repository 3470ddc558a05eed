"""The UECda port's transport for programs at web tables (docs/uecda.md, section 10): the
listening socket, a program's bytes read whole within time limits (:class:`ProgramReader`), its
handshake's name (the table code and the name people see), :class:`ProgramSocket` (what a
:class:`~cardverse.server.sockets.WsConnection` writes to, for a program), the seat's view kept
from the table's ``state`` and ``change`` messages, and the UECda tables built from that view
only (:func:`hand_table`, :func:`state_rows`). The game's sequence is :mod:`.programs`'.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from ..engine.cards import parse_card
from ..tabletalk.invites import read_code
from ..uecda.tables import TABLE_BYTES, Table, read_table, table_of_hand
from ..uecda.tables import handshake_text as read_handshake_text
from .settings import Settings

PLAYERS = 5
NOBODY_ON_TURN = 6  # [5][3] of the game-start table
NAME_CELLS = 48  # characters of a handshake name read (code, separator and the name)
SHOWN_NAME = 16  # characters of the name people see
DEFAULT_NAME = "Program"
READ_LIMIT = 2 * TABLE_BYTES  # bytes a program may send ahead of what is asked of it
CLOSE_NORMAL = 1000


class ProgramLost(Exception):
    """The program's connection cannot go on; the message says why (for the log)."""


def handshake_text(table: Table) -> str:
    """The whole text of a handshake name: the table's code, a separator and the name."""
    return read_handshake_text(table, NAME_CELLS)


def read_handshake_name(text: str) -> tuple[str | None, str]:
    """The invite code and the name people see of a handshake's name: ``CODE`` or
    ``CODE:NAME`` (or ``CODE/NAME``); the name keeps letters, digits, spaces and ``-_.+()``, at
    most 16 characters (``Program`` when none is left)."""
    for separator in (":", "/"):
        if separator in text:
            code_text, name = text.split(separator, 1)
            break
    else:
        code_text, name = text, ""
    code = read_code(code_text)
    kept = "".join(ch for ch in name if ch.isalnum() or ch in " -_.+()").strip()
    return code, (kept[:SHOWN_NAME].strip() or DEFAULT_NAME)


def apply_change(state: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The state a ``change`` makes of the state held (docs/protocol.md, *Changes*)."""
    view = dict(state["view"])
    delta = dict(change["view"])
    if "history" in delta:
        at = delta.pop("history_at")
        view["history"] = view["history"][:at] + delta.pop("history")
    view.update(delta)
    return {"type": "state", "v": change["v"], "view": view}


class ProgramSocket:
    """What a :class:`~cardverse.server.sockets.WsConnection` and the WebSocket endpoint use of a
    WebSocket, for a program: frames written to it go to the program's session, and the
    session's JSON messages are handed on as a socket hands on its frames."""

    watch = False
    program = True  # its connection may take a seat as a program (a browser's may not)

    def __init__(self, inbox: asyncio.Queue[str | None], table_id: str, peer: str) -> None:
        self.inbox = inbox  # the session's: what the table writes (None: it closed)
        self.table_id = table_id
        self.peer = peer
        self.gone = False
        self.conn: Any = None
        self.on_message: Any = None
        self._pending: list[str | None] = []

    def send_text(self, text: str) -> None:
        if not self.gone:
            self.inbox.put_nowait(text)

    def close(self, code: int, reason: str = "") -> None:
        if not self.gone:
            self.inbox.put_nowait(None)

    def abort(self) -> None:
        self.close(CLOSE_NORMAL)

    def buffered(self) -> int:
        return 0

    def hand_to(self, handler: Any) -> None:
        self.on_message = handler
        pending, self._pending = self._pending, []
        for item in pending:
            handler(item)

    def deliver(self, item: str | None) -> None:
        """A message from the program's side (None: it is gone)."""
        if item is None:
            self.gone = True
        if self.on_message is None:
            self._pending.append(item)
        else:
            self.on_message(item)


class ProgramReader:
    """The bytes a program sends, read as they come (so a closed connection is seen at once),
    taken a table or an int at a time within time limits."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        settings: Settings,
        on_close: Any = None,
    ) -> None:
        self.reader = reader
        self.settings = settings
        self.on_close = on_close  # called once the program's side is gone (or over its limit)
        self.buffer = bytearray()
        self.closed: str | None = None
        self._arrived = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                chunk = await self.reader.read(4096)
                if not chunk:
                    self.closed = "closed its connection"
                    break
                self.buffer += chunk
                if len(self.buffer) > READ_LIMIT:
                    self.closed = f"sent more than {READ_LIMIT} bytes ahead of its turn"
                    break
                self._arrived.set()
        except (OSError, asyncio.IncompleteReadError) as error:
            self.closed = f"connection failed: {error}"
        if self.on_close is not None:
            self.on_close()
        self._arrived.set()

    async def table(self, first_timeout: float | None) -> Table:
        """The next whole table: its first byte within ``first_timeout`` (None: no limit), the
        rest within the piece time-out."""
        loop = asyncio.get_running_loop()
        deadline = None if first_timeout is None else loop.time() + first_timeout
        started = False
        while len(self.buffer) < TABLE_BYTES:
            if self.closed is not None and (
                self.closed != "closed its connection" or len(self.buffer) < TABLE_BYTES
            ):
                got = len(self.buffer)
                raise ProgramLost(
                    self.closed + (f" after {got} of {TABLE_BYTES} bytes" if got else "")
                )
            if self.buffer and not started:
                started = True
                deadline = loop.time() + self.settings.uecda_piece_timeout
            self._arrived.clear()
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                if self.buffer:
                    raise ProgramLost(
                        f"sent {len(self.buffer)} of {TABLE_BYTES} bytes, then nothing more in "
                        "time (a short message)"
                    )
                raise ProgramLost(f"sent nothing within {first_timeout:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)
        data = bytes(self.buffer[:TABLE_BYTES])
        del self.buffer[:TABLE_BYTES]
        return read_table(data)

    def close(self) -> None:
        self.task.cancel()


def state_rows(view: dict[str, Any], seat: int, table: Table) -> None:
    """Rows 5 and 6 of a table from a seat's view: who is on turn, the trick, the revolution,
    the lock, the cards held, the classes of the round before and the seats."""
    turn = view.get("turn")
    table[5][2] = int(turn == seat and view["phase"] == "play")
    table[5][3] = NOBODY_ON_TURN if turn is None else int(turn)
    table[5][4] = int(not view.get("trick"))
    table[5][6] = int(bool(view.get("revolution")))
    table[5][7] = int(bool(view.get("lock")))
    counts = list(view.get("hand_counts") or [0] * PLAYERS)
    classes = [0] * PLAYERS
    places = view.get("places") or []
    if places and view["round"] > 1:
        last = places[-1] if view["phase"] != "round_over" else places[-2]
        for rank, placed in enumerate(last[:PLAYERS]):
            classes[placed] = rank
    table[6] = [*counts[:PLAYERS], *classes, *range(PLAYERS)]


def hand_table(view: dict[str, Any], seat: int) -> Table:
    """A hand table (step 6) of the seat's view: its own hand only."""
    mask = 0
    for name in view.get("hand") or []:
        mask |= 1 << parse_card(name)
    table = table_of_hand(mask)
    state_rows(view, seat, table)
    return table


def board_table(board: Table, view: dict[str, Any], seat: int, actor: int) -> Table:
    """A board table (step 9): rows 0-4 the play that stands, [5][3] the seat that acted."""
    table = [list(row) for row in board[:5]] + [[0] * 15 for _ in range(3)]
    state_rows(view, seat, table)
    table[5][2] = 0
    table[5][3] = actor
    table[5][4] = int(not any(any(row) for row in board))
    return table


def bind_port(host: str, port: int) -> socket.socket:
    """The UECda port's listening socket (bound before the server starts, so that port 0 can
    say which port it got, and shared by the worker processes)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(256)
    sock.setblocking(False)
    return sock


#: listening sockets bound by ``cardverse serve`` before its processes start, by port
PREBOUND: dict[int, socket.socket] = {}
