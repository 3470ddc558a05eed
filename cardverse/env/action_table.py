"""The environment's fixed action index: every play of a 54-card deck, the pass, and card picks.

The index is the same for every preset, number of players and option (docs/env.md gives the
table); an action an option forbids is simply never legal (masked). In order:

- ``0``: pass.
- ``1 … 692``: the sets (R5): for each rank 3 … 2, every non-empty choice of its suits with no,
  one (red or black) or both jokers, at most four cards; then the three sets of jokers alone
  (``RJ``, ``BJ``, ``RJ BJ``).
- ``693 … 15124``: the straights (R32): for each suit, each run of three or more consecutive
  ranks, with no joker, one joker standing for one rank of the run, or both jokers standing for
  two (which joker stands for which rank counts: the two ways are two actions, notation.md).
- ``15125 … 15178``: pick card 0 … 53 (``3C 3D 3H 3S 4C … 2S RJ BJ``) for a give or a discard.
- ``15179``: done picking.
- ``15180 …``: the plays of the UECda rules (rules.md section 11), after the others so that no
  earlier index moved: the sets of five (R43: four of a rank and the red, then the black joker),
  then the sets whose jokers name a suit (R44, the suit lock with jokers): for each rank, each
  non-empty choice of natural suits with one joker (red, then black) or both, each joker naming
  a suit no other card of the set has (which joker names which suit counts), at most four cards.

Gives and discards (the exchange's give-back R25, the seven pass R36, the ten discard R37) are
any set of up to four cards of the hand: as single actions they would be 340,000 indices, almost
all never legal. They are chosen instead one card at a time, in rising card order, then "done"
(or done at once when no further card can be added); the mask allows exactly the picks that lead
to a legal give or discard, so every legal one is reachable in exactly one way.
"""

from __future__ import annotations

from typing import Final

from ..engine import Action, to_move
from ..engine.cards import BLACK_JOKER, JOKER_NAMES, RANK_NAMES, RED_JOKER, SUIT_NAMES, card_name
from ..engine.plays import (
    CARDS_MASK,
    DISCARD,
    GIVE,
    HIDDEN,
    MAX_SET_SIZE,
    MIN_STRAIGHT,
    PASS,
    declare_suit,
)

NUM_CARDS: Final = 54
NUM_RANKS: Final = 13
JOKERS: Final = ("RJ", "BJ")


def _sets() -> list[int]:
    moves: list[int] = []
    for rank in range(NUM_RANKS):
        for suits in range(1, 16):
            naturals = [f"{RANK_NAMES[rank]}{SUIT_NAMES[s]}" for s in range(4) if suits >> s & 1]
            for jokers in ((), ("RJ",), ("BJ",), ("RJ", "BJ")):
                if len(naturals) + len(jokers) <= MAX_SET_SIZE:
                    moves.append(to_move(Action("play", (*naturals, *jokers))))
    for jokers in (("RJ",), ("BJ",), ("RJ", "BJ")):
        moves.append(to_move(Action("play", jokers)))
    return moves


def _straights() -> list[int]:
    moves: list[int] = []
    for suit in SUIT_NAMES:
        for length in range(MIN_STRAIGHT, NUM_RANKS + 1):
            for start in range(NUM_RANKS - length + 1):
                ranks = [RANK_NAMES[r] for r in range(start, start + length)]
                places: list[dict[int, str]] = [{}]
                places += [{i: j} for j in JOKERS for i in range(length)]
                places += [
                    {i: "RJ", k: "BJ"} for i in range(length) for k in range(length) if i != k
                ]
                for place in places:
                    cards = [place.get(i, ranks[i] + suit) for i in range(length)]
                    jokers = {joker: ranks[i] for i, joker in place.items()}
                    moves.append(to_move(Action("play", tuple(cards), jokers)))
    return moves


