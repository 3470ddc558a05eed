"""A table's state: what its log folds into (seats, host, options, the game, the records).

:class:`TableState` is data: :mod:`.decide` reads it, :mod:`.apply` changes it, and nothing here
talks to a connection, a clock or the store. A :class:`Seat` also carries what is of the moment
and not in the log (the connection seated there, a stand-in computer player, time-outs): the
room, the outbox and the clock keep those up to date. Tokens and table ids are made here.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sys
import zlib
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ...engine import Game, Rules
from ...tabletalk.story import AwayLog
from ..jsontext import compact
from ..wire import Synced

TablePhase = Literal["lobby", "playing", "over"]
Auto = Literal["timeout", "disconnected", "left"]
LOBBY_EVENTS = frozenset({"sit", "leave", "options", "bot", "unbot", "seq_reset"})
STAND_IN_LEVEL = "normal"
# Finished games' records kept in memory: the game just finished (its download) and the one
# before; older ones are folded again from the stored log when asked for (rarely).
RECORDS_KEPT = 2


class Conn(Protocol):
    """A client connection as the table sees it."""

    seat: int | None
    table: Any  # the room it is on (None: none)
    standby: bool  # over the table's watcher limit: may only join
    synced: Synced | None  # what it holds of the game (None: nothing yet); see wire.Synced

    def send(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


@dataclass(slots=True, eq=False)
class Seat:
    """One seat: who sits there (stored), and what is of the moment (not stored)."""

    index: int
    kind: Literal["empty", "human", "bot"] = "empty"
    name: str | None = None
    level: str | None = None  # a computer player's level
    token_hash: str | None = None
    last_seq: int = 0
    auto: Auto | None = None  # a computer player stands in ("left" is stored; the others not)
    timeouts: int = 0  # turns this person let time out in the current round
    kept: bool = False  # timed out too often: the computer player keeps the seat this round
    program: bool = False  # taken by a program through the UECda port (cardverse.server.programs)
    conn: Conn | None = field(default=None, repr=False)  # the connection seated here

    def clear(self) -> None:
        self.kind = "empty"
        self.name = self.level = self.token_hash = None
        self.last_seq = 0
        self.auto = None
        self.timeouts = 0
        self.kept = False
        self.program = False

    def lobby_state(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "level": self.level,
            "token_hash": self.token_hash,
            "last_seq": self.last_seq,
            "program": self.program,
        }

    def make_bot(self, level: str) -> None:
        self.clear()
        self.kind = "bot"
        self.level = level
        self.name = f"Computer ({level})"


#: The round's log is compressed in pieces of about this many characters: raw deflate with a
#: 1 KiB window (zlib's own default window takes 256 KiB to set up, about 50 µs a piece; this
#: one 4 µs), a piece of events about a quarter of its text.
_PIECE = 1024
_WBITS = -10


def _pack(text: str) -> bytes:
    packer = zlib.compressobj(1, zlib.DEFLATED, _WBITS, 2)
    return packer.compress(text.encode("utf-8")) + packer.flush()


def _unpack(piece: bytes) -> str:
    return zlib.decompress(piece, _WBITS).decode("utf-8")


class RoundLog:
    """The events told since the current round began (with the game's start before round 1),
    sent again with a full state so the "What happened" log survives a reload. Kept as JSON
    text (the events' texts joined by commas: a dict per event costs several times as much
    memory, a string per event about twice), whose older part is compressed in pieces of
    whole events as it grows (a live table's log was 2.5 KiB on average; read back only when
    a full state is made)."""

    __slots__ = ("_game_start", "_pieces", "_text")

    def __init__(self) -> None:
        self._text = ""  # the latest events, not compressed yet
        self._pieces: list[bytes] | None = None  # the ones before, compressed
        self._game_start = ""  # the game's start, while it is the last event

    def add(self, events: list[dict[str, Any]]) -> list[str]:
        """Keep ``events``; returns the JSON text of each (as it may be sent again)."""
        made: list[str] = []
        # The log's only reference is the local one while it grows (in place, not copied).
        log, self._text = self._text, ""
        try:
            for event in events:
                kind = event.get("event")
                if kind == "game_started":
                    log, self._pieces = "", None
                elif kind == "round_started":  # the game's start stays before round 1
                    log, self._pieces = self._game_start, None
                text = _dumps(event)
                self._game_start = text if kind == "game_started" else ""
                if log:
                    log += ","
                log += text
                made.append(text)
                if len(log) >= _PIECE:
                    if self._pieces is None:
                        self._pieces = []
                    self._pieces.append(_pack(log))
                    log = ""
        finally:
            self._text = log
        return made

    @property
    def events(self) -> list[dict[str, Any]]:
        parts = [_unpack(piece) for piece in self._pieces or ()]
        if self._text:
            parts.append(self._text)
        return json.loads("[" + ",".join(parts) + "]")  # type: ignore[no-any-return]


_dumps = compact


@dataclass(slots=True, eq=False)
class TableState:
    """Everything the table's log says, folded (see :func:`.apply.restore`)."""

    id: str
    rules: Rules
    turn_timer: float | None
    hints: bool = True
    programs: bool = False  # the host lets programs take the empty seats (UECda port)
    seats: list[Seat] = field(default_factory=list)
    host: int | None = None
    phase: TablePhase = "lobby"
    game: Game | None = None
    game_number: int = 0
    seed: int = 0
    v: int = 0  # changes to the game so far (a stamp for states and pending bot moves)
    records_made: int = 0  # finished games' records so far ...
    # ... the last RECORDS_KEPT, each compressed (a record's JSON text is about 3.4 KB, 0.55
    # compressed: the records are most of a long-lived table's memory otherwise)
    recent_records: list[bytes] = field(default_factory=list)
    story: RoundLog = field(default_factory=lambda: RoundLog())  # the round's events so far
    away: AwayLog = field(default_factory=AwayLog)  # what stand-ins did for absent people

    def keep_record(self, record: str) -> None:
        self.recent_records.append(zlib.compress(record.encode("utf-8")))
        del self.recent_records[:-RECORDS_KEPT]
        self.records_made += 1

    def kept_records(self) -> list[str]:
        """The records kept in memory (the last :data:`RECORDS_KEPT`), oldest first."""
        return [zlib.decompress(record).decode("utf-8") for record in self.recent_records]

    def latest_record(self) -> str:
        """The last finished game's record."""
        return zlib.decompress(self.recent_records[-1]).decode("utf-8")

    def lobby_snapshot(self) -> dict[str, Any]:
        return {
            "rules": self.rules.changed_options(),
            "turn_timer": self.turn_timer,
            "hints": self.hints,
            "programs": self.programs,
            "host": self.host,
            "seats": [seat.lobby_state() for seat in self.seats],
        }

    def record_players(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for seat in self.seats:
            entry: dict[str, Any] = {"name": seat.name or f"Seat {seat.index}"}
            if seat.kind == "bot":
                entry["ai"] = seat.level
            out.append(entry)
        return out

    def next_host(self, after: int) -> int | None:
        """The next connected person in seat order after seat ``after`` (else the next person
        still seated, else nobody); a program never hosts."""
        count = len(self.seats)
        order = [self.seats[(after + step) % count] for step in range(1, count)]
        people = [s for s in order if s.kind == "human" and s.auto != "left" and not s.program]
        connected = [s for s in people if s.conn is not None]
        if connected:
            return connected[0].index
        return people[0].index if people else None

    def stored_form(self) -> dict[str, Any]:
        """What the log determines, as plain data (two tables with the same log agree)."""
        game = self.game
        return {
            **self.lobby_snapshot(),
            "phase": self.phase,
            "game_number": self.game_number,
            "seed": self.seed,
            "v": self.v,
            "left": [s.index for s in self.seats if s.auto == "left"],
            "records_made": self.records_made,
            "recent_records": self.kept_records(),
            "story": list(self.story.events),
            "game": None if game is None else _game_form(game),
        }


def _game_form(game: Game) -> dict[str, Any]:
    return {
        "phase": str(game.phase),
        "round_number": game.round_number,
        "hands": game.hands,
        "points": list(game.points),
        "places": [list(p) for p in game.places],
        "history": None if game.round is None else list(game.round.history),
        "exchange_log": list(game.exchange_log),
        "pending": [repr(p) for p in game.pending],
        "deals": [list(d) for d in game.deals],
        "past_rounds": repr(game.past_rounds),
        "leader": game.leader,
        "rng": None if game.rng is None else game.rng.getstate(),
    }


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_table_id() -> str:
    # interned: its sockets' copies of it, read from their requests, are this one string
    # (tablesockets.route), not one string a socket
    return sys.intern(secrets.token_urlsafe(18))  # 144 bits
