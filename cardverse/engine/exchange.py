"""The card exchange between rounds (R25, R19).

After the deal of round 2 and later, the previous Scum gives the President their two highest cards
and, with 4+ players, the Vice-Scum gives the Vice-President their highest card: these gifts are
automatic. The President, then the Vice-President, give back cards of their own choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import cards_of
from .pickling import by_constructor


@dataclass(frozen=True)
class ExchangePair:
    """One pair of the exchange: ``giver`` gives ``count`` highest cards to ``receiver``."""

    giver: int
    receiver: int
    count: int

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor


def exchange_pairs(previous_order: list[int]) -> list[ExchangePair]:
    """The pairs of the exchange from the previous round's finishing order (R25)."""
    pairs = [ExchangePair(giver=previous_order[-1], receiver=previous_order[0], count=2)]
    if len(previous_order) >= 4:
        pairs.append(ExchangePair(giver=previous_order[-2], receiver=previous_order[1], count=1))
    return pairs


def card_height(card: int) -> int:
    """Height of a card for the exchange: normal order with jokers highest (R19, R25)."""
    return card >> 2  # 0 (the 3) … 12 (the 2); both jokers give 13


def highest_cards(hand: int, count: int) -> int:
    """The ``count`` highest cards of a hand (ties between suits go to the higher suit)."""
    chosen = cards_of(hand)[-count:] if count else []
    mask = 0
    for card in chosen:
        mask |= 1 << card
    return mask


def is_highest_choice(hand: int, given: int, count: int) -> bool:
    """Whether ``given`` is a valid automatic gift: ``count`` cards no lower than any kept."""
    if given & ~hand or given.bit_count() != min(count, hand.bit_count()):
        return False
    kept = cards_of(hand & ~given)
    if not kept:
        return True
    lowest_given = min(card_height(c) for c in cards_of(given))
    return all(card_height(c) <= lowest_given for c in kept)


__all__ = [
    "card_height",
    "highest_cards",
]
