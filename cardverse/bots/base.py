"""What every bot shares: the view check (R27) and small helpers over a view's moves."""

from __future__ import annotations

from ..engine import PlayerView


class NotAViewError(TypeError):
    """A bot was handed something other than a :class:`PlayerView` (e.g. the full Game)."""


def check_view(view: object) -> PlayerView:
    """Return ``view`` if it is a :class:`PlayerView` with legal moves, else raise.

    This is the runtime half of R27 (the type annotation is the static half): a bot refuses a
    :class:`~cardverse.engine.game.Game` or any other object that could carry hidden cards.
    """
    if type(view) is not PlayerView:
        raise NotAViewError(
            f"a bot decides from a PlayerView only (R27), not from {type(view).__name__}"
        )
    if not view.legal_moves:
        raise ValueError(f"seat {view.seat} has no legal move to choose from now")
    return view


class BotBase:
    """Base class: :meth:`choose` checks the view, then asks :meth:`decide`."""

    level: str = ""

    def choose(self, view: PlayerView) -> int:
        checked = check_view(view)
        if len(checked.legal_moves) == 1:
            return checked.legal_moves[0]
        return self.decide(checked)

    def decide(self, view: PlayerView) -> int:  # pragma: no cover - abstract
        raise NotImplementedError
