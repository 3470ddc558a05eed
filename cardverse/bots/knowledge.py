"""What one seat can infer about the hidden hands (R30), and deals sampled consistently with it.

From a :class:`~cardverse.engine.views.PlayerView` only: the cards not in its own hand and not
yet played are somewhere in the other hands, whose sizes are public. The exchange it took part in
adds two facts (R25): cards it gave away and that have not been played since are still in the
receiver's hand; and the automatic gift it received is the giver's highest cards, so none of the
giver's other cards (apart from what the giver got back) is higher than the lowest card of that
gift. :meth:`Knowledge.sample` deals the unseen cards at random among the other seats, respecting
all of this.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..engine import GIVE, PASS, PlayerView, Round
from ..engine.cards import JOKER_MASK, NUM_RANKS, cards_of, deck_mask
from ..engine.exchange import card_height
from ..engine.movegen import legal_plays
from ..engine.plays import CARDS_MASK, play_info
from .easy import lowest_key
from .policy import Style, fast_follow, fast_lead, follow_play, lead_play


@dataclass(frozen=True)
class Knowledge:
    """The hidden cards as one seat sees them."""

    seat: int
    players: int
    hand: int
    counts: tuple[int, ...]  # cards each seat holds now
    unseen: int  # cards that are in some other hand (bit set)
    pinned: tuple[int, ...]  # per seat: unseen cards known to be in that hand
    caps: tuple[int, ...]  # per seat: highest card height its other unseen cards may have (13: any)

    @staticmethod
    def of(view: PlayerView) -> Knowledge:
        players = view.rules.players
        played = view.played
        unseen = deck_mask(view.rules.jokers) & ~view.hand & ~played
        pinned = [0] * players
        caps = [13] * players
        for seen in view.exchange:
            if seen.giver == view.seat:
                pinned[seen.receiver] |= seen.cards & unseen
            elif seen.receiver == view.seat and seen.automatic:
                lowest = min(card_height(c) for c in cards_of(seen.cards))
                caps[seen.giver] = min(caps[seen.giver], lowest)
        for give in view.gives:
            if give.giver == view.seat:
                pinned[give.receiver] |= give.cards & unseen
        mine = len(view.gives)
        hidden = sum(1 for _, _, move in view.history if move & GIVE)
        if hidden > mine:
            caps = [13] * players  # cards changed hands unseen: no exchange cap holds any more
        for seat in range(players):
            pinned[seat] &= unseen
            if not view.hand_counts[seat]:
                pinned[seat] = 0
        return Knowledge(
            seat=view.seat,
            players=players,
            hand=view.hand,
            counts=tuple(view.hand_counts),
            unseen=unseen,
            pinned=tuple(pinned),
            caps=tuple(caps),
        )

    def others(self) -> list[int]:
        """Seats other than this one that still hold cards."""
        return [s for s in range(self.players) if s != self.seat and self.counts[s]]

    def exact_hands(self) -> list[int] | None:
        """The other hands when they are certain (one other seat holds all unseen cards)."""
        others = self.others()
        if len(others) == 1 and self.unseen.bit_count() == self.counts[others[0]]:
            hands = [0] * self.players
            hands[self.seat] = self.hand
            hands[others[0]] = self.unseen
            return hands
        return None

    def sample(self, rng: random.Random) -> list[int]:
        """Every seat's hand: this seat's own, and a random deal of the unseen cards to others."""
        hands = [0] * self.players
        hands[self.seat] = self.hand
        free_mask = self.unseen
        for seat in range(self.players):
            free_mask &= ~self.pinned[seat]
        free = cards_of(free_mask)
        rng.shuffle(free)
        others = self.others()
        # Seats with a cap first, from the cards low enough for them.
        capped = [s for s in others if self.caps[s] < 13]
        for seat in capped:
            hand = self.pinned[seat] & self.unseen
            need = self.counts[seat] - hand.bit_count()
            cap = self.caps[seat]
            keep: list[int] = []
            for card in free:
                if need > 0 and card_height(card) <= cap:
                    hand |= 1 << card
                    need -= 1
                else:
                    keep.append(card)
            free = keep
            hands[seat] = hand
        position = 0
        for seat in others:
            if seat in capped:
                continue
            hand = self.pinned[seat] & self.unseen
            need = self.counts[seat] - hand.bit_count()
            for card in free[position : position + need]:
                hand |= 1 << card
            position += max(need, 0)
            hands[seat] = hand
        # Should a capped seat have found too few low cards (a view from a partial deal),
        # top it up from what is left so that every hand has its public size.
        for seat in capped:
            need = self.counts[seat] - hands[seat].bit_count()
            if need > 0:
                for card in free[position : position + need]:
                    hands[seat] |= 1 << card
                position += need
        return hands


class Evidence:
    """The others' past decisions this round, to judge how plausible a hidden hand is.

    The public course of a round (tricks, passes, revolutions, hand sizes) does not depend on
    who holds which hidden card, so one replay records, for every action of another seat, what
    that seat knew publicly and which of its cards it still had to play later. A seat's hand at
    that moment is then its current hand plus those later cards, and :meth:`misses` counts the
    actions the heuristic policy would not have made from it. Each seat is judged on its own.
    """

    @staticmethod
    def applies(view: PlayerView) -> bool:
        """Whether the history can be replayed with sampled hands: not when cards changed hands
        unseen (R36), left the round (R37) or a seat fell (R35)."""
        rules = view.rules
        return not (rules.seven_pass or rules.ten_discard or rules.downfall)

    def __init__(self, view: PlayerView, knowledge: Knowledge) -> None:
        self.rules = view.rules
        self.style = Style.of(view.rules)
        players = knowledge.players
        history = [(seat, move) for _, seat, move in view.history]
        # (later cards, play on top or None, revolution, fewest cards of an opponent,
        #  cards of the player on top, the move made)
        self.decisions: list[list[tuple[int, int | None, bool, int, int, int]]] = [
            [] for _ in range(players)
        ]
        if not history:
            return
        played = [0] * players
        for seat, move in history:
            if move != PASS:
                played[seat] |= move & CARDS_MASK
        deal = knowledge.sample(random.Random(0))
        round_ = Round(view.rules, [deal[s] | played[s] for s in range(players)], history[0][0])
        held = round_.hands
        for seat, move in history:
            if seat != view.seat:
                later = held[seat] & ~deal[seat]
                fewest = min(
                    (held[o].bit_count() for o in range(players) if o != seat and held[o]),
                    default=0,
                )
                last = round_.last_move
                last_count = held[round_.last_seat].bit_count() if last is not None else 0
                self.decisions[seat].append(
                    (later, last, round_.reversed_order, fewest, last_count, move)
                )
            round_.apply_unchecked(move)

    def misses(self, seat: int, hand: int) -> tuple[int, int]:
        """How many of ``seat``'s actions each model would not have made holding ``hand`` now.

        The models: the heuristic policy (a sensible player) and the lowest legal play (R28).
        """
        style = self.style
        rules = self.rules
        sensible = 0
        lowest = 0
        for later, last, revolution, fewest, last_count, move in self.decisions[seat]:
            then = hand | later
            if style.fast_playouts and not then & JOKER_MASK:
                if last is None:
                    guess = fast_lead(then, revolution, style, fewest)
                    low = _lowest_lead(then, revolution)
                else:
                    guess = fast_follow(then, last, revolution, style, last_count)
                    low = _lowest_follow(then, last, revolution, style.equal_plays)
            else:
                legal = legal_plays(then, last, revolution, rules.equal_plays, style.straights)
                if last is None:
                    guess = lead_play(then, legal, revolution, style, fewest)
                else:
                    legal.append(PASS)
                    guess = follow_play(then, legal, revolution, style, last_count, last)
                plays = [m for m in legal if m != PASS]
                low = min(plays, key=lambda m: lowest_key(m, revolution)) if plays else PASS
            if guess != move and not _same_play(guess, move, style):
                sensible += 1
            if low != move and not _same_play(low, move, style):
                lowest += 1
        return sensible, lowest

    def weight(self, seat: int, hand: int, surprise: float) -> float:
        """How well ``hand`` explains ``seat``'s play: an even mixture of the two models."""
        sensible, lowest = self.misses(seat, hand)
        return 0.5 * (surprise**sensible + surprise**lowest)


