"""The outbox: what each connection of a table is sent, through the hidden-card filter.

:class:`Outbox` holds the table's watching connections (spectators: any connection on the link
that holds no seat) and tells every connection, seated or watching: the ``table`` message, the
``presence`` of a seat, and each change of the game in one frame per connection (a ``change``
with what changed since the state it holds, see :class:`cardverse.server.wire.Synced`, or the
full ``state``), the parts every recipient shares made once. Every text goes through
:mod:`cardverse.server.viewfilter` (R26: nobody is sent a card they may not see); the encoding
is :mod:`cardverse.server.wire`'s. A spectator gets what is public: a view with ``seat: null``
and an empty hand (:data:`cardverse.server.spectators.SPECTATOR_OWN`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...tabletalk.story import score_sheet
from ..jsontext import compact
from ..spectators import SPECTATOR_OWN
from ..viewfilter import SeatView, Shared, render, render_parts, resolve_private, share
from ..wire import PublicChange, Synced, WireViews, rules_dict
from .decide import programs_unavailable
from .state import Conn, TableState

_dumps = compact


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
    common: str | None = None  # the frame of every recipient with nothing of its own, made once


class Outbox:
    """The connections of one table and every frame they are sent."""

    __slots__ = ("_wire", "state", "timer_info", "uecda_port_of", "watch_id", "watchers")

    def __init__(
        self,
        state: TableState,
        watch_id: str,
        timer_info: Callable[[], dict[str, Any] | None],
        uecda_port_of: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.state = state
        self.uecda_port_of = uecda_port_of  # the server's UECda port (None: off)
        self.watch_id = watch_id
        self.timer_info = timer_info
        self.watchers: set[Conn] = set()
        self._wire: WireViews | None = None  # made with the first game told

    @property
    def wire(self) -> WireViews:
        if self._wire is None:
            self._wire = WireViews()
        return self._wire

    # -- to whom ------------------------------------------------------------------------------

    def all_conns(self) -> list[Conn]:
        conns = [s.conn for s in self.state.seats if s.conn is not None]
        conns.extend(self.watchers)
        return conns

    def has_connections(self) -> bool:
        return bool(self.watchers) or any(seat.conn is not None for seat in self.state.seats)

    # -- single messages ----------------------------------------------------------------------

    def send(self, conn: Conn, message: dict[str, Any], *, echo: int = 0) -> None:
        if "table_id" in message and getattr(conn, "watch_only", False):
            message = {**message, "table_id": self.watch_id}  # a watch link knows no more
        conn.send(render(message, conn.seat, self.state.game, echo=echo))

    def ack(self, conn: Conn, seq: int) -> None:
        self.send(conn, {"type": "ack", "seq": seq, "duplicate": False})

    def send_public(self, message: dict[str, Any]) -> None:
        """A message with nothing private, rendered once (as for nobody's seat) for all."""
        game = self.state.game
        text = render(message, None, game)
        watch_text: str | None = None
        for conn in self.all_conns():
            if "table_id" in message and getattr(conn, "watch_only", False):
                if watch_text is None:  # a watch link knows the table by its watch id only
                    watch_text = render({**message, "table_id": self.watch_id}, None, game)
                conn.send(watch_text)
            else:
                conn.send(text)

    def table_message(self) -> dict[str, Any]:
        state = self.state
        return {
            "type": "table",
            "table_id": state.id,
            "phase": state.phase,
            "host": state.host,
            "rules": rules_dict(state.rules),
            "turn_timer": state.turn_timer,
            "hints": state.hints,
            "programs": self.programs_info(),
            "game": state.game_number,
            "records": list(range(1, state.records_made + 1)),
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
                    "host": s.index == state.host,
                    "program": s.program,
                }
                for s in state.seats
            ],
        }

    def programs_info(self) -> dict[str, Any]:
        """The table's seats for programs (docs/uecda.md, section 10): open or not, the
        server's UECda port (None: off), and why they cannot be opened (None: they can)."""
        state = self.state
        port = self.uecda_port_of()
        why = "no_port" if port is None else programs_unavailable(state.rules)
        return {"open": state.programs, "port": port, "unavailable": why}

    def broadcast_table(self) -> None:
        self.send_public(self.table_message())

    def presence(self, index: int) -> None:
        seat = self.state.seats[index]
        message = {
            "type": "presence",
            "seat": seat.index,
            "connected": seat.conn is not None,
            "auto": seat.auto,
        }
        self.send_public(message)

    def send_full(self, conn: Conn) -> None:
        """The table and, in a game, the full state (a ``sync``, a join)."""
        self.send(conn, self.table_message())
        self.send_game(conn)

    def send_game(self, conn: Conn) -> None:
        if self.state.game is not None:
            conn.send(self.full_state_text(conn, []))

    # -- changes of the game ------------------------------------------------------------------

    def broadcast_state(
        self,
        events: list[dict[str, Any]],
        ack: tuple[Conn, int] | None = None,
        *,
        skip: Conn | None = None,
        texts: list[str] | None = None,
    ) -> None:
        """Tell every connection the change just made: each one frame (:meth:`frame_for`).
        ``ack``: the accepted move that made it, told in its sender's frame; ``skip``: a
        connection about to be sent its full state instead; ``texts``: each event's JSON
        text, when it is made already (the round's log keeps them)."""
        conns = [conn for conn in self.all_conns() if conn is not skip]
        if not conns and skip is None:  # (a skipped one holds this change's state next)
            self.wire.forget_told()
            if ack is not None:
                self.ack(*ack)
            return
        change = self.change(events, texts)
        ack_conn, ack_seq = ack if ack is not None else (None, None)
        for conn in conns:
            conn.send(self.frame_for(conn, change, ack_seq if conn is ack_conn else None))
        if ack is not None and ack[0] not in conns:
            self.ack(*ack)
        if not (change.shared.ok and change.public.view.ok):
            # The filter withheld the change: nobody holds its state, the next one goes whole.
            self.wire.forget_told()
            for conn in conns:
                conn.synced = None

    def change(self, events: list[dict[str, Any]], texts: list[str] | None = None) -> Change:
        """The parts of the change just made that every recipient shares, made once."""
        state = self.state
        game = state.game
        assert game is not None
        wire = self.wire
        played = wire.played(game)
        v = state.v
        public = wire.public_change(game, v, played, score_sheet)
        # The members before the view, written here (the same text as the JSON encoder's).
        timer = self.timer_info()
        round_ = game.round
        step = len(game.exchange_log) - len(game.pairs)
        if round_ is not None:
            step += len(round_.history)
        head = (
            '"type":"change","v":'
            + str(v)
            + ',"from":'
            + ("null" if public.base is None else str(public.base))
            + ',"at":{"game":'
            + str(state.game_number)
            + ',"round":'
            + str(game.round_number)
            + ',"step":'
            + str(step)
            + '},"timer":'
            + ("null" if timer is None else _dumps(timer))
        )
        tail = "" if public.score is None else ',"score":' + public.score
        private: set[int] = set()
        for event in events:
            if "_private" in event:
                private.update(event["_private"]["seats"])
        if private:
            events_text = _dumps(resolve_private(events, None))
        elif texts is not None:
            events_text = "[" + ",".join(texts) + "]"
        else:
            events_text = _dumps(events)
        shared = share(head + ',"events":' + events_text + tail, game, played)
        return Change(v, public, shared, head, tail, events, frozenset(private), played)

    def frame_for(self, conn: Conn, change: Change, ack: int | None = None) -> str:
        """The one frame that tells ``conn`` the change: a ``change`` message when it holds
        the state the change follows, else the full ``state``; ``ack`` is the number of the
        move of its own that made the change."""
        game = self.state.game
        assert game is not None
        seat = conn.seat
        synced = getattr(conn, "synced", None)
        public = change.public
        if (
            synced is None
            or public.base is None
            or synced.v != public.base
            or synced.seat != seat
            or (seat is not None and self.state.seats[seat].conn is not conn)
        ):
            return self.full_state_text(conn, change.events, ack=ack)
        synced.v = change.v
        own = "" if seat is None else self.wire.own_change(game, seat, synced)
        private = seat is not None and seat in change.private
        if not own and ack is None and not private:
            # Nothing of its own changed: the frame every such recipient shares (spectators,
            # and the seats not on turn whose hand did not change), made once.
            if change.common is None:
                change.common = render_parts(change.shared, "", public.view, None, game)
            return change.common
        head: Shared | str = change.shared
        if private:
            events = resolve_private(change.events, seat)
            head = change.head + ',"events":' + _dumps(events) + change.tail
        if ack is not None:
            text = (head.text if isinstance(head, Shared) else head) + ',"ack":' + str(ack)
            head = Shared(text, head.ok) if isinstance(head, Shared) else text  # no card added
        return render_parts(head, own, public.view, seat, game, change.played)

    def full_state_text(
        self, conn: Conn, events: list[dict[str, Any]], *, ack: int | None = None
    ) -> str:
        """The full ``state`` for ``conn`` (its seat's, or a spectator's), with the round's
        log; from now on it holds the state of change ``v``."""
        state = self.state
        game = state.game
        assert game is not None
        seat = conn.seat
        shared = self.wire.shared(game)
        synced = Synced(state.v, seat)
        if seat is None:
            message = self.state_frame(events, SeatView(SPECTATOR_OWN, shared), full=True)
        else:
            fields = self.wire.own_fields(game, seat)
            synced.hold(game, seat, fields)
            own = ",".join('"' + key + '":' + text for key, text in fields.items())
            message = self.state_frame(events, SeatView(own, shared), full=True)
            if state.seats[seat].auto is None:
                away = state.away.take(seat, game)
                if away:
                    message["away"] = away
        if ack is not None:
            message["ack"] = ack
        conn.synced = synced
        return render(message, seat, game)

    def state_frame(self, events: list[dict[str, Any]], view: Any, *, full: bool) -> dict[str, Any]:
        """What every state message holds, a seat's or the spectators': ``view`` is theirs;
        ``full`` adds the round's events so far (``log``)."""
        state = self.state
        game = state.game
        assert game is not None
        message: dict[str, Any] = {
            "type": "state",
            "v": state.v,
            "at": self.stamp(),
            "timer": self.timer_info(),
            "events": events,
            "score": score_sheet(game),
            "view": view,
        }
        if full:
            message["log"] = list(state.story.events)
        return message

    def stamp(self) -> dict[str, int]:
        state = self.state
        game = state.game
        assert game is not None
        step = len(game.exchange_log) - len(game.pairs)
        if game.round is not None:
            step += len(game.round.history)
        return {"game": state.game_number, "round": game.round_number, "step": step}

    def hello(self, table_id: str, limits: dict[str, Any]) -> dict[str, Any]:
        from .. import protocol as P

        return {
            "type": "hello",
            "protocol": P.PROTOCOL_VERSION,
            "table_id": table_id,
            "server_time": round(time.time() * 1000),
            "limits": limits,
        }
