"""People and seats: leaving at any time, the host's seat controls, and host handover.

A mixin of :class:`cardverse.server.tables.Table`. What it owns:

- ``leave`` at any time: in the lobby (or between games) the seat is freed; during a game a
  computer player of normal level takes the seat over at once (``auto = "left"``) and the person
  may come back with their token until the game ends, when the seat becomes that computer
  player's for good.
- The host's ``replace`` (a computer player instead of an absent or stood-in person, the token
  stops working), ``move_seat`` (a person to a free seat, lobby only) and ``remove`` (a person
  out of the lobby, the token stops working).
- Host handover: when the host leaves, or stays disconnected longer than the grace period, the
  role passes to the next connected person in seat order (stored as a ``host`` event, told to
  everyone with ``host_changed``).
- A game whose people have all left ends at once (``abandon``); the record of what was played
  stays downloadable.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from ..notation import record_to_json
from . import protocol as P
from .protocol import ProtocolError

if TYPE_CHECKING:
    from ..engine import Game
    from ..tabletalk.story import AwayLog
    from .tables import Conn, Seat, Settings, TablePhase

STAND_IN_LEVEL = "normal"


class SeatControls:
    """Leaving, the host's controls over seats, and passing the host role on."""

    _host_timer: asyncio.TimerHandle | None = None

    if TYPE_CHECKING:  # what the table (cardverse.server.tables.Table) provides
        seats: list[Seat]
        host: int | None
        phase: TablePhase
        game: Game | None
        live: bool
        settings: Settings
        watchers: set[Conn]
        away: AwayLog
        records: list[str]
        game_number: int
        v: int
        _events: list[dict[str, Any]]
        _table_changed: bool

        def _commit(self, kind: str, data: dict[str, Any]) -> None: ...
        def _all_conns(self) -> list[Conn]: ...
        def _cancel_turn(self) -> None: ...
        def _check_seat(self, index: int) -> None: ...
        def _flush(self) -> None: ...
        def _not_playing(self) -> None: ...
        def _presence(self, seat: Seat) -> None: ...
        def _record_players(self) -> list[dict[str, Any]]: ...
        def _schedule(self) -> None: ...
        def _send(self, conn: Conn, message: dict[str, Any], *, echo: int = 0) -> None: ...
        def _send_spectator_full(self, conn: Conn) -> None: ...

    # -- leaving -----------------------------------------------------------------------------

    def _leave(self, conn: Conn, index: int, seq: int) -> None:
        data: dict[str, Any] = {"by": index, "seq": seq}
        if self.host == index:
            data["host"] = self._next_host(index)
        self._commit("leave", data)
        seat = self.seats[index]
        seat.conn = None
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        self.watchers.add(conn)
        conn.seat = None
        self._send_spectator_full(conn)
        self._presence(seat)
        if self.phase == "playing" and not any(
            s.kind == "human" and s.auto != "left" for s in self.seats
        ):
            self._commit("abandon", {})

    def _on_leave(self, data: dict[str, Any]) -> None:
        index = data["by"]
        seat = self.seats[index]
        if self.phase == "playing":
            if seat.auto is None:
                self.away.start(index)
            seat.auto = "left"  # a computer player takes over; the token still works
            game = self.game
            if self.live and game is not None and game.turn == index:
                self._schedule()
        else:
            seat.clear()
        if "host" in data:
            self._set_host(data["host"], index, "left")
        elif self.host == index:  # tables stored before handover was an event's part
            humans = [s.index for s in self.seats if s.kind == "human"]
            self.host = humans[0] if humans else None
        self._table_changed = True

    def _on_abandon(self, data: dict[str, Any]) -> None:
        """Everyone left during a game: it ends here, its record as far as it went."""
        game = self.game
        assert game is not None
        self.phase = "over"
        self.v += 1
        record = record_to_json(game, self._record_players())
        self.records.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
        self._end_stand_ins()
        self._cancel_turn()
        self._events.append({"event": "game_abandoned", "game": self.game_number})
        self._table_changed = True

    def _end_stand_ins(self) -> None:
        """The game is over: the seats of people who left are the computer players' now."""
        for seat in self.seats:
            if seat.kind == "human" and seat.auto == "left":
                seat.clear()
                seat.kind = "bot"
                seat.level = STAND_IN_LEVEL
                seat.name = f"Computer ({STAND_IN_LEVEL})"

    # -- the host's seat controls ------------------------------------------------------------

    def _person_seat(self, index: int, by: int) -> Seat:
        self._check_seat(index)
        seat = self.seats[index]
        if seat.kind != "human":
            raise ProtocolError("not_a_person", f"seat {index} holds no person", seat=index)
        if index == by:
            raise ProtocolError("not_yourself", "the host cannot do this to their own seat")
        return seat

    def _host_replace(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.Replace)
        seat = self._person_seat(message.seat, by)
        if seat.conn is not None and seat.auto is None:
            raise ProtocolError(
                "person_present",
                f"{seat.name} is connected and playing: only an absent person can be replaced",
                seat=seat.index,
            )
        old = seat.conn
        self._commit("replace", {"by": by, "seq": message.seq, "seat": seat.index})
        if old is not None:
            self._dismiss(old, "replaced_by_bot")

    def _on_replace(self, data: dict[str, Any]) -> None:
        seat = self.seats[data["seat"]]
        seat.clear()
        seat.kind = "bot"
        seat.level = STAND_IN_LEVEL
        seat.name = f"Computer ({STAND_IN_LEVEL})"
        if seat.grace is not None:
            seat.grace.cancel()
            seat.grace = None
        seat.conn = None
        self._table_changed = True
        game = self.game
        if self.live and self.phase == "playing" and game is not None and game.turn == seat.index:
            self._schedule()

    def _host_move_seat(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.MoveSeat)
        self._not_playing()
        self._check_seat(message.seat)
        self._check_seat(message.to)
        if self.seats[message.seat].kind != "human":
            raise ProtocolError(
                "not_a_person", f"seat {message.seat} holds no person", seat=message.seat
            )
        if self.seats[message.to].kind != "empty":
            raise ProtocolError("seat_taken", f"seat {message.to} is taken", seat=message.to)
        self._commit(
            "move_seat", {"by": by, "seq": message.seq, "seat": message.seat, "to": message.to}
        )

    def _on_move_seat(self, data: dict[str, Any]) -> None:
        source, target = self.seats[data["seat"]], self.seats[data["to"]]
        for name in ("kind", "name", "level", "token_hash", "last_seq", "conn"):
            setattr(target, name, getattr(source, name))
        conn = source.conn
        source.clear()
        source.conn = None
        if conn is not None:
            conn.seat = target.index
        if self.host == source.index:
            self.host = target.index
        self._table_changed = True
        if conn is not None and self.live:
            self._send(conn, {"type": "moved", "seat": target.index})

    def _host_remove(self, by: int, message: P._Client) -> None:
        assert isinstance(message, P.Remove)
        self._not_playing()
        seat = self._person_seat(message.seat, by)
        old = seat.conn
        self._commit("remove", {"by": by, "seq": message.seq, "seat": seat.index})
        if old is not None:
            self._dismiss(old, "removed")

    def _on_remove(self, data: dict[str, Any]) -> None:
        seat = self.seats[data["seat"]]
        seat.clear()
        seat.conn = None
        self._table_changed = True

    def _dismiss(self, conn: Conn, reason: str) -> None:
        """A connection lost its seat to the host: it is told and goes on watching."""
        conn.seat = None
        self.watchers.add(conn)
        self._send(conn, {"type": "seat_lost", "reason": reason})
        self._send_spectator_full(conn)

    # -- host handover -----------------------------------------------------------------------

    def _next_host(self, after: int) -> int | None:
        """The next connected person in seat order after seat ``after`` (else the next person
        still seated, else nobody)."""
        count = len(self.seats)
        order = [self.seats[(after + step) % count] for step in range(1, count)]
        people = [s for s in order if s.kind == "human" and s.auto != "left"]
        connected = [s for s in people if s.conn is not None]
        if connected:
            return connected[0].index
        return people[0].index if people else None

    def _set_host(self, new: int | None, previous: int, reason: str) -> None:
        self.host = new
        self._table_changed = True
        if self.live:
            message = {"type": "host_changed", "host": new, "previous": previous, "reason": reason}
            for conn in self._all_conns():
                self._send(conn, message)

    def _on_host(self, data: dict[str, Any]) -> None:
        self._set_host(data["host"], data["previous"], data["reason"])

    def _host_disconnected(self, index: int) -> None:
        """The host's connection closed: after the grace period, someone else hosts."""
        if not self.live or index != self.host:
            return
        if self._host_timer is not None:
            self._host_timer.cancel()
        grace = self.settings.grace if self.settings.grace is not None else 30.0
        self._host_timer = asyncio.get_running_loop().call_later(grace, self._host_away, index)

    def _host_away(self, index: int) -> None:
        self._host_timer = None
        if self.host != index or self.seats[index].conn is not None:
            return
        new = self._next_host(index)
        if new is None or self.seats[new].conn is None:
            return  # nobody connected to take over: the host keeps the role
        self._commit("host", {"host": new, "previous": index, "reason": "away"})
        self._flush()
