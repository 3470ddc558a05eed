"""One round of play: turns, tricks, passes, clearing plays, revolutions, going out (R8–R20).

:class:`Round` is the mutable state of a round once the exchange is over. It lists legal moves
(:meth:`Round.legal_moves`), checks one action (:meth:`Round.check`) and applies one
(:meth:`Round.apply`). Moves are the integers of :mod:`cardverse.engine.plays`.
"""

from __future__ import annotations

from .cards import NATURAL_MASK, card_name, cards_of
from .movegen import legal_plays
from .options import Rules
from .plays import (
    CARDS_MASK,
    GIVE,
    PASS,
    STRAIGHT,
    PlayInfo,
    PlayShapeError,
    analyse,
    beats,
    is_clearing,
    play_info,
    starts_revolution,
)
from .refusals import IllegalAction, Refusal, refuse

RANK_WORDS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "jokers")


class Round:
    """The state of one round in play."""

    __slots__ = (
        "_legal",
        "eight_stop",
        "equal_plays",
        "finished",
        "hands",
        "history",
        "last_move",
        "last_seat",
        "passed",
        "players",
        "revolution",
        "revolution_rule",
        "straights",
        "trick",
        "trick_number",
        "turn",
    )

    def __init__(
        self,
        rules: Rules,
        hands: list[int],
        leader: int,
        *,
        revolution: bool = False,
        finished: list[int] | None = None,
    ) -> None:
        self.players = len(hands)
        self.equal_plays = rules.equal_plays
        self.straights = rules.straights
        self.eight_stop = rules.eight_stop
        self.revolution_rule = rules.revolution
        self.hands = list(hands)
        self.turn = leader
        self.revolution = revolution
        self.finished: list[int] = list(finished or [])
        self.last_move: int | None = None  # the play on top of the trick, None on lead
        self.last_seat = -1
        self.passed = 0  # bit set of seats that passed in this trick (R11)
        self.trick: list[tuple[int, int]] = []  # (seat, move) of the trick in progress
        self.trick_number = 0
        self.history: list[tuple[int, int, int]] = []  # (trick number, seat, move) this round
        self._legal: list[int] | None = None

    def clone(self) -> Round:
        """An independent copy of this round (for search and what-if analysis)."""
        other = Round.__new__(Round)
        for name in Round.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = list(self.hands)
        other.finished = list(self.finished)
        other.trick = list(self.trick)
        other.history = list(self.history)
        other._legal = None
        return other

    # -- reading the state ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.turn < 0

    def holding(self, seat: int) -> bool:
        return self.hands[seat] != 0

    def next_holder(self, seat: int) -> int:
        """The next seat after ``seat`` that still holds cards (R12, R13)."""
        n = self.players
        hands = self.hands
        for step in range(1, n + 1):
            other = (seat + step) % n
            if hands[other]:
                return other
        return -1

    def legal_moves(self) -> list[int]:
        """Every legal action of the seat on turn, each exactly once (the pass last)."""
        legal = self._legal
        if legal is None:
            if self.turn < 0:
                legal = []
            else:
                legal = legal_plays(
                    self.hands[self.turn],
                    self.last_move,
                    self.revolution,
                    self.equal_plays,
                    self.straights,
                )
                if self.last_move is not None:
                    legal.append(PASS)
            self._legal = legal
        return legal

    def check(self, seat: int, move: int) -> Refusal | None:
        """Why ``seat`` may not make ``move`` now, or None when it may."""
        if self.turn < 0:
            return refuse("round_over", "R20", "the round is over")
        if not 0 <= seat < self.players:
            return refuse("no_such_seat", "R12", f"there is no seat {seat}", seat=seat)
        if not self.hands[seat]:
            return refuse(
                "gone_out", "R20", f"seat {seat} has gone out and plays no more", seat=seat
            )
        if self.passed >> seat & 1:
            return refuse(
                "passed_this_trick",
                "R11",
                f"seat {seat} passed and takes no further part in this trick",
                seat=seat,
            )
        if seat != self.turn:
            return refuse(
                "not_your_turn",
                "R12",
                f"it is seat {self.turn}'s turn, not seat {seat}'s",
                seat=seat,
                turn=self.turn,
            )
        if move == PASS:
            if self.last_move is None:
                return refuse(
                    "pass_on_lead", "R8", "the player on lead must play; passing is not allowed"
                )
            return None
        if move & GIVE:
            return refuse(
                "not_exchange", "R25", "cards are given only during the exchange before a round"
            )
        return self._check_play(seat, move)

    def _check_play(self, seat: int, move: int) -> Refusal | None:
        cards = move & CARDS_MASK
        missing = cards & ~self.hands[seat]
        if missing:
            names = " ".join(card_name(c) for c in cards_of(missing))
            return refuse(
                "card_not_in_hand",
                "R8",
                f"not in seat {seat}'s hand: {names}",
                cards=names,
                seat=seat,
            )
        if move & STRAIGHT and not self.straights:
            if len({c >> 2 for c in cards_of(cards & NATURAL_MASK)}) > 1:
                return refuse(
                    "mixed_ranks",
                    "R5",
                    "cards of different ranks are no set: a set is 1 to 4 cards of one rank",
                    cards=" ".join(card_name(c) for c in cards_of(cards)),
                )
            return refuse("straights_off", "R6", "straights are not played under these rules")
        try:
            info = analyse(move)
        except PlayShapeError as shape:
            return Refusal(shape.code, shape.rule, shape.message, dict(shape.params))
        if self.last_move is None:
            return None
        old = play_info(self.last_move)
        if info.straight != old.straight:
            if old.straight:
                return refuse(
                    "set_on_straight",
                    "R9",
                    f"a straight of {old.size} was led: only a straight of {old.size} may follow",
                    size=old.size,
                )
            return refuse(
                "straight_on_set",
                "R9",
                f"a set of {old.size} was led: only a set of {old.size} may follow",
                size=old.size,
            )
        if info.size != old.size:
            kind = "straight" if old.straight else "set"
            return refuse(
                "wrong_size",
                "R9",
                f"this trick takes a {kind} of {old.size} cards, not {info.size}",
                kind=kind,
                size=old.size,
                played=info.size,
            )
        if beats(info, old, self.revolution, self.equal_plays):
            return None
        return _does_not_beat(info, old, self.revolution, self.equal_plays)

    # -- changing the state -----------------------------------------------------------------

    def apply(self, move: int) -> None:
        """Make ``move`` for the seat on turn, or raise :class:`IllegalAction`."""
        legal = self._legal if self._legal is not None else self.legal_moves()
        if move not in legal:
            refusal = self.check(self.turn, move)
            if refusal is None:  # pragma: no cover - generator and checker disagree
                raise AssertionError(f"legal move {move:#x} missing from the generator")
            raise IllegalAction(refusal)
        self.apply_unchecked(move)

    def apply_unchecked(self, move: int) -> None:
        """Make a move already known to be legal (from :meth:`legal_moves`)."""
        seat = self.turn
        self._legal = None
        self.history.append((self.trick_number, seat, move))
        self.trick.append((seat, move))
        if move == PASS:
            self.passed |= 1 << seat
            self._next_turn(seat)
            return
        hand = self.hands[seat] & ~move
        self.hands[seat] = hand
        if not hand:
            self.finished.append(seat)  # R20: the next free place
            if len(self.finished) == self.players - 1:
                last = self.next_holder(seat)
                self.finished.append(last)
                self.turn = -1
                self._info_for_revolution(move)
                return
        info = play_info(move)
        clears = is_clearing(info, self.revolution, self.eight_stop)  # R14, R17
        if self.revolution_rule and starts_revolution(info):
            self.revolution = not self.revolution  # R15, R16: the next play is judged reversed
        if clears:
            self._end_trick(seat)
            return
        self.last_move = move
        self.last_seat = seat
        self._next_turn(seat)

    def _info_for_revolution(self, move: int) -> None:
        # The round has ended on this play; keep the revolution flag truthful for the record.
        info = play_info(move)
        if self.revolution_rule and starts_revolution(info):
            self.revolution = not self.revolution

    def _next_turn(self, seat: int) -> None:
        """Give the turn to the next seat still in the trick, or end the trick (R12, R13)."""
        n = self.players
        hands = self.hands
        passed = self.passed
        last = self.last_seat
        for step in range(1, n):
            other = (seat + step) % n
            if hands[other] and not passed >> other & 1 and other != last:
                self.turn = other
                return
        # Nobody but the last player is left in the trick: it ends, the last player leads.
        self._end_trick(last)

    def _end_trick(self, winner: int) -> None:
        self.trick_number += 1
        self.trick = []
        self.last_move = None
        self.last_seat = -1
        self.passed = 0
        self.turn = winner if self.hands[winner] else self.next_holder(winner)


