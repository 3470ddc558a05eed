"""Models of how another seat plays (issue 14): one move function per model, by model id.

The hard bot's inference (:mod:`.knowledge`) scores each other seat's past actions under every
model and keeps, per seat, the models that explain them; its playouts (:mod:`.playout`) then play
that seat with its model. The models:

- ``SENSIBLE``: the heuristic policy of :mod:`.policy` (normal's rules of thumb);
- ``LOWEST``: the lowest legal play (the easy bot, R28; a greedy Monte Carlo player's playouts);
- ``HIGHEST``: the highest legal play (a player that spends its strength at once);
- ``STRUCTURE``: the structure keeper (fewest plays left to empty the hand, weakest whole group
  on lead, control cards kept; :class:`cardverse.bots.baselines.StructureBot` plays by it).

Each function takes the hand, the legal plays (the pass included when following), the play on top
(None on lead), the order in force and the public counts the models read.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Final

from ..engine.cards import JOKER_MASK, NUM_RANKS, RANK_8
from ..engine.order import clearing_rank, rank_strength, strength
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, PASS, play_info
from ..engine.rounds import Round
from .easy import lowest_key

SENSIBLE: Final = 0
LOWEST: Final = 1
HIGHEST: Final = 2
STRUCTURE: Final = 3
MODEL_NAMES: Final = ("sensible", "lowest", "highest", "structure")


def lowest_play(legal: list[int], revolution: bool) -> int:
    """The lowest legal play (R28), the pass only when there is none."""
    best = PASS
    best_key: tuple[int, int, int, int, int] | None = None
    for move in legal:
        if move == PASS:
            continue
        key = lowest_key(move, revolution)
        if best_key is None or key < best_key:
            best, best_key = move, key
    return best


def highest_play(legal: list[int], revolution: bool) -> int:
    """The strongest legal play (most cards among the strongest), the pass only when there is
    none."""
    best = PASS
    best_key: tuple[int, int, int] | None = None
    for move in legal:
        if move == PASS:
            continue
        cards = move & CARDS_MASK
        key = (strength(move, revolution), cards.bit_count(), -(cards & JOKER_MASK).bit_count())
        if best_key is None or key > best_key:
            best, best_key = move, key
    return best


def is_control(move: int, revolution: bool, eight_stop: bool) -> bool:
    """A play that takes back the lead: jokers, the clearing rank, 8s with eight_stop."""
    if move & JOKER_MASK:
        return True
    info = play_info(move)
    if info.straight:
        return eight_stop and info.has_eight
    return info.rank == clearing_rank(revolution) or (eight_stop and info.rank == RANK_8)


def plays_needed(hand: int, straights: bool) -> int:
    """How many plays empty ``hand`` at least: one per rank group, jokers joining a group; with
    straights, runs of three or more single ranks of one suit count as one play."""
    naturals = hand & ~JOKER_MASK
    groups = 0
    singles: list[int] = []
    for rank in range(NUM_RANKS):
        nibble = (naturals >> (rank << 2)) & 15
        if nibble:
            groups += 1
            if nibble.bit_count() == 1:
                singles.append(rank << 2 | (nibble.bit_length() - 1))
    if straights and len(singles) >= 3:
        by_suit: dict[int, list[int]] = {}
        for card in singles:
            by_suit.setdefault(card & 3, []).append(card >> 2)
        for ranks in by_suit.values():
            ranks.sort()
            run = 1
            for a, b in pairwise(ranks):
                if b == a + 1:
                    run += 1
                else:
                    if run >= 3:
                        groups -= run - 1
                    run = 1
            if run >= 3:
                groups -= run - 1
    if not groups:
        return 1 if hand & JOKER_MASK else 0
    return groups


def _weakest(move: int, revolution: bool) -> int:
    info = play_info(move)
    if info.all_jokers:
        return 99
    return rank_strength(info.bottom if info.straight else info.rank, revolution)


def structure_play(
    hand: int,
    legal: list[int],
    on_lead: bool,
    revolution: bool,
    eight_stop: bool,
    straights: bool,
    opponent_min: int,
    last_count: int,
) -> int:
    """The structure keeper's action: go out when one play does it; on lead its weakest whole
    group (a set when an opponent holds one card), control cards kept; following, the cover
    that leaves the fewest plays needed, a control card only with three plays or fewer left or
    when the player on top is about to go out, and a pass rather than break a group early."""
    plays = [m for m in legal if m != PASS]
    for move in plays:
        if move & CARDS_MASK == hand:
            return move
    if not plays:
        return PASS
    if on_lead:
        plain = [m for m in plays if not is_control(m, revolution, eight_stop)]
        if opponent_min == 1:
            sets = [m for m in plain if (m & CARDS_MASK).bit_count() > 1]
            if sets:
                plain = sets
        pool = plain or plays
        best = pool[0]
        best_lead: tuple[int, int, int] | None = None
        for move in pool:
            key = (
                plays_needed(hand & ~(move & CARDS_MASK), straights),
                _weakest(move, revolution),
                -(move & CARDS_MASK).bit_count(),
            )
            if best_lead is None or key < best_lead:
                best, best_lead = move, key
        return best
    best = plays[0]
    best_shape: tuple[int, int, int, int] | None = None
    for move in plays:
        shape = (
            plays_needed(hand & ~(move & CARDS_MASK), straights),
            1 if is_control(move, revolution, eight_stop) else 0,
            strength(move, revolution),
            -(move & CARDS_MASK).bit_count(),
        )
        if best_shape is None or shape < best_shape:
            best, best_shape = move, shape
    assert best_shape is not None
    needed_now = plays_needed(hand, straights)
    if best_shape[1]:
        if needed_now <= 3 or last_count <= 2:
            return best
        return PASS
    if best_shape[0] > needed_now and needed_now > 2:
        return PASS  # every cover breaks a group: wait for a better trick
    return best


def model_move(round_: Round, model: int) -> int:
    """The action of the seat on turn in a simulated round, played by ``model`` (not
    ``SENSIBLE``: the playouts' own policy plays that one). Owed gives and discards, and a
    single legal action, are the first legal action."""
    legal = round_.legal_moves()
    if len(legal) == 1 or legal[0] & (GIVE | DISCARD):
        return legal[0]
    revolution = round_.reversed_now
    if model == LOWEST:
        return lowest_play(legal, revolution)
    if model == HIGHEST:
        return highest_play(legal, revolution)
    seat = round_.turn
    held = round_.hands
    fewest = 0
    for other in range(round_.players):
        if other != seat and held[other]:
            count = held[other].bit_count()
            if not fewest or count < fewest:
                fewest = count
    last = round_.last_move
    last_count = held[round_.last_seat].bit_count() if last is not None else 0
    rules = round_.rules
    return structure_play(
        held[seat],
        legal,
        last is None,
        revolution,
        rules.eight_stop,
        rules.straights,
        fewest,
        last_count,
    )
