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
from ..engine.ruleset import ruleset_for
from .models import (
    HIGHEST,
    LOWEST,
    MODEL_NAMES,
    SENSIBLE,
    STRUCTURE,
    highest_play,
    lowest_play,
    structure_play,
)
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
        return ruleset_for(view.rules).cards_leave_by_plays

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
        found = self.model_misses(seat, hand, TWO_MODELS)
        return found[SENSIBLE], found[LOWEST]

    def actions(self, seat: int) -> int:
        """How many actions of ``seat`` this round the evidence holds."""
        return len(self.decisions[seat])

    def model_misses(self, seat: int, hand: int, used: tuple[bool, ...]) -> list[int]:
        """Per model of :mod:`.models` (by id; only those ``used`` marks, the others 0): how many
        of ``seat``'s actions that model would not have made holding ``hand`` now."""
        style = self.style
        out = [0] * len(MODEL_NAMES)
        want_sensible = used[SENSIBLE]
        want_lowest = used[LOWEST]
        want_highest = used[HIGHEST]
        want_structure = used[STRUCTURE]
        general = want_highest or want_structure
        for later, last, revolution, fewest, last_count, move in self.decisions[seat]:
            then = hand | later
            guess = PASS
            low = PASS
            legal: list[int] = []
            if style.fast_playouts and not then & JOKER_MASK and not general:
                if last is None:
                    if want_sensible:
                        guess = fast_lead(then, revolution, style, fewest)
                    if want_lowest:
                        low = _lowest_lead(then, revolution)
                else:
                    if want_sensible:
                        guess = fast_follow(then, last, revolution, style, last_count)
                    if want_lowest:
                        low = _lowest_follow(then, last, revolution, style.ties_cover)
            else:
                legal = legal_plays(then, last, revolution, style.ties_cover, style.plays_straights)
                if last is not None:
                    legal.append(PASS)
                if want_sensible:
                    if style.fast_playouts and not then & JOKER_MASK:
                        if last is None:
                            guess = fast_lead(then, revolution, style, fewest)
                        else:
                            guess = fast_follow(then, last, revolution, style, last_count)
                    elif last is None:
                        guess = lead_play(then, legal, revolution, style, fewest)
                    else:
                        guess = follow_play(then, legal, revolution, style, last_count, last)
                if want_lowest:
                    low = lowest_play(legal, revolution)
            if want_sensible and guess != move and not _same_play(guess, move, style):
                out[SENSIBLE] += 1
            if want_lowest and low != move and not _same_play(low, move, style):
                out[LOWEST] += 1
            if want_highest:
                high = highest_play(legal, revolution)
                if high != move and not _same_play(high, move, style):
                    out[HIGHEST] += 1
            if want_structure:
                kept = structure_play(
                    then,
                    legal,
                    last is None,
                    revolution,
                    style.ruleset,
                    style.plays_straights,
                    fewest,
                    last_count,
                )
                if kept != move and not _same_play(kept, move, style):
                    out[STRUCTURE] += 1
        return out

    def weight(self, seat: int, hand: int, surprise: float) -> float:
        """How well ``hand`` explains ``seat``'s play: an even mixture of the two models."""
        sensible, lowest = self.misses(seat, hand)
        return 0.5 * (surprise**sensible + surprise**lowest)


TWO_MODELS: tuple[bool, ...] = (True, True, False, False)  # the sensible and the lowest play
ALL_MODELS: tuple[bool, ...] = (True, True, True, True)


