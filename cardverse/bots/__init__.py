"""Computer players (rules R26–R30): ``easy``, ``normal`` and ``hard``.

A bot is built once per seat with :func:`make_bot` and asked for an action with
:meth:`Bot.choose`, given that seat's :class:`~cardverse.engine.views.PlayerView` whenever the
view lists legal moves (a play, the pass, or a give-back in the exchange). It returns one of
``view.legal_moves``. A bot never receives a :class:`~cardverse.engine.game.Game`: the view is
all it may know (R27), and every bot refuses anything else with :class:`TypeError`.

This package owns the players' decision making only; who calls them, and when, is the table's
(server) or the arena's business.
"""

from __future__ import annotations

# The compiled build (cardverse/_native.py) comes first on this package's path when it is used;
# read from sys.modules, as the engine imports nothing of the other layers.
import sys as _sys

_native = _sys.modules.get("cardverse._native")
if _native is not None:
    __path__[:0] = _native.compiled_path("bots")
del _sys, _native

from typing import Protocol, runtime_checkable

from ..engine import PlayerView
from .base import BotBase, NotAViewError, check_view
from .easy import EasyBot

BOT_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


@runtime_checkable
class Bot(Protocol):
    """A computer player for one seat."""

    level: str

    def choose(self, view: PlayerView) -> int:
        """A move int from ``view.legal_moves`` (a play, the pass, or an exchange give-back)."""
        ...


def make_bot(
    level: str,
    *,
    seed: int | None = None,
    playouts: int | None = None,
    time_limit: float | None = None,
    strict: bool = False,
) -> Bot:
    """Build a bot of ``level`` (one of :data:`BOT_LEVELS`).

    ``seed`` makes a bot's choices reproducible. ``playouts`` (per move, deterministic) and
    ``time_limit`` (seconds per move, default 1 s) set the ``hard`` bot's budget; with both, the
    search stops at whichever comes first. The other levels ignore them. ``strict`` makes the
    ``hard`` bot simulate every action through the referee's check, so that an illegal simulated
    move raises instead of passing silently (the tests use it).
    """
    if level == "easy":
        return EasyBot()
    if level == "normal":
        from .normal import NormalBot

        return NormalBot(seed=seed)
    if level == "hard":
        from .hard import HardBot

        return HardBot(seed=seed, playouts=playouts, time_limit=time_limit, strict=strict)
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")


__all__ = [
    "BOT_LEVELS",
    "Bot",
    "BotBase",
    "EasyBot",
    "NotAViewError",
    "check_view",
    "make_bot",
]
