"""Hints: "Suggest" answers with the play the normal computer player would make for a seat.

A part handed to the table's room (:class:`Hints`). What it owns:

- ``suggest``: the seat's own :class:`~cardverse.engine.PlayerView` (R26: never the full game)
  goes to the normal computer player, seeded as a stand-in for that seat would be, and its move
  comes back in a ``suggestion`` message to that seat only. The move is one of the seat's legal
  moves, so it names only the seat's own cards; the view filter checks it like every message.
- Its limit: at most one decision per seat per change of the game (``v``). Asking again before
  the game moves on gets the same answer; asks made while the decision is being made wait for
  it. Only the answers of the current change are kept (at most one per seat).
- The table option ``hints`` (the host turns it off in the lobby): when off, ``suggest`` is
  refused with ``hints_off``. The rules sheet of the table says whether hints are on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from ...engine import from_move, player_view
from ..protocol import ProtocolError
from .clock import bot_seed
from .state import Conn, TableState

SUGGEST_LEVEL = "normal"

Choose = Callable[[str, int, Any], Awaitable[int]]
Send = Callable[[Conn, dict[str, Any]], None]


class Hints:
    """The ``suggest`` message of one table."""

    __slots__ = ("_answers", "_tasks", "_waiting", "choose", "room", "send", "state")

    def __init__(self, state: TableState, choose: Choose, send: Send, room: object) -> None:
        self.state = state
        self.choose = choose
        self.send = send
        self.room = room
        self._answers: dict[int, tuple[int, int]] = {}  # seat -> (v, move) of the current v
        self._waiting: dict[int, tuple[int, list[tuple[Conn, int | None]]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references

    def suggest(self, conn: Conn, index: int, seq: int | None) -> None:
        state = self.state
        if not state.hints:
            raise ProtocolError("hints_off", "the host turned hints off at this table")
        game = state.game
        if state.phase != "playing" or game is None:
            raise ProtocolError("no_game", "no game is being played at this table")
        view = player_view(game, index)  # the seat's own view: all the suggestion may use
        if not view.legal_moves:
            raise ProtocolError(
                "nothing_to_suggest", "a suggestion is for your own turn, and it is not yours now"
            )
        answer = self._answers.get(index)
        if answer is not None and answer[0] == state.v:
            self._send_suggestion(conn, seq, answer[0], answer[1])
            return
        pending = self._waiting.get(index)
        if pending is not None and pending[0] == state.v:
            pending[1].append((conn, seq))  # the decision is being made: it answers this too
            return
        self._waiting[index] = (state.v, [(conn, seq)])
        task = asyncio.get_running_loop().create_task(self._decide(index, state.v, view))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, index: int, v: int, view: Any) -> None:
        state = self.state
        move: int | None
        try:
            move = await self.choose(SUGGEST_LEVEL, bot_seed(state, index), view)
        except Exception:  # pragma: no cover - the runner falls back itself
            move = None
        pending = self._waiting.pop(index, None)
        if pending is None or pending[0] != v:
            return
        if move is not None and v == state.v:
            self._answers = {  # answers of older changes are no use: they go
                seat: answer for seat, answer in self._answers.items() if answer[0] == v
            }
            self._answers[index] = (v, move)
        for conn, seq in pending[1]:
            if conn.seat != index or conn.table is not self.room:
                continue  # that connection left the seat meanwhile
            if move is None or v != state.v:
                error = ProtocolError(
                    "suggestion_stale",
                    "the game moved on before the suggestion was ready: ask again",
                )
                self.send(conn, error.to_message(seq))
            else:
                self._send_suggestion(conn, seq, v, move)

    def _send_suggestion(self, conn: Conn, seq: int | None, v: int, move: int) -> None:
        message: dict[str, Any] = {
            "type": "suggestion",
            "v": v,
            "level": SUGGEST_LEVEL,
            "action": from_move(move).to_json(with_seat=False),
        }
        if seq is not None:
            message["seq"] = seq
        self.send(conn, message)
