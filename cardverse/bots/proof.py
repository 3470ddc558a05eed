"""Exact sure wins over every deal of the unseen cards (R30): an AND-OR search on one seat's view.

A seat has a *sure win* when some way of playing takes it out before every other seat holding
cards, whatever the unseen cards are and whatever the others do with them. :func:`deals_of` lists
every deal of the unseen cards that the seat's :class:`~cardverse.bots.knowledge.Knowledge`
allows (the public hand sizes, cards it gave in the exchange still with their receiver, the cap
on the hand of the player who gave it its highest cards). :func:`winning_moves` then searches:

- at the seat's own turn (an OR node) one move must win; the seat sees only its own cards and the
  public play, so the same move is played in every deal still possible;
- at another seat's turn (an AND node) every action that seat could make in any of the deals
  must still leave a win, each action keeping the deals in which it was possible (and, should a
  seven pass change the seat's own hand, each hand it could receive is a separate case).

Every action goes through the engine's :class:`~cardverse.engine.rounds.Round`, so every option
in force (house rules included) is judged by the rules themselves. A going out that takes a place
from the bottom (R34) is not a win. The search is bounded by a node budget: past it the answer
is "unknown" (None), never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from math import comb
from time import perf_counter

from ..engine.cards import cards_of
from ..engine.exchange import card_height
from ..engine.plays import CARDS_MASK, PASS
from ..engine.rounds import Round
from .knowledge import Knowledge

DEFAULT_BUDGET = 20000


class OutOfBudget(Exception):
    """The search visited more nodes than its budget allows."""


def deals_bound(knowledge: Knowledge) -> int:
    """How many ways the unseen cards not known to be in a hand split into the hand sizes
    (a bound: the exchange cap may rule some out)."""
    left = (knowledge.unseen & ~_pinned_all(knowledge)).bit_count()
    total = 1
    for seat in knowledge.others():
        need = knowledge.counts[seat] - (knowledge.pinned[seat] & knowledge.unseen).bit_count()
        if need < 0 or need > left:
            return 0
        total *= comb(left, need)
        left -= need
    return total


def _pinned_all(knowledge: Knowledge) -> int:
    out = 0
    for seat in knowledge.others():
        out |= knowledge.pinned[seat]
    return out


def deals_of(knowledge: Knowledge, limit: int) -> list[list[int]] | None:
    """Every deal of the unseen cards the knowledge allows (all hands, this seat's own
    included), or None when there may be more than ``limit`` (by :func:`deals_bound`)."""
    if deals_bound(knowledge) > limit:
        return None
    out: list[list[int]] = []
    for deal in _deals(knowledge):
        out.append(deal)
        if len(out) > limit:
            return None
    return out


def _deals(knowledge: Knowledge) -> Iterator[list[int]]:
    others = knowledge.others()
    pinned_all = 0
    for seat in others:
        pinned_all |= knowledge.pinned[seat]
    free = cards_of(knowledge.unseen & ~pinned_all)
    hands = [0] * knowledge.players
    hands[knowledge.seat] = knowledge.hand
    needs = [
        knowledge.counts[s] - (knowledge.pinned[s] & knowledge.unseen).bit_count() for s in others
    ]
    if any(n < 0 for n in needs) or sum(needs) != len(free):
        return

    def place(index: int, left: list[int]) -> Iterator[list[int]]:
        if index == len(others):
            yield list(hands)
            return
        seat = others[index]
        cap = knowledge.caps[seat]
        allowed = [c for c in left if card_height(c) <= cap]
        for chosen in combinations(allowed, needs[index]):
            mask = 0
            for card in chosen:
                mask |= 1 << card
            hands[seat] = (knowledge.pinned[seat] & knowledge.unseen) | mask
            rest = [c for c in left if not mask >> c & 1]
            yield from place(index + 1, rest)

    yield from place(0, free)


class _Search:
    def __init__(
        self, me: int, holding: tuple[int, ...], budget: int, deadline: float | None = None
    ) -> None:
        self.me = me
        self.holding = holding  # the other seats that held cards when the search began
        self.budget = budget
        self.deadline = deadline  # a perf_counter time past which the search gives up
        self.memo: dict[tuple[object, ...], bool] = {}

    def wins(self, rounds: list[Round]) -> bool:
        first = rounds[0]
        me = self.me
        hands = first.hands
        if not hands[me]:
            return me not in first.bottom_seats
        for seat in self.holding:
            if not hands[seat]:
                return False  # someone else went out first (hand sizes are public)
        if first.turn < 0:
            return False
        key = (
            _public_key(first),
            hands[me],
            frozenset(tuple(r.hands) for r in rounds),
        )
        known = self.memo.get(key)
        if known is not None:
            return known
        self.budget -= 1
        if self.budget < 0:
            raise OutOfBudget
        if self.deadline is not None and not self.budget & 31 and perf_counter() > self.deadline:
            raise OutOfBudget
        if first.turn == me:
            result = any(self.wins(_after(rounds, move)) for move in _mine_first(first))
        else:
            result = all(self.wins(group) for group in _answers(rounds, me))
        self.memo[key] = result
        return result


def _public_key(round_: Round) -> tuple[object, ...]:
    return (
        tuple(h.bit_count() for h in round_.hands),
        -1 if round_.last_move is None else round_.last_move,
        round_.last_seat,
        round_.passed,
        round_.turn,
        round_.revolution,
        round_.marks,
        round_.owed,
        round_.discarded,
    )


def _after(rounds: list[Round], move: int) -> list[Round]:
    out = []
    for round_ in rounds:
        child = round_.clone()
        child.apply_unchecked(move)
        out.append(child)
    return out


def _mine_first(round_: Round) -> list[int]:
    """The seat's own moves, the likeliest winners first: going out, big plays, the pass last."""
    hand = round_.hands[round_.turn]
    return sorted(
        round_.legal_moves(),
        key=lambda m: (m == PASS, (m & CARDS_MASK) != hand, -(m & CARDS_MASK).bit_count(), m),
    )


