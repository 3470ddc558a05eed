"""What the web pages may ask of the tables, without knowing the server that keeps them.

The pages need three look-ups: a table by its id, by its watch id, and by an invite code typed
by a person. The top-level application (:mod:`cardverse.application`) hands the pages a
:class:`TableFinder` over the server's table service; the pages work without one (a site with
no tables: every table page then says the table is unknown only when the id is malformed).
"""

from __future__ import annotations

from typing import Protocol


class FoundTable(Protocol):
    """A table as the pages see it: its id and its finished games' records."""

    @property
    def id(self) -> str: ...

    @property
    def records(self) -> list[str]: ...


class TableFinder(Protocol):
    """The tables a page may look up."""

    def get(self, table_id: str) -> FoundTable | None:
        """The table with this id (loaded if need be), or None."""
        ...

    def get_watched(self, watch_id: str) -> FoundTable | None:
        """The table whose watch link has this id, or None."""
        ...

    def find_by_code(self, text: str, address: str) -> FoundTable | None:
        """The table of the invite code typed in ``text``, for a look-up from ``address``, or
        None; raises :class:`~cardverse.tabletalk.invites.TooManyLookups` when that address
        missed too often lately."""
        ...
