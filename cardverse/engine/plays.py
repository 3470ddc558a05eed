"""Plays: sets and straights, what beats what, and revolutions (R5–R10, R15–R18).

A *move* is an ``int``, small and fast to compare and hash:

- bits 0–53: the cards played or given (see :mod:`cardverse.engine.cards`);
- bit 54 (:data:`STRAIGHT`): the play is a straight;
- bits 56–59 and 60–63: the rank (plus one) that the red and the black joker stand for in a
  straight; in a set, where a joker takes the set's rank, the suit (plus one, 1–4 for clubs,
  diamonds, hearts, spades) it stands for under the suit lock with jokers (R44), else zero (see
  :func:`declare_suit`);
- bit 64 (:data:`GIVE`): a give-back in the exchange, or a seven pass (R36);
- bit 66 (:data:`DISCARD`): a ten discard (R37);
- bit 67 (:data:`HIDDEN`) with :data:`GIVE`: a give whose cards the viewer may not see (R39),
  its card count in bits 56–59 (see :func:`hidden_give`);
- :data:`PASS` alone: a pass.

:func:`play_info` reads a play's shape once and caches it.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .cards import (
    BLACK_JOKER,
    JOKER_MASK,
    NATURAL_MASK,
    NUM_RANKS,
    RANK_8,
    RED_JOKER,
    SUIT_NAMES,
    card_name,
    cards_of,
)

STRAIGHT: Final = 1 << 54
_RJ_SHIFT: Final = 56
_BJ_SHIFT: Final = 60
GIVE: Final = 1 << 64
PASS: Final = 1 << 65
DISCARD: Final = 1 << 66
HIDDEN: Final = 1 << 67
CARDS_MASK: Final = (1 << 54) - 1
#: the two jokers' declarations (a straight's ranks, a set's suits)
DECLARATIONS_MASK: Final = 0xFF << _RJ_SHIFT

ALL_JOKER_RANK: Final = NUM_RANKS  # the rank key of a set made only of jokers (R5)
MAX_SET_SIZE: Final = 4
MIN_STRAIGHT: Final = 3


class PlayInfo(NamedTuple):
    """The shape of a valid play."""

    straight: bool
    size: int
    rank: int  # a set's rank (ALL_JOKER_RANK for an all-joker set); a straight's top
    bottom: int  # a straight's bottom; a set's rank
    has_eight: bool  # a set of 8s, or a straight holding an 8 (a joker standing for one too)
    all_jokers: bool


class PlayShapeError(ValueError):
    """A group of cards that is neither a set nor a straight; ``code``/``rule`` explain why."""

    def __init__(self, code: str, rule: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.message = message
        self.params = params


def declare(move: int, joker: int, rank: int) -> int:
    """``move`` with ``joker`` declared to stand for ``rank`` in a straight."""
    shift = _RJ_SHIFT if joker == RED_JOKER else _BJ_SHIFT
    return (move & ~(0xF << shift)) | ((rank + 1) << shift) | STRAIGHT


def declared_rank(move: int, joker: int) -> int | None:
    """The rank a joker stands for in a straight move, or None."""
    shift = _RJ_SHIFT if joker == RED_JOKER else _BJ_SHIFT
    value = (move >> shift) & 0xF
    return value - 1 if value else None


def declare_suit(move: int, joker: int, suit: int) -> int:
    """Set move ``move`` with ``joker`` declared to stand for a card of ``suit`` (0–3: clubs,
    diamonds, hearts, spades) of the set's rank (R44)."""
    shift = _RJ_SHIFT if joker == RED_JOKER else _BJ_SHIFT
    return (move & ~(0xF << shift) & ~STRAIGHT) | ((suit + 1) << shift)


def declared_suit(move: int, joker: int) -> int | None:
    """The suit a joker of a set move stands for (R44), or None (none declared, or a straight).
    The value is not checked here: :func:`analyse` refuses one out of 0–3."""
    if move & STRAIGHT:
        return None
    shift = _RJ_SHIFT if joker == RED_JOKER else _BJ_SHIFT
    value = (move >> shift) & 0xF
    return value - 1 if value else None


