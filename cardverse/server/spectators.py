"""Spectators: every connection on a table's link that holds no seat watches the game live.

A spectator gets what is public (R26 for a person with no seat): the table, the pile, every card
count, every play, pass and trick, and the score sheet, in a full ``state`` whose view has
``seat: null``, an empty ``hand`` (:data:`SPECTATOR_OWN`), no ``exchange`` and no
``legal_moves``, then in ``change`` messages (one text made for all the spectators that hold the
state before it, by the table's outbox, :mod:`cardverse.server.table.outbox`). The view filter
checks it like every message: a connection without a seat may see only the cards played this
round. The table message counts them (``watching``).

The **watch link** (``/w/{watch_id}``, WebSocket ``/ws/watch/{watch_id}``) is for an audience:
its id is derived one way from the table id (:func:`watch_id_for`), so it does not reveal the
share link, and a connection made with it cannot take a seat (``watch_only``); the messages it
gets name the table by its watch id.
"""

from __future__ import annotations

import base64
import hashlib


def watch_id_for(table_id: str) -> str:
    """The watch link's id of a table: 144 bits of a hash of the table id."""
    digest = hashlib.sha256(b"cardverse-watch:" + table_id.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


def _spectator_own() -> str:
    """A spectator's own view members: the engine's encoding of a seat's own view that holds
    nothing (no hand, no exchange, no passes, no legal move), with ``seat`` null."""
    import json

    from ..engine.views import SeatView

    own = SeatView(seat=-1, hand=0, exchange=(), gives=(), legal_moves=()).to_json()
    own["seat"] = None
    return json.dumps(own, separators=(",", ":"))[1:-1]


#: A spectator's own view members (JSON object members, no braces), made once.
SPECTATOR_OWN = _spectator_own()
