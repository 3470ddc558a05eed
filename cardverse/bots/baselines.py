"""Test opponents for the arena, built independently of the ``normal`` policy (issue 14).

They are not levels offered to players (:data:`cardverse.bots.BOT_LEVELS` does not list them):
the arena fields them to measure the ``hard`` bot against players unlike its own model.

- :class:`FlatMonteCarloBot` (``montecarlo``): the textbook determinized Monte Carlo player. It
  samples deals of the unseen cards uniformly (hand sizes and its own exchange respected, no
  inference from the play), splits its playout budget evenly over its legal moves, and finishes
  every playout greedily: each seat plays its lowest legal play (the easy bot's rule, R28).
  It plays the move with the best mean points.
- :class:`StructureBot` (``structure``): a fast heuristic that keeps the shape of its hand. It
  counts the plays still needed to empty the hand (one per rank group, fewer with straights),
  leads its weakest whole group, covers with the play that leaves the fewest plays needed while
  keeping its control cards (the clearing rank, 8s with eight_stop, jokers), and spends a control
  card only when few plays are left or the player on top is about to go out.
"""

from __future__ import annotations

import random
from itertools import pairwise

from ..engine import DISCARD, GIVE, PASS, PlayerView
from ..engine.cards import JOKER_MASK, NUM_RANKS, RANK_8
from ..engine.order import clearing_rank, rank_strength, strength
from ..engine.plays import CARDS_MASK, play_info
from ..engine.rounds import Round
from .base import BotBase
from .easy import lowest_give, lowest_key
from .knowledge import Knowledge
from .normal import view_context
from .positions import round_of_view

BASELINES: tuple[str, ...] = ("montecarlo", "structure")
DEFAULT_PLAYOUTS = 300


def _lowest(legal: list[int], revolution: bool) -> int:
    plays = [m for m in legal if m != PASS]
    if not plays:
        return PASS
    return min(plays, key=lambda m: lowest_key(m, revolution))


def greedy_playout(round_: Round, me: int) -> int:
    """Finish ``round_`` with every seat on its lowest legal play; the points of ``me`` (R22)."""
    held = round_.hands
    while round_.turn >= 0 and held[me]:
        legal = round_.legal_moves()
        if len(legal) == 1 or legal[0] & (GIVE | DISCARD):
            move = legal[0]
        else:
            move = _lowest(legal, round_.reversed_now)
        round_.apply_unchecked(move)
    return round_.players - round_.places.index(me)


class FlatMonteCarloBot(BotBase):
    """Uniform deals, even split of the budget over the legal moves, greedy playouts."""

    level = "montecarlo"

    def __init__(self, *, seed: int | None = None, playouts: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.playouts = playouts if playouts is not None else DEFAULT_PLAYOUTS

    def decide(self, view: PlayerView) -> int:
        legal = list(view.legal_moves)
        if legal[0] & GIVE and view.phase == "exchange":
            return lowest_give(view)
        knowledge = Knowledge.of(view)
        template = round_of_view(view)
        me = view.seat
        totals = [0] * len(legal)
        rounds = max(1, self.playouts // len(legal))
        for _ in range(rounds):
            hands = knowledge.sample(self.rng)
            for index, move in enumerate(legal):
                round_ = template.clone()
                round_.hands = list(hands)
                round_.apply_unchecked(move)
                totals[index] += greedy_playout(round_, me)
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]


# -- the structure-keeping heuristic -------------------------------------------------------------


def _is_control(move: int, revolution: bool, eight_stop: bool) -> bool:
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


class StructureBot(BotBase):
    """Minimises the plays needed to empty its hand and keeps its control cards."""

    level = "structure"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def decide(self, view: PlayerView) -> int:
        legal = list(view.legal_moves)
        if legal[0] & (GIVE | DISCARD):
            return lowest_give(view)
        rules = view.rules
        revolution = view.reversed_order
        eight = rules.eight_stop
        straights = rules.straights
        hand = view.hand
        last_move, opponent_min, last_count = view_context(view)
        plays = [m for m in legal if m != PASS]
        for move in plays:
            if move & CARDS_MASK == hand:
                return move
        if not plays:
            return PASS

        def shape(move: int) -> tuple[int, int, int, int]:
            rest = hand & ~(move & CARDS_MASK)
            return (
                plays_needed(rest, straights),
                1 if _is_control(move, revolution, eight) else 0,
                strength(move, revolution),
                -(move & CARDS_MASK).bit_count(),
            )

        if last_move is None:
            plain = [m for m in plays if not _is_control(m, revolution, eight)]
            if opponent_min == 1:
                sets = [m for m in plain if (m & CARDS_MASK).bit_count() > 1]
                if sets:
                    plain = sets
            pool = plain or plays
            # Whole groups first (the fewest plays left), then the weakest.
            return min(
                pool,
                key=lambda m: (
                    plays_needed(hand & ~(m & CARDS_MASK), straights),
                    _weakest(m, revolution),
                    -(m & CARDS_MASK).bit_count(),
                ),
            )
        best = min(plays, key=shape)
        needed_now = plays_needed(hand, straights)
        if _is_control(best, revolution, eight):
            if needed_now <= 3 or last_count <= 2:
                return best
            return PASS
        if shape(best)[0] > needed_now and needed_now > 2:
            return PASS  # every cover breaks a group: wait for a better trick
        return best


def _weakest(move: int, revolution: bool) -> int:
    info = play_info(move)
    if info.all_jokers:
        return 99
    return rank_strength(info.bottom if info.straight else info.rank, revolution)


def make_baseline(kind: str, *, seed: int | None = None, playouts: int | None = None) -> BotBase:
    """Build a baseline opponent: ``montecarlo`` or ``structure`` (see the module's doc)."""
    if kind == "montecarlo":
        return FlatMonteCarloBot(seed=seed, playouts=playouts)
    if kind == "structure":
        return StructureBot(seed=seed)
    raise ValueError(f"unknown baseline {kind!r}: choose one of {', '.join(BASELINES)}")
