"""The table service: every table of one server process, its store and its computer players.

:class:`TableService` makes tables, finds them (loaded from the store when not in memory),
unloads idle ones and expires abandoned lobbies. Where a table lives is its locator's business
(:mod:`.locator`): one process holds every table it loads (:class:`.locator.LocalLocator`), or,
with several processes, a table is owned through a lease and reached through a bus
(:class:`cardverse.server.cluster.ClusterLocator`); the service asks the locator and never tests
which of the two it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from ...engine import OptionsError, rules_from_dict
from ...tabletalk.invites import Directory, LookupLimits, read_code
from .. import protocol as P
from ..botrunner import BotRunner
from ..eventlog import EventStore, FencedOut
from ..heap import trimmer
from ..protocol import ProtocolError
from ..settings import Settings
from ..spectators import watch_id_for
from ..stores import open_store
from .locator import CLOSE_MOVED, LocalLocator, Locator
from .room import Room
from .state import new_table_id, new_token, token_hash

log = logging.getLogger("cardverse.server.tables")


class TableService:
    """All tables of one server process, their store and the computer players' runner.

    A table nobody is connected to leaves memory after ``idle_unload`` seconds (it is in the
    store: the next message or page view loads it back), and a lobby nobody is connected to
    expires after ``lobby_expiry`` (its log is deleted; its link then says there is no table).
    At start only the tables that were in memory are restored.
    """

    def __init__(self, settings: Settings, store: EventStore | None = None) -> None:
        self.settings = settings
        self.store = store or open_store(
            settings.database,
            settings.data_dir,
            settings.sqlite_synchronous,
            settings.group_commit,
        )
        self.bots = BotRunner(
            processes=settings.bot_processes, hard_time_limit=settings.hard_time_limit
        )
        self.tables: dict[str, Room] = {}
        # invite codes and watch ids of every stored table (cardverse.tabletalk.invites)
        self.directory = Directory()
        for known in self.store.known_tables():
            self.directory.add(known, watch_id_for(known))
        self.watch_index: dict[str, str] = self.directory.by_watch  # watch link id -> table id
        self.lookups = LookupLimits(  # failed invite-code look-ups
            (settings.lookup_burst, settings.lookup_rate),
            (settings.lookup_all_burst, settings.lookup_all_rate),
        )
        self.unloaded = 0  # tables taken out of memory so far
        self.expired = 0  # abandoned lobbies expired so far
        self.aborted: dict[str, int] = {}  # connections aborted, by why (see sockets.WsConnection)
        self._sweeper: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._trimmer: asyncio.Task[None] | None = None
        self.loop_lag_max = 0.0  # the event loop's longest delay seen (operator figure)
        self.loop_lags_over_50ms = 0
        self.store_errors_seen = 0  # store errors counted in the metrics so far
        self.store.on_lost = self._on_lost
        self._saving: dict[str, list[asyncio.Future[None]]] = {}  # creators awaiting commits
        self.locator: Locator = make_locator(self, settings)

    @property
    def cluster(self) -> Any:
        """The :class:`cardverse.server.cluster.Cluster` of a clustered server (None alone)."""
        return self.locator.cluster

    def _on_lost(self, table_ids: set[str]) -> None:
        """A failed commit lost these tables' last changes: their copies in memory are ahead
        of the log, so they leave memory (their connections reconnect; the log reloads them);
        a creator waiting for its table to be saved is told to try again."""
        for table_id in table_ids:
            for done in self._saving.get(table_id, ()):
                if not done.done():
                    done.set_exception(
                        ProtocolError(
                            "try_again", "the table could not be saved just now: try again"
                        )
                    )
            self.lose(table_id)

    def lose(self, table_id: str, release: bool = True) -> None:
        """Take the table out of memory at once, without writing (its log is the truth: another
        process owns it now, or a commit failed); its connections are told to reconnect."""
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        table.close()
        for conn in table.outbox.all_conns():
            conn.close(CLOSE_MOVED, "the table moved: reconnect")
            conn.table = None
            conn.seat = None
        table.watchers.clear()
        for seat in table.seats:
            seat.conn = None
        self.locator.lost(table_id, release)

    def create(
        self,
        name: str | None,
        rules: Any = None,
        turn_timer: Any = ...,
        table_id: str | None = None,
        fence: int = 0,
    ) -> tuple[Room, str]:
        """A new table whose creator (the host) sits in seat 0; returns it and the seat token.

        Inside the event loop the table's first event goes into the turn's group commit with
        every other change of the turn (outside it, or with per-move commits, it is committed
        at once): whoever hands the token out awaits :meth:`saved` first, or calls
        :meth:`create_saved`."""
        clean = P.check_name(name)
        try:
            rules_value = rules_from_dict(rules if rules is not None else {"preset": "standard"})
        except OptionsError as error:
            raise ProtocolError(error.code, error.message, error.rule, **error.params) from None
        if turn_timer is ...:
            timer = self.settings.turn_timer
        elif turn_timer is None:
            timer = None
        elif (
            isinstance(turn_timer, int | float)
            and not isinstance(turn_timer, bool)
            and P.TURN_TIMER_MIN <= turn_timer <= P.TURN_TIMER_MAX
        ):
            timer = float(turn_timer)
        else:
            raise ProtocolError(
                "bad_message",
                f"turn_timer is seconds from {P.TURN_TIMER_MIN:g} to {P.TURN_TIMER_MAX:g}, "
                "or null for none",
                field="turn_timer",
            )
        if len(self.tables) >= self.settings.max_tables:
            self.sweep(force=True)
            if len(self.tables) >= self.settings.max_tables:
                raise ProtocolError(
                    "server_busy", "the server holds as many tables as it may: try again later"
                )
        if table_id is None:
            table_id = new_table_id()
            while self.directory.code_taken(table_id):  # one table per invite code
                table_id = new_table_id()
        table = Room(self, table_id)
        table.fence = fence
        token = new_token()
        table.commit(
            "create",
            {
                "rules": rules_value.changed_options(),
                "turn_timer": timer,
                "name": clean,
                "token_hash": token_hash(token),
            },
        )
        self.tables[table.id] = table
        self.directory.add(table.id, table.watch_id)
        table.go_live()
        return table, token

    async def create_saved(
        self,
        name: str | None,
        rules: Any = None,
        turn_timer: Any = ...,
        table_id: str | None = None,
        fence: int = 0,
    ) -> tuple[Room, str]:
        """:meth:`create`, returned once the table is durable: its token may be handed out."""
        table, token = self.create(name, rules, turn_timer, table_id=table_id, fence=fence)
        await self.saved(table.id)
        return table, token

    async def saved(self, table_id: str) -> None:
        """Wait for the commit holding the table's changes so far (as an action waits for its
        acknowledgement); raises ``try_again`` when that commit failed (the table is gone from
        memory then, see :meth:`_on_lost`)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def landed() -> None:
            if not done.done():
                done.set_result(None)

        if not self.store.after_commit(landed):
            return  # committed already
        waiting = self._saving.setdefault(table_id, [])
        waiting.append(done)
        try:
            await done
        finally:
            waiting.remove(done)
            if not waiting:
                self._saving.pop(table_id, None)

    def get(self, table_id: str) -> Room | None:
        """The table with this id, loaded from the store if it is not in memory.

        With several processes a table not in memory may be another's: what is returned then
        is a copy to read (rebuilt from the log, never kept, nothing scheduled); only the
        process that takes its lease loads it (:meth:`cluster.Cluster.locate`)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if len(table_id) > 64 or not self.store.exists(table_id):
            return None
        return self.locator.load(table_id)

    def restore(self, table_id: str) -> Room:
        """A copy of the table rebuilt from its log (not kept, nothing scheduled)."""
        return Room.restore(self, table_id, self.store.events(table_id))

    def keep(self, table: Room, fence: int) -> Room:
        """Hold a restored table in memory under fencing number ``fence``, live."""
        table.fence = fence
        self.tables[table.id] = table
        self.directory.add(table.id, table.watch_id)
        if self.store.status(table.id) != "live":
            self.store.set_status(table.id, "live", fence=fence)
        table.go_live()
        return table

    def get_watched(self, watch_id: str) -> Room | None:
        """The table of a watch link (any stored table, loaded if it is not in memory)."""
        table_id = self.watch_index.get(watch_id)
        if table_id is None:
            self.locator.newer_tables(at_most_every=1.0)  # made by another process meanwhile?
            table_id = self.watch_index.get(watch_id)
        return None if table_id is None else self.get(table_id)

    def find_by_code(self, text: str, address: str) -> Room | None:
        """The table whose invite code ``text`` is, for a look-up from ``address``.

        Raises :class:`ProtocolError` ``too_many_lookups`` when that address failed too often
        lately (or failed lately while everyone together did too: see
        :class:`~cardverse.tabletalk.invites.LookupLimits`); a failed look-up counts against both,
        a look-up that finds its table against neither."""
        table_id = self.id_by_code(text, address)
        return self.get(table_id) if table_id is not None else None

    def id_by_code(self, text: str, address: str) -> str | None:
        """The id of the stored table whose invite code ``text`` is (it may be another
        process's), under the same look-up limits as :meth:`find_by_code`."""
        if not self.lookups.allowed(address):
            raise ProtocolError(
                "too_many_lookups",
                "too many table codes that find no table: wait a minute and try again",
                retry_after=self.lookups.retry_after(),
            )
        code = read_code(text)
        table_id = self.directory.by_code.get(code) if code is not None else None
        if table_id is None and code is not None:
            table_id = self.locator.newer_tables().get(code)  # made by another process?
        known = table_id is not None and (
            table_id in self.tables or (len(table_id) <= 64 and self.store.exists(table_id))
        )
        if table_id is None or not known:
            self.lookups.failed(address)
            return None
        return table_id

    def restore_all(self) -> int:
        """Restore the tables that were live when the server stopped; returns how many."""
        return self.locator.restore_all()

    def restore_live(self) -> int:
        """Restore every table stored as live (one process: all of them are its own)."""
        count = 0
        for table_id in self.store.tables_to_restore():
            if table_id in self.tables:
                continue
            try:
                table = self.restore(table_id)
                fence = self.store.fence_of(table_id)
            except Exception:
                log.exception("could not restore table %s", table_id)
                continue
            self.keep(table, fence)
            count += 1
        return count

    # -- idle tables ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start looking for idle tables and abandoned lobbies (inside the event loop)."""
        loop = asyncio.get_running_loop()
        self.store.start_checkpointer()
        if self._sweeper is None:
            self._sweeper = loop.create_task(self._sweep_forever())
        if self._watcher is None:
            self._watcher = loop.create_task(self._watch_loop())
        if self._trimmer is None and self.settings.heap_trim_interval:
            release = trimmer()
            if release is not None:
                self._trimmer = loop.create_task(self._trim_forever(release))

    async def _watch_loop(self, every: float = 0.1) -> None:
        """How late the event loop runs a 100 ms timer: anything that blocks it shows here."""
        loop = asyncio.get_running_loop()
        while True:
            planned = loop.time() + every
            await asyncio.sleep(every)
            lag = loop.time() - planned
            self.loop_lag_max = max(self.loop_lag_max, lag)
            self.loop_lags_over_50ms += lag > 0.05

    async def _trim_forever(self, release: Callable[[], None]) -> None:
        """Give the heap's free pages back to the system now and then (:mod:`..heap`)."""
        every = self.settings.heap_trim_interval or 1.0
        while True:
            await asyncio.sleep(every)
            release()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_interval)
            try:
                self.sweep()
            except Exception:  # pragma: no cover - a store failure; try again next time
                log.exception("sweeping idle tables failed")

    def sweep(self, force: bool = False) -> tuple[int, int]:
        """Unload idle tables and expire abandoned lobbies; returns (unloaded, expired).
        ``force``: unload every table nobody is connected to (the table limit is reached)."""
        now = time.monotonic()
        unload_after = self.settings.idle_unload
        expire_after = self.settings.lobby_expiry
        unloaded = expired = 0
        for table in list(self.tables.values()):
            if table.idle_since is None or table.outbox.has_connections():
                continue
            idle = now - table.idle_since
            if (
                expire_after is not None
                and idle >= expire_after
                and table.phase == "lobby"
                and table.game_number == 0
            ):
                self._drop(table, "expired")
                expired += 1
            elif force or (unload_after is not None and idle >= unload_after):
                self._drop(table, "idle")
                unloaded += 1
        if expire_after is not None and not force:
            expired += self.store.expire_idle_lobbies(time.time() - expire_after)
        self.unloaded += unloaded
        self.expired += expired
        return unloaded, expired

    def _drop(self, table: Room, status: str) -> None:
        table.close()
        del self.tables[table.id]
        with contextlib.suppress(FencedOut):  # another process owns it: the status is its own
            self.store.set_status(table.id, status, fence=table.fence)
            self.locator.status_written()
        self.locator.released(table.id)

    def counts(self) -> dict[str, Any]:
        """Figures for the operator (never shown to players)."""
        phases: dict[str, int] = {"lobby": 0, "playing": 0, "over": 0}
        watchers = seated = 0
        for table in self.tables.values():
            phases[table.phase] += 1
            watchers += len(table.watchers)
            seated += sum(1 for seat in table.seats if seat.conn is not None)
        return {
            "tables": len(self.tables),
            "phases": phases,
            "watchers": watchers,
            "seated": seated,
            "unloaded": self.unloaded,
            "expired": self.expired,
            "bots": self.bots.counts(),
            "aborted": dict(self.aborted),
            "commits": self.store.commits,
            **self.locator.figures(),
            "durability": {
                "synchronous": self.store.synchronous,
                "group_commit": self.store.group_commit,
            },
            "loop_lag_ms": {
                "max": round(1000 * self.loop_lag_max, 1),
                "over_50ms": self.loop_lags_over_50ms,
            },
            "commit_ms": {
                "mean": round(1000 * self.store.commit_seconds / max(1, self.store.commits), 3),
                "max": round(1000 * self.store.slowest_commit, 3),
            },
        }

    def close(self) -> None:
        for task in (self._sweeper, self._watcher, self._trimmer):
            if task is not None:
                task.cancel()
        self._sweeper = self._watcher = self._trimmer = None
        for table in self.tables.values():
            table.close()
        self.bots.close()
        self.store.close()


def make_locator(service: TableService, settings: Settings) -> Locator:
    """The locator the settings ask for (``redis``: a cluster of processes)."""
    if settings.redis:
        from ..cluster_locator import ClusterLocator

        return ClusterLocator(service, settings.redis)
    return LocalLocator(service)
