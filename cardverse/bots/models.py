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

from typing import Final

from ..engine.cards import JOKER_MASK, NUM_RANKS
from ..engine.order import ALL_JOKER_STRENGTH, rank_strength, strength
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, PASS, play_info
from ..engine.rounds import Round
from ..engine.ruleset import Ruleset
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


_LOW_BITS: Final = sum(1 << (rank << 2) for rank in range(NUM_RANKS))  # bit 0 of each rank
_PAIRS: Final = _LOW_BITS * 5  # bits 0 and 2 of each rank nibble
_QUADS: Final = _LOW_BITS * 3  # bits 0 and 1 of each rank nibble


def plays_needed(hand: int, straights: bool) -> int:
    """How many plays empty ``hand`` at least: one per rank group, jokers joining a group; with
    straights, runs of three or more single ranks of one suit count as one play.

    Computed on the 13 rank nibbles at once: a nibble's card count (the bit-parallel popcount)
    says whether the rank is held and whether it is a single card; a suit's singles are one
    bit per rank, where a run of three starts wherever three neighbouring bits are set."""
    naturals = hand & ~JOKER_MASK
    counts = naturals - ((naturals >> 1) & _PAIRS)
    counts = (counts & _QUADS) + ((counts >> 2) & _QUADS)  # each nibble: its card count, 0-4
    held = (counts | (counts >> 1) | (counts >> 2)) & _LOW_BITS
    groups = held.bit_count()
    if straights:
        lone = counts & ~(counts >> 1) & ~(counts >> 2) & _LOW_BITS  # nibbles of one card
        if lone.bit_count() >= 3:
            singles = naturals & (lone * 15)
            for suit in range(4):
                ranks = (singles >> suit) & _LOW_BITS
                starts = ranks & (ranks >> 4) & (ranks >> 8)  # rank r, r+1 and r+2 held
                if starts:
                    covered = starts | (starts << 4) | (starts << 8)
                    runs = starts & ~(starts << 4)  # the first rank of each run of three or more
                    groups -= covered.bit_count() - runs.bit_count()
    if not groups:
        return 1 if hand & JOKER_MASK else 0
    return groups


def structure_play(
    hand: int,
    legal: list[int],
    on_lead: bool,
    revolution: bool,
    rulebook: Ruleset,
    straights: bool,
    opponent_min: int,
    last_count: int,
) -> int:
    """The structure keeper's action: go out when one play does it; on lead its weakest whole
    group (a set when an opponent holds one card), control cards kept; following, the cover
    that leaves the fewest plays needed, a control card only with three plays or fewer left or
    when the player on top is about to go out, and a pass rather than break a group early.

    Each candidate's preference is one integer (compared as the tuple of its parts would be:
    plays left, then the tie-breaks), the first best candidate kept."""
    # Leading, per pool in order of preference: a plain set (when an opponent holds one card),
    # a plain play, any play; each pool's best is its first lowest key. Following: the first
    # lowest shape.
    best_set = best_plain = best_any = best = PASS
    set_key = plain_key = any_key = best_shape = -1
    for move in legal:
        if move == PASS:
            continue
        cards = move & CARDS_MASK
        if cards == hand:
            return move
        info = play_info(move)
        # a control play takes back the lead: jokers, or a clearing play by the ruleset (R14)
        control = bool(move & JOKER_MASK) or rulebook.clears(move, revolution, None)
        left = plays_needed(hand & ~cards, straights) << 16
        count = cards.bit_count()
        if on_lead:
            if info.all_jokers:
                weakest = 99
            else:
                weakest = rank_strength(info.bottom if info.straight else info.rank, revolution)
            key = left | weakest << 8 | (63 - count)
            if any_key < 0 or key < any_key:
                best_any, any_key = move, key
            if control:
                continue
            if plain_key < 0 or key < plain_key:
                best_plain, plain_key = move, key
            if count > 1 and (set_key < 0 or key < set_key):
                best_set, set_key = move, key
            continue
        if info.all_jokers:
            high = ALL_JOKER_STRENGTH
        elif info.straight:
            high = 12 - info.bottom if revolution else info.rank
        else:
            high = 12 - info.rank if revolution else info.rank
        shape = left | (1 << 15 if control else 0) | high << 8 | (63 - count)
        if best_shape < 0 or shape < best_shape:
            best, best_shape = move, shape
    if on_lead:
        if opponent_min == 1 and set_key >= 0:
            return best_set
        return best_plain if plain_key >= 0 else best_any
    if best_shape < 0:
        return PASS
    needed_now = plays_needed(hand, straights)
    if best_shape >> 15 & 1:
        if needed_now <= 3 or last_count <= 2:
            return best
        return PASS
    if best_shape >> 16 > needed_now and needed_now > 2:
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
    return structure_play(
        held[seat],
        legal,
        last is None,
        revolution,
        round_.ruleset,
        round_.ruleset.plays_straights,
        fewest,
        last_count,
    )
