"""Seating: connections taking seats, giving them up, and losing them.

:class:`Seating` is the room's collaborator for what ties a connection to a seat: ``join``
(a newcomer sits, or a person comes back with their seat token and takes the seat from an older
connection), ``leave`` (in the lobby the seat is freed; during a game a computer player takes
over at once and the token still works until the game ends), ``back`` (the person takes their
seat back from a stand-in), a connection closing (the seat's grace period and the host's
begin), and a seat lost to the host's ``replace`` or ``remove`` (the connection goes on
watching). The stored changes it makes are decided in :mod:`.decide` and go through the room's
``commit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import protocol as P
from ..protocol import ProtocolError
from . import decide
from .clock import Clock
from .outbox import Outbox
from .state import Conn, Seat, TableState, new_token

Commit = Callable[[str, dict[str, Any]], None]


class Seating:
    """Which connection holds which seat, and the messages that change it."""

    __slots__ = ("clock", "commit", "outbox", "room", "state")

    def __init__(
        self, state: TableState, outbox: Outbox, clock: Clock, commit: Commit, live: Any
    ) -> None:
        self.state = state
        self.outbox = outbox
        self.clock = clock
        self.commit = commit
        self.room = live  # the room: ``live``, and what a seated connection's ``table`` is

    # -- joining -------------------------------------------------------------------------------

    def join(self, conn: Conn, message: P.Join) -> None:
        if conn.seat is not None:
            raise ProtocolError(
                "already_seated", f"this connection already holds seat {conn.seat}", seat=conn.seat
            )
        if getattr(conn, "watch_only", False):
            raise ProtocolError("watch_only", "a watch link only watches: it cannot take a seat")
        if message.token is not None:
            seat = decide.seat_of_token(self.state, message.token)
            if message.reset_seq and seat.last_seq:
                self.commit("seq_reset", {"seat": seat.index})
            self.take_seat(conn, seat, token=None)
            return
        token = new_token()
        kind, data = decide.sit(self.state, message, token, getattr(conn, "program", False))
        self.commit(kind, data)
        self.take_seat(conn, self.state.seats[data["seat"]], token=token)

    def take_seat(self, conn: Conn, seat: Seat, token: str | None) -> None:
        outbox = self.outbox
        old = seat.conn
        if old is not None and old is not conn:
            outbox.send(
                old,
                {"type": "replaced", "message": "this seat was taken up by a newer connection"},
            )
            old.seat = None
            old.table = None
            old.close(P.CLOSE_REPLACED, "replaced by a newer connection")
        if conn in outbox.watchers:
            outbox.watchers.discard(conn)
            self.room.table_changed()  # one spectator fewer
        conn.standby = False
        conn.seat = seat.index
        seat.conn = conn
        self.room.idle_since = None
        self.clock.cancel_grace(seat.index)
        welcome: dict[str, Any] = {
            "type": "welcome",
            "seat": seat.index,
            "name": seat.name,
            "host": self.state.host == seat.index,
            "last_seq": seat.last_seq,
            "resumed": token is None,
        }
        if token is not None:
            welcome["token"] = token
        outbox.send(conn, welcome)
        if seat.auto is not None and not seat.kept:
            # told to the others; the joining connection learns it in its one full state
            self.stand_down(seat, joining=conn)
        else:
            self.room.presence(seat.index)
        outbox.send_full(conn)

    # -- giving a seat up ------------------------------------------------------------------------

    def leave(self, conn: Conn, index: int, seq: int) -> None:
        state = self.state
        self.commit(*decide.leave(state, index, seq))
        seat = state.seats[index]
        seat.conn = None
        self.clock.cancel_grace(index)
        self.outbox.watchers.add(conn)
        conn.seat = None
        self.outbox.send_game(conn)
        self.room.presence(index)
        for event in decide.after_leave(state):
            self.commit(*event)

    def back(self, conn: Conn, seat: Seat, seq: int | None) -> None:
        """The person takes the seat back from the computer player standing in."""
        if seat.auto is None:
            raise ProtocolError("not_auto", "no computer player is standing in for you")
        decide.not_kept(seat)
        self.stand_down(seat)
        if seq is not None:
            self.outbox.ack(conn, seq)
        self.outbox.send_full(conn)  # with what the computer player did meanwhile

    def stand_down(self, seat: Seat, joining: Conn | None = None) -> None:
        """The person plays their seat again. Coming back after leaving is stored (a
        ``return``): the log must not leave the seat to the computer player."""
        if seat.auto == "left":
            self.commit(*decide.come_back(seat))
            self.clock.auto_changed(seat, joining=joining)
        else:
            self.clock.set_auto(seat, None, joining=joining)

    def dismiss(self, conn: Conn, reason: str) -> None:
        """A connection lost its seat to the host: it is told and goes on watching."""
        conn.seat = None
        self.outbox.watchers.add(conn)
        self.outbox.send(conn, {"type": "seat_lost", "reason": reason})
        self.outbox.send_game(conn)

    def closed(self, conn: Conn, index: int) -> None:
        """The seated connection ``conn`` of seat ``index`` closed."""
        state = self.state
        if index >= len(state.seats):
            return
        seat = state.seats[index]
        if seat.conn is not conn:
            return
        seat.conn = None
        if state.phase == "playing" and seat.kind == "human":
            self.clock.start_grace(seat)
        self.clock.host_disconnected(index)
        self.room.presence(index)

    # -- what applying an event asks for -----------------------------------------------------------

    def lost_seat(self, index: int, reason: str) -> None:
        """The host replaced or removed the person of seat ``index``."""
        seat = self.state.seats[index]
        conn, seat.conn = seat.conn, None
        self.clock.cancel_grace(index)
        if conn is not None and self.room.live:
            self.dismiss(conn, reason)

    def moved(self, source: int, target: int) -> None:
        """The host moved a person to another seat: their connection goes with them."""
        seats = self.state.seats
        conn, seats[source].conn = seats[source].conn, None
        seats[target].conn = conn
        if conn is not None:
            conn.seat = target
            if self.room.live:
                self.outbox.send(conn, {"type": "moved", "seat": target})