def _does_not_beat(new: PlayInfo, old: PlayInfo, revolution: bool, equal: bool) -> Refusal:
    """The R10 refusal for a play of the right shape that is not high (or low) enough."""
    if old.all_jokers:
        if equal:
            return refuse(
                "beat_jokers",
                "R10",
                "a set made only of jokers can be covered only by jokers",
            )
        return refuse(
            "beat_jokers_equal_off",
            "R10",
            "a set made only of jokers cannot be covered when equal plays are off",
        )
    if old.straight:
        if revolution:
            need = "a lower bottom" + (" or an equal one" if equal else "")
            return refuse(
                "straight_too_high",
                "R10",
                f"during a revolution a straight must have {need} than "
                f"{RANK_WORDS[old.bottom]}, its bottom is {RANK_WORDS[new.bottom]}",
                need=RANK_WORDS[old.bottom],
                got=RANK_WORDS[new.bottom],
                equal_plays=equal,
            )
        need = "a higher top" + (" or an equal one" if equal else "")
        return refuse(
            "straight_too_low",
            "R10",
            f"a straight must have {need} than {RANK_WORDS[old.rank]}, "
            f"its top is {RANK_WORDS[new.rank]}",
            need=RANK_WORDS[old.rank],
            got=RANK_WORDS[new.rank],
            equal_plays=equal,
        )
    if new.rank == old.rank and not equal:
        return refuse(
            "equal_not_allowed",
            "R10",
            f"equal plays are off: {RANK_WORDS[new.rank]} does not beat {RANK_WORDS[old.rank]}",
            need=RANK_WORDS[old.rank],
            got=RANK_WORDS[new.rank],
        )
    direction = "lower" if revolution else "higher"
    during = "during a revolution " if revolution else ""
    return refuse(
        "set_too_low" if not revolution else "set_too_high",
        "R10",
        f"{RANK_WORDS[new.rank]} does not beat {RANK_WORDS[old.rank]}: {during}play a "
        f"{direction} rank" + (" or the same rank" if equal else ""),
        need=RANK_WORDS[old.rank],
        got=RANK_WORDS[new.rank],
        equal_plays=equal,
    )