def set_joker_suits(move: int) -> int:
    """The suits the jokers of a set move are declared to stand for, as a 4-bit set (bit 0
    clubs … bit 3 spades); 0 for a straight or a set without declarations (R44)."""
    if move & STRAIGHT or not move & DECLARATIONS_MASK:
        return 0
    suits = 0
    red = (move >> _RJ_SHIFT) & 0xF
    black = (move >> _BJ_SHIFT) & 0xF
    if 1 <= red <= 4:
        suits |= 1 << (red - 1)
    if 1 <= black <= 4:
        suits |= 1 << (black - 1)
    return suits


def hidden_give(count: int) -> int:
    """A give of ``count`` cards as a seat outside the give sees it (R36, R39)."""
    return GIVE | HIDDEN | (count << _RJ_SHIFT)


def hidden_count(move: int) -> int:
    """The number of cards of a :func:`hidden_give`."""
    return (move >> _RJ_SHIFT) & 0xF


def move_cards(move: int) -> int:
    """The bit set of cards a move plays or gives."""
    return move & CARDS_MASK


def _rank_nibbles(naturals: int) -> list[int]:
    return [r for r in range(NUM_RANKS) if (naturals >> (r * 4)) & 15]


def analyse(move: int) -> PlayInfo:
    """Read a play's shape, raising :class:`PlayShapeError` when it is no set or straight."""
    cards = move & CARDS_MASK
    if move & (GIVE | PASS | DISCARD) or not cards:
        raise PlayShapeError("empty_play", "R5", "a play needs at least one card")
    naturals = cards & NATURAL_MASK
    jokers = cards & JOKER_MASK
    size = cards.bit_count()
    if not move & STRAIGHT:
        ranks = _rank_nibbles(naturals)
        if len(ranks) > 1:
            raise PlayShapeError(
                "mixed_ranks",
                "R5",
                "cards of different ranks are no set: a set is 1 to 4 cards of one rank",
                cards=" ".join(card_name(c) for c in cards_of(cards)),
            )
        if size > MAX_SET_SIZE + 1:
            raise PlayShapeError(
                "set_too_large", "R5", f"a set holds at most {MAX_SET_SIZE} cards", size=size
            )
        if size > MAX_SET_SIZE and naturals.bit_count() != MAX_SET_SIZE:
            # five cards only as four naturals and a joker (R43; where there are no sets of
            # five, the referee says the set is too large)
            raise PlayShapeError(
                "five_set_shape",
                "R43",
                "a set of five is four cards of one rank and a joker",
                size=size,
            )
        if move & DECLARATIONS_MASK:
            _check_set_declarations(move, naturals, jokers)
        if not ranks:
            return PlayInfo(False, size, ALL_JOKER_RANK, ALL_JOKER_RANK, False, True)
        rank = ranks[0]
        return PlayInfo(False, size, rank, rank, rank == RANK_8, False)
    # A straight (R6): one suit, consecutive ranks, jokers declared, at least one natural.
    if not naturals:
        raise PlayShapeError(
            "straight_without_natural", "R6", "a straight holds at least one natural card"
        )
    suits = {c & 3 for c in cards_of(naturals)}
    if len(suits) > 1:
        raise PlayShapeError(
            "straight_mixed_suits", "R6", "the cards of a straight must all be of one suit"
        )
    ranks = [c >> 2 for c in cards_of(naturals)]
    for joker in (RED_JOKER, BLACK_JOKER):
        declared = declared_rank(move, joker)
        if jokers >> joker & 1:
            if declared is None:
                raise PlayShapeError(
                    "joker_rank_missing",
                    "R6",
                    f"say which rank the joker {card_name(joker)} stands for in the straight",
                    joker=card_name(joker),
                )
            ranks.append(declared)
        elif declared is not None:
            raise PlayShapeError(
                "joker_not_played",
                "R6",
                f"a rank is declared for the joker {card_name(joker)}, which is not played",
                joker=card_name(joker),
            )
    if size < MIN_STRAIGHT:
        raise PlayShapeError(
            "straight_too_short", "R6", "a straight needs at least 3 cards", size=size
        )
    ranks.sort()
    if len(set(ranks)) != len(ranks) or ranks[-1] - ranks[0] != len(ranks) - 1:
        raise PlayShapeError(
            "straight_not_consecutive",
            "R6",
            "the ranks of a straight must follow one another (3 up to 2, no wrapping)",
        )
    return PlayInfo(True, size, ranks[-1], ranks[0], ranks[0] <= RANK_8 <= ranks[-1], False)