def mixture(misses: list[int], mix: tuple[float, ...], surprise: float) -> float:
    """A hand's weight for one seat: the models' likelihoods (``surprise`` per action a model
    would not have made) averaged with the weights ``mix``."""
    total = 0.0
    for model in range(len(mix)):
        if mix[model] > 0.0:
            total += mix[model] * surprise ** misses[model]
    return total


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
    player would not have made, averaged over the models (:func:`mixture`). The pool is drawn by
    Metropolis chains over deals: swap one hidden card between two other seats (keeping the
    exchange facts), accept by the change of weight. With ``surprise`` = 1, or no action of
    another seat yet, it is plain uniform sampling.

    By default the models are two, evenly mixed (the policy and the lowest play). With
    ``seat_models``, every model of :mod:`.models` is scored per seat: the first chain's burn-in
    runs on an even mixture of them all and averages each model's share of every seat's weight
    (the seat's posterior over the models, :attr:`posteriors`); from then on each seat is
    weighed by its own posterior mixture, or not at all (uniform) when even its best model
    misses more than ``unexplained`` of its actions (``model_set``: which models are scored, by
    id, all four by default; ``lowest_gate``: the posterior the lowest play needs to be kept).
    :attr:`seat_model` is each seat's most likely model (for the playouts) when its posterior is
    at least ``decisive``, else the policy. ``chains`` independent chains (each with its own
    burn-in) share the pool, and ``thin`` keeps one state in so many.
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
        seat_models: bool = False,
        chains: int = 1,
        unexplained: float = 1.0,
        decisive: float = 0.0,
        model_set: tuple[bool, ...] = (True, True, True, True),
        lowest_gate: float = 0.0,
    ) -> None:
        self.knowledge = knowledge
        self.rng = rng
        self.deals: list[list[int]] = []
        players = knowledge.players
        self.posteriors: list[tuple[float, ...]] = [(1.0, 0.0, 0.0, 0.0)] * players
        self.seat_model: tuple[int, ...] = (SENSIBLE,) * players
        self.explained: list[bool] = [True] * players
        others = [s for s in knowledge.others() if view.seat != s]
        if (
            surprise >= 1.0
            or not Evidence.applies(view)
            or len(others) < 2
            or not any(s != view.seat for _, s, _ in view.history)
        ):
            return
        evidence = Evidence(view, knowledge)
        if seat_models:
            used = model_set if any(model_set) else ALL_MODELS
            even = 1.0 / sum(used)
            start_mix: tuple[float, ...] = tuple(even if on else 0.0 for on in used)
        else:
            used = TWO_MODELS
            start_mix = (0.5, 0.5, 0.0, 0.0)
        mixes: list[tuple[float, ...]] = [start_mix] * players
        shares: list[list[float]] = [[0.0] * len(MODEL_NAMES) for _ in range(players)]
        missed: list[list[float]] = [[0.0] * len(MODEL_NAMES) for _ in range(players)]
        scored = 0
        chains = max(1, chains)
        per_chain = max(1, -(-pool // chains))
        clock = time.perf_counter
        step = 0
        for chain in range(chains):
            hands = knowledge.sample(rng)
            misses = {s: evidence.model_misses(s, hands[s], used) for s in others}
            weights = {s: mixture(misses[s], mixes[s], surprise) for s in others}
            kept = 0
            local = 0
            while kept < per_chain and len(self.deals) < pool:
                if deadline is not None and step % 16 == 0 and clock() >= deadline and self.deals:
                    return
                step += 1
                self._move(evidence, hands, misses, weights, mixes, used, surprise, others)
                local += 1
                if local <= burn_in:
                    if seat_models and chain == 0:
                        scored += 1
                        for s in others:
                            _accumulate(shares[s], missed[s], misses[s], mixes[s], surprise)
                        if local == burn_in:
                            self._judge(
                                evidence,
                                others,
                                shares,
                                missed,
                                scored,
                                unexplained,
                                decisive,
                                lowest_gate,
                            )
                            mixes = [self.posteriors[s] for s in range(players)]
                            for s in others:
                                if not self.explained[s]:
                                    mixes[s] = (0.0, 0.0, 0.0, 0.0)
                                weights[s] = mixture(misses[s], mixes[s], surprise)
                    continue
                if (local - burn_in - 1) % thin == 0:
                    self.deals.append(list(hands))
                    kept += 1

    def _move(
        self,
        evidence: Evidence,
        hands: list[int],
        misses: dict[int, list[int]],
        weights: dict[int, float],
        mixes: list[tuple[float, ...]],
        used: tuple[bool, ...],
        surprise: float,
        others: list[int],
    ) -> None:
        """One Metropolis step: swap a hidden card between two other seats, accepted by the
        change of weight (a seat weighed by no model has weight 1 whatever it holds)."""
        knowledge = self.knowledge
        rng = self.rng
        a, b = rng.sample(others, 2)
        pinned = knowledge.pinned
        caps = knowledge.caps
        free_a = cards_of(hands[a] & ~pinned[a])
        free_b = cards_of(hands[b] & ~pinned[b])
        if not free_a or not free_b:
            return
        x = free_a[rng.randrange(len(free_a))]
        y = free_b[rng.randrange(len(free_b))]
        if card_height(y) > caps[a] or card_height(x) > caps[b]:
            return
        new_a = hands[a] & ~(1 << x) | (1 << y)
        new_b = hands[b] & ~(1 << y) | (1 << x)
        if any(mixes[a]):
            misses_a = evidence.model_misses(a, new_a, used)
            weight_a = mixture(misses_a, mixes[a], surprise)
        else:
            misses_a, weight_a = misses[a], 1.0
        if any(mixes[b]):
            misses_b = evidence.model_misses(b, new_b, used)
            weight_b = mixture(misses_b, mixes[b], surprise)
        else:
            misses_b, weight_b = misses[b], 1.0
        old = weights[a] * weights[b]
        ratio = weight_a * weight_b / old if old > 0.0 else 1.0
        if ratio >= 1.0 or rng.random() < ratio:
            hands[a], hands[b] = new_a, new_b
            weights[a], weights[b] = weight_a, weight_b
            misses[a], misses[b] = misses_a, misses_b

    def _judge(
        self,
        evidence: Evidence,
        others: list[int],
        shares: list[list[float]],
        missed: list[list[float]],
        scored: int,
        unexplained: float,
        decisive: float,
        lowest_gate: float = 0.0,
    ) -> None:
        """Each seat's posterior over the models from the burn-in's averages, its most likely
        model, and whether that model explains enough of its actions. A lowest-play share
        under ``lowest_gate`` is dropped and the rest renormalised (the seat is not that kind
        of player unless the evidence says so clearly)."""
        posteriors = list(self.posteriors)
        best_models = list(self.seat_model)
        for s in others:
            total = sum(shares[s])
            if total <= 0.0:
                continue
            posterior = tuple(share / total for share in shares[s])
            if 0.0 < posterior[LOWEST] < lowest_gate:
                rest = 1.0 - posterior[LOWEST]
                posterior = tuple(
                    0.0 if m == LOWEST else share / rest for m, share in enumerate(posterior)
                )
            best = max(range(len(posterior)), key=lambda m: (posterior[m], -m))
            posteriors[s] = posterior
            best_models[s] = best if posterior[best] >= decisive else SENSIBLE
            actions = evidence.actions(s)
            if actions and missed[s][best] / scored > unexplained * actions:
                self.explained[s] = False
        self.posteriors = posteriors
        self.seat_model = tuple(best_models)

    def sample(self) -> list[int]:
        """One deal: from the chain's pool, or uniform when there is no pool."""
        if not self.deals:
            return self.knowledge.sample(self.rng)
        return self.deals[self.rng.randrange(len(self.deals))]

    def consecutive_change(self) -> float:
        """How different consecutive deals of the pool are: the mean share of the hidden cards
        that changed hands between one deal and the next (0: the same deal)."""
        hidden = self.knowledge.unseen.bit_count()
        if len(self.deals) < 2 or not hidden:
            return 0.0
        changed = 0
        for before, after in zip(self.deals, self.deals[1:], strict=False):
            moved = 0
            for seat in range(self.knowledge.players):
                if seat != self.knowledge.seat:
                    moved += (before[seat] & ~after[seat]).bit_count()
            changed += moved
        return changed / (hidden * (len(self.deals) - 1))


def _accumulate(
    shares: list[float],
    missed: list[float],
    misses: list[int],
    mix: tuple[float, ...],
    surprise: float,
) -> None:
    """Add one chain state to a seat's running sums: each model's share of the seat's weight
    (its responsibility) and the actions each model missed."""
    parts = [mix[m] * surprise ** misses[m] for m in range(len(mix))]
    total = sum(parts)
    for m in range(len(mix)):
        if total > 0.0:
            shares[m] += parts[m] / total
        missed[m] += misses[m]


def _same_play(a: int, b: int, style: Style) -> bool:
    """Plays that differ only by suits count as the same choice when straights are off; the
    same set with its jokers naming other cards (R44) is the same choice in any case."""
    if a == PASS or b == PASS:
        return False
    ia, ib = play_info(a), play_info(b)
    if a & CARDS_MASK == b & CARDS_MASK and not ia.straight and not ib.straight:
        return True
    if style.plays_straights:
        return False
    return (
        ia.rank == ib.rank
        and ia.size == ib.size
        and (a & JOKER_MASK).bit_count() == (b & JOKER_MASK).bit_count()
    )
