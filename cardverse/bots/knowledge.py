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
from dataclasses import dataclass

from ..engine import PlayerView
from ..engine.cards import cards_of, deck_mask
from ..engine.exchange import card_height


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