def _answers(rounds: list[Round], me: int) -> list[list[Round]]:
    """Every action of the seat on turn in any deal, with the deals it was possible in, split by
    the hand it leaves ``me`` (a seven pass may change it); the likeliest refutations first."""
    groups: dict[tuple[int, int], list[Round]] = {}
    for round_ in rounds:
        for move in round_.legal_moves():
            child = round_.clone()
            child.apply_unchecked(move)
            groups.setdefault((move, child.hands[me]), []).append(child)
    ordered = sorted(groups.items(), key=lambda item: (item[0][0] == PASS, -item[0][0]))
    return [group for _, group in ordered]


def winning_moves(
    template: Round,
    me: int,
    deals: list[list[int]],
    budget: int = DEFAULT_BUDGET,
    deadline: float | None = None,
) -> list[int] | None:
    """The moves of ``me`` (on turn in ``template``) that win against every deal in ``deals``
    and every answer, in legal-move order; None when the search ran out of budget.

    ``template`` is the round in its public state (its hands are replaced by each deal's);
    past ``deadline`` (a :func:`time.perf_counter` time) the answer is None too.
    """
    if not deals:
        return None
    rounds = []
    for deal in deals:
        round_ = template.clone()
        round_.hands = list(deal)
        rounds.append(round_)
    holding = tuple(s for s in range(template.players) if s != me and deals[0][s])
    search = _Search(me, holding, budget, deadline)
    won: list[int] = []
    try:
        for move in rounds[0].legal_moves():
            if search.wins(_after(rounds, move)):
                won.append(move)
    except OutOfBudget:
        return None
    return won


def first_winning_move(
    template: Round, me: int, deals: list[list[int]], budget: int = DEFAULT_BUDGET
) -> int | None:
    """One move of ``me`` that wins against every deal and answer (the likeliest tried first),
    or None when there is none or the budget ran out."""
    if not deals:
        return None
    rounds = []
    for deal in deals:
        round_ = template.clone()
        round_.hands = list(deal)
        rounds.append(round_)
    holding = tuple(s for s in range(template.players) if s != me and deals[0][s])
    search = _Search(me, holding, budget)
    try:
        for move in _mine_first(rounds[0]):
            if search.wins(_after(rounds, move)):
                return move
    except OutOfBudget:
        return None
    return None
