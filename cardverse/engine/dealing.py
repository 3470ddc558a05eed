"""Dealing and the first lead (R23, R24)."""

from __future__ import annotations

import random

from .cards import cards_of, deck
from .options import FIRST_SEAT, Rules
from .parts.first_lead import LEAD_CARD


def shuffle(cards: list[int], rng: random.Random) -> None:
    """``rng.shuffle(cards)``, the very same permutation for the same generator state.

    For a plain :class:`random.Random` it runs CPython's own algorithm here (Fisher-Yates drawing
    each index with ``getrandbits``, as ``Random._randbelow`` does), which compiled is several
    times faster than the library's Python code; any other generator shuffles itself.
    """
    if type(rng) is not random.Random:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def deal(rules: Rules, rng: random.Random) -> list[int]:
    """Shuffle the whole deck and deal it one card at a time in seat order (R23)."""
    cards = deck(rules.jokers)
    shuffle(cards, rng)
    hands = [0] * rules.players
    players = rules.players
    for index, card in enumerate(cards):
        hands[index % players] |= 1 << card
    return hands


def first_round_leader(rules: Rules, hands: list[int]) -> int:
    """Who leads round 1 (R24): seat 0, or the holder of the 3 of clubs (or of diamonds).

    With a partial deal (tests, puzzles) where nobody holds that card, the holder of the
    lowest natural card leads; with no natural card at all, seat 0.
    """
    if rules.first_lead == FIRST_SEAT:
        return 0
    card = LEAD_CARD[rules.first_lead]
    for seat, hand in enumerate(hands):
        if hand >> card & 1:
            return seat
    lowest: tuple[int, int] | None = None
    for seat, hand in enumerate(hands):
        naturals = cards_of(hand & ((1 << 52) - 1))
        if naturals and (lowest is None or naturals[0] < lowest[0]):
            lowest = (naturals[0], seat)
    return lowest[1] if lowest else 0
