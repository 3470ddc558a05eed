"""Prometheus metrics of a server process (``GET /api/metrics``, for the operator only).

Counters and histograms are kept as things happen (actions and their latency, lease moves,
store errors); gauges of what is in memory (tables by phase, connections) are read from the
table service when the metrics are scraped. Under ``cardverse serve --workers N`` each worker
writes its figures to ``PROMETHEUS_MULTIPROC_DIR`` and any worker's endpoint answers for all.
"""

from __future__ import annotations

import asyncio
import os
from bisect import bisect_left
from typing import Any, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)


class Figures(Protocol):
    """What the metrics read of the table service (cardverse.server.table.service)."""

    store: Any
    store_errors_seen: int

    def counts(self) -> dict[str, Any]: ...


ACTIONS = Counter("cardverse_actions_total", "client messages handled by tables, by type", ["type"])
ACTION_SECONDS = Histogram(
    "cardverse_action_seconds",
    "time to handle one client message at its table (the commit comes after)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
COMMIT_SECONDS = Histogram(
    "cardverse_commit_seconds",
    "time of one group commit of the store",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
LEASE_MOVES = Counter(
    "cardverse_lease_moves_total", "tables taken over from another (dead or stalled) process"
)
LEASES_LOST = Counter("cardverse_leases_lost_total", "tables this process lost to another one")
STORE_ERRORS = Counter(
    "cardverse_store_errors_total", "reads, writes or commits of the store that failed"
)
TABLES = Gauge(
    "cardverse_tables",
    "tables in this process's memory, by phase",
    ["phase"],
    multiprocess_mode="livesum",
)
HANDOFFS = Counter(
    "cardverse_socket_handoffs_total",
    "table WebSockets passed between sibling workers (--workers): sent to the table's owner, "
    "taken from a sibling, or refused (then linked as before)",
    ["result"],
)
CONNECTIONS = Gauge(
    "cardverse_connections",
    "connections: seated and watching (at tables here), linked (sockets here, tables elsewhere)",
    ["kind"],
    multiprocess_mode="livesum",
)


_ACTION_COUNTERS: dict[str, Any] = {}  # each message type's counter (labels() costs)
_ACTION_BOUNDS = ACTION_SECONDS._upper_bounds  # the buckets' bounds, the last one +Inf


class _ActionTally:
    """The actions of one event-loop turn, counted here and added to the metrics once at the
    turn's end (:func:`flush_actions`): under ``--workers`` every addition to a metric is a
    write to the shared file (about 3 µs an action, against a few hundred ns here)."""

    __slots__ = ("buckets", "kinds", "scheduled", "seconds")

    def __init__(self) -> None:
        self.kinds: dict[str, int] = {}
        self.buckets = [0] * len(_ACTION_BOUNDS)
        self.seconds = 0.0
        self.scheduled = False


_TALLY = _ActionTally()


def observe_action(kind: str, seconds: float) -> None:
    """An accepted client message of type ``kind`` (a protocol type: a bounded set) took
    ``seconds`` to handle. Counted at the end of the event loop's turn (at once outside a
    loop); a scrape counts what is tallied too."""
    tally = _TALLY
    kinds = tally.kinds
    kinds[kind] = kinds.get(kind, 0) + 1
    tally.buckets[bisect_left(_ACTION_BOUNDS, seconds)] += 1
    tally.seconds += seconds
    if not tally.scheduled:
        try:
            asyncio.get_running_loop().call_soon(flush_actions)
        except RuntimeError:
            flush_actions()
            return
        tally.scheduled = True


def flush_actions() -> None:
    """Add the actions tallied since the last flush to the metrics."""
    tally = _TALLY
    tally.scheduled = False
    if not tally.kinds:
        return
    for kind, count in tally.kinds.items():
        counter = _ACTION_COUNTERS.get(kind)
        if counter is None:
            counter = _ACTION_COUNTERS[kind] = ACTIONS.labels(kind)
        counter.inc(count)
    # Histogram.observe takes one value; its bucket and sum values take a count each.
    for index, count in enumerate(tally.buckets):
        if count:
            ACTION_SECONDS._buckets[index].inc(count)
            tally.buckets[index] = 0
    ACTION_SECONDS._sum.inc(tally.seconds)
    tally.kinds.clear()
    tally.seconds = 0.0


def refresh(service: Figures) -> None:
    """Set the gauges from the service's figures (at scrape time), and count the actions
    tallied in this loop turn."""
    flush_actions()
    counts = service.counts()
    for phase, number in counts["phases"].items():
        TABLES.labels(phase).set(number)
    CONNECTIONS.labels("seated").set(counts["seated"])
    CONNECTIONS.labels("watching").set(counts["watchers"])
    errors = service.store.errors
    if errors > service.store_errors_seen:
        STORE_ERRORS.inc(errors - service.store_errors_seen)
        service.store_errors_seen = errors


def render_metrics(service: Figures) -> tuple[bytes, str]:
    """The exposition text (all workers' figures under --workers) and its content type."""
    refresh(service)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
