"""The clock: what happens at a table without a person acting.

:class:`Clock` arranges, after every change, whatever comes next: the next deal after a round's
pause, a computer player's turn (its decision is awaited off the loop and dropped if the table
moved on meanwhile: ``v`` changed), or the turn timer of the person to play. It also runs the
grace period of a disconnected person (then a computer player stands in), time-outs (three in a
round and the computer keeps the seat until the round ends), and the host's grace period
(after it, the role passes on). What it decides goes through the room like any change
(:class:`Ticks`): stored, applied, told.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Any, Protocol

from ...engine import Phase, player_view
from ..settings import Settings
from .state import Auto, Conn, Seat, TableState

log = logging.getLogger("cardverse.server.tables")


class Ticks(Protocol):
    """What the clock asks of its room."""

    id: str
    live: bool

    def commit_and_tell(self, events: list[tuple[str, dict[str, Any]]]) -> None: ...

    def presence(self, index: int) -> None: ...

    def broadcast_state(self, events: list[dict[str, Any]], *, skip: Conn | None) -> None: ...

    async def choose(self, level: str, seed: int, view: Any) -> int: ...

    def move_event(self, index: int, move: int, actor: str) -> tuple[str, dict[str, Any]]: ...

    def host_away(self, index: int) -> None: ...


def _jitter(delay: float, spread: float) -> float:
    if delay <= 0:
        return 0.0
    return delay * random.uniform(1 - spread, 1 + spread)


def bot_seed(state: TableState, index: int) -> int:
    """The seed of a computer player's decision for a seat now (and of a hint for it)."""
    return (state.seed * 1_000_003 + state.v * 101 + index) % (1 << 63)


