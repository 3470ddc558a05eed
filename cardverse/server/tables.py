"""The table service: seats, tokens, the host, options, bots, timers and the turn flow.

A :class:`Table` is one table at its share link: its seats (empty, a person, or a computer
player), the host (seat 0's creator, who picks options and starts), the game in progress (a
:class:`cardverse.engine.Game`) and the finished games' records.

Every change is an *event*: checked first, then appended to the store, then applied by
:meth:`Table._apply`, and only then told to the connections. Restoring a table after a restart is
applying its stored events again in order (:meth:`Table.restore`), through the same code and the
rules engine; nothing else is kept. Everything that changes a table runs on the event loop without
awaiting in between, so a table needs no lock; only computer players' decisions are awaited (off
the loop), and a decision is dropped if the table moved on meanwhile (``v`` changed).

Connections are anything with ``seat``, ``send(text)`` and ``close(code, reason)`` (see
:class:`Conn`); every message to one goes through the view filter
(:mod:`cardverse.server.viewfilter`). A change of the game is told to each connection in one
frame, made by :meth:`Table._frame_for` and sent by :meth:`Table._deliver`: a ``change`` with
what changed since the state that connection holds (:class:`cardverse.server.wire.Synced`), or
the full ``state`` when it holds none; the parts every recipient shares are made once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from ..engine import (
    Action,
    ActionFormatError,
    Game,
    OptionsError,
    Phase,
    Rules,
    from_move,
    player_view,
    rules_from_dict,
    to_move,
)
from ..engine.cards import CardError, parse_card
from ..engine.plays import GIVE
from ..notation import record_to_json
from ..tabletalk.invites import Directory, LookupLimits, read_code
from ..tabletalk.narrate import protocol_events
from ..tabletalk.story import AwayLog, RoundStory, final_titles, score_sheet
from . import protocol as P
from .botrunner import BotRunner
from .eventlog import EventStore, FencedOut, StoredEvent, StoreUnavailable
from .failures import internal_error, log_failure
from .hints import Hints
from .protocol import ProtocolError
from .reactions import Reactions
from .seats import SeatControls
from .spectators import Spectators, watch_id_for
from .stores import open_store
from .viewfilter import (
    SeatView,
    Shared,
    named_cards,
    render,
    render_parts,
    resolve_private,
    share,
)
from .wire import PublicChange, Synced, WireViews

log = logging.getLogger("cardverse.server.tables")

TablePhase = Literal["lobby", "playing", "over"]
LOBBY_EVENTS = frozenset({"sit", "leave", "options", "bot", "unbot", "seq_reset"})


@dataclass
class Settings:
    """Server settings; every duration is in seconds."""

    data_dir: Path = Path("data")
    turn_timer: float | None = 60.0  # a new table's turn timer (None: off)
    grace: float | None = 30.0  # disconnected this long: a computer player stands in (None: never)
    bot_delay: float = 0.8  # a computer player's "thinking" pause before it acts
    bot_delay_jitter: float = 0.5  # the pause varies by up to this fraction either way
    round_pause: float = 3.0  # pause between the end of a round and the next deal
    hard_time_limit: float | None = 1.0  # the hard player's search time per move
    bot_processes: int | None = None  # hard players' worker processes (0: threads; None: auto)
    rate_per_second: float = 20.0  # client messages per second per connection ...
    burst: int = 40  # ... with bursts up to this many
    flood_limit: int = 100  # messages dropped in a row by the rate limit: the connection closes
    outbox_limit: int = 2000  # messages queued for a connection that does not read: aborted
    outbox_bytes: int = 1 << 20  # bytes queued for a connection that does not read: aborted
    send_timeout: float = 10.0  # a message not taken by the socket in this time: aborted
    ws_idle_timeout: float | None = 300.0  # no message from a connection for this long: closed
    standby_timeout: float = 10.0  # a connection over the watcher limit must join within this
    max_watchers: int = 100  # connections watching one table without a seat
    max_connections_per_address: int = 32  # WebSocket connections from one client address
    create_rate: float = 0.1  # tables one address may create a second ...
    create_burst: int = 10  # ... with bursts up to this many
    max_tables: int = 20_000  # tables in memory: creation is refused above this
    lookup_burst: int = 10  # invite codes from one address that may find no table in a row ...
    lookup_rate: float = 10 / 60  # ... and then a second (cardverse.tabletalk.invites)
    lookup_all_burst: int = 300  # the same for all addresses together
    lookup_all_rate: float = 300 / 60
    idle_unload: float | None = 600.0  # a table nobody is connected to leaves memory after this
    lobby_expiry: float | None = 86_400.0  # a lobby nobody is connected to expires after this
    sweep_interval: float = 30.0  # how often idle tables and lobbies are looked for
    timeout_timer: float = 10.0  # the turn timer of a person who timed out this round
    max_timeouts: int = 3  # time-outs in a round: the computer keeps the seat for the round
    sqlite_synchronous: str = "FULL"  # FULL: an acknowledged action survives a power cut
    group_commit: bool = True  # one transaction per event-loop turn for all tables
    allowed_origins: tuple[str, ...] = ()  # origins besides the site itself ("*": any)
    operator_token: str | None = None  # gives /api/operator (Authorization: Bearer ...)
    operator_addresses: tuple[str, ...] = ()  # client addresses that may read /api/operator
    trusted_proxies: tuple[str, ...] = ()  # proxies whose X-Forwarded-For is read (proxies.py)
    database: str | None = None  # postgresql://... (None: the SQLite file in data_dir)
    redis: str | None = None  # redis://...: tables are owned through leases, frames routed
    lease_ttl: float = 10.0  # a table's lease in Redis lasts this long unless renewed ...
    lease_renew: float = 3.0  # ... which its owner does this often
    orphan_scan: float = 1.0  # how often live tables without an owner are looked for


class Conn(Protocol):
    """A client connection as the table sees it."""

    seat: int | None
    table: Table | None
    standby: bool  # over the table's watcher limit: may only join
    synced: Synced | None  # what it holds of the game (None: nothing yet); see wire.Synced

    def send(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


@dataclass
class Seat:
    index: int
    kind: Literal["empty", "human", "bot"] = "empty"
    name: str | None = None
    level: str | None = None  # a computer player's level
    token_hash: str | None = None
    last_seq: int = 0
    conn: Conn | None = None
    auto: Literal["timeout", "disconnected", "left"] | None = None  # a computer player stands in
    grace: asyncio.TimerHandle | None = field(default=None, repr=False)
    timeouts: int = 0  # turns this person let time out in the current round
    kept: bool = False  # timed out too often: the computer player keeps the seat this round

    def clear(self) -> None:
        self.kind = "empty"
        self.name = self.level = self.token_hash = None
        self.last_seq = 0
        self.auto = None
        self.timeouts = 0
        self.kept = False

    def lobby_state(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "level": self.level,
            "token_hash": self.token_hash,
            "last_seq": self.last_seq,
        }


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_table_id() -> str:
    return secrets.token_urlsafe(18)  # 144 bits


def _jitter(delay: float, spread: float) -> float:
    if delay <= 0:
        return 0.0
    return delay * random.uniform(1 - spread, 1 + spread)


def _refusal_error(refusal: Any) -> ProtocolError:
    return ProtocolError(refusal.code, refusal.message, refusal.rule, **refusal.params)


class Table(SeatControls, Spectators, Hints, Reactions):
    """One table: seats, the host, options, the game, and the connections watching it."""

    def __init__(self, service: TableService, table_id: str) -> None:
        self.service = service
        self.settings = service.settings
        self.id = table_id
        self.rules = Rules.make()
        self.turn_timer: float | None = self.settings.turn_timer
        self.seats: list[Seat] = []
        self.host: int | None = None
        self.phase: TablePhase = "lobby"
        self.game: Game | None = None
        self.game_number = 0
        self.seed = 0
        self.records: list[str] = []  # finished games' records, as compact JSON text
        self.n = 0  # events in the log
        self.fence = 0  # this process's fencing number for the table (see store.claim)
        self.v = 0  # changes to the game so far (a stamp for states and pending bot moves)
        self.watchers: set[Conn] = set()
        self.watch_id = watch_id_for(table_id)
        self.idle_since: float | None = time.monotonic()  # no connection since (None: some)
        self._lobby_row: int | None = None  # the coalesced lobby row at the log's end, if any
        self.wire = WireViews()
        self.story = RoundStory()  # the round's events, sent again with a full state
        self.away = AwayLog()  # what stand-in computer players did for absent people
        self.live = False  # False while restoring: nothing is told, nothing scheduled
        self._events: list[dict[str, Any]] = []  # game events of the changes not yet told
        self._table_changed = False
        self._turn_handle: asyncio.TimerHandle | None = None
        self._round_handle: asyncio.TimerHandle | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._deadline: tuple[int, float] | None = None  # (seat, loop time) of the turn timer
        self._ack_due: tuple[Conn, int] | None = None  # an accepted move's ack, told with it

    # -- events: check, store, apply ------------------------------------------------------------

    def _commit(self, kind: str, data: dict[str, Any]) -> None:
        """Store event ``kind`` and apply it; the caller has checked it is valid.

        Lobby changes are coalesced: they are applied, and one ``lobby`` row (the lobby as it
        is now) stands for the whole run of them, so toggling options or seats does not grow
        the log."""
        try:
            self._write(kind, data)
        except FencedOut:  # another process owns the table now: this copy must go
            log.warning("table %s: another process owns it now", self.id)
            asyncio.get_running_loop().call_soon(self.service.lose, self.id)
            raise ProtocolError(
                "try_again", "the table moved to another server: reconnect and try again"
            ) from None
        except StoreUnavailable:
            raise ProtocolError(
                "try_again", "the game could not be saved just now: nothing was changed, try again"
            ) from None

    def _write(self, kind: str, data: dict[str, Any]) -> None:
        store = self.service.store
        fence = self.fence
        if kind in LOBBY_EVENTS and self.n > 0 and self.phase != "playing":
            before = self._lobby_snapshot()
            self._apply(kind, data)
            snapshot = self._lobby_snapshot()
            try:
                if self._lobby_row is not None:
                    store.replace(self.id, self._lobby_row, "lobby", snapshot, fence=fence)
                else:
                    store.append(self.id, self.n, "lobby", snapshot, fence=fence)
                    self._lobby_row = self.n
                    self.n += 1
            except Exception:  # not stored: the lobby is as it was
                self._undo_lobby(before)
                raise
            return
        if self.n == 0:
            store.create_table(self.id, 0, kind, data, fence=fence)
        else:
            touch = kind != "move" or self.n % 64 == 0
            store.append(self.id, self.n, kind, data, touch, fence=fence)
        self._lobby_row = None
        self.n += 1
        self._apply(kind, data)

    def _undo_lobby(self, before: dict[str, Any]) -> None:
        """Put the lobby back as ``before`` (a change the store refused), keeping the
        connections in their seats."""
        conns = [(seat.conn, seat.grace) for seat in self.seats]
        self._on_lobby(before)
        for seat, (conn, grace) in zip(self.seats, conns, strict=False):
            seat.conn, seat.grace = conn, grace

    def _lobby_snapshot(self) -> dict[str, Any]:
        return {
            "rules": self.rules.changed_options(),
            "turn_timer": self.turn_timer,
            "hints": self.hints,
            "host": self.host,
            "seats": [seat.lobby_state() for seat in self.seats],
        }

    def _on_lobby(self, data: dict[str, Any]) -> None:
        self.rules = rules_from_dict(data["rules"])
        self.turn_timer = data["turn_timer"]
        self.hints = data.get("hints", True)  # lobbies stored before hints were an option
        self.host = data["host"]
        self.seats = []
        for index, state in enumerate(data["seats"]):
            seat = Seat(index)
            seat.kind = state["kind"]
            seat.name = state["name"]
            seat.level = state["level"]
            seat.token_hash = state["token_hash"]
            seat.last_seq = state["last_seq"]
            self.seats.append(seat)
        self._table_changed = True

    def _apply(self, kind: str, data: dict[str, Any]) -> None:
        handler = getattr(self, "_on_" + kind)
        handler(data)
        by, seq = data.get("by"), data.get("seq")
        if by is not None and seq is not None and self.seats[by].kind == "human":
            self.seats[by].last_seq = max(self.seats[by].last_seq, seq)

    def _on_create(self, data: dict[str, Any]) -> None:
        self.rules = rules_from_dict(data["rules"])
        self.turn_timer = data["turn_timer"]
        self.seats = [Seat(i) for i in range(self.rules.players)]
        self.host = 0
        self._on_sit({"seat": 0, "name": data["name"], "token_hash": data["token_hash"]})

    def _on_sit(self, data: dict[str, Any]) -> None:
        seat = self.seats[data["seat"]]
        seat.clear()
        seat.kind = "human"
        seat.name = data["name"]
        seat.token_hash = data["token_hash"]
        if self.host is None:
            self.host = seat.index
        self._table_changed = True

    def _on_options(self, data: dict[str, Any]) -> None:
        self.rules = rules_from_dict(data["rules"])
        self.turn_timer = data["turn_timer"]
        self.hints = data.get("hints", self.hints)
        players = self.rules.players
        del self.seats[players:]
        self.seats.extend(Seat(i) for i in range(len(self.seats), players))
        self._table_changed = True

    def _on_bot(self, data: dict[str, Any]) -> None:
        for index in data["seats"]:
            seat = self.seats[index]
            seat.clear()
            seat.kind = "bot"
            seat.level = data["level"]
            seat.name = f"Computer ({data['level']})"
        self._table_changed = True

    def _on_unbot(self, data: dict[str, Any]) -> None:
        self.seats[data["seat"]].clear()
        self._table_changed = True

    def _on_seq_reset(self, data: dict[str, Any]) -> None:
        self.seats[data["seat"]].last_seq = 0

    def _on_start(self, data: dict[str, Any]) -> None:
        self.game_number += 1
        self.seed = data["seed"]
        self.game = Game(self.rules, seed=self.seed)
        self.phase = "playing"
        self.v += 1
        for seat in self.seats:
            seat.auto = None
            seat.timeouts = 0
            seat.kept = False
        self._table_changed = True
        self._events.append({"event": "game_started", "game": self.game_number})
        self._round_started_events()

    def _on_next_round(self, data: dict[str, Any]) -> None:
        game = self.game
        assert game is not None
        game.start_next_round()
        self.v += 1
        for seat in self.seats:
            seat.timeouts = 0
            if seat.kept:  # the round is over: the seat is the person's again
                seat.kept = False
                seat.auto = None
                self._presence(seat)
        self._round_started_events()

    def _round_started_events(self) -> None:
        game = self.game
        assert game is not None
        events = self._events
        events.append(
            {
                "event": "round_started",
                "round": game.round_number,
                "leader": game.leader,
                "exchange": game.phase is Phase.EXCHANGE,
            }
        )
        for index, (giver, receiver, cards) in enumerate(game.exchange_log):
            if index >= len(game.pairs):
                break
            events.append(
                {
                    "event": "gift",
                    "seat": giver,
                    "to": receiver,
                    "count": cards.bit_count(),
                    "_private": {"seats": [giver, receiver], "cards": _names(cards)},
                }
            )
        if game.pairs and game.phase is Phase.PLAY:
            events.append({"event": "exchange_done", "leader": game.leader})

    def _on_move(self, data: dict[str, Any]) -> None:
        game = self.game
        assert game is not None
        seat = data["seat"]
        move = to_move(Action(**_action_fields(data["action"])))
        events = self._events
        if data.get("actor") == "auto":
            self.away.record(seat, game.round_number, data["action"])
        exchanging = game.phase is Phase.EXCHANGE
        events.extend(protocol_events(game.apply(move, seat)))  # told from the engine's events
        if exchanging and not game.pending:  # the exchange is over: play begins
            events.append({"event": "exchange_done", "leader": game.leader})
        self.v += 1
        if game.over:
            self.phase = "over"
            record = record_to_json(game, self._record_players())
            self.records.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
            places, titles = final_titles(list(game.points))
            events.append(
                {
                    "event": "game_over",
                    "game": self.game_number,
                    "points": list(game.points),
                    "standings": places,
                    "titles": titles,
                }
            )
            self._end_stand_ins()
            self._table_changed = True

    def _record_players(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for seat in self.seats:
            entry: dict[str, Any] = {"name": seat.name or f"Seat {seat.index}"}
            if seat.kind == "bot":
                entry["ai"] = seat.level
            out.append(entry)
        return out

    # -- restoring ------------------------------------------------------------------------------

    @classmethod
    def restore(cls, service: TableService, table_id: str, events: list[StoredEvent]) -> Table:
        """Rebuild a table by applying its stored events in order (nothing is told)."""
        table = cls(service, table_id)
        for event in events:
            if event.n != table.n:
                raise ValueError(f"table {table_id}: event {event.n} out of order")
            table._apply(event.kind, event.data)
            table._lobby_row = table.n if event.kind == "lobby" else None
            table.n += 1
        table.story.add(table._events)
        table._events.clear()
        table._table_changed = False
        return table

    def go_live(self) -> None:
        """Start telling and scheduling (after creation or restoring)."""
        self.live = True
        if self.phase == "playing":
            for seat in self.seats:
                if seat.kind == "human" and seat.conn is None:
                    self._start_grace(seat)
        self._schedule()

    # -- messages from connections --------------------------------------------------------------

    def attach(self, conn: Conn) -> None:
        """A new connection on this table's link: it watches until it joins.

        Over ``max_watchers`` a connection is on standby: it is told so and may only join
        (players coming back with their token always get in); it is not sent the table's
        changes."""
        conn.table = self
        self.idle_since = None
        standby = len(self.watchers) >= self.settings.max_watchers
        if not standby:
            self.watchers.add(conn)
        self._send(
            conn,
            {
                "type": "hello",
                "protocol": P.PROTOCOL_VERSION,
                "table_id": self.id,
                "server_time": round(time.time() * 1000),
                "limits": {
                    "max_message_bytes": P.MAX_MESSAGE_BYTES,
                    "max_name_length": P.MAX_NAME_LENGTH,
                    "rate_per_second": self.settings.rate_per_second,
                    "burst": self.settings.burst,
                    "max_seq": P.MAX_SEQ,
                },
            },
        )
        self._send(conn, self._table_message())
        if standby:
            conn.standby = True
            error = ProtocolError(
                "too_many_watchers",
                f"{self.settings.max_watchers} connections already watch this table: "
                "join a seat (or take yours back with its token) to stay",
                limit=self.settings.max_watchers,
            )
            self._send(conn, error.to_message())
            return
        self._send_spectator_full(conn)
        self._watching_changed()

    def _watching_changed(self) -> None:
        """The number of spectators changed: everyone's table message says so."""
        self._table_changed = True
        self._flush()

    def detach(self, conn: Conn) -> None:
        """A connection closed."""
        if conn in self.watchers:
            self.watchers.discard(conn)
            self._watching_changed()
        index = conn.seat
        conn.seat = None
        conn.table = None
        if not self.watchers and all(s.conn is None or s.conn is conn for s in self.seats):
            self.idle_since = time.monotonic()
        if index is None or index >= len(self.seats):
            return
        seat = self.seats[index]
        if seat.conn is not conn:
            return
        seat.conn = None
        if self.phase == "playing" and seat.kind == "human":
            self._start_grace(seat)
        self._host_disconnected(index)
        self._presence(seat)

    def handle(self, conn: Conn, message: P._Client) -> None:
        """Handle one parsed client message; a refusal is sent as an ``error``."""
        seq = getattr(message, "seq", None)
        try:
            self._handle(conn, message)
        except ProtocolError as error:  # it may repeat the client's own words (cards)
            echo = _echo_mask(message) | named_cards(message.model_dump())
            self._send(conn, error.to_message(seq), echo=echo)
        except Exception as failure:
            log_failure(log, f"table {self.id}: handling {message.type}", failure)
            self._send(conn, internal_error(seq))
        self._flush()

    def _handle(self, conn: Conn, message: P._Client) -> None:
        kind = message.type
        if kind == "ping":
            now = round(time.time() * 1000)
            self._send(
                conn, {"type": "pong", "seq": getattr(message, "seq", None), "server_time": now}
            )
            return
        if kind == "join":
            assert isinstance(message, P.Join)
            self._join(conn, message)
            return
        if conn.standby:
            raise ProtocolError(
                "too_many_watchers",
                "too many connections watch this table: only joining is accepted",
                limit=self.settings.max_watchers,
            )
        index = conn.seat
        if kind == "react":  # told to everyone, not stored (cardverse.server.reactions)
            assert isinstance(message, P.React)
            self._react(conn, index, message.reaction)
            return
        if index is None and kind == "sync":  # a spectator's full state
            self._send_full(conn)
            return
        if index is None:
            raise ProtocolError(
                "token_missing", "join the table first, with a display name or your seat token"
            )
        seat = self.seats[index]
        seq: int | None = getattr(message, "seq", None)
        if kind == "suggest":  # changes nothing: no seq bookkeeping (cardverse.server.hints)
            self._suggest(conn, index, seq)
            return
        if kind == "sync":
            self._send_full(conn)
            return
        if kind == "back":
            if seat.auto is None:
                raise ProtocolError("not_auto", "no computer player is standing in for you")
            if seat.kept:
                raise ProtocolError(
                    "seat_kept",
                    f"after {seat.timeouts} time-outs the computer player keeps your seat "
                    "until the end of this round",
                    timeouts=seat.timeouts,
                )
            self._set_auto(seat, None)
            if seq is not None:
                self._ack(conn, seq)
            self._send_full(conn)  # with what the computer player did meanwhile
            return
        assert seq is not None
        if seq <= seat.last_seq:
            self._send(conn, {"type": "ack", "seq": seq, "duplicate": True})
            return
        if kind in ("play", "pass", "give", "discard"):
            if seat.kept:
                raise ProtocolError(
                    "seat_kept",
                    f"after {seat.timeouts} time-outs the computer player keeps your seat "
                    "until the end of this round",
                    timeouts=seat.timeouts,
                )
            if seat.auto is not None:  # the person acts: the stand-in stops at once
                seat.auto = None
                self._presence(seat)
                self._schedule()  # no stand-in move; the person's timer if this one is refused
            self._move(index, message)
            self._ack_due = (conn, seq)  # told in the change this move makes (one frame)
            return
        elif kind == "leave":
            self._leave(conn, index, seq)
        else:
            if index != self.host:
                raise ProtocolError("not_host", "only the host may do this", host=self.host)
            getattr(self, "_host_" + kind)(index, message)
        self._ack(conn, seq)

    def _ack(self, conn: Conn, seq: int) -> None:
        self._send(conn, {"type": "ack", "seq": seq, "duplicate": False})

    def _join(self, conn: Conn, message: P.Join) -> None:
        if conn.seat is not None:
            raise ProtocolError(
                "already_seated", f"this connection already holds seat {conn.seat}", seat=conn.seat
            )
        if getattr(conn, "watch_only", False):
            raise ProtocolError("watch_only", "a watch link only watches: it cannot take a seat")
        if message.token is not None:
            wanted = token_hash(message.token)
            for seat in self.seats:
                if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
                    if message.reset_seq and seat.last_seq:
                        self._commit("seq_reset", {"seat": seat.index})
                    self._take_seat(conn, seat, token=None)
                    return
            raise ProtocolError("bad_token", "no seat at this table has that token")
        name = P.check_name(message.name)
        self._not_playing()
        if message.seat is not None:
            if message.seat >= len(self.seats):
                raise ProtocolError(
                    "no_such_seat",
                    f"this table has seats 0 to {len(self.seats) - 1}",
                    seat=message.seat,
                    seats=len(self.seats),
                )
            seat = self.seats[message.seat]
            if seat.kind != "empty":
                raise ProtocolError("seat_taken", f"seat {seat.index} is taken", seat=seat.index)
        else:
            free = [s for s in self.seats if s.kind == "empty"]
            if not free:
                raise ProtocolError("table_full", "every seat at this table is taken")
            seat = free[0]
        token = new_token()
        self._commit("sit", {"seat": seat.index, "name": name, "token_hash": token_hash(token)})
        self._take_seat(conn, seat, token=token)

    def _take_seat(self, conn: Conn, seat: Seat, token: str | None) -> None:
        old = seat.conn
        if old is not None and old is not conn:
            self._send(
                old,
                {"type": "replaced", "message": "this seat was taken up by a newer connection"},
            )
            old.seat = None
            old.table = None
            old.close(P.CLOSE_REPLACED, "replaced by a newer connection")
        if conn in self.watchers:
            self.watchers.discard(conn)
            self._table_changed = True  # one spectator fewer
        conn.standby = False
        conn.seat = seat.index
        seat.conn = conn
        self.idle_since = None
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        welcome: dict[str, Any] = {
            "type": "welcome",
            "seat": seat.index,
            "name": seat.name,
            "host": self.host == seat.index,
            "last_seq": seat.last_seq,
            "resumed": token is None,
        }
        if token is not None:
            welcome["token"] = token
        self._send(conn, welcome)
        if seat.auto is not None and not seat.kept:
            # told to the others; the joining connection learns it in its one full state
            self._set_auto(seat, None, joining=conn)
        else:
            self._presence(seat)
        self._send_full(conn)

    def _send_full(self, conn: Conn) -> None:
        self._send(conn, self._table_message())
        if self.game is not None:
            self._deliver(conn, self._full_state_text(conn, []))

    def _not_playing(self) -> None:
        if self.phase == "playing":
            raise ProtocolError("game_in_progress", "not while a game is being played")

    # -- host commands ---------------------------------------------------------------------------

    def _host_options(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.Options)
        self._not_playing()
        given = message.model_fields_set
        data: dict[str, Any] = self.rules.changed_options()
        if "rules" in given and message.rules is not None:
            if "preset" in message.rules:
                data = {"preset": message.rules["preset"], "players": self.rules.players}
            data.update(message.rules)
        try:
            rules = rules_from_dict(data)
        except OptionsError as error:
            raise ProtocolError(error.code, error.message, error.rule, **error.params) from None
        turn_timer = message.turn_timer if "turn_timer" in given else self.turn_timer
        hints = message.hints if "hints" in given and message.hints is not None else self.hints
        for seat in self.seats[rules.players :]:
            if seat.kind == "human":
                raise ProtocolError(
                    "seat_occupied",
                    f"{seat.name} sits in seat {seat.index}: a table of {rules.players} "
                    "has no such seat",
                    seat=seat.index,
                    players=rules.players,
                )
        self._commit(
            "options",
            {
                "by": by,
                "seq": message.seq,
                "rules": rules.changed_options(),
                "turn_timer": turn_timer,
                "hints": hints,
            },
        )

    def _host_add_bot(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.AddBot)
        self._not_playing()
        if message.seat is None:
            targets = [s.index for s in self.seats if s.kind == "empty"]
            if not targets:
                raise ProtocolError("table_full", "every seat at this table is taken")
        else:
            self._check_seat(message.seat)
            if self.seats[message.seat].kind != "empty":
                raise ProtocolError(
                    "seat_taken", f"seat {message.seat} is taken", seat=message.seat
                )
            targets = [message.seat]
        self._commit(
            "bot", {"by": by, "seq": message.seq, "seats": targets, "level": message.level}
        )

    def _host_remove_bot(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.RemoveBot)
        self._not_playing()
        self._check_seat(message.seat)
        if self.seats[message.seat].kind != "bot":
            raise ProtocolError(
                "not_a_bot", f"seat {message.seat} holds no computer player", seat=message.seat
            )
        self._commit("unbot", {"by": by, "seq": message.seq, "seat": message.seat})

    def _host_start(self, by: int, message: P._Client) -> None:
        self._not_playing()
        empty = [s.index for s in self.seats if s.kind == "empty"]
        if empty:
            raise ProtocolError(
                "seats_empty",
                "every seat needs a player or a computer player first: seats "
                + ", ".join(map(str, empty))
                + " are empty",
                seats=empty,
            )
        seq = getattr(message, "seq", None)
        self._commit("start", {"by": by, "seq": seq, "seed": secrets.randbits(63)})
        for seat in self.seats:
            if seat.kind == "human" and seat.conn is None:
                self._start_grace(seat)

    def _host_rematch(self, by: int, message: P._Client) -> None:
        if self.phase != "over":
            raise ProtocolError(
                "game_not_over", "a rematch follows a finished game", phase=self.phase
            )
        self._host_start(by, message)

    def _check_seat(self, index: int) -> None:
        if index >= len(self.seats):
            raise ProtocolError(
                "no_such_seat",
                f"this table has seats 0 to {len(self.seats) - 1}",
                seat=index,
                seats=len(self.seats),
            )

    # -- moves ---------------------------------------------------------------------------------

    def _move(self, index: int, message: P._Client) -> None:
        game = self.game
        if self.phase != "playing" or game is None:
            raise ProtocolError("no_game", "no game is being played at this table")
        kind = message.type
        cards: list[str] = list(getattr(message, "cards", []))
        jokers: dict[str, str] = dict(getattr(message, "jokers", {}) or {})
        try:
            move = to_move(Action(kind, tuple(cards), jokers))
        except ActionFormatError as error:
            raise ProtocolError("bad_action", str(error)) from None
        refusal = game.check(index, move)
        if refusal is not None:
            raise _refusal_error(refusal)
        self._commit_move(index, move, message.seq, "human")  # type: ignore[attr-defined]

    def _commit_move(self, index: int, move: int, seq: int | None, actor: str) -> None:
        data: dict[str, Any] = {
            "seat": index,
            "action": from_move(move).to_json(with_seat=False),
            "actor": actor,
        }
        if seq is not None:
            data["by"] = index
            data["seq"] = seq
        self._commit("move", data)

    # -- telling --------------------------------------------------------------------------------

    def _send(self, conn: Conn, message: dict[str, Any], *, echo: int = 0) -> None:
        if "table_id" in message and getattr(conn, "watch_only", False):
            message = {**message, "table_id": self.watch_id}  # a watch link knows no more
        conn.send(render(message, conn.seat, self.game, echo=echo))

    def _flush(self) -> None:
        """Schedule what comes next and tell everyone what changed."""
        ack, self._ack_due = self._ack_due, None
        if not self.live:
            if ack is not None:
                self._ack(*ack)
            return
        events = self._events
        table_changed = self._table_changed
        self._events = []
        self._table_changed = False
        self.story.add(events)
        if events:
            self._schedule()
        if ack is not None and not (events and self.game is not None):
            self._ack(*ack)
            ack = None
        if table_changed:
            self._broadcast_table()
        if events and self.game is not None:
            self._broadcast_state(events, ack)

    def _broadcast_table(self) -> None:
        self._send_public(self._table_message())

    def _send_public(self, message: dict[str, Any]) -> None:
        """A message with nothing private, rendered once (as for nobody's seat) for all."""
        text = render(message, None, self.game)
        watch_text: str | None = None
        for conn in self._all_conns():
            if "table_id" in message and getattr(conn, "watch_only", False):
                if watch_text is None:  # a watch link knows the table by its watch id only
                    watch_text = render({**message, "table_id": self.watch_id}, None, self.game)
                conn.send(watch_text)
            else:
                conn.send(text)

    def _broadcast_state(
        self,
        events: list[dict[str, Any]],
        ack: tuple[Conn, int] | None = None,
        *,
        skip: Conn | None = None,
    ) -> None:
        """Tell every connection the change just made: each one frame (:meth:`_frame_for`),
        sent by :meth:`_deliver`. ``ack``: the accepted move that made it, told in its
        sender's frame; ``skip``: a connection about to be sent its full state instead."""
        game = self.game
        assert game is not None
        conns = [conn for conn in self._all_conns() if conn is not skip]
        if not conns and skip is None:  # (a skipped one holds this change's state next)
            self.wire.forget_told()
            if ack is not None:
                self._ack(*ack)
            return
        change = self._change(events)
        ack_conn, ack_seq = ack if ack is not None else (None, None)
        for conn in conns:
            frame = self._frame_for(conn, change, ack_seq if conn is ack_conn else None)
            self._deliver(conn, frame)
        if ack is not None and ack[0] not in conns:
            self._ack(*ack)
        if not (change.shared.ok and change.public.view.ok):
            # The filter withheld the change: nobody holds its state, the next one goes whole.
            self.wire.forget_told()
            for conn in conns:
                conn.synced = None

    def _change(self, events: list[dict[str, Any]]) -> Change:
        """The parts of the change just made that every recipient shares, made once."""
        game = self.game
        assert game is not None
        played = self.wire.played(game)
        public = self.wire.public_change(game, self.v, played, score_sheet)
        head = _dumps(
            {
                "type": "change",
                "v": self.v,
                "from": public.base,
                "at": self._stamp(),
                "timer": self._timer_info(),
            }
        )[1:-1]
        tail = "" if public.score is None else ',"score":' + public.score
        private: set[int] = set()
        for event in events:
            if "_private" in event:
                private.update(event["_private"]["seats"])
        public_events = resolve_private(events, None) if private else events
        shared = share(head + ',"events":' + _dumps(public_events) + tail, game, played)
        return Change(self.v, public, shared, head, tail, events, frozenset(private), played)

    def _frame_for(self, conn: Conn, change: Change, ack: int | None = None) -> str:
        """The one frame that tells ``conn`` the change: a ``change`` message when it holds
        the state the change follows, else the full ``state``; ``ack`` is the number of the
        move of its own that made the change."""
        game = self.game
        assert game is not None
        seat = conn.seat
        synced = getattr(conn, "synced", None)
        public = change.public
        if (
            synced is None
            or public.base is None
            or synced.v != public.base
            or synced.seat != seat
            or (seat is not None and self.seats[seat].conn is not conn)
        ):
            return self._full_state_text(conn, change.events, ack=ack)
        synced.v = change.v
        if seat is None and ack is None:
            if change.spectators is None:
                change.spectators = render_parts(change.shared, "", public.view, None, game)
            return change.spectators
        own = "" if seat is None else self.wire.own_change(game, seat, synced)
        head: Shared | str = change.shared
        if seat is not None and seat in change.private:
            events = resolve_private(change.events, seat)
            head = change.head + ',"events":' + _dumps(events) + change.tail
        if ack is not None:
            text = (head.text if isinstance(head, Shared) else head) + ',"ack":' + str(ack)
            head = Shared(text, head.ok) if isinstance(head, Shared) else text  # no card added
        return render_parts(head, own, public.view, seat, game, change.played)

    def _deliver(self, conn: Conn, text: str) -> None:
        """Send one frame to one connection (every state and change goes out here)."""
        conn.send(text)

    def _full_state_text(
        self, conn: Conn, events: list[dict[str, Any]], *, ack: int | None = None
    ) -> str:
        """The full ``state`` for ``conn`` (its seat's, or a spectator's), with the round's
        log; from now on it holds the state of change ``v``."""
        game = self.game
        assert game is not None
        seat = conn.seat
        shared = self.wire.shared(game)
        synced = Synced(self.v, seat)
        if seat is None:
            message = self._spectator_state(events, shared, full=True)
        else:
            fields = self.wire.own_fields(game, seat)
            synced.own = fields
            synced.hand = game.hand(seat)
            own = ",".join('"' + key + '":' + text for key, text in fields.items())
            message = self._state_frame(events, SeatView(own, shared), full=True)
            if self.seats[seat].auto is None:
                away = self.away.take(seat, game)
                if away:
                    message["away"] = away
        if ack is not None:
            message["ack"] = ack
        conn.synced = synced
        return render(message, seat, game)

    def _state_frame(
        self, events: list[dict[str, Any]], view: Any, *, full: bool
    ) -> dict[str, Any]:
        """What every state message holds, a seat's or the spectators': ``view`` is theirs;
        ``full`` adds the round's events so far (``log``)."""
        game = self.game
        assert game is not None
        message: dict[str, Any] = {
            "type": "state",
            "v": self.v,
            "at": self._stamp(),
            "timer": self._timer_info(),
            "events": events,
            "score": score_sheet(game),
            "view": view,
        }
        if full:
            message["log"] = list(self.story.events)
        return message

    def _stamp(self) -> dict[str, int]:
        game = self.game
        assert game is not None
        step = len(game.exchange_log) - len(game.pairs)
        if game.round is not None:
            step += len(game.round.history)
        return {"game": self.game_number, "round": game.round_number, "step": step}

    def _timer_info(self) -> dict[str, Any] | None:
        if self._deadline is None:
            return None
        seat, deadline = self._deadline
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        # the same moment on the server's wall clock (ms), for clients that measured the offset
        wall = round((time.time() + remaining) * 1000)
        return {"seat": seat, "ends_in": round(remaining, 3), "deadline": wall}

    def _presence(self, seat: Seat) -> None:
        if not self.live:
            return
        message = {
            "type": "presence",
            "seat": seat.index,
            "connected": seat.conn is not None,
            "auto": seat.auto,
        }
        self._send_public(message)

    def _all_conns(self) -> list[Conn]:
        conns = [s.conn for s in self.seats if s.conn is not None]
        conns.extend(self.watchers)
        return conns

    def _table_message(self) -> dict[str, Any]:
        return {
            "type": "table",
            "table_id": self.id,
            "phase": self.phase,
            "host": self.host,
            "rules": self.rules.to_dict(),
            "turn_timer": self.turn_timer,
            "hints": self.hints,
            "game": self.game_number,
            "records": list(range(1, len(self.records) + 1)),
            "watching": len(self.watchers),
            "watch_id": self.watch_id,
            "seats": [
                {
                    "seat": s.index,
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "connected": s.kind == "bot" or s.conn is not None,
                    "auto": s.auto,
                    "host": s.index == self.host,
                }
                for s in self.seats
            ],
        }

    def summary(self) -> dict[str, Any]:
        """The public state (the ``table`` message without its type)."""
        out = self._table_message()
        del out["type"]
        return out

    # -- timers and computer players ------------------------------------------------------------

    def _cancel_turn(self) -> None:
        if self._turn_handle is not None:
            self._turn_handle.cancel()
            self._turn_handle = None
        if self._round_handle is not None:
            self._round_handle.cancel()
            self._round_handle = None
        if self._bot_task is not None:
            self._bot_task.cancel()
            self._bot_task = None
        self._deadline = None

    def _schedule(self) -> None:
        """Arrange whatever must happen next without a person: a bot, a timer, the next deal."""
        if not self.live:
            return
        self._cancel_turn()
        game = self.game
        if self.phase != "playing" or game is None:
            return
        loop = asyncio.get_running_loop()
        if game.phase is Phase.ROUND_OVER:
            self._round_handle = loop.call_later(
                self.settings.round_pause, self._next_round, self.v
            )
            return
        turn = game.turn
        if turn is None or game.phase not in (Phase.PLAY, Phase.EXCHANGE):
            return
        seat = self.seats[turn]
        delay = _jitter(self.settings.bot_delay, self.settings.bot_delay_jitter)
        if seat.kind == "bot":
            self._start_bot(turn, seat.level or "normal", "bot", delay)
        elif seat.auto is not None:
            self._start_bot(turn, "normal", "auto", delay)
        elif self.turn_timer is not None:
            timer = self.turn_timer
            if seat.timeouts:  # timed out before this round: a short timer
                timer = min(timer, self.settings.timeout_timer)
            self._deadline = (turn, loop.time() + timer)
            self._turn_handle = loop.call_later(timer, self._on_timeout, self.v, turn)

    def _next_round(self, v: int) -> None:
        self._round_handle = None
        game = self.game
        if v != self.v or game is None or game.phase is not Phase.ROUND_OVER:
            return
        try:
            self._commit("next_round", {})
        except Exception:
            log.exception("table %s: could not deal the next round", self.id)
            self._retry_later()
            return
        self._flush()

    def _on_timeout(self, v: int, index: int) -> None:
        self._turn_handle = None
        self._deadline = None
        if v != self.v or self.game is None or self.game.turn != index:
            return
        seat = self.seats[index]
        seat.timeouts += 1
        if seat.timeouts >= self.settings.max_timeouts:
            seat.kept = True  # the computer player keeps the seat for the rest of the round
        self._set_auto(seat, "timeout")

    def _start_grace(self, seat: Seat) -> None:
        if not self.live or self.settings.grace is None or seat.auto is not None:
            return
        if seat.grace is not None:
            seat.grace.cancel()
        seat.grace = asyncio.get_running_loop().call_later(
            self.settings.grace, self._on_grace, seat.index
        )

    def _on_grace(self, index: int) -> None:
        seat = self.seats[index] if index < len(self.seats) else None
        if seat is None:
            return
        seat.grace = None
        if seat.conn is None and seat.kind == "human" and self.phase == "playing":
            self._set_auto(seat, "disconnected")

    def _set_auto(
        self,
        seat: Seat,
        auto: Literal["timeout", "disconnected", "left"] | None,
        *,
        joining: Conn | None = None,
    ) -> None:
        """A computer player starts (or stops) standing in for a person. ``joining``: the
        connection taking the seat back, sent its full state next (not the new deadline too)."""
        if seat.auto == auto:
            return
        if seat.auto is None:
            self.away.start(seat.index)
        seat.auto = auto
        self._presence(seat)
        game = self.game
        if self.live and game is not None and self.phase == "playing" and game.turn == seat.index:
            self._schedule()
            if self._deadline is not None:
                self._broadcast_state([], skip=joining)  # everyone learns the new deadline

    def _start_bot(self, index: int, level: str, actor: str, delay: float) -> None:
        self._bot_task = asyncio.get_running_loop().create_task(
            self._bot_turn(self.v, index, level, actor, delay)
        )

    async def _bot_turn(self, v: int, index: int, level: str, actor: str, delay: float) -> None:
        game = self.game
        assert game is not None
        started = time.monotonic()
        view = player_view(game, index)
        seed = (self.seed * 1_000_003 + v * 101 + index) % (1 << 63)
        move = await self.service.bots.choose(level, seed, view, queue=self.id)
        rest = delay - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        if v != self.v or self.game is not game or game.turn != index:
            return
        seat = self.seats[index]
        if seat.kind != "bot" and seat.auto is None:
            return
        self._bot_task = None  # this task is finishing: _schedule must not cancel it
        try:
            self._commit_move(index, move, None, actor)
        except Exception:
            log.exception("table %s: the computer player's move failed", self.id)
            self._retry_later()
            return
        self._flush()

    def _retry_later(self, delay: float = 1.0) -> None:
        """What had to happen without a person failed (the store was down): try again."""
        if self.live:
            loop = asyncio.get_running_loop()
            self._round_handle = loop.call_later(delay, self._schedule)

    def _has_connections(self) -> bool:
        return bool(self.watchers) or any(seat.conn is not None for seat in self.seats)

    def close(self) -> None:
        """Stop timers and tasks (server shutdown, or the table leaves memory)."""
        self.live = False
        self._cancel_turn()
        if self._host_timer is not None:
            self._host_timer.cancel()
            self._host_timer = None
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
                seat.grace = None


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@dataclass(slots=True)
class Change:
    """One change of the game as told to every connection: ``shared`` holds the members of
    the ``change`` message before its view that all share (made and checked once), ``head``
    and ``tail`` the same without the events (for a seat whose events hold private cards)."""

    v: int
    public: PublicChange
    shared: Shared
    head: str
    tail: str
    events: list[dict[str, Any]]
    private: frozenset[int]
    played: int
    spectators: str | None = None  # the spectators' frame, made once


