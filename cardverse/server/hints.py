"""Hints: "Suggest" answers with the play the normal computer player would make for a seat.

A mixin of :class:`cardverse.server.tables.Table`. What it owns:

- ``suggest``: the seat's own :class:`~cardverse.engine.PlayerView` (R26: never the full game)
  goes to the normal computer player, seeded as a stand-in for that seat would be, and its move
  comes back in a ``suggestion`` message to that seat only. The move is one of the seat's legal
  moves, so it names only the seat's own cards; the view filter checks it like every message.
- Its limit: at most one decision per seat per change of the game (``v``). Asking again before
  the game moves on gets the same answer from the cache; asks made while the decision is being
  made wait for it.
- The table option ``hints`` (the host turns it off in the lobby): when off, ``suggest`` is
  refused with ``hints_off``. The rules sheet of the table says whether hints are on.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..engine import from_move, player_view
from .protocol import ProtocolError

if TYPE_CHECKING:
    from ..engine import Game
    from .tables import Conn, Seat, TablePhase, TableService

SUGGEST_LEVEL = "normal"


class Hints:
    """The ``suggest`` message and the table's ``hints`` option."""

    hints: bool = True

    if TYPE_CHECKING:  # what the table (cardverse.server.tables.Table) provides
        id: str
        service: TableService
        seats: list[Seat]
        phase: TablePhase
        game: Game | None
        seed: int
        v: int

        def _send(self, conn: Conn, message: dict[str, Any], *, echo: int = 0) -> None: ...

    def _hint_state(self) -> dict[str, Any]:
        state: dict[str, Any] | None = getattr(self, "_hint_cache", None)
        if state is None:
            state = {"answers": {}, "waiting": {}, "tasks": set()}
            self._hint_cache = state
        return state

    def _suggestion_seed(self, index: int) -> int:
        """The seed a stand-in for this seat would use now: the same play as it would make."""
        return (self.seed * 1_000_003 + self.v * 101 + index) % (1 << 63)

    def _suggest(self, conn: Conn, index: int, seq: int | None) -> None:
        if not self.hints:
            raise ProtocolError("hints_off", "the host turned hints off at this table")
        game = self.game
        if self.phase != "playing" or game is None:
            raise ProtocolError("no_game", "no game is being played at this table")
        view = player_view(game, index)  # the seat's own view: all the suggestion may use
        if not view.legal_moves:
            raise ProtocolError(
                "nothing_to_suggest", "a suggestion is for your own turn, and it is not yours now"
            )
        state = self._hint_state()
        answer = state["answers"].get(index)
        if answer is not None and answer[0] == self.v:
            self._send_suggestion(conn, seq, answer[0], answer[1])
            return
        waiting: dict[int, tuple[int, list[tuple[Conn, int | None]]]] = state["waiting"]
        pending = waiting.get(index)
        if pending is not None and pending[0] == self.v:
            pending[1].append((conn, seq))  # the decision is being made: it answers this too
            return
        waiting[index] = (self.v, [(conn, seq)])
        task = asyncio.get_running_loop().create_task(self._decide_suggestion(index, self.v, view))
        state["tasks"].add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(state["tasks"].discard)

    async def _decide_suggestion(self, index: int, v: int, view: Any) -> None:
        move: int | None
        try:
            move = await self.service.bots.choose(
                SUGGEST_LEVEL, self._suggestion_seed(index), view, queue=self.id
            )
        except Exception:  # pragma: no cover - the runner falls back itself
            move = None
        state = self._hint_state()
        pending = state["waiting"].pop(index, None)
        if pending is None or pending[0] != v:
            return
        if move is not None and v == self.v:
            state["answers"][index] = (v, move)
        for conn, seq in pending[1]:
            if conn.seat != index or conn.table is not self:
                continue  # that connection left the seat meanwhile
            if move is None or v != self.v:
                error = ProtocolError(
                    "suggestion_stale",
                    "the game moved on before the suggestion was ready: ask again",
                )
                self._send(conn, error.to_message(seq))
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
        self._send(conn, message)
