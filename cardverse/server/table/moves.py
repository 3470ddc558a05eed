"""A move between its two forms, remembered: the engine's integer of a protocol action (a
client's play, read by :mod:`.decide`, and every stored move, read again by :mod:`.apply`),
and the action object of a move integer (what a ``move`` event stores).

Both conversions are the engine's (:func:`cardverse.engine.to_move`, :func:`cardverse.engine.
from_move`); a table makes each of them at least once an action, and the moves of a game are
few, so their results are kept (a bounded number, forgotten all at once when full).
"""

from __future__ import annotations

from typing import Any

from ...engine import Action, from_move, to_move

# Moves actually played are few (187 distinct ones in 100,000 random actions of the standard
# rules); a client may send any well-formed play, legal or not, and each is kept until it is
# refused, so the bound is what a flood of distinct plays can cost: about 4,096 × 0.6 KB.
_LIMIT = 4_096
_MOVES: dict[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]], int] = {}
_ACTIONS: dict[int, dict[str, Any]] = {}


def move_of(kind: str, cards: tuple[str, ...], jokers: dict[str, str]) -> int:
    """``to_move(Action(kind, cards, jokers))``: raises :class:`~cardverse.engine.
    ActionFormatError` as it does (a refused action is not kept)."""
    key = (kind, cards, tuple(jokers.items()) if jokers else ())
    move = _MOVES.get(key)
    if move is None:
        move = to_move(Action(kind, cards, dict(jokers)))
        if len(_MOVES) >= _LIMIT:
            _MOVES.clear()
        _MOVES[key] = move
    return move


def action_of(move: int) -> dict[str, Any]:
    """``from_move(move).to_json(with_seat=False)``, a new object each time (it is stored and
    may be kept)."""
    made = _ACTIONS.get(move)
    if made is None:
        made = from_move(move).to_json(with_seat=False)
        if len(_ACTIONS) >= _LIMIT:
            _ACTIONS.clear()
        _ACTIONS[move] = made
    return {key: _copy(value) for key, value in made.items()}


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value
