"""The store factory: the event log a server runs on, from its settings.

:func:`open_store` gives PostgreSQL (:class:`~cardverse.server.pgstore.PostgresStore`) for a
``postgresql://`` address, else the SQLite file in the data directory
(:class:`~cardverse.server.store.Store`). Both stores are built on
:class:`~cardverse.server.eventlog.EventStore` and know nothing of each other; only this module
knows them both.
"""

from __future__ import annotations

from pathlib import Path

from .eventlog import EventStore
from .store import Store

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(
    database: str | None, data_dir: Path | str, synchronous: str = "FULL", group_commit: bool = True
) -> EventStore:
    """The store a server runs on: PostgreSQL for a ``postgresql://`` address, else the SQLite
    file in ``data_dir``."""
    if database and database.startswith(POSTGRES_SCHEMES):
        from .pgstore import PostgresStore  # psycopg is loaded only for PostgreSQL

        return PostgresStore(database, group_commit=group_commit)
    if database:
        raise ValueError(f"--database takes a postgresql:// address, not {database[:40]!r}")
    return Store.in_dir(data_dir, synchronous, group_commit)
