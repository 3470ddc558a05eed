"""Spectators: every connection on a table's link that holds no seat watches the game live.

A mixin of :class:`cardverse.server.tables.Table`. A spectator gets what is public (R26 for a
person with no seat): the table, the pile, every card count, every play, pass and trick, and
the score sheet, in a full ``state`` whose view has ``seat: null``, an empty ``hand``, no
``exchange`` and no ``legal_moves``, then in ``change`` messages (one text made for all the
spectators that hold the state before it, by the table). The view filter checks it like every
message: a connection without a seat may see only the cards played this round. The table
message counts them (``watching``).

The **watch link** (``/w/{watch_id}``, WebSocket ``/ws/watch/{watch_id}``) is for an audience:
its id is derived one way from the table id (:func:`watch_id_for`), so it does not reveal the
share link, and a connection made with it cannot take a seat (``watch_only``); the messages it
gets name the table by its watch id.
"""

from __future__ import annotations

import base64
import hashlib
from typing import TYPE_CHECKING, Any

from .viewfilter import SeatView, Shared

if TYPE_CHECKING:
    from ..engine import Game
    from .tables import Conn
    from .wire import WireViews


def watch_id_for(table_id: str) -> str:
    """The watch link's id of a table: 144 bits of a hash of the table id."""
    digest = hashlib.sha256(b"cardverse-watch:" + table_id.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


SPECTATOR_OWN = '"seat":null,"hand":[],"exchange":[],"gives":[],"legal_moves":[]'


class Spectators:
    """Telling the watching connections the game, and counting them."""

    if TYPE_CHECKING:  # what the table (cardverse.server.tables.Table) provides
        game: Game | None
        watchers: set[Conn]
        wire: WireViews

        def _state_frame(
            self, events: list[dict[str, Any]], view: Any, *, full: bool
        ) -> dict[str, Any]: ...

        def _deliver(self, conn: Conn, text: str) -> None: ...

        def _full_state_text(
            self, conn: Conn, events: list[dict[str, Any]], *, ack: int | None = None
        ) -> str: ...

    def _spectator_state(
        self, events: list[dict[str, Any]], shared: Shared, *, full: bool = False
    ) -> dict[str, Any]:
        return self._state_frame(events, SeatView(SPECTATOR_OWN, shared), full=full)

    def _send_spectator_full(self, conn: Conn) -> None:
        if self.game is None:
            return
        self._deliver(conn, self._full_state_text(conn, []))
