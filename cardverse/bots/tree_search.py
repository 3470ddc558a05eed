"""The hard bot's search tree over its own later decisions (R30): single-observer ISMCTS.

Flat Monte Carlo judges a move by playouts in which the bot's own later moves are the playout
policy's: a move that needs a clever follow-up is judged by a follow-up the policy would not find
(one-ply myopia). The tree here holds the bot's own decisions below the root. A node is one
information set of the bot: what it has seen since the root (every action of every seat, which
are public, and its own hand, which a seven pass may change), so the same node is reached from
every deal that looks the same to the bot and one move is chosen for all of them (no strategy
fusion). The other seats are played by the playout policy in every sampled deal, between the
bot's nodes; one node is added per iteration, past it the policy finishes the round.

This module owns the tree (nodes, the UCB1 choice of an arm, the candidate moves of a node and
their order); the iterations that walk it through simulated rounds are the hard bot's
(:mod:`cardverse.bots.hard`).
"""

from __future__ import annotations

import math

import cardverse.bots.policy as policy

from ..engine.cards import JOKER_MASK
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, PASS, play_info
from ..engine.rounds import Round
from .playout import next_move


class Node:
    """The bot's decision at one of its information sets: its candidate moves and their
    statistics (visits, total reward in [0, 1]), and the nodes below each of them."""

    __slots__ = ("children", "moves", "n", "totals", "visits")

    def __init__(self, moves: list[int]) -> None:
        self.moves = moves
        self.visits = [0] * len(moves)
        self.totals = [0.0] * len(moves)
        self.n = 0
        # (arm, own hand, the others' actions since) -> the bot's next decision
        self.children: dict[tuple[int, int, tuple[int, ...]], Node] = {}

    def select(self, exploration: float, widening: float) -> int:
        """The arm to try, by UCB1 over the first arms only (progressive widening: candidates
        come best first, the policy's own choice first; 1 + ``widening`` * sqrt(visits) of
        them), the first never tried of those before any other."""
        visits = self.visits
        totals = self.totals
        log_n = math.log(self.n + 1)
        best_arm = 0
        best_score = -1.0
        width = len(visits)
        if widening > 0:
            width = min(width, 1 + int(widening * math.sqrt(self.n)))
        for arm in range(width):
            n = visits[arm]
            if n == 0:
                return arm
            score = totals[arm] / n + exploration * math.sqrt(log_n / n)
            if score > best_score:
                best_arm, best_score = arm, score
        return best_arm

    def update(self, arm: int, reward: float) -> None:
        self.visits[arm] += 1
        self.totals[arm] += reward
        self.n += 1


def candidate_order(
    moves: list[int], fallback: int, hand: int, revolution: bool, owed: bool
) -> list[int]:
    """``moves`` in the policy's order of preference: its own choice (``fallback``) first, the
    pass, then plays that spend no joker and break no group, weakest first."""
    counts = policy.rank_counts(hand)

    def prior(move: int) -> tuple[int, int, int, int]:
        if move == fallback:
            return (0, 0, 0, 0)
        if move == PASS:
            return (1, 0, 0, 0)
        cards = move & CARDS_MASK
        if owed:
            # Weakest cards first, single cards (that break no group) before others.
            return (
                2,
                sum(1 for c in range(52) if cards >> c & 1 and counts[c >> 2] > 1),
                sum(c >> 2 for c in range(54) if cards >> c & 1),
                0,
            )
        info = play_info(move)
        whole = info.straight or info.all_jokers or counts[info.rank] == info.size
        return (
            2,
            (cards & JOKER_MASK).bit_count() + (0 if whole else 1),
            policy.rank_strength(info.bottom if info.straight else info.rank, revolution)
            if not info.all_jokers
            else 13,
            -cards.bit_count(),
        )

    return sorted(moves, key=prior)


def merged_moves(legal: list[int], fallback: int, suits_matter: bool) -> list[int]:
    """One move per choice that differs by more than suits (when suits never matter), keeping
    ``fallback`` as its choice's representative."""
    seen: dict[tuple[int, ...], int] = {}
    owed = bool(legal[0] & (GIVE | DISCARD))
    for move in legal:
        if owed:
            key: tuple[int, ...] = (move,) if suits_matter else rank_key(move)
        elif move == PASS or suits_matter:
            key = (move,)
        else:
            info = play_info(move)
            key = (info.rank, info.size, (move & JOKER_MASK).bit_count())
        if key not in seen or move == fallback:
            seen[key] = move
    return list(seen.values())


def rank_key(move: int) -> tuple[int, ...]:
    """The ranks of a give's or discard's cards (jokers as 13), for merging alike choices."""
    cards = move & CARDS_MASK
    return tuple(sorted(min(c >> 2, 13) for c in range(54) if cards >> c & 1))


# The playouts' policy (:mod:`.playout`), one action at a time: the tree walks the round between
# the bot's decisions, then finishes it as a playout would.


def finish(
    round_: Round,
    me: int,
    style: policy.Style,
    strict: bool,
    models: tuple[int, ...] | None = None,
) -> int:
    """Finish a simulated round with the playout policy for every seat (or, per seat, the
    opponent model of ``models``); the points ``me`` earns (R22). With ``strict``, every action
    goes through the referee's check."""
    held = round_.hands
    while round_.turn >= 0 and held[me]:
        move = next_move(round_, style, models)
        if strict:
            round_.apply(move)
        else:
            round_.apply_unchecked(move)
    return round_.players - round_.places.index(me)
