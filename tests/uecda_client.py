"""UECda protocol clients for the tests of ``cardverse uecda serve``: each speaks the bytes of
docs/uecda.md section 1 over a real socket and keeps every message it received, and a strategy
decides its submissions (a random player of its own plays, and misbehaving ones)."""

from __future__ import annotations

import itertools
import random
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

TABLE_BYTES = 480
Table = list[list[int]]


def table_to_bytes(table: Table) -> bytes:
    return struct.pack(">120I", *[cell for row in table for cell in row])


def bytes_to_table(data: bytes) -> Table:
    values = struct.unpack(">120I", data)
    return [list(values[r * 15 : (r + 1) * 15]) for r in range(8)]


def zeros() -> Table:
    return [[0] * 15 for _ in range(8)]


def cards_in(table: Table) -> set[tuple[int, int]]:
    """The cells of rows 0-4 that hold a card (the joker as (4, 1) in a hand)."""
    return {(r, c) for r in range(5) for c in range(15) if table[r][c]}


def handshake(name: str, version: int = 20070) -> bytes:
    table = zeros()
    table[0][0] = version
    for index, char in enumerate(name):
        table[1][index] = ord(char)
    return table_to_bytes(table)


@dataclass
class Received:
    kind: str  # "start", "hand", "board"
    game: int
    table: Table


@dataclass
class Client:
    """One program. ``strategy(client, hand, board)`` returns the bytes it submits on its turn,
    or None to do something else (the strategy may close the socket)."""

    name: str
    strategy: Callable[[Client, Table, Table], bytes | None]
    version: int = 20070
    send_handshake: bool = True
    seed: int = 0
    number: int | None = None
    received: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)
    turns: int = 0
    #: each own turn: (hand table, submission, answer, board table that followed)
    turn_log: list[tuple[Table, bytes, int, Table]] = field(default_factory=list)
    closed_by_server: bool = False
    error: BaseException | None = None
    seated: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.sock: socket.socket | None = None
        self.board = zeros()

    def start(self, port: int) -> threading.Thread:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        return thread

    def _recv(self, size: int) -> bytes | None:
        assert self.sock is not None
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def _int(self) -> int | None:
        data = self._recv(4)
        return None if data is None else struct.unpack(">I", data)[0]

    def _table(self) -> Table | None:
        data = self._recv(TABLE_BYTES)
        return None if data is None else bytes_to_table(data)

    def _run(self) -> None:
        try:
            self._play()
        except OSError as error:
            self.error = error
        finally:
            self.seated.set()
            self.done.set()
            if self.sock is not None:
                self.sock.close()

    def _play(self) -> None:
        assert self.sock is not None
        if self.send_handshake:
            self.sock.sendall(handshake(self.name, self.version))
        self.number = self._int()
        self.seated.set()
        if self.number is None:
            self.closed_by_server = True
            return
        game = 1
        while True:
            start = self._table()
            if start is None:
                self.closed_by_server = True
                return
            self.received.append(Received("start", game, start))
            if start[5][1]:
                self.sock.sendall(table_to_bytes(self.give_back(start, start[5][1])))
            while True:
                hand = self._table()
                if hand is None:
                    self.closed_by_server = True
                    return
                self.received.append(Received("hand", game, hand))
                mine: tuple[bytes, int] | None = None
                if hand[5][2]:
                    self.turns += 1
                    submission = self.strategy(self, hand, self.board)
                    if submission is None:
                        return
                    self.sock.sendall(submission)
                    answer = self._int()
                    if answer is None:
                        self.closed_by_server = True
                        return
                    self.answers.append(answer)
                    mine = (submission, answer)
                board = self._table()
                code = self._int()
                if board is None or code is None:
                    self.closed_by_server = True
                    return
                if mine is not None:
                    self.turn_log.append((hand, mine[0], mine[1], board))
                self.received.append(Received("board", game, board))
                self.board = board
                self.codes.append(code)
                if code == 2:
                    return
                if code == 1:
                    game += 1
                    break

    def give_back(self, start: Table, count: int) -> Table:
        """The lowest ``count`` cards of the start table's hand."""
        cells = sorted(
            ((c, r) for r in range(4) for c in range(1, 14) if start[r][c]), key=lambda x: x
        )
        table = zeros()
        for c, r in cells[:count]:
            table[r][c] = 1
        return table


def candidates(hand: Table) -> list[Table]:
    """Plays of the hand: every set of one rank, the lone joker, and natural straights of three."""
    out: list[Table] = []
    for column in range(1, 14):
        rows = [r for r in range(4) if hand[r][column]]
        for size in range(1, len(rows) + 1):
            for chosen in itertools.combinations(rows, size):
                table = zeros()
                for r in chosen:
                    table[r][column] = 1
                out.append(table)
    if hand[4][1]:
        table = zeros()
        table[0][1] = 2
        out.append(table)
    for r in range(4):
        for column in range(1, 12):
            if all(hand[r][column + k] for k in range(3)):
                table = zeros()
                for k in range(3):
                    table[r][column + k] = 1
                out.append(table)
    return out


def random_player(client: Client, hand: Table, board: Table) -> bytes:
    """A plain program: any play of its hand on lead; on a covered trick, a random play of the
    board's size (the server judges it; a refused one counts as a pass) or a pass."""
    plays = candidates(hand)
    if not hand[5][4]:
        size = len(cards_in(board))
        plays = [p for p in plays if len(cards_in(p)) == size]
        if not plays or client.rng.random() < 0.2:
            return table_to_bytes(zeros())
    return table_to_bytes(client.rng.choice(plays))


def always_pass(client: Client, hand: Table, board: Table) -> bytes:
    return table_to_bytes(zeros())


def garbage(client: Client, hand: Table, board: Table) -> bytes:
    """Every other turn a table that is no play (a 7 in a cell, or a card it does not hold)."""
    table = zeros()
    if client.turns % 2:
        table[2][5] = 7
    else:
        for r in range(4):
            for c in range(1, 14):
                if not hand[r][c]:
                    table[r][c] = 1
                    return table_to_bytes(table)
    return random_player(client, hand, board)


Strategy = Callable[[Client, Table, Table], bytes | None]


def _misbehaves_after(turns: int, misbehave: Callable[[Client], None]) -> Strategy:
    """Plays at random for ``turns`` turns, then, on its next turn, ``misbehave`` s and sends
    nothing more."""

    def strategy(client: Client, hand: Table, board: Table) -> bytes | None:
        if client.turns > turns:
            assert client.sock is not None
            misbehave(client)
            return None
        return random_player(client, hand, board)

    return strategy


def _hang_up(client: Client) -> None:
    assert client.sock is not None
    client.sock.close()
    client.sock = None


def _read_until_closed(client: Client) -> None:
    assert client.sock is not None
    while client.sock.recv(4096):
        pass
    client.closed_by_server = True


def _send_part_of_a_table(client: Client) -> None:
    assert client.sock is not None
    client.sock.sendall(table_to_bytes(zeros())[:100])
    _read_until_closed(client)


def disconnect_after(turns: int) -> Strategy:
    """Closes its connection on its turn."""
    return _misbehaves_after(turns, _hang_up)


def short_message_after(turns: int) -> Strategy:
    """Sends 100 bytes of a table and nothing more; then reads until the server closes."""
    return _misbehaves_after(turns, _send_part_of_a_table)


def stall_after(turns: int) -> Strategy:
    """Stops answering on its turn (still connected) and reads until the server closes."""
    return _misbehaves_after(turns, _read_until_closed)