def _lowest_lead(hand: int, revolution: bool) -> int:
    """The easy bot's lead for a joker-free hand with straights off: its lowest single card."""
    ranks = range(NUM_RANKS - 1, -1, -1) if revolution else range(NUM_RANKS)
    for rank in ranks:
        nibble = (hand >> (rank << 2)) & 15
        if nibble:
            return (nibble & -nibble) << (rank << 2)
    return PASS  # pragma: no cover - a hand on lead is never empty


def _lowest_follow(hand: int, last: int, revolution: bool, equal_plays: bool) -> int:
    """The easy bot's answer for a joker-free hand with straights off: the lowest cover."""
    info = play_info(last)
    if info.all_jokers or info.straight:
        return PASS
    size = info.size
    old = info.rank
    if revolution:
        ranks = range(old if equal_plays else old - 1, -1, -1)
    else:
        ranks = range(old if equal_plays else old + 1, NUM_RANKS)
    for rank in ranks:
        nibble = (hand >> (rank << 2)) & 15
        if nibble.bit_count() >= size:
            out = 0
            for _ in range(size):
                low = nibble & -nibble
                out |= low
                nibble ^= low
            return out << (rank << 2)
    return PASS


class PlausibleDeals:
    """Deals consistent with the view, drawn in proportion to how well they explain the play.

    A deal's weight is, per other seat, ``surprise`` to the power of the actions a model of that
    player would not have made, averaged over two models (:meth:`Evidence.weight`). The pool is
    a Metropolis chain over deals: swap one hidden card between two other seats (keeping the
    exchange facts), accept by the change of weight. With ``surprise`` = 1, or no action of
    another seat yet, it is plain uniform sampling.
    """

    def __init__(
        self,
        view: PlayerView,
        knowledge: Knowledge,
        rng: random.Random,
        *,
        pool: int,
        surprise: float,
        burn_in: int = 100,
        thin: int = 1,
        deadline: float | None = None,
    ) -> None:
        self.knowledge = knowledge
        self.rng = rng
        self.deals: list[list[int]] = []
        others = [s for s in knowledge.others() if view.seat != s]
        if (
            surprise >= 1.0
            or not Evidence.applies(view)
            or len(others) < 2
            or not any(s != view.seat for _, s, _ in view.history)
        ):
            return
        evidence = Evidence(view, knowledge)
        hands = knowledge.sample(rng)
        weights = {s: evidence.weight(s, hands[s], surprise) for s in others}
        pinned = knowledge.pinned
        caps = knowledge.caps
        steps = burn_in + pool * thin
        clock = time.perf_counter
        for step in range(steps):
            if deadline is not None and step % 16 == 0 and clock() >= deadline and self.deals:
                break
            a, b = rng.sample(others, 2)
            free_a = cards_of(hands[a] & ~pinned[a])
            free_b = cards_of(hands[b] & ~pinned[b])
            if free_a and free_b:
                x = free_a[rng.randrange(len(free_a))]
                y = free_b[rng.randrange(len(free_b))]
                if card_height(y) <= caps[a] and card_height(x) <= caps[b]:
                    new_a = hands[a] & ~(1 << x) | (1 << y)
                    new_b = hands[b] & ~(1 << y) | (1 << x)
                    weight_a = evidence.weight(a, new_a, surprise)
                    weight_b = evidence.weight(b, new_b, surprise)
                    ratio = weight_a * weight_b / (weights[a] * weights[b])
                    if ratio >= 1.0 or rng.random() < ratio:
                        hands[a], hands[b] = new_a, new_b
                        weights[a], weights[b] = weight_a, weight_b
            if step >= burn_in and (step - burn_in) % thin == 0:
                self.deals.append(list(hands))

    def sample(self) -> list[int]:
        """One deal: from the chain's pool, or uniform when there is no pool."""
        if not self.deals:
            return self.knowledge.sample(self.rng)
        return self.deals[self.rng.randrange(len(self.deals))]


def _same_play(a: int, b: int, style: Style) -> bool:
    """Plays that differ only by suits count as the same choice when straights are off."""
    if style.straights or a == PASS or b == PASS:
        return False
    ia, ib = play_info(a), play_info(b)
    return (
        ia.rank == ib.rank
        and ia.size == ib.size
        and (a & JOKER_MASK).bit_count() == (b & JOKER_MASK).bit_count()
    )