def _uecda_sets() -> list[int]:
    """The sets of five (R43), then the sets whose jokers name their suits (R44)."""
    moves: list[int] = []
    for rank in range(NUM_RANKS):
        quad = to_move(Action("play", tuple(f"{RANK_NAMES[rank]}{s}" for s in SUIT_NAMES)))
        moves += [quad | 1 << RED_JOKER, quad | 1 << BLACK_JOKER]
    for rank in range(NUM_RANKS):
        for suits in range(1, 16):
            naturals = [f"{RANK_NAMES[rank]}{SUIT_NAMES[s]}" for s in range(4) if suits >> s & 1]
            missing = [s for s in range(4) if not suits >> s & 1]
            for jokers in ((RED_JOKER,), (BLACK_JOKER,), (RED_JOKER, BLACK_JOKER)):
                if len(naturals) + len(jokers) > MAX_SET_SIZE:
                    continue
                base = to_move(Action("play", tuple(naturals)))
                for joker in jokers:
                    base |= 1 << joker
                for named in _arrangements(missing, len(jokers)):
                    move = base
                    for joker, suit in zip(jokers, named, strict=True):
                        move = declare_suit(move, joker, suit)
                    moves.append(move)
    return moves


def _arrangements(suits: list[int], count: int) -> list[tuple[int, ...]]:
    """Every ordered choice of ``count`` different suits of ``suits``."""
    if count == 0:
        return [()]
    return [
        (suit, *rest)
        for suit in suits
        for rest in _arrangements([s for s in suits if s != suit], count - 1)
    ]


SET_MOVES: Final = _sets()
STRAIGHT_MOVES: Final = _straights()
UECDA_MOVES: Final = _uecda_sets()
FIRST_SET: Final = 1
FIRST_STRAIGHT: Final = FIRST_SET + len(SET_MOVES)
FIRST_PICK: Final = FIRST_STRAIGHT + len(STRAIGHT_MOVES)
DONE: Final = FIRST_PICK + NUM_CARDS
FIRST_UECDA: Final = DONE + 1
NUM_ACTIONS: Final = FIRST_UECDA + len(UECDA_MOVES)
#: the move integer of every play index (index 0: the pass); the picks' and done's are -1
PLAY_MOVES: Final[tuple[int, ...]] = (
    PASS,
    *SET_MOVES,
    *STRAIGHT_MOVES,
    *(-1 for _ in range(FIRST_PICK, FIRST_UECDA)),
    *UECDA_MOVES,
)

#: play move integer → index
PLAY_INDEX: Final[dict[int, int]] = {
    move: index for index, move in enumerate(PLAY_MOVES) if move != -1
}
assert len(PLAY_INDEX) == NUM_ACTIONS - NUM_CARDS - 1, "two indices for one play"


def is_play_index(index: int) -> bool:
    """Whether an action index is a play or the pass (not a pick or "done")."""
    return index < FIRST_PICK or index >= FIRST_UECDA


def is_pick_move(move: int) -> bool:
    """Whether a legal move is a give or a discard (chosen by picks, not by one index)."""
    return bool(move & (GIVE | DISCARD))


def index_of_play(move: int) -> int:
    """The index of a play or the pass; raises KeyError for a give or a discard."""
    return PLAY_INDEX[move]


def action_name(index: int) -> str:
    """The text of an index, as :class:`cardverse.moves.Move` writes plays (docs/env.md).

    >>> [action_name(i) for i in (0, 1, 692, FIRST_STRAIGHT, FIRST_PICK, DONE)]
    ['pass', '3C', 'RJ BJ', '3C 4C 5C', 'pick 3C', 'done']
    """
    from ..moves import Move

    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index {index} is outside 0 … {NUM_ACTIONS - 1}")
    if is_play_index(index):
        return str(Move(PLAY_MOVES[index]))
    if index < DONE:
        card = index - FIRST_PICK
        return f"pick {JOKER_NAMES.get(card) or card_name(card)}"
    return "done"


def pick_masks(moves: list[int]) -> list[int]:
    """The card sets of the legal gives or discards among ``moves`` (their picks' targets)."""
    return [m & CARDS_MASK for m in moves if is_pick_move(m) and not m & HIDDEN]


__all__ = [
    "DONE",
    "FIRST_PICK",
    "FIRST_SET",
    "FIRST_STRAIGHT",
    "FIRST_UECDA",
    "NUM_ACTIONS",
    "PLAY_INDEX",
    "PLAY_MOVES",
    "action_name",
    "index_of_play",
    "is_pick_move",
    "is_play_index",
    "pick_masks",
]
