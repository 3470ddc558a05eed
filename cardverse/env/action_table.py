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

Gives and discards (the exchange's give-back R25, the seven pass R36, the ten discard R37) are
any set of up to four cards of the hand: as single actions they would be 340,000 indices, almost
all never legal. They are chosen instead one card at a time, in rising card order, then "done"
(or done at once when no further card can be added); the mask allows exactly the picks that lead
to a legal give or discard, so every legal one is reachable in exactly one way.
"""

from __future__ import annotations

from typing import Final

from ..engine import Action, to_move
from ..engine.cards import JOKER_NAMES, RANK_NAMES, SUIT_NAMES, card_name
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, HIDDEN, MAX_SET_SIZE, MIN_STRAIGHT, PASS

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


SET_MOVES: Final = _sets()
STRAIGHT_MOVES: Final = _straights()
#: the move integer of every play index (index 0: the pass)
PLAY_MOVES: Final[tuple[int, ...]] = (PASS, *SET_MOVES, *STRAIGHT_MOVES)
FIRST_SET: Final = 1
FIRST_STRAIGHT: Final = FIRST_SET + len(SET_MOVES)
FIRST_PICK: Final = len(PLAY_MOVES)
DONE: Final = FIRST_PICK + NUM_CARDS
NUM_ACTIONS: Final = DONE + 1

#: play move integer → index
PLAY_INDEX: Final[dict[int, int]] = {move: index for index, move in enumerate(PLAY_MOVES)}
assert len(PLAY_INDEX) == len(PLAY_MOVES), "two indices for one play"


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
    if index < FIRST_PICK:
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
    "NUM_ACTIONS",
    "PLAY_INDEX",
    "PLAY_MOVES",
    "action_name",
    "index_of_play",
    "is_pick_move",
    "pick_masks",
]
