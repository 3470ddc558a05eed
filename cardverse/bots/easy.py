"""The ``easy`` bot (R28): it plays its lowest legal play.

"Lowest" is the order in force (R3, R32; :func:`cardverse.engine.order.strength`): a play is
ranked by the rank that R10 compares, so a set by its rank, a straight by its top (by its bottom
in the reversed order, where the lower bottom is the stronger), and a set made only of jokers
above everything. Among plays of the same rank the
one with the fewest jokers comes first, then the one with the fewest cards (on lead a single card
before a pair), then sets before straights. It passes only when it has no play at all, and in the
exchange, a seven pass or a ten discard gives its lowest cards (normal order, R19, R38).
"""

from __future__ import annotations

from ..engine import DISCARD, GIVE, PASS, PlayerView
from ..engine.cards import JOKER_MASK, cards_of
from ..engine.order import strength
from ..engine.plays import CARDS_MASK, play_info
from .base import BotBase

__all__ = ["EasyBot", "lowest_give", "lowest_key", "strength"]


def lowest_key(move: int, revolution: bool) -> tuple[int, int, int, int, int]:
    """Sort key of R28: lowest rank, fewest jokers, fewest cards, sets first, then the cards."""
    cards = move & CARDS_MASK
    return (
        strength(move, revolution),
        (cards & JOKER_MASK).bit_count(),
        cards.bit_count(),
        1 if play_info(move).straight else 0,
        cards,
    )


def lowest_give(view: PlayerView) -> int:
    """The give (or discard) of the lowest cards of the hand (normal order, jokers highest;
    R19, R25, R38)."""
    count = (view.legal_moves[0] & CARDS_MASK).bit_count()
    chosen = cards_of(view.hand)[:count]
    move = view.legal_moves[0] & (GIVE | DISCARD)
    for card in chosen:
        move |= 1 << card
    return move if move in view.legal_moves else min(view.legal_moves)


class EasyBot(BotBase):
    """Plays the lowest legal play (R28); passes only when it cannot play."""

    level = "easy"

    def decide(self, view: PlayerView) -> int:
        moves = view.legal_moves
        if moves[0] & (GIVE | DISCARD):
            return lowest_give(view)
        plays = [m for m in moves if m != PASS]
        if not plays:
            return PASS
        revolution = view.reversed_order
        return min(plays, key=lambda m: lowest_key(m, revolution))
