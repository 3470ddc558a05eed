"""A whole game: rounds, the exchange between them, places and points (R19–R25).

:class:`Game` is the one object the rest of the product drives: it deals (seeded), runs the
exchange, hands each round to :class:`~cardverse.engine.rounds.Round`, and keeps places and points
until the configured number of rounds is over. :meth:`Game.apply` and :meth:`Game.start_next_round`
return what happened as typed events (:mod:`cardverse.engine.events`).
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Final

from .cards import card_name, cards_of, deck_mask
from .dealing import deal, first_round_leader
from .events import Event, ExchangeGift, GameOver, Passed, Played, RoundOver, RoundStarted
from .exchange import ExchangePair, highest_cards, is_highest_choice
from .movegen import give_moves
from .options import Rules
from .plays import CARDS_MASK, GIVE, PASS
from .refusals import IllegalAction, Refusal, refuse
from .rounds import Round
from .ruleset import ruleset_for
from .scoring import round_points, standings, title_for_place

_new_event: Final = tuple.__new__  # Played and Passed without NamedTuple's Python-level __new__
_PASSED: Final = tuple(Passed(seat) for seat in range(8))  # events are values: one per seat will do


class Phase(StrEnum):
    """Where a game stands."""

    EXCHANGE = "exchange"
    PLAY = "play"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


# Module constants: reading an enum member off its class is slow on Python 3.11's hot path.
_PLAY: Final = Phase.PLAY
_EXCHANGE: Final = Phase.EXCHANGE
_ROUND_OVER: Final = Phase.ROUND_OVER
_GAME_OVER: Final = Phase.GAME_OVER


class DealError(ValueError):
    """A deal given from outside (a record) that cannot start a round."""


class Game:
    """The full, authoritative state of one game (the server's and the referee's view)."""

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        *,
        rng: random.Random | None = None,
        hands: list[int] | None = None,
    ) -> None:
        self.rules = rules
        # The deals' generator, kept while a round remains to be dealt (it holds 2.5 KB of
        # state; a game of one round given its hands never makes one).
        if rng is None and (hands is None or rules.rounds > 1):
            rng = random.Random(seed)
        self.rng: random.Random | None = rng
        self.round_number = 0
        self.phase = _ROUND_OVER
        self.round: Round | None = None
        self.deals: list[list[int]] = []
        self.places: list[list[int]] = []
        self.points: list[int] = [0] * rules.players
        self.leader = 0
        self.pairs: list[ExchangePair] = []
        self.pending: list[ExchangePair] = []  # give-backs still owed, President first
        self.exchange_log: list[tuple[int, int, int]] = []  # (giver, receiver, cards) this round
        self.exchange_hands: list[int] = []
        # (exchange log, play history) of every finished round, for records and replays.
        self.past_rounds: list[tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]] = []
        #: what the first deal did (the constructor cannot return it)
        self.first_events: list[Event] = self.start_next_round(hands)

    # -- rounds -------------------------------------------------------------------------------

    def start_next_round(
        self, hands: list[int] | None = None, gifts: dict[int, int] | None = None
    ) -> list[Event]:
        """Deal the next round (or take ``hands``), do the automatic gifts, and begin.

        ``gifts`` lets a record name which of equally high cards the automatic gifts were.
        Returns the events: the round's start and the automatic gifts.
        """
        if self.phase not in (_ROUND_OVER,) or (
            self.round_number and self.round_number >= self.rules.rounds
        ):
            raise IllegalAction(
                refuse("no_next_round", "R22", "the game has no further round to start now")
            )
        if hands is None:
            rng = self.rng
            assert rng is not None  # kept while a round remains to be dealt
            hands = deal(self.rules, rng)
        else:
            _check_deal(self.rules, hands)
        self.round_number += 1
        if self.round_number >= self.rules.rounds:
            self.rng = None  # no round is left to deal
        events: list[Event] = []
        self.deals.append(list(hands))
        hands = list(hands)
        self.exchange_log = []
        self.pairs = []
        self.pending = []
        if self.round_number == 1:
            self.leader = first_round_leader(self.rules, hands)
        else:
            # R24: the previous Scum leads, unless a part says otherwise (R46: told once the
            # exchange is over, by whoever then holds the card)
            chosen = ruleset_for(self.rules).round_leader(hands)
            self.leader = self.places[-1][-1] if chosen is None else chosen
        events.append(RoundStarted(self.round_number, self.leader))
        pairs = ruleset_for(self.rules).exchange_pairs(self.places[-1]) if self.places else []
        if self.round_number > 1 and pairs:
            self.pairs = pairs
            for index, pair in enumerate(self.pairs):
                hand = hands[pair.giver]
                gift = (gifts or {}).get(pair.giver)
                if gift is None:
                    gift = highest_cards(hand, pair.count)
                elif not is_highest_choice(hand, gift, pair.count):
                    raise IllegalAction(
                        refuse(
                            "gift_not_highest",
                            "R25",
                            f"seat {pair.giver} must give their {pair.count} highest card(s), "
                            f"not {' '.join(card_name(c) for c in cards_of(gift))}",
                            seat=pair.giver,
                            count=pair.count,
                        )
                    )
                hands[pair.giver] &= ~gift
                hands[pair.receiver] |= gift
                self.exchange_log.append((pair.giver, pair.receiver, gift))
                events.append(ExchangeGift(pair.giver, pair.receiver, gift, gift.bit_count(), True))
                # The give-back answers the gift card for card: a giver short of cards (a partial
                # deal) gets back no more than it gave, and the receiver never gives its hand away.
                self.pairs[index] = ExchangePair(pair.giver, pair.receiver, gift.bit_count())
            self.pending = [p for p in self.pairs if hands[p.receiver]]
            self.exchange_hands = hands
            self.round = None
            if self.pending:
                self.phase = _EXCHANGE
                return events
        self._begin_play(hands)
        return events

    def _begin_play(self, hands: list[int]) -> None:
        self.exchange_hands = []
        if self.round_number > 1:
            chosen = ruleset_for(self.rules).round_leader(hands)  # R46, after the exchange
            if chosen is not None:
                self.leader = chosen
        president = self.places[-1][0] if self.places else -1
        self.round = Round(self.rules, hands, self.leader, previous_president=president)
        self.round.log = []  # the round's consequences of each action, collected by apply
        self.phase = _PLAY

    # -- reading the state --------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase is _GAME_OVER

    @property
    def revolution(self) -> bool:
        return self.round.revolution if self.round is not None else False

    @property
    def marks(self) -> int:
        """The parts' state of the trick in play (:mod:`~cardverse.engine.reports`), 0 for none."""
        return self.round.marks if self.round is not None and self.phase is _PLAY else 0

    @property
    def turn(self) -> int | None:
        """Who acts next: the player on turn, the next giver, or the next round's leader (R24's
        previous Scum; None where a part names the leader only once the cards are dealt and
        exchanged, R46)."""
        if self.phase is _PLAY:
            assert self.round is not None
            return self.round.turn
        if self.phase is _EXCHANGE:
            return self.pending[0].receiver
        if self.phase is _ROUND_OVER:
            if ruleset_for(self.rules).round_leaders:
                return None  # whoever holds the card after the next deal and exchange
            return self.places[-1][-1] if self.places else self.leader
        return None

    # -- the library's view of the game (docs/library.md): OpenSpiel's names --------------------

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over (the last round of ``rules.rounds`` has ended, R22)."""
        return self.phase is _GAME_OVER

    @property
    def is_chance_node(self) -> bool:
        """Whether the next step is the deal of the next round (:meth:`start_next_round`, which
        deals from this game's seeded generator and makes the automatic exchange gifts)."""
        return self.phase is _ROUND_OVER

    @property
    def current_player(self) -> int | None:
        """The seat whose decision is next: the player on turn, the seat that owes a give or a
        discard (R36, R37), or the President or Vice-President giving cards back (R25); None
        when no seat decides (between rounds: :attr:`is_chance_node`; at the end:
        :attr:`is_terminal`)."""
        if self.phase is _PLAY or self.phase is _EXCHANGE:
            return self.turn
        return None

    def returns(self) -> list[int]:
        """The points each seat has so far (R22), by seat; final when :attr:`is_terminal`."""
        return list(self.points)

    def hand(self, seat: int) -> int:
        if self.phase is _EXCHANGE:
            return self.exchange_hands[seat]
        if self.round is not None:
            return self.round.hands[seat]
        return 0

    @property
    def hands(self) -> list[int]:
        if self.phase is _EXCHANGE:
            return list(self.exchange_hands)
        if self.round is not None:
            return list(self.round.hands)
        return [0] * self.rules.players

    def legal_moves(self) -> list[int]:
        """Every legal action of the seat to act, each once; empty between rounds."""
        if self.phase is _PLAY:
            assert self.round is not None
            return self.round.legal_moves()
        if self.phase is _EXCHANGE:
            pair = self.pending[0]
            hand = self.exchange_hands[pair.receiver]
            return give_moves(hand, min(pair.count, hand.bit_count()))
        return []

    def check(self, seat: int, move: int) -> Refusal | None:
        """Why ``seat`` may not make ``move`` now, or None when it may."""
        if self.phase is _PLAY:
            assert self.round is not None
            return self.round.check(seat, move)
        if self.phase is _EXCHANGE:
            return self._check_give(seat, move)
        if self.phase is _GAME_OVER:
            return refuse("game_over", "R22", "the game is over")
        return refuse(
            "between_rounds", "R23", "the round is over; the next one has not been dealt yet"
        )

    def _check_give(self, seat: int, move: int) -> Refusal | None:
        pair = self.pending[0]
        if not move & GIVE:
            return refuse(
                "exchange_in_progress",
                "R25",
                "the card exchange is not finished: no one plays or passes until it is",
            )
        if seat != pair.receiver:
            return refuse(
                "not_your_give",
                "R25",
                f"seat {pair.receiver} gives back cards now, not seat {seat}",
                seat=seat,
                turn=pair.receiver,
            )
        hand = self.exchange_hands[seat]
        cards = move & CARDS_MASK
        missing = cards & ~hand
        if missing:
            names = " ".join(card_name(c) for c in cards_of(missing))
            return refuse(
                "card_not_in_hand", "R25", f"not in seat {seat}'s hand: {names}", cards=names
            )
        count = min(pair.count, hand.bit_count())
        if cards.bit_count() != count or move & ~(CARDS_MASK | GIVE):
            return refuse(
                "give_count",
                "R25",
                f"seat {seat} gives back exactly {count} card(s)",
                count=count,
                given=cards.bit_count(),
            )
        return None

    # -- changing the state -------------------------------------------------------------------

    def apply(self, move: int, seat: int | None = None) -> list[Event]:
        """Make ``move`` for the seat to act (or check it is ``seat``); raise if refused.

        Returns what happened, in order (:mod:`cardverse.engine.events`).
        """
        phase = self.phase
        if phase is not _PLAY or (seat is not None and seat != self.turn):
            actor = self.turn if seat is None else seat
            refusal = self.check(-1 if actor is None else actor, move)
            if refusal is not None:
                raise IllegalAction(refusal)
        if phase is _PLAY:
            return self._play(move, False)
        return self._apply_give(move)

    def apply_trusted(self, move: int) -> list[Event]:
        """Make ``move``, taken from :meth:`legal_moves` of this very state, without checking it
        again; returns the events like :meth:`apply`. For search and benchmarks that pick
        from the legal list; anything from outside (a player, a record) goes through
        :meth:`apply`. A move that is not in the list gives an undefined state.
        """
        if self.phase is not _PLAY:
            if self.phase is _EXCHANGE:
                return self._apply_give(move)
            return self.apply(move)  # no legal move between rounds: refused as such
        return self._play(move, True)

    def _play(self, move: int, trusted: bool) -> list[Event]:
        round_ = self.round
        assert round_ is not None
        actor = round_.turn
        log = round_.log
        assert log is not None
        owed = round_.owed is not None  # then the move is the give or discard owed
        if trusted:
            round_.apply_unchecked(move)
        else:
            round_.apply(move)
        events: list[Event]
        if move == PASS:
            events = [_PASSED[actor]]
        elif owed:
            events = []  # the round tells the give or discard with its receiver
        else:
            events = [_new_event(Played, (actor, move))]
        if log:
            events.extend(log)
            log.clear()
        if round_.turn < 0:
            self._end_round(round_, events)
        return events

    def _apply_give(self, move: int) -> list[Event]:
        pair = self.pending.pop(0)
        cards = move & CARDS_MASK
        hands = self.exchange_hands
        hands[pair.receiver] &= ~cards
        hands[pair.giver] |= cards
        self.exchange_log.append((pair.receiver, pair.giver, cards))
        events: list[Event] = [
            ExchangeGift(pair.receiver, pair.giver, cards, cards.bit_count(), False)
        ]
        if not self.pending:
            self._begin_play(hands)
        return events

    def _end_round(self, round_: Round, events: list[Event]) -> None:
        order = round_.order()
        self.places.append(order)
        self.past_rounds.append((list(self.exchange_log), list(round_.history)))
        gained = round_points(order)
        for seat, points in enumerate(gained):
            self.points[seat] += points
        players = self.rules.players
        titles = [""] * players
        for place, seat in enumerate(order):
            titles[seat] = title_for_place(place, players)
        events.append(
            RoundOver(
                self.round_number, tuple(order), tuple(titles), tuple(gained), tuple(self.points)
            )
        )
        self.phase = _GAME_OVER if self.round_number >= self.rules.rounds else _ROUND_OVER
        if self.phase is _GAME_OVER:
            events.append(GameOver(tuple(self.points), tuple(standings(self.points))))

    def final_places(self) -> list[int]:
        """Each seat's place (0-based) in the game by total points, ties shared (R22)."""
        return standings(self.points)

    def clone(self) -> Game:
        """An independent copy (for search); the random generator (while one is kept) too."""
        # Built on the first deal, then every field copied (compiled classes have no bare
        # ``__new__``).
        other = Game(self.rules, hands=self.deals[0])
        if self.rng is None:
            other.rng = None
        else:
            other.rng = random.Random()
            other.rng.setstate(self.rng.getstate())
        other.round_number = self.round_number
        other.phase = self.phase
        other.round = self.round.clone() if self.round is not None else None
        if other.round is not None:
            other.round.log = []
        other.deals = [list(d) for d in self.deals]
        other.places = [list(p) for p in self.places]
        other.points = list(self.points)
        other.leader = self.leader
        other.pairs = list(self.pairs)
        other.pending = list(self.pending)
        other.exchange_log = list(self.exchange_log)
        other.exchange_hands = list(self.exchange_hands)
        other.past_rounds = list(self.past_rounds)
        other.first_events = []
        return other


def _check_deal(rules: Rules, hands: list[int]) -> None:
    if len(hands) != rules.players:
        raise DealError(f"a deal for {rules.players} players needs {rules.players} hands")
    seen = 0
    allowed = deck_mask(rules.jokers)
    for seat, hand in enumerate(hands):
        if not hand:
            raise DealError(f"seat {seat} is dealt no card: every seat needs at least one")
        if hand & seen:
            raise DealError(f"card {card_name(cards_of(hand & seen)[0])} is dealt twice")
        if hand & ~allowed:
            raise DealError(
                f"card {card_name(cards_of(hand & ~allowed)[0])} is not in the deck of these rules"
            )
        seen |= hand


__all__ = ["PASS", "DealError", "Game", "Phase"]