class Clock:
    """Turn timers, grace periods and computer players' turns of one table."""

    __slots__ = (
        "_bot",
        "_grace",
        "_host",
        "_round",
        "_turn",
        "deadline",
        "room",
        "settings",
        "state",
    )

    def __init__(self, state: TableState, settings: Settings, room: Ticks) -> None:
        self.state = state
        self.settings = settings
        self.room = room
        self.deadline: tuple[int, float] | None = None  # (seat, loop time) of the turn timer
        self._turn: asyncio.TimerHandle | None = None
        self._round: asyncio.TimerHandle | None = None
        self._bot: asyncio.Task[None] | None = None
        self._grace: dict[int, asyncio.TimerHandle] = {}
        self._host: asyncio.TimerHandle | None = None

    def timer_info(self) -> dict[str, Any] | None:
        if self.deadline is None:
            return None
        seat, deadline = self.deadline
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        # the same moment on the server's wall clock (ms), for clients that measured the offset
        wall = round((time.time() + remaining) * 1000)
        return {"seat": seat, "ends_in": round(remaining, 3), "deadline": wall}

    # -- the turn ----------------------------------------------------------------------------

    def cancel_turn(self) -> None:
        if self._turn is not None:
            self._turn.cancel()
            self._turn = None
        if self._round is not None:
            self._round.cancel()
            self._round = None
        if self._bot is not None:
            self._bot.cancel()
            self._bot = None
        self.deadline = None

    def schedule(self) -> None:
        """Arrange whatever must happen next without a person: a bot, a timer, the next deal."""
        if not self.room.live:
            return
        self.cancel_turn()
        state = self.state
        game = state.game
        if state.phase != "playing" or game is None:
            return
        loop = asyncio.get_running_loop()
        if game.phase is Phase.ROUND_OVER:
            self._round = loop.call_later(self.settings.round_pause, self.next_round, state.v)
            return
        turn = game.turn
        if turn is None or game.phase not in (Phase.PLAY, Phase.EXCHANGE):
            return
        seat = state.seats[turn]
        delay = _jitter(self.settings.bot_delay, self.settings.bot_delay_jitter)
        if seat.kind == "bot":
            self._start_bot(turn, seat.level or "normal", "bot", delay)
        elif seat.auto is not None:
            self._start_bot(turn, "normal", "auto", delay)
        elif state.turn_timer is not None:
            timer = state.turn_timer
            if seat.timeouts:  # timed out before this round: a short timer
                timer = min(timer, self.settings.timeout_timer)
            self.deadline = (turn, loop.time() + timer)
            self._turn = loop.call_later(timer, self.on_timeout, state.v, turn)

    def next_round(self, v: int) -> None:
        self._round = None
        game = self.state.game
        if v != self.state.v or game is None or game.phase is not Phase.ROUND_OVER:
            return
        self._act([("next_round", {})], "could not deal the next round")

    def _act(self, events: list[tuple[str, dict[str, Any]]], failure: str) -> None:
        try:
            self.room.commit_and_tell(events)
        except Exception:
            log.exception("table %s: %s", self.room.id, failure)
            self.retry_later()

    def on_timeout(self, v: int, index: int) -> None:
        self._turn = None
        self.deadline = None
        state = self.state
        if v != state.v or state.game is None or state.game.turn != index:
            return
        seat = state.seats[index]
        if seat.auto is not None:  # a computer player plays the seat already
            return
        seat.timeouts += 1
        if seat.timeouts >= self.settings.max_timeouts:
            seat.kept = True  # the computer player keeps the seat for the rest of the round
        self.set_auto(seat, "timeout")

    def retry_later(self, delay: float = 1.0) -> None:
        """What had to happen without a person failed (the store was down): try again."""
        if self.room.live:
            self._round = asyncio.get_running_loop().call_later(delay, self.schedule)

    # -- stand-ins and computer players --------------------------------------------------------

    def set_auto(self, seat: Seat, auto: Auto | None, *, joining: Conn | None = None) -> None:
        """A computer player starts (or stops) standing in for a person. ``joining``: the
        connection taking the seat back, sent its full state next (not the new deadline too)."""
        if seat.auto == auto:
            return
        state = self.state
        if seat.auto is None:
            state.away.start(seat.index)
        seat.auto = auto
        self.auto_changed(seat, joining=joining)

    def auto_changed(self, seat: Seat, *, joining: Conn | None = None) -> None:
        """Tell who plays the seat now, and arrange its turn if it is the seat's."""
        state = self.state
        self.room.presence(seat.index)
        game = state.game
        playing = game is not None and state.phase == "playing"
        if self.room.live and playing and game is not None and game.turn == seat.index:
            self.schedule()
            if self.deadline is not None:  # everyone learns the new deadline
                self.room.broadcast_state([], skip=joining)

    def _start_bot(self, index: int, level: str, actor: str, delay: float) -> None:
        self._bot = asyncio.get_running_loop().create_task(
            self._bot_turn(self.state.v, index, level, actor, delay)
        )

    async def _bot_turn(self, v: int, index: int, level: str, actor: str, delay: float) -> None:
        state = self.state
        game = state.game
        assert game is not None
        started = time.monotonic()
        move = await self.room.choose(level, bot_seed(state, index), player_view(game, index))
        rest = delay - (time.monotonic() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        if v != state.v or state.game is not game or game.turn != index:
            return
        seat = state.seats[index]
        if seat.kind != "bot" and seat.auto is None:
            return
        self._bot = None  # this task is finishing: schedule must not cancel it
        self._act([self.room.move_event(index, move, actor)], "the computer player's move failed")

    # -- grace periods -------------------------------------------------------------------------

    def start_grace(self, seat: Seat) -> None:
        if not self.room.live or self.settings.grace is None or seat.auto is not None:
            return
        self.cancel_grace(seat.index)
        self._grace[seat.index] = asyncio.get_running_loop().call_later(
            self.settings.grace, self.on_grace, seat.index
        )

    def cancel_grace(self, index: int) -> None:
        handle = self._grace.pop(index, None)
        if handle is not None:
            handle.cancel()

    def grace_for_absent(self) -> None:
        """A game began (or the table came back to life): absent people's grace begins."""
        for seat in self.state.seats:
            if seat.kind == "human" and seat.conn is None:
                self.start_grace(seat)

    def on_grace(self, index: int) -> None:
        state = self.state
        seat = state.seats[index] if index < len(state.seats) else None
        if seat is None:
            return
        self._grace.pop(index, None)
        absent = seat.conn is None and seat.kind == "human" and state.phase == "playing"
        if absent and seat.auto is None:  # (one who left is stood in for already)
            self.set_auto(seat, "disconnected")

    def host_disconnected(self, index: int) -> None:
        """The host's connection closed: after the grace period, someone else hosts."""
        if not self.room.live or index != self.state.host:
            return
        if self._host is not None:
            self._host.cancel()
        grace = self.settings.grace if self.settings.grace is not None else 30.0
        self._host = asyncio.get_running_loop().call_later(grace, self._host_away, index)

    def _host_away(self, index: int) -> None:
        self._host = None
        self.room.host_away(index)

    def close(self) -> None:
        self.cancel_turn()
        if self._host is not None:
            self._host.cancel()
            self._host = None
        for handle in self._grace.values():
            handle.cancel()
        self._grace.clear()
