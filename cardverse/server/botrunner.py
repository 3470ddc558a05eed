"""Computer players' decisions, run off the event loop.

The table service asks :meth:`BotRunner.choose` for a move of a seat given that seat's
:class:`~cardverse.engine.PlayerView` (rules R27: the view is all a bot gets). Easy and normal
players run in a worker thread; the hard player, which searches for up to its time limit, runs in
a separate process pool (when ``processes`` > 0) so that its CPU time never holds the event loop's
lock on the interpreter: no table waits on another table's search.

Each decision builds a fresh bot with :func:`cardverse.bots.make_bot` from a seed the table
derives from its game seed and the state, so a decision depends only on the view and the seed.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..engine import PlayerView

log = logging.getLogger("cardverse.server.bots")


def decide(level: str, seed: int, time_limit: float | None, view: PlayerView) -> int:
    """One decision of a ``level`` computer player (runs in a thread or a worker process)."""
    from ..bots import make_bot

    options: dict[str, Any] = {"seed": seed}
    if level == "hard" and time_limit is not None:
        options["time_limit"] = time_limit
    bot = make_bot(level, **options)
    return int(bot.choose(view))


class BotRunner:
    """Runs bot decisions in threads (easy, normal) or worker processes (hard)."""

    def __init__(self, *, processes: int = 1, hard_time_limit: float | None = 1.0) -> None:
        self.processes = processes
        self.hard_time_limit = hard_time_limit
        self._pool: ProcessPoolExecutor | None = None

    def _process_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            self._pool = ProcessPoolExecutor(max_workers=self.processes, mp_context=context)
        return self._pool

    async def choose(self, level: str, seed: int, view: PlayerView) -> int:
        """A move from ``view.legal_moves``; the first legal move if the bot fails."""
        try:
            if level == "hard" and self.processes > 0:
                loop = asyncio.get_running_loop()
                move = await loop.run_in_executor(
                    self._process_pool(), decide, level, seed, self.hard_time_limit, view
                )
            else:
                move = await asyncio.to_thread(decide, level, seed, self.hard_time_limit, view)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the %s computer player failed; playing its first legal move", level)
            move = view.legal_moves[0]
        if move not in view.legal_moves:
            log.error("the %s computer player chose an illegal move %#x", level, move)
            move = view.legal_moves[0]
        return move

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
