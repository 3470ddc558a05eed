"""Exact answers for the ``hard`` bot (R30): sure wins and two-player endgames.

- :func:`sure_win` (under the rules of sections 3–5 only: no house rule of section 10 is in force)
  finds a play that empties the hand whatever the others hold: a sequence of
  plays that no deal of the unseen cards lets anyone beat (or that clear the trick, R14), ending
  with one last play; the others' hand sizes (and cards known to be in a hand) are respected.
  Whoever holds the unseen cards, the seat then goes out before anyone else plays.
- :func:`solve_duel` solves a round in which only two seats still hold cards. The hidden hand is
  then known exactly (it is every unseen card), so a plain game-tree search with a memo decides
  who goes out first; it gives up (returns None) past a node budget.
"""

from __future__ import annotations

from ..engine.movegen import legal_plays
from ..engine.options import Rules
from ..engine.plays import CARDS_MASK, PASS, play_info
from ..engine.rounds import Round
from ..engine.ruleset import ruleset_for

#: what one other seat may hold: (the cards it may have, the cards it must have, its hand size)
Holder = tuple[int, int, int]


def holders_of(
    unseen: int, counts: tuple[int, ...] | list[int], pinned: tuple[int, ...] | list[int], me: int
) -> list[Holder]:
    """Per other seat still holding cards: (cards it may hold, cards known to be in its hand,
    how many cards it holds). Cards known to be in one hand are in no other."""
    everyone = 0
    for cards in pinned:
        everyone |= cards
    out: list[Holder] = []
    for seat, count in enumerate(counts):
        if seat == me or not count:
            continue
        mine = pinned[seat] & unseen
        out.append(((unseen & ~everyone) | mine, mine, count))
    return out


class _SureWin:
    def __init__(
        self, rules: Rules, unseen: int, budget: int, holders: list[Holder] | None = None
    ) -> None:
        self.rules = rules
        self.unseen = unseen
        self.budget = budget
        # Without hand sizes, one seat could hold every unseen card.
        self.holders = holders if holders is not None else [(unseen, 0, unseen.bit_count())]
        self.memo: dict[tuple[int, bool], int | None] = {}
        self.safe: dict[tuple[int, bool], tuple[bool, bool]] = {}

    def holds(self, move: int, revolution: bool) -> tuple[bool, bool]:
        """(no one can cover ``move``, the order after it)."""
        key = (move, revolution)
        known = self.safe.get(key)
        if known is not None:
            return known
        rules = self.rules
        info = play_info(move)
        ruleset = ruleset_for(rules)
        after = revolution != ruleset.starts_revolution(info)
        if ruleset.clears(move, revolution, None):
            result = (True, after)
        else:
            result = (not self._coverable(move, after), after)
        self.safe[key] = result
        return result

    def _coverable(self, move: int, revolution: bool) -> bool:
        """Whether some deal of the unseen cards lets some other seat cover ``move``."""
        ruleset = ruleset_for(self.rules)
        for may, must, count in self.holders:
            free = count - must.bit_count()
            for cover in legal_plays(
                may, move, revolution, ruleset.ties_cover, ruleset.plays_straights
            ):
                if (cover & CARDS_MASK & ~must).bit_count() <= free:
                    return True
        return False

    def lead(self, hand: int, revolution: bool) -> int | None:
        """A first play of a sure way out when leading with ``hand``, or None."""
        key = (hand, revolution)
        if key in self.memo:
            return self.memo[key]
        self.budget -= 1
        if self.budget < 0:
            return None
        ruleset = ruleset_for(self.rules)
        plays = legal_plays(hand, None, revolution, ruleset.ties_cover, ruleset.plays_straights)
        found: int | None = None
        for move in plays:
            if move & CARDS_MASK == hand:
                found = move
                break
        if found is None:
            for move in sorted(plays, key=lambda m: -(m & CARDS_MASK).bit_count()):
                safe, after = self.holds(move, revolution)
                if safe and self.lead(hand & ~move, after) is not None:
                    found = move
                    break
                if self.budget < 0:
                    break
        self.memo[key] = found
        return found


def sure_win(
    rules: Rules,
    hand: int,
    legal: tuple[int, ...] | list[int],
    last_move: int | None,
    revolution: bool,
    unseen: int,
    budget: int = 2000,
    holders: list[Holder] | None = None,
) -> int | None:
    """A legal move that empties ``hand`` before anyone else can play again, or None.

    ``holders`` (see :func:`holders_of`) says what each other seat may hold and how many cards:
    a play is then safe when no deal lets a seat with enough cards cover it (three seats with
    one card each cannot cover a pair). Without it, any one seat might hold every unseen card.

    Under a house rule of section 10 (a lock, a jack back, a spade three, forbidden finishes, a
    fall from the round, owed gives or discards) the search's model of a trick would not hold:
    None.
    """
    if ruleset_for(rules).house_rules:
        return None
    for move in legal:
        if move != PASS and move & CARDS_MASK == hand:
            return move
    search = _SureWin(rules, unseen, budget, holders)
    if last_move is None:
        return search.lead(hand, revolution)
    for move in legal:
        if move == PASS:
            continue
        safe, after = search.holds(move, revolution)
        if safe and search.lead(hand & ~move, after) is not None:
            return move
    return None


class _Duel:
    def __init__(self, me: int, other: int, budget: int) -> None:
        self.me = me
        self.other = other
        self.budget = budget
        self.memo: dict[tuple[object, ...], bool] = {}

    def wins(self, round_: Round) -> bool:
        """Whether ``me`` ends above the other seat from here with best play by both."""
        places = round_.places
        if round_.turn < 0:
            return places.index(self.me) < places.index(self.other)
        hands = round_.hands
        if not hands[self.me]:
            # Out before the other: a better place, unless it was taken from the bottom (R34).
            return self.me not in round_.bottom_seats
        key = (
            *hands,
            -1 if round_.last_move is None else round_.last_move,
            round_.last_seat,
            round_.passed,
            round_.turn,
            round_.revolution,
            round_.marks,
            round_.owed,
            round_.bottom_place,
        )
        known = self.memo.get(key)
        if known is not None:
            return known
        self.budget -= 1
        if self.budget < 0:
            raise _OutOfBudget
        mine = round_.turn == self.me
        moves = _ordered(round_)
        result = not mine
        for move in moves:
            child = round_.clone()
            child.apply_unchecked(move)
            if self.wins(child) == mine:
                result = mine
                break
        self.memo[key] = result
        return result


class _OutOfBudget(Exception):
    pass


def _ordered(round_: Round) -> list[int]:
    """Moves most likely to decide first: going out, then big plays, the pass last."""
    hand = round_.hands[round_.turn]
    return sorted(
        round_.legal_moves(),
        key=lambda m: (
            m == PASS,
            (m & CARDS_MASK) != hand,
            -(m & CARDS_MASK).bit_count(),
            m,
        ),
    )


def solve_duel(round_: Round, me: int, budget: int = 20000) -> tuple[int, bool] | None:
    """(move, whether it wins) for ``me`` on turn with two seats left holding cards.

    None when the search exceeds ``budget`` nodes. A losing position returns its first move.
    """
    other = next(s for s in range(round_.players) if s != me and round_.hands[s])
    duel = _Duel(me, other, budget)
    moves = _ordered(round_)
    try:
        for move in moves:
            child = round_.clone()
            child.apply_unchecked(move)
            if duel.wins(child):
                return move, True
    except _OutOfBudget:
        return None
    return moves[0], False
