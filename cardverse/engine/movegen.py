"""Legal-move generation: every distinct play a hand can make, exactly once (R5–R10, R25).

Two plays are distinct when they put down different cards or declare a joker of a straight for a
different rank. Natural sets come from tables built once per rank and four-bit suit pattern; jokers
and straights are added on top.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from .cards import BLACK_JOKER, JOKER_MASK, NUM_RANKS, RED_JOKER
from .plays import GIVE, MAX_SET_SIZE, STRAIGHT, PlayInfo, declare, play_info

# _SETS_OF_SIZE[rank][pattern][k]: natural k-card sets of ``rank`` within the 4-bit suit pattern.
_SETS_OF_SIZE: Final[list[list[list[tuple[int, ...]]]]] = []
# _ALL_SETS[rank][pattern]: every natural set of ``rank`` within the pattern.
_ALL_SETS: Final[list[list[tuple[int, ...]]]] = []
for _rank in range(NUM_RANKS):
    _by_pattern: list[list[tuple[int, ...]]] = []
    _all_by_pattern: list[tuple[int, ...]] = []
    for _pattern in range(16):
        _subs = [s for s in range(1, 16) if s & _pattern == s]
        _sized = [tuple(s << (_rank * 4) for s in _subs if s.bit_count() == k) for k in range(5)]
        _by_pattern.append(_sized)
        _all_by_pattern.append(tuple(m for k in range(1, 5) for m in _sized[k]))
    _SETS_OF_SIZE.append(_by_pattern)
    _ALL_SETS.append(_all_by_pattern)

_JOKER_SUBSETS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
for _jokers in range(4):
    _jmask = _jokers << RED_JOKER
    _JOKER_SUBSETS[_jmask] = tuple(
        tuple(s << RED_JOKER for s in range(1, 4) if s & _jokers == s and s.bit_count() == k)
        for k in range(3)
    )


def _set_rank_ok(rank: int, old: PlayInfo, revolution: bool, ties: bool) -> bool:
    if old.all_jokers:
        return False
    if rank == old.rank:
        return ties
    return rank < old.rank if revolution else rank > old.rank


def set_plays(hand: int, old: PlayInfo | None, revolution: bool, ties: bool) -> list[int]:
    """Every set the hand can play: on lead when ``old`` is None, else those that beat ``old``."""
    out: list[int] = []
    jokers = hand & JOKER_MASK
    if old is None:
        for rank in range(NUM_RANKS):
            pattern = (hand >> (rank * 4)) & 15
            if pattern:
                out.extend(_ALL_SETS[rank][pattern])
        if jokers:
            _add_joker_sets(out, hand, jokers, range(1, 5), None, revolution, ties)
        return out
    if old.straight or old.size > MAX_SET_SIZE:  # sets of five come from their part (R43)
        return out
    size = old.size
    if not old.all_jokers:
        # Ranks that beat the play, lowest first, as literal bounds: compiled, a stored range
        # would be iterated as Python objects.
        if revolution:
            low, high = 0, (old.rank + 1 if ties else old.rank)
        else:
            low, high = (old.rank if ties else old.rank + 1), NUM_RANKS
        table = _SETS_OF_SIZE
        for rank in range(low, high):
            pattern = (hand >> (rank * 4)) & 15
            if pattern:
                out.extend(table[rank][pattern][size])
    if jokers:
        _add_joker_sets(out, hand, jokers, (size,), old, revolution, ties)
    return out


def _add_joker_sets(
    out: list[int],
    hand: int,
    jokers: int,
    sizes: range | tuple[int, ...],
    old: PlayInfo | None,
    revolution: bool,
    ties: bool,
) -> None:
    """Sets holding jokers: naturals plus jokers, and sets made only of jokers (R5)."""
    joker_subsets = _JOKER_SUBSETS[jokers]
    for size in sizes:
        # All-joker sets outrank every natural set of their size (R5, R10).
        if size <= 2 and (old is None or not old.all_jokers or ties):
            out.extend(joker_subsets[size])
        for rank in range(NUM_RANKS):
            pattern = (hand >> (rank * 4)) & 15
            if not pattern:
                continue
            if old is not None and not _set_rank_ok(rank, old, revolution, ties):
                continue
            sized = _SETS_OF_SIZE[rank][pattern]
            for used in (1, 2):
                naturals = size - used
                if naturals < 1:
                    break
                for joker_part in joker_subsets[used]:
                    for natural_part in sized[naturals]:
                        out.append(natural_part | joker_part)


# Straights of one suit, by one integer packing (suit, ranks held, jokers held, the play to beat,
# order, equal plays): see :func:`straight_plays`.
_STRAIGHTS_CACHE: Final[dict[int, list[int]]] = {}


def _suit_ranks(hand: int) -> tuple[int, int, int, int]:
    """The ranks each suit holds (clubs, diamonds, hearts, spades), as 13-bit sets."""
    clubs = diamonds = hearts = spades = 0
    for rank in range(NUM_RANKS):
        nibble = (hand >> (rank << 2)) & 15
        if nibble:
            bit = 1 << rank
            if nibble & 1:
                clubs |= bit
            if nibble & 2:
                diamonds |= bit
            if nibble & 4:
                hearts |= bit
            if nibble & 8:
                spades |= bit
    return clubs, diamonds, hearts, spades


def straight_plays(hand: int, old: PlayInfo | None, revolution: bool, ties: bool) -> list[int]:
    """Every straight the hand can play (R6), on lead or beating ``old`` (R9, R10).

    Each suit's straights depend only on that suit's ranks, the jokers held and the play to
    beat, so they are computed once per such key and kept.
    """
    out: list[int] = []
    if old is not None and not old.straight:
        return out
    jokers = (hand >> RED_JOKER) & 3
    if old is None:
        target = 0
        revolution = ties = False  # on lead the order does not matter
    else:  # 4 bits each: size (3..13), top, bottom; 0 on lead
        target = (old.size << 8) | (old.rank << 4) | old.bottom
    # The cache key, one small integer: target (12 bits), order and equal plays (2), jokers (2),
    # ranks held (13), suit (2).
    base = ((target << 2 | revolution << 1 | ties) << 2 | jokers) << 13
    cache = _STRAIGHTS_CACHE
    clubs, diamonds, hearts, spades = _suit_ranks(hand)
    for suit in range(4):
        present = clubs if suit == 0 else diamonds if suit == 1 else hearts if suit == 2 else spades
        if not present:
            continue
        key = (base | present) << 2 | suit
        moves = cache.get(key)
        if moves is None:
            if len(cache) > 200_000:
                cache.clear()
            moves = cache[key] = _suit_straights(suit, present, jokers, old, revolution, ties)
        out.extend(moves)
    return out


def _suit_straights(
    suit: int, present: int, jokers: int, old: PlayInfo | None, revolution: bool, ties: bool
) -> list[int]:
    out: list[int] = []
    held_jokers = [j for j in (RED_JOKER, BLACK_JOKER) if jokers >> (j - RED_JOKER) & 1]
    joker_count = len(held_jokers)
    lengths: range | tuple[int, ...]
    if old is None:
        lengths = range(3, min(NUM_RANKS, present.bit_count() + joker_count) + 1)
    else:
        lengths = (old.size,)
    for length in lengths:
        for bottom in range(0, NUM_RANKS - length + 1):
            top = bottom + length - 1
            if old is not None:
                if revolution:
                    if not (bottom < old.bottom or (ties and bottom == old.bottom)):
                        continue
                elif not (top > old.rank or (ties and top == old.rank)):
                    continue
            window = ((1 << length) - 1) << bottom
            held = present & window
            held_count = held.bit_count()
            missing = length - held_count
            if missing > joker_count or held_count == 0:
                continue
            _add_straights(out, suit, bottom, length, held, missing, held_jokers)
    return out


def _add_straights(
    out: list[int],
    suit: int,
    bottom: int,
    length: int,
    held: int,
    missing: int,
    jokers: list[int],
) -> None:
    """Straights over one window: jokers fill every gap and may stand in for held cards too."""
    positions = range(bottom, bottom + length)
    gaps = [r for r in positions if not held >> r & 1]
    held_ranks = [r for r in positions if held >> r & 1]
    for extra in range(0, len(jokers) - missing + 1):
        for replaced in combinations(held_ranks, extra):
            if len(replaced) == len(held_ranks):
                continue  # a straight keeps at least one natural card (R6)
            joker_ranks = gaps + list(replaced)
            naturals = 0
            for r in held_ranks:
                if r not in replaced:
                    naturals |= 1 << (r * 4 + suit)
            base = naturals | STRAIGHT
            if not joker_ranks:
                out.append(base)
            elif len(joker_ranks) == 1:
                for joker in jokers:
                    out.append(declare(base | (1 << joker), joker, joker_ranks[0]))
            else:
                a, b = joker_ranks
                both = base | JOKER_MASK
                out.append(declare(declare(both, RED_JOKER, a), BLACK_JOKER, b))
                out.append(declare(declare(both, RED_JOKER, b), BLACK_JOKER, a))


def legal_plays(
    hand: int,
    old_move: int | None,
    revolution: bool,
    ties: bool,
    with_straights: bool,
) -> list[int]:
    """Every play the hand may make, without the pass (see :mod:`cardverse.engine.rounds`):
    ``ties`` whether a play may equal the one it covers (the ruleset's ``ties_cover``, R10),
    ``with_straights`` whether straights are played (its ``plays_straights``, R6)."""
    old = play_info(old_move) if old_move is not None else None
    out = set_plays(hand, old, revolution, ties)
    if with_straights:
        out.extend(straight_plays(hand, old, revolution, ties))
    return out


def give_moves(hand: int, count: int) -> list[int]:
    """Every choice of ``count`` cards to give back in the exchange (R25)."""
    bits = [1 << c for c in range(54) if hand >> c & 1]
    return [GIVE + sum(chosen) for chosen in combinations(bits, count)]


__all__ = [
    "give_moves",
    "legal_plays",
]
