"""Computer players' decisions, run off the event loop.

The table service asks :meth:`BotRunner.choose` for a move of a seat given that seat's
:class:`~cardverse.engine.PlayerView` (rules R27: the view is all a bot gets). Easy and normal
players run in a worker thread; the hard player, which searches for up to its time limit, runs in
a pool of worker processes (when ``processes`` > 0) so that its CPU time never holds the event
loop's lock on the interpreter.

The pool is shared fairly: hard decisions wait in one queue per table and the free workers take
the tables in turn (round robin), so a table with many hard players does not delay the others.
Under load the thinking time shrinks instead of the queue growing: with more decisions waiting
or running than workers, each gets ``hard_time_limit × workers / demand`` (not less than
``min_time_limit``). If the pool dies (a worker killed), it is replaced at once and the decisions
it held are made by the normal player; any failure of a bot falls back to the normal player,
and only a failure of that to the first legal move.

The pool's workers end with the server however it ends (a SIGKILL included): each watches a
lifeline (:mod:`cardverse.server.lifeline`) whose writing end only the server holds, and once
they are gone multiprocessing's fork server and resource tracker end too.

Each decision builds a fresh bot with :func:`cardverse.bots.make_bot` from a seed the table
derives from its game seed and the state, so a decision depends only on the view and the seed.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from ..engine import PlayerView
from .lifeline import watch

log = logging.getLogger("cardverse.server.bots")


def decide(level: str, seed: int, time_limit: float | None, view: PlayerView) -> int:
    """One decision of a ``level`` computer player (runs in a thread or a worker process)."""
    from ..bots import make_bot

    options: dict[str, Any] = {"seed": seed}
    if level == "hard" and time_limit is not None:
        options["time_limit"] = time_limit
    bot = make_bot(level, **options)
    return int(bot.choose(view))


def _end_with_server(lifeline: Connection) -> None:
    """Each pool worker's first act: end at once when the server is gone."""
    watch(lifeline.fileno(), lambda: os._exit(0), keep=lifeline)


def machine_processes() -> int:
    """Worker processes for hard players on this machine: a core is left to the event loop."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) - 1)


@dataclass
class _Job:
    seed: int
    view: PlayerView
    future: asyncio.Future[int] = field(repr=False)


class BotRunner:
    """Runs bot decisions in threads (easy, normal) or a fair pool of processes (hard)."""

    def __init__(
        self,
        *,
        processes: int | None = None,
        hard_time_limit: float | None = 1.0,
        min_time_limit: float = 0.05,
    ) -> None:
        self.processes = machine_processes() if processes is None else processes
        self.hard_time_limit = hard_time_limit
        self.min_time_limit = min_time_limit
        self._pool: ProcessPoolExecutor | None = None
        self._lifeline: tuple[Connection, Connection] | None = None  # (reading, writing) ends
        self._queues: dict[str, deque[_Job]] = {}  # waiting hard decisions, per table
        self._turns: deque[str] = deque()  # tables with waiting decisions, in turn
        self._waiting = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.running = 0
        self.decisions = 0
        self.fallbacks = 0  # decisions the normal player made instead
        self.replaced = 0  # pools replaced after dying
        self.degraded = 0  # hard decisions given less than the full thinking time

    def _process_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            if self._lifeline is None:
                self._lifeline = multiprocessing.Pipe(duplex=False)
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=context,
                initializer=_end_with_server,
                initargs=(self._lifeline[0],),
            )
        return self._pool

    def counts(self) -> dict[str, int]:
        return {
            "processes": self.processes,
            "running": self.running,
            "waiting": self._waiting,
            "decisions": self.decisions,
            "fallbacks": self.fallbacks,
            "replaced": self.replaced,
            "degraded": self.degraded,
        }

    async def choose(self, level: str, seed: int, view: PlayerView, queue: str = "") -> int:
        """A move from ``view.legal_moves``. ``queue`` names the table asking (fairness)."""
        self.decisions += 1
        if level == "hard" and self.processes > 0:
            loop = asyncio.get_running_loop()
            job = _Job(seed, view, loop.create_future())
            waiting = self._queues.get(queue)
            if waiting is None:
                waiting = self._queues[queue] = deque()
                self._turns.append(queue)
            waiting.append(job)
            self._waiting += 1
            self._dispatch()
            move = await job.future
        else:
            move = await self._in_thread(level, seed, self.hard_time_limit, view)
        if move not in view.legal_moves:
            log.error("the %s computer player chose an illegal move %#x", level, move)
            move = await self._in_thread("normal", seed, None, view)
        return move

    async def _in_thread(
        self, level: str, seed: int, time_limit: float | None, view: PlayerView
    ) -> int:
        try:
            move = await asyncio.to_thread(decide, level, seed, time_limit, view)
        except Exception:
            if level == "normal":
                log.exception("the normal computer player failed; playing its first legal move")
                return view.legal_moves[0]
            log.exception("the %s computer player failed; the normal player decides", level)
            self.fallbacks += 1
            return await self._in_thread("normal", seed, None, view)
        if move not in view.legal_moves and level != "normal":
            self.fallbacks += 1
            return await self._in_thread("normal", seed, None, view)
        return move if move in view.legal_moves else view.legal_moves[0]

    def time_limit(self) -> float | None:
        """The thinking time a hard decision starting now gets."""
        base = self.hard_time_limit
        demand = self.running + self._waiting
        if base is None or demand <= self.processes:
            return base
        self.degraded += 1
        return max(self.min_time_limit, base * self.processes / demand)

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running < self.processes and self._turns:
            key = self._turns.popleft()
            waiting = self._queues[key]
            job = waiting.popleft()
            self._waiting -= 1
            if waiting:
                self._turns.append(key)  # the table's next decision waits for its next turn
            else:
                del self._queues[key]
            if job.future.done():  # the table moved on (cancelled)
                continue
            self.running += 1
            task = loop.create_task(self._run(job, self.time_limit()))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, job: _Job, time_limit: float | None) -> None:
        loop = asyncio.get_running_loop()
        pool = self._process_pool()
        try:
            move = await loop.run_in_executor(pool, decide, "hard", job.seed, time_limit, job.view)
        except Exception as error:
            if pool is self._pool:
                self._replace_pool(error)
            self.fallbacks += 1
            move = await self._in_thread("normal", job.seed, None, job.view)
        finally:
            self.running -= 1
            self._dispatch()
        if not job.future.done():
            job.future.set_result(move)

    def _replace_pool(self, error: BaseException) -> None:
        log.error("the hard players' worker pool failed (%r): replacing it", error)
        old, self._pool = self._pool, None
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
        self.replaced += 1
        self._process_pool()

    def close(self) -> None:
        for waiting in self._queues.values():
            for job in waiting:
                job.future.cancel()
        self._queues.clear()
        self._turns.clear()
        self._waiting = 0
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._lifeline is not None:
            for end in self._lifeline:
                end.close()
            self._lifeline = None
