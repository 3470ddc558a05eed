"""Cards, ranks, suits and hands as bit sets (rules R1–R3).

A card is a small integer: ``rank * 4 + suit`` for the 52 natural cards, where rank 0 is the 3
and rank 12 the 2 (normal order, R3) and suit 0..3 is clubs, diamonds, hearts, spades; the red
joker is 52 and the black joker 53 (R2). A hand, or any set of cards, is an ``int`` bit set with
bit ``card`` set for each card it holds. Text forms follow notation.md (``3C``, ``10H``, ``RJ``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

RANK_NAMES: Final[tuple[str, ...]] = (
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "J",
    "Q",
    "K",
    "A",
    "2",
)
SUIT_NAMES: Final[tuple[str, ...]] = ("C", "D", "H", "S")
NUM_RANKS: Final = 13
NUM_SUITS: Final = 4

RANK_3: Final = 0
RANK_8: Final = 5
RANK_2: Final = 12

RED_JOKER: Final = 52
BLACK_JOKER: Final = 53
JOKERS: Final[tuple[int, ...]] = (RED_JOKER, BLACK_JOKER)
JOKER_NAMES: Final[dict[int, str]] = {RED_JOKER: "RJ", BLACK_JOKER: "BJ"}

NATURAL_MASK: Final = (1 << 52) - 1
JOKER_MASK: Final = (1 << RED_JOKER) | (1 << BLACK_JOKER)
THREE_OF_CLUBS: Final = 0
THREE_OF_DIAMONDS: Final = 1
#: how many cards a 4-bit suit pattern of one rank holds (a table: faster than ``bit_count``
#: in compiled code, where a method call on an ``int`` boxes it)
NIBBLE_COUNT: Final[tuple[int, ...]] = tuple(n.bit_count() for n in range(16))
_BYTE_COUNT: Final[tuple[int, ...]] = tuple(n.bit_count() for n in range(256))


def card_count(mask: int) -> int:
    """How many cards a bit set holds: ``mask.bit_count()``, by a table a byte at a time, which
    compiled code runs without boxing the ``int`` for a method call."""
    count = 0
    while mask:
        count += _BYTE_COUNT[mask & 255]
        mask >>= 8
    return count


class CardError(ValueError):
    """A card's text form could not be read."""


def rank_cards(ranks: int) -> int:
    """The natural cards of the ranks in ``ranks`` (a 13-bit set, bit 0 = the 3), as a mask."""
    out = 0
    rank = 0
    while ranks:
        if ranks & 1:
            out |= 15 << (rank * 4)
        ranks >>= 1
        rank += 1
    return out


def card_name(card: int) -> str:
    """Text form of a card, e.g. ``10H`` or ``RJ``."""
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    if not 0 <= card < 52:
        raise CardError(f"no card has the number {card}")
    return RANK_NAMES[card >> 2] + SUIT_NAMES[card & 3]


_BY_NAME: Final[dict[str, int]] = {card_name(c): c for c in range(52)}
_BY_NAME.update({name: card for card, name in JOKER_NAMES.items()})


def parse_card(text: object) -> int:
    """Read a card's text form, case-insensitively (``qs``, ``10h``, ``rj``)."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string like '7H' or 'RJ', not {text!r}")
    key = text.strip().upper()
    if key not in _BY_NAME:
        raise CardError(
            f"unknown card {text!r}: a card is a rank (3-10, J, Q, K, A, 2) followed by a suit "
            "(C, D, H, S), or a joker (RJ, BJ)"
        )
    return _BY_NAME[key]


def parse_rank(text: object) -> int:
    """Read a rank's text form (``7``, ``10``, ``q``)."""
    if not isinstance(text, str) or text.strip().upper() not in RANK_NAMES:
        raise CardError(f"unknown rank {text!r}: a rank is one of {', '.join(RANK_NAMES)}")
    return RANK_NAMES.index(text.strip().upper())


def cards_of(mask: int) -> list[int]:
    """The cards of a bit set, lowest first (by rank, then suit, jokers last)."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def mask_names(mask: int) -> list[str]:
    """Text forms of the cards of a bit set, in normal order (lowest first, jokers last)."""
    return [card_name(c) for c in cards_of(mask)]


def parse_cards(texts: object) -> int:
    """Read a list of card texts into a bit set; repeated cards are an error."""
    if not isinstance(texts, list):
        raise CardError(f"cards must be given as a list of strings, not {texts!r}")
    mask = 0
    for text in texts:
        card = parse_card(text)
        if mask >> card & 1:
            raise CardError(f"card {card_name(card)} is listed twice")
        mask |= 1 << card
    return mask


def deck(jokers: int = 0) -> list[int]:
    """The cards of the deck in use (R1, R2): 52 naturals plus 0, 1 (red) or 2 jokers."""
    return list(range(52)) + list(JOKERS[:jokers])


def deck_mask(jokers: int = 0) -> int:
    return mask_of(deck(jokers))


__all__ = [
    "BLACK_JOKER",
    "JOKER_MASK",
    "JOKER_NAMES",
    "NATURAL_MASK",
    "NIBBLE_COUNT",
    "NUM_RANKS",
    "NUM_SUITS",
    "RANK_2",
    "RANK_NAMES",
    "RED_JOKER",
    "SUIT_NAMES",
    "CardError",
    "card_count",
    "card_name",
    "cards_of",
    "deck_mask",
    "mask_names",
    "parse_card",
    "parse_cards",
]