def _names(cards: int) -> list[str]:
    from ..engine import mask_names

    return mask_names(cards)


def _action_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": data["action"],
        "cards": tuple(data.get("cards", ())),
        "jokers": dict(data.get("jokers", {})),
    }


def _echo_mask(message: P._Client) -> int:
    """The cards a client message named (they may be named back to it in an error)."""
    mask = 0
    for text in list(getattr(message, "cards", None) or []) + list(
        (getattr(message, "jokers", None) or {}).keys()
    ):
        with contextlib.suppress(CardError):
            mask |= 1 << parse_card(text)
    return mask & ~GIVE


class TableService:
    """All tables of one server process, their store and the computer players' runner.

    A table nobody is connected to leaves memory after ``idle_unload`` seconds (it is in the
    store: the next message or page view loads it back), and a lobby nobody is connected to
    expires after ``lobby_expiry`` (its log is deleted; its link then says there is no table).
    At start only the tables that were in memory are restored.
    """

    def __init__(self, settings: Settings, store: EventStore | None = None) -> None:
        self.settings = settings
        self.store = store or open_store(
            settings.database,
            settings.data_dir,
            settings.sqlite_synchronous,
            settings.group_commit,
        )
        self.bots = BotRunner(
            processes=settings.bot_processes, hard_time_limit=settings.hard_time_limit
        )
        self.tables: dict[str, Table] = {}
        # invite codes and watch ids of every stored table (cardverse.tabletalk.invites)
        self.directory = Directory()
        self._directory_seen = time.time()  # the directory holds the tables made before
        self._directory_looked = float("-inf")  # when the store was last looked in for more
        for known in self.store.known_tables():
            self.directory.add(known, watch_id_for(known))
        self.watch_index: dict[str, str] = self.directory.by_watch  # watch link id -> table id
        self.lookups = LookupLimits(  # failed invite-code look-ups
            (settings.lookup_burst, settings.lookup_rate),
            (settings.lookup_all_burst, settings.lookup_all_rate),
        )
        self.unloaded = 0  # tables taken out of memory so far
        self.expired = 0  # abandoned lobbies expired so far
        self.aborted: dict[str, int] = {}  # connections aborted, by why (see app.WsConnection)
        self._sweeper: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.loop_lag_max = 0.0  # the event loop's longest delay seen (operator figure)
        self.loop_lags_over_50ms = 0
        self.store_errors_seen = 0  # store errors counted in the metrics so far
        self.store.on_lost = self._on_lost
        self._saving: dict[str, list[asyncio.Future[None]]] = {}  # creators awaiting commits
        self.cluster: Any = None  # cluster.Cluster when the server runs with --redis
        if settings.redis:
            from .cluster import Cluster

            self.cluster = Cluster(self, settings.redis)

    def _on_lost(self, table_ids: set[str]) -> None:
        """A failed commit lost these tables' last changes: their copies in memory are ahead
        of the log, so they leave memory (their connections reconnect; the log reloads them);
        a creator waiting for its table to be saved is told to try again."""
        for table_id in table_ids:
            for done in self._saving.get(table_id, ()):
                if not done.done():
                    done.set_exception(
                        ProtocolError(
                            "try_again", "the table could not be saved just now: try again"
                        )
                    )
            self.lose(table_id)

    def lose(self, table_id: str, release: bool = True) -> None:
        """Take the table out of memory at once, without writing (its log is the truth: another
        process owns it now, or a commit failed); its connections are told to reconnect."""
        from .cluster import CLOSE_MOVED

        table = self.tables.pop(table_id, None)
        if table is None:
            return
        table.close()
        for conn in table._all_conns():
            conn.close(CLOSE_MOVED, "the table moved: reconnect")
            conn.table = None
            conn.seat = None
        table.watchers.clear()
        for seat in table.seats:
            seat.conn = None
        if self.cluster is not None:
            from . import metrics

            metrics.LEASES_LOST.inc()
            if release:
                self.cluster.released(table_id)

    def create(
        self,
        name: str | None,
        rules: Any = None,
        turn_timer: Any = ...,
        table_id: str | None = None,
        fence: int = 0,
    ) -> tuple[Table, str]:
        """A new table whose creator (the host) sits in seat 0; returns it and the seat token.

        Inside the event loop the table's first event goes into the turn's group commit with
        every other change of the turn (outside it, or with per-move commits, it is committed
        at once): whoever hands the token out awaits :meth:`saved` first, or calls
        :meth:`create_saved`."""
        clean = P.check_name(name)
        try:
            rules_value = rules_from_dict(rules if rules is not None else {"preset": "standard"})
        except OptionsError as error:
            raise ProtocolError(error.code, error.message, error.rule, **error.params) from None
        if turn_timer is ...:
            timer = self.settings.turn_timer
        elif turn_timer is None:
            timer = None
        elif (
            isinstance(turn_timer, int | float)
            and not isinstance(turn_timer, bool)
            and P.TURN_TIMER_MIN <= turn_timer <= P.TURN_TIMER_MAX
        ):
            timer = float(turn_timer)
        else:
            raise ProtocolError(
                "bad_message",
                f"turn_timer is seconds from {P.TURN_TIMER_MIN:g} to {P.TURN_TIMER_MAX:g}, "
                "or null for none",
                field="turn_timer",
            )
        if len(self.tables) >= self.settings.max_tables:
            self.sweep(force=True)
            if len(self.tables) >= self.settings.max_tables:
                raise ProtocolError(
                    "server_busy", "the server holds as many tables as it may: try again later"
                )
        if table_id is None:
            table_id = new_table_id()
            while self.directory.code_taken(table_id):  # one table per invite code
                table_id = new_table_id()
        table = Table(self, table_id)
        table.fence = fence
        token = new_token()
        table._commit(
            "create",
            {
                "rules": rules_value.changed_options(),
                "turn_timer": timer,
                "name": clean,
                "token_hash": token_hash(token),
            },
        )
        table._events.clear()
        table._table_changed = False
        self.tables[table.id] = table
        self.directory.add(table.id, table.watch_id)
        table.go_live()
        return table, token

    async def create_saved(
        self,
        name: str | None,
        rules: Any = None,
        turn_timer: Any = ...,
        table_id: str | None = None,
        fence: int = 0,
    ) -> tuple[Table, str]:
        """:meth:`create`, returned once the table is durable: its token may be handed out."""
        table, token = self.create(name, rules, turn_timer, table_id=table_id, fence=fence)
        await self.saved(table.id)
        return table, token

    async def saved(self, table_id: str) -> None:
        """Wait for the commit holding the table's changes so far (as an action waits for its
        acknowledgement); raises ``try_again`` when that commit failed (the table is gone from
        memory then, see :meth:`_on_lost`)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def landed() -> None:
            if not done.done():
                done.set_result(None)

        if not self.store.after_commit(landed):
            return  # committed already
        waiting = self._saving.setdefault(table_id, [])
        waiting.append(done)
        try:
            await done
        finally:
            waiting.remove(done)
            if not waiting:
                self._saving.pop(table_id, None)

    def get(self, table_id: str) -> Table | None:
        """The table with this id, loaded from the store if it is not in memory.

        With several processes a table not in memory may be another's: what is returned then
        is a copy to read (rebuilt from the log, never kept, nothing scheduled); only the
        process that takes its lease loads it (:meth:`cluster.Cluster.locate`)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if len(table_id) > 64 or not self.store.exists(table_id):
            return None
        if self.cluster is not None:
            return Table.restore(self, table_id, self.store.events(table_id))
        table = Table.restore(self, table_id, self.store.events(table_id))
        table.fence = self.store.fence_of(table_id)
        self.tables[table_id] = table
        self.watch_index[table.watch_id] = table_id
        if self.store.status(table_id) != "live":
            self.store.set_status(table_id, "live", fence=table.fence)
        table.go_live()
        return table

    def get_watched(self, watch_id: str) -> Table | None:
        """The table of a watch link (any stored table, loaded if it is not in memory)."""
        table_id = self.watch_index.get(watch_id)
        if table_id is None and self.cluster is not None:
            self._newer_tables(at_most_every=1.0)  # made by another process meanwhile?
            table_id = self.watch_index.get(watch_id)
        return None if table_id is None else self.get(table_id)

    def find_by_code(self, text: str, address: str) -> Table | None:
        """The table whose invite code ``text`` is, for a look-up from ``address``.

        Raises :class:`ProtocolError` ``too_many_lookups`` when that address failed too often
        lately (or failed lately while everyone together did too: see
        :class:`~cardverse.tabletalk.invites.LookupLimits`); a failed look-up counts against both,
        a look-up that finds its table against neither."""
        if not self.lookups.allowed(address):
            raise ProtocolError(
                "too_many_lookups",
                "too many table codes that find no table: wait a minute and try again",
                retry_after=self.lookups.retry_after(),
            )
        code = read_code(text)
        table_id = self.directory.by_code.get(code) if code is not None else None
        if table_id is None and code is not None and self.cluster is not None:
            table_id = self._newer_tables().get(code)  # made by another process meanwhile?
        table = self.get(table_id) if table_id is not None else None
        if table is None:
            self.lookups.failed(address)
        return table

    def _newer_tables(self, at_most_every: float = 0.0) -> dict[str, str]:
        """Add the tables other processes made since the last look to the directory (a minute
        of overlap, for clocks apart and commits late; not again within ``at_most_every``
        seconds); returns its codes."""
        if time.monotonic() - self._directory_looked < at_most_every:
            return self.directory.by_code
        self._directory_looked = time.monotonic()
        now = time.time()
        for table_id in self.store.tables_created_since(self._directory_seen - 60.0):
            self.directory.add(table_id, watch_id_for(table_id))
        self._directory_seen = now
        return self.directory.by_code

    def restore_all(self) -> int:
        """Restore the tables that were live when the server stopped; returns how many."""
        count = 0
        if self.cluster is not None:  # each table is taken by the process that gets its lease
            return 0
        for table_id in self.store.tables_to_restore():
            if table_id in self.tables:
                continue
            try:
                table = Table.restore(self, table_id, self.store.events(table_id))
                table.fence = self.store.fence_of(table_id)
            except Exception:
                log.exception("could not restore table %s", table_id)
                continue
            self.tables[table_id] = table
            self.watch_index[table.watch_id] = table_id
            table.go_live()
            count += 1
        return count

    # -- idle tables ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start looking for idle tables and abandoned lobbies (inside the event loop)."""
        loop = asyncio.get_running_loop()
        self.store.start_checkpointer()
        if self._sweeper is None:
            self._sweeper = loop.create_task(self._sweep_forever())
        if self._watcher is None:
            self._watcher = loop.create_task(self._watch_loop())

    async def _watch_loop(self, every: float = 0.1) -> None:
        """How late the event loop runs a 100 ms timer: anything that blocks it shows here."""
        loop = asyncio.get_running_loop()
        while True:
            planned = loop.time() + every
            await asyncio.sleep(every)
            lag = loop.time() - planned
            self.loop_lag_max = max(self.loop_lag_max, lag)
            self.loop_lags_over_50ms += lag > 0.05

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                self.sweep()
            except Exception:  # pragma: no cover - a store failure; try again next time
                log.exception("sweeping idle tables failed")

    def sweep(self, force: bool = False) -> tuple[int, int]:
        """Unload idle tables and expire abandoned lobbies; returns (unloaded, expired).
        ``force``: unload every table nobody is connected to (the table limit is reached)."""
        now = time.monotonic()
        unload_after = self.settings.idle_unload
        expire_after = self.settings.lobby_expiry
        unloaded = expired = 0
        for table in list(self.tables.values()):
            if table.idle_since is None or table._has_connections():
                continue
            idle = now - table.idle_since
            if (
                expire_after is not None
                and idle >= expire_after
                and table.phase == "lobby"
                and table.game_number == 0
            ):
                self._drop(table, "expired")
                expired += 1
            elif force or (unload_after is not None and idle >= unload_after):
                self._drop(table, "idle")
                unloaded += 1
        if expire_after is not None and not force:
            expired += self.store.expire_idle_lobbies(time.time() - expire_after)
        self.unloaded += unloaded
        self.expired += expired
        return unloaded, expired

    def _drop(self, table: Table, status: str) -> None:
        table.close()
        del self.tables[table.id]
        with contextlib.suppress(FencedOut):  # another process owns it: the status is its own
            self.store.set_status(table.id, status, fence=table.fence)
            if self.cluster is not None:
                self.store.commit()  # the status is written before another process may load it
        if self.cluster is not None:
            self.cluster.released(table.id)

    def counts(self) -> dict[str, Any]:
        """Figures for the operator (never shown to players)."""
        phases: dict[str, int] = {"lobby": 0, "playing": 0, "over": 0}
        watchers = seated = 0
        for table in self.tables.values():
            phases[table.phase] += 1
            watchers += len(table.watchers)
            seated += sum(1 for seat in table.seats if seat.conn is not None)
        return {
            "tables": len(self.tables),
            "phases": phases,
            "watchers": watchers,
            "seated": seated,
            "unloaded": self.unloaded,
            "expired": self.expired,
            "bots": self.bots.counts(),
            "aborted": dict(self.aborted),
            "commits": self.store.commits,
            **({"node": self.cluster.node} if self.cluster is not None else {}),
            "durability": {
                "synchronous": self.store.synchronous,
                "group_commit": self.store.group_commit,
            },
            "loop_lag_ms": {
                "max": round(1000 * self.loop_lag_max, 1),
                "over_50ms": self.loop_lags_over_50ms,
            },
            "commit_ms": {
                "mean": round(1000 * self.store.commit_seconds / max(1, self.store.commits), 3),
                "max": round(1000 * self.store.slowest_commit, 3),
            },
        }

    def close(self) -> None:
        for task in (self._sweeper, self._watcher):
            if task is not None:
                task.cancel()
        self._sweeper = self._watcher = None
        for table in self.tables.values():
            table.close()
        self.bots.close()
        self.store.close()
