"""The remembered forms of moves (server/table/moves.py) stay bounded, whatever clients send."""

from __future__ import annotations

import itertools

from cardverse.engine import Action, from_move, to_move
from cardverse.engine.cards import card_name
from cardverse.server.table import moves

CARDS = [card_name(card) for card in range(52)]


def test_a_flood_of_distinct_plays_keeps_the_remembered_moves_bounded() -> None:
    """Every well-formed play a client sends is read into a move before it is judged: a flood
    of distinct ones (legal or not) never keeps more than the bound, and what is remembered is
    still the engine's own reading."""
    plays = itertools.islice(itertools.combinations(CARDS, 3), 2 * moves._LIMIT + 17)
    for cards in plays:
        move = moves.move_of("play", cards, {})
        assert len(moves._MOVES) <= moves._LIMIT
        moves.action_of(move)
        assert len(moves._ACTIONS) <= moves._LIMIT
    cards = ("7H", "7S")
    assert moves.move_of("play", cards, {}) == to_move(Action("play", cards, {}))
    move = moves.move_of("play", cards, {})
    assert moves.action_of(move) == from_move(move).to_json(with_seat=False)
