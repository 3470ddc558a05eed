"""Prometheus metrics of a server process (``GET /api/metrics``, for the operator only).

Counters and histograms are kept as things happen (actions and their latency, lease moves,
store errors); gauges of what is in memory (tables by phase, connections) are read from the
table service when the metrics are scraped. Under ``cardverse serve --workers N`` each worker
writes its figures to ``PROMETHEUS_MULTIPROC_DIR`` and any worker's endpoint answers for all.
"""

from __future__ import annotations

import os
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
CONNECTIONS = Gauge(
    "cardverse_connections",
    "connections: seated and watching (at tables here), linked (sockets here, tables elsewhere)",
    ["kind"],
    multiprocess_mode="livesum",
)


_ACTION_COUNTERS: dict[str, Any] = {}  # each message type's counter (labels() costs)


def observe_action(kind: str, seconds: float) -> None:
    """An accepted client message of type ``kind`` (a protocol type: a bounded set) took
    ``seconds`` to handle."""
    counter = _ACTION_COUNTERS.get(kind)
    if counter is None:
        counter = _ACTION_COUNTERS[kind] = ACTIONS.labels(kind)
    counter.inc()
    ACTION_SECONDS.observe(seconds)


def refresh(service: Figures) -> None:
    """Set the gauges from the service's figures (at scrape time)."""
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
