"""The room: one table at its share link, running decide → store → apply → outbox → clock.

A client message is routed by its kind (:data:`ROUTES`, a table of handlers): the ones that
change the table are *decided* (:mod:`.decide`: events, or a refusal told to the sender),
each event is *stored* (:class:`.log.TableLog`), *applied* to the state (:mod:`.apply`), and
only then *told* (:class:`.outbox.Outbox`, one frame per connection) and the *clock*
(:class:`.clock.Clock`) arranges what comes next. Restoring a table after a restart is the fold
of its log (:func:`.apply.restore`), through the same code and the rules engine; nothing else is
kept. Everything that changes a table runs on the event loop without awaiting in between, so a
table needs no lock; only computer players' decisions are awaited (off the loop).

The room's parts: :class:`.seating.Seating` (connections and seats), the hints
(:class:`.hints.Hints`) and the reactions (:class:`cardverse.server.reactions.Reactions`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ...engine.cards import CardError, parse_card
from ...engine.plays import GIVE
from .. import protocol as P
from ..eventlog import EventStore, FencedOut, StoredEvent, StoreUnavailable
from ..failures import internal_error, log_failure
from ..protocol import ProtocolError
from ..reactions import Reactions
from ..settings import Settings
from ..spectators import watch_id_for
from ..viewfilter import named_cards
from . import apply as applying
from . import decide
from .clock import Clock
from .hints import Hints
from .log import TableLog
from .outbox import Outbox
from .seating import Seating
from .state import Conn, Seat, TableState

log = logging.getLogger("cardverse.server.tables")


class Service(Protocol):
    """What a room asks of its table service."""

    settings: Settings
    store: EventStore
    bots: Any  # botrunner.BotRunner

    def lose(self, table_id: str, release: bool = True) -> None: ...


class Room:
    """One table: its state, its log's end, its connections and its clock."""

    __slots__ = (
        "_ack_due",
        "_hints",
        "_out",
        "_reactions",
        "clock",
        "id",
        "idle_since",
        "live",
        "log",
        "outbox",
        "seating",
        "service",
        "settings",
        "state",
        "watch_id",
    )

    def __init__(self, service: Service, table_id: str, state: TableState | None = None) -> None:
        self.service = service
        self.settings = service.settings
        self.id = table_id
        self.state = state or applying.new_state(table_id, self.settings.turn_timer)
        self.log = TableLog(service.store, table_id)
        self.watch_id = watch_id_for(table_id)
        self.idle_since: float | None = time.monotonic()  # no connection since (None: some)
        self.live = False  # False while restoring: nothing is told, nothing scheduled
        self.clock = Clock(self.state, self.settings, self)
        self.outbox = Outbox(
            self.state,
            self.watch_id,
            self.clock.timer_info,
            lambda: self.settings.uecda_port,
        )
        self.seating = Seating(self.state, self.outbox, self.clock, self.commit, self)
        self._hints: Hints | None = None  # the parts a table may never need: made when it does
        self._reactions: Reactions | None = None
        self._out = applying.Outcome()  # what the changes not yet told did
        self._ack_due: tuple[Conn, int] | None = None  # an accepted move's ack, told with it

    # -- the state, read ----------------------------------------------------------------------

    seats = property(lambda self: self.state.seats)
    game = property(lambda self: self.state.game)
    phase = property(lambda self: self.state.phase)
    host = property(lambda self: self.state.host)
    rules = property(lambda self: self.state.rules)
    turn_timer = property(lambda self: self.state.turn_timer)
    hints = property(lambda self: self.state.hints)
    game_number = property(lambda self: self.state.game_number)
    seed = property(lambda self: self.state.seed)
    v = property(lambda self: self.state.v)
    n = property(lambda self: self.log.n)
    watchers = property(lambda self: self.outbox.watchers)

    @property
    def fence(self) -> int:
        return self.log.fence

    @fence.setter
    def fence(self, value: int) -> None:
        self.log.fence = value

    @property
    def records(self) -> list[str]:
        """Every finished game's record (compact JSON text); memory holds only the last few,
        the older ones are folded again from the stored log."""
        state = self.state
        if state.records_made <= len(state.recent_records):
            return state.kept_records()
        return _all_records(self.service.store, self.id, self.settings.turn_timer)

    def summary(self) -> dict[str, Any]:
        """The public state (the ``table`` message without its type)."""
        out = self.outbox.table_message()
        del out["type"]
        return out

    # -- events: store, apply -----------------------------------------------------------------

    def commit(self, kind: str, data: dict[str, Any]) -> None:
        """Store event ``kind`` and apply it; the caller has decided it is valid."""
        try:
            self.log.write(
                kind,
                data,
                self.state.phase,
                lambda: self._apply(kind, data),
                self.state.lobby_snapshot,
                self._undo_lobby,
            )
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

    def commit_and_tell(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        for kind, data in events:
            self.commit(kind, data)
        self.flush()

    def _apply(self, kind: str, data: dict[str, Any]) -> None:
        out = self._out
        applying.apply(self.state, kind, data, out)
        notices, out.notices = out.notices, []
        for notice in notices:
            NOTICES[notice[0]](self, *notice[1:])
        if out.schedule:
            out.schedule = False
            self.clock.schedule()

    def _undo_lobby(self, before: dict[str, Any]) -> None:
        """Put the lobby back as ``before`` (a change the store refused), keeping the
        connections in their seats."""
        conns = [seat.conn for seat in self.state.seats]
        applying.APPLY["lobby"](self.state, before, self._out)
        for seat, conn in zip(self.state.seats, conns, strict=False):
            seat.conn = conn

    def table_changed(self) -> None:
        self._out.table_changed = True

    # -- restoring ------------------------------------------------------------------------------

    @classmethod
    def restore(cls, service: Service, table_id: str, events: Iterable[StoredEvent]) -> Room:
        """Rebuild a table by folding its stored events (nothing is told)."""
        state, n, lobby_row = applying.restore(table_id, _rows(events), service.settings.turn_timer)
        room = cls(service, table_id, state)
        room.log.n, room.log.lobby_row = n, lobby_row
        return room

    def go_live(self) -> None:
        """Start telling and scheduling (after creation or restoring)."""
        self.live = True
        self._out = applying.Outcome()
        if self.state.phase == "playing":
            self.clock.grace_for_absent()
        self.clock.schedule()

    # -- connections ----------------------------------------------------------------------------

    def attach(self, conn: Conn) -> None:
        """A new connection on this table's link: it watches until it joins.

        Over ``max_watchers`` a connection is on standby: it is told so and may only join
        (players coming back with their token always get in); it is not sent the table's
        changes."""
        settings = self.settings
        conn.table = self
        self.idle_since = None
        standby = len(self.outbox.watchers) >= settings.max_watchers
        if not standby:
            self.outbox.watchers.add(conn)
        limits = {
            "max_message_bytes": P.MAX_MESSAGE_BYTES,
            "max_name_length": P.MAX_NAME_LENGTH,
            "rate_per_second": settings.rate_per_second,
            "burst": settings.burst,
            "max_seq": P.MAX_SEQ,
        }
        self.outbox.send(conn, self.outbox.hello(self.id, limits))
        self.outbox.send(conn, self.outbox.table_message())
        if standby:
            conn.standby = True
            error = ProtocolError(
                "too_many_watchers",
                f"{settings.max_watchers} connections already watch this table: "
                "join a seat (or take yours back with its token) to stay",
                limit=settings.max_watchers,
            )
            self.outbox.send(conn, error.to_message())
            return
        self.outbox.send_game(conn)
        self.table_changed()  # one spectator more
        self.flush()

    def detach(self, conn: Conn) -> None:
        """A connection closed."""
        if conn in self.outbox.watchers:
            self.outbox.watchers.discard(conn)
            self.table_changed()
            self.flush()
        index = conn.seat
        conn.seat = None
        conn.table = None
        seats = self.state.seats
        if not self.outbox.watchers and all(s.conn is None or s.conn is conn for s in seats):
            self.idle_since = time.monotonic()
        if index is not None:
            self.seating.closed(conn, index)

    def presence(self, index: int) -> None:
        if self.live:
            self.outbox.presence(index)

    def broadcast_state(self, events: list[dict[str, Any]], *, skip: Conn | None) -> None:
        self.outbox.broadcast_state(events, skip=skip)

    async def choose(self, level: str, seed: int, view: Any) -> int:
        move: int = await self.service.bots.choose(level, seed, view, queue=self.id)
        return move

    def move_event(self, index: int, move: int, actor: str) -> tuple[str, dict[str, Any]]:
        return decide.move_event(index, move, None, actor)

    def host_away(self, index: int) -> None:
        events = decide.host_away(self.state, index)
        if events:
            self.commit_and_tell(events)

    # -- messages -------------------------------------------------------------------------------

    def handle(self, conn: Conn, message: P._Client) -> None:
        """Handle one parsed client message; a refusal is sent as an ``error``."""
        seq = getattr(message, "seq", None)
        try:
            self._route(conn, message)
        except ProtocolError as error:  # it may repeat the client's own words (cards)
            echo = _echo_mask(message) | named_cards(message.model_dump())
            self.outbox.send(conn, error.to_message(seq), echo=echo)
        except Exception as failure:
            log_failure(log, f"table {self.id}: handling {message.type}", failure)
            self.outbox.send(conn, internal_error(seq))
        self.flush()

    def _route(self, conn: Conn, message: P._Client) -> None:
        kind = message.type
        anyone = ANYONE.get(kind)
        if anyone is not None:
            anyone(self, conn, message)
            return
        if conn.standby:
            raise ProtocolError(
                "too_many_watchers",
                "too many connections watch this table: only joining is accepted",
                limit=self.settings.max_watchers,
            )
        index = conn.seat
        watcher = WATCHERS.get(kind)
        if watcher is not None:
            watcher(self, conn, index, message)
            return
        if index is None:
            raise ProtocolError(
                "token_missing", "join the table first, with a display name or your seat token"
            )
        seat = self.state.seats[index]
        seq: int | None = getattr(message, "seq", None)
        unsequenced = SEATED.get(kind)
        if unsequenced is not None:  # changes nothing stored: no seq bookkeeping
            unsequenced(self, conn, seat, seq)
            return
        assert seq is not None
        if seq <= seat.last_seq:
            self.outbox.send(conn, {"type": "ack", "seq": seq, "duplicate": True})
            return
        sequenced: Handler = SEQUENCED.get(kind, Room._host_command)
        sequenced(self, conn, seat, message)

    def _ping(self, conn: Conn, message: P._Client) -> None:
        now = round(time.time() * 1000)
        seq = getattr(message, "seq", None)
        self.outbox.send(conn, {"type": "pong", "seq": seq, "server_time": now})

    def _join(self, conn: Conn, message: P._Client) -> None:
        assert isinstance(message, P.Join)
        self.seating.join(conn, message)

    def _react(self, conn: Conn, index: int | None, message: P._Client) -> None:
        assert isinstance(message, P.React)
        if self._reactions is None:
            self._reactions = Reactions(self.outbox.send_public)
        self._reactions.react(index, message.reaction)

    def _sync(self, conn: Conn, index: int | None, message: P._Client) -> None:
        self.outbox.send_full(conn)

    def _suggest(self, conn: Conn, seat: Seat, seq: int | None) -> None:
        if self._hints is None:
            self._hints = Hints(self.state, self.choose, self.outbox.send, self)
        self._hints.suggest(conn, seat.index, seq)

    def _back(self, conn: Conn, seat: Seat, seq: int | None) -> None:
        self.seating.back(conn, seat, seq)

    def _move(self, conn: Conn, seat: Seat, message: Any) -> None:
        decide.not_kept(seat)
        if seat.auto is not None:  # the person acts: the stand-in stops at once
            seat.auto = None
            self.presence(seat.index)
            self.clock.schedule()  # no stand-in move; the person's timer if this one is refused
        self.commit(*decide.move(self.state, seat.index, message))
        self._ack_due = (conn, message.seq)  # told in the change this move makes (one frame)

    def _leave(self, conn: Conn, seat: Seat, message: Any) -> None:
        self.seating.leave(conn, seat.index, message.seq)
        self.outbox.ack(conn, message.seq)

    def _host_command(self, conn: Conn, seat: Seat, message: Any) -> None:
        for kind, data in decide.host_command(self.state, seat.index, message):
            self.commit(kind, data)
        self.outbox.ack(conn, message.seq)

    # -- telling ------------------------------------------------------------------------------

    def flush(self) -> None:
        """Schedule what comes next and tell everyone what changed."""
        ack, self._ack_due = self._ack_due, None
        if not self.live:
            if ack is not None:
                self.outbox.ack(*ack)
            return
        out = self._out
        events, table_changed = out.events, out.table_changed
        out.events, out.table_changed = [], False
        state = self.state
        texts = state.story.add(events)  # each event's text, made once
        if events:
            self.clock.schedule()
        if ack is not None and not (events and state.game is not None):
            self.outbox.ack(*ack)
            ack = None
        if table_changed:
            self.outbox.broadcast_table()
        if events and state.game is not None:
            self.outbox.broadcast_state(events, ack, texts=texts)

    def close(self) -> None:
        """Stop timers and tasks (server shutdown, or the table leaves memory)."""
        self.live = False
        self.clock.close()

    # -- what applying asks for (see apply.Outcome.notices) -------------------------------------

    def _on_absent(self) -> None:
        if self.live:
            self.clock.grace_for_absent()

    def _on_host(self, message: dict[str, Any]) -> None:
        if self.live:
            for conn in self.outbox.all_conns():
                self.outbox.send(conn, message)


Handler = Callable[..., None]

ANYONE: dict[str, Handler] = {"ping": Room._ping, "join": Room._join}
WATCHERS: dict[str, Handler] = {"react": Room._react, "sync": Room._sync}
SEATED: dict[str, Handler] = {"suggest": Room._suggest, "back": Room._back}
SEQUENCED: dict[str, Handler] = {
    **dict.fromkeys(decide.MOVES, Room._move),
    "leave": Room._leave,
    **dict.fromkeys(decide.HOST, Room._host_command),
}
ROUTES = {**ANYONE, **WATCHERS, **SEATED, **SEQUENCED}
NOTICES: dict[str, Handler] = {
    "absent": Room._on_absent,
    "presence": Room.presence,
    "host": Room._on_host,
    "dismiss": lambda room, index, reason: room.seating.lost_seat(index, reason),
    "moved": lambda room, source, target: room.seating.moved(source, target),
}


def _rows(events: Iterable[StoredEvent]) -> Iterable[tuple[int, str, dict[str, Any]]]:
    return ((event.n, event.kind, event.data) for event in events)


def _all_records(store: EventStore, table_id: str, turn_timer: float | None) -> list[str]:
    """Every record of a table, folded from its log (older games are not kept in memory)."""
    records: list[str] = []
    state = applying.new_state(table_id, turn_timer)
    out = applying.Outcome()
    made = 0
    for event in store.events(table_id):
        applying.apply(state, event.kind, event.data, out)
        out.events.clear()
        out.notices.clear()
        if state.records_made > made:
            made = state.records_made
            records.append(state.latest_record())
    return records


def _echo_mask(message: P._Client) -> int:
    """The cards a client message named (they may be named back to it in an error)."""
    mask = 0
    for text in list(getattr(message, "cards", None) or []) + list(
        (getattr(message, "jokers", None) or {}).keys()
    ):
        with contextlib.suppress(CardError):
            mask |= 1 << parse_card(text)
    return mask & ~GIVE
