"""Dealing and the first lead (R23, R24)."""

from __future__ import annotations

import random

from .cards import deck
from .options import Rules
from .parts import first_lead


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
    """Who leads round 1 (R24): the first-lead part's answer for this table."""
    return first_lead.PART.leader(rules.first_lead, hands)
