"""Red team, computer players: the hard players' process pool is shared fairly between tables,
thinks less under load instead of queueing, is sized to the machine, and a pool that dies is
replaced at once, the normal player making the decisions it held."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest
from redteam_support import wait_until

from cardverse.engine import Game, PlayerView, Rules, player_view
from cardverse.server.botrunner import BotRunner, decide, machine_processes
from cardverse.server.store import Store
from cardverse.server.tables import Settings, TableService


def _view(seed: int) -> PlayerView:
    game = Game(Rules.make("standard", players=4), seed=seed)
    turn = game.turn
    assert turn is not None
    return player_view(game, turn)


@pytest.mark.timeout(60)
def test_hard_decisions_are_shared_fairly_between_tables_and_degrade_under_load() -> None:
    async def body() -> None:
        runner = BotRunner(processes=1, hard_time_limit=0.3, min_time_limit=0.01)
        finished: list[str] = []

        async def decision(table: str, seed: int) -> None:
            view = _view(seed)
            move = await runner.choose("hard", seed, view, queue=table)
            assert move in view.legal_moves
            finished.append(table)

        try:
            crowded = [decision("crowded", seed) for seed in range(8)]
            tasks = [asyncio.ensure_future(job) for job in crowded]
            await asyncio.sleep(0)  # the crowded table's decisions are queued first
            tasks.append(asyncio.ensure_future(decision("other", 99)))
            await asyncio.wait_for(asyncio.gather(*tasks), 50)
        finally:
            runner.close()
        # Round robin: the other table waits for at most one more of the crowded table's.
        assert finished.index("other") <= 2, finished
        # Nine decisions for one worker: each got less than the full thinking time.
        assert runner.degraded >= 7, runner.counts()
        assert runner.fallbacks == 0 and runner.replaced == 0

    asyncio.run(body())


def test_the_pool_is_sized_to_the_machine(tmp_path: Path) -> None:
    cores = len(os.sched_getaffinity(0))
    assert machine_processes() == max(1, cores - 1)
    service = TableService(Settings(data_dir=tmp_path), Store(tmp_path / "db.sqlite3"))
    assert service.bots.processes == machine_processes()
    service.close()


@pytest.mark.timeout(60)
def test_a_dead_pool_is_replaced_at_once_and_the_normal_player_decides() -> None:
    async def body() -> None:
        runner = BotRunner(processes=1, hard_time_limit=20.0)
        view = _view(5)
        try:
            pending = asyncio.ensure_future(runner.choose("hard", 5, view, queue="t"))
            await wait_until(lambda: runner.running == 1 and bool(_worker_pids(runner)), 30)
            old_pool = runner._pool
            for pid in _worker_pids(runner):
                os.kill(pid, signal.SIGKILL)
            started = time.monotonic()
            move = await asyncio.wait_for(pending, 30)
            assert time.monotonic() - started < 15  # not the hard player's 20 s
            # The normal player made the decision, not the first legal move.
            assert move == decide("normal", 5, None, view)
            assert runner.replaced == 1 and runner.fallbacks == 1
            assert runner._pool is not None and runner._pool is not old_pool
            # The new pool works: the next hard decision is the hard player's own.
            runner.hard_time_limit = 0.05
            again = await asyncio.wait_for(runner.choose("hard", 6, _view(6), queue="t"), 30)
            assert again in _view(6).legal_moves
            assert runner.fallbacks == 1 and runner.replaced == 1
        finally:
            runner.close()

    asyncio.run(body())


def _worker_pids(runner: BotRunner) -> list[int]:
    pool = runner._pool
    processes = getattr(pool, "_processes", None) or {}
    return [pid for pid, process in processes.items() if process.is_alive()]