def _check_set_declarations(move: int, naturals: int, jokers: int) -> None:
    """Refuse a set whose jokers' declared suits (R44) are malformed: each names a suit 0–3,
    belongs to a joker that is played, and is a suit no other card of the set has; a set made
    only of jokers names none."""
    natural_suits = 0
    for card in cards_of(naturals):
        natural_suits |= 1 << (card & 3)
    named = 0
    for joker in (RED_JOKER, BLACK_JOKER):
        suit = declared_suit(move, joker)
        if suit is None:
            continue
        name = card_name(joker)
        if not jokers >> joker & 1:
            raise PlayShapeError(
                "joker_not_played",
                "R44",
                f"a suit is declared for the joker {name}, which is not played",
                joker=name,
            )
        if suit > 3:
            raise PlayShapeError(
                "joker_suit_unknown",
                "R44",
                f"the suit declared for the joker {name} is no suit (the nibble holds "
                f"{suit + 1}; 1 to 4 name clubs, diamonds, hearts, spades)",
                joker=name,
            )
        if not naturals:
            raise PlayShapeError(
                "joker_suit_all_jokers",
                "R44",
                "a set made only of jokers names no suit: declare none for its jokers",
                joker=name,
            )
        if natural_suits >> suit & 1:
            raise PlayShapeError(
                "joker_suit_taken",
                "R44",
                f"the joker {name} cannot stand for a {SUIT_NAMES[suit]}: the set already "
                "holds that card; a joker in a set names a suit none of its other cards has",
                joker=name,
                suit=SUIT_NAMES[suit],
            )
        if named >> suit & 1:
            raise PlayShapeError(
                "joker_suit_twice",
                "R44",
                f"both jokers are declared as {SUIT_NAMES[suit]}: they must name two different "
                "suits",
                suit=SUIT_NAMES[suit],
            )
        named |= 1 << suit


_INFO_CACHE: Final[dict[int, PlayInfo]] = {}


def play_info(move: int) -> PlayInfo:
    """Cached :func:`analyse` for moves known to be valid plays."""
    info = _INFO_CACHE.get(move)
    if info is None:
        info = analyse(move)
        if len(_INFO_CACHE) > 200_000:
            _INFO_CACHE.clear()
        _INFO_CACHE[move] = info
    return info


def beats(new: PlayInfo, old: PlayInfo, revolution: bool, ties: bool) -> bool:
    """Whether ``new`` may cover ``old`` (R9, R10), by the order in force (R3); ``ties``:
    whether an equal play covers (the ruleset's ``ties_cover``)."""
    if new.straight != old.straight or new.size != old.size:
        return False
    if not new.straight:
        if old.all_jokers:
            return new.all_jokers and ties
        if new.all_jokers:
            return True
        if new.rank == old.rank:
            return ties
        return (new.rank < old.rank) if revolution else (new.rank > old.rank)
    if revolution:
        if new.bottom == old.bottom:
            return ties
        return new.bottom < old.bottom
    if new.rank == old.rank:
        return ties
    return new.rank > old.rank


def starts_revolution(info: PlayInfo) -> bool:
    """Every set of four, jokers included, reverses the order (R15), and a set of five (R43);
    straights do not (R18; a table's ruleset may say otherwise, R42)."""
    return not info.straight and info.size >= MAX_SET_SIZE


__all__ = [
    "CARDS_MASK",
    "DECLARATIONS_MASK",
    "DISCARD",
    "GIVE",
    "HIDDEN",
    "MAX_SET_SIZE",
    "MIN_STRAIGHT",
    "PASS",
    "STRAIGHT",
    "PlayInfo",
    "PlayShapeError",
    "analyse",
    "declare_suit",
    "declared_suit",
    "hidden_give",
    "move_cards",
    "play_info",
    "set_joker_suits",
    "starts_revolution",
]
