"""One round of play: turns, tricks, passes, clearing plays, going out and places (R8–R20).

:class:`Round` is the mutable state of a round once the exchange is over. It lists legal moves
(:meth:`Round.legal_moves`), checks one action (:meth:`Round.check`) and applies one
(:meth:`Round.apply`). Moves are the integers of :mod:`cardverse.engine.plays`. The rules of the
table's options come in as parts (:mod:`cardverse.engine.ruleset`): the round calls their hooks
and keeps the trick's state (:class:`TrickState`: the play on top, the order in force, the lock,
what is owed). While :attr:`log` is a list, every consequence of an action (a trick's end, an
order change, a lock, an owed give or discard and its making, a place taken) is appended to it as
a typed event (:mod:`cardverse.engine.events`); the action itself is the caller's to report.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Final, NamedTuple

from .cards import card_name, cards_of
from .events import (
    DISCARD_OWED,
    FINISH,
    GIVE_OWED,
    LAST,
    Discarded,
    Event,
    Gave,
    OwedAction,
    TrickEnded,
    WentOut,
)
from .movegen import legal_plays, set_plays
from .options import Rules
from .plays import (
    CARDS_MASK,
    DECLARATIONS_MASK,
    DISCARD,
    GIVE,
    MAX_SET_SIZE,
    PASS,
    PlayInfo,
    PlayShapeError,
    analyse,
    beats,
    play_info,
)
from .refusals import IllegalAction, Refusal, refuse
from .ruleset import ruleset_for

RANK_WORDS: Final = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "jokers")
OWED_RULE: Final = {GIVE_OWED: "R36", DISCARD_OWED: "R37"}
OWED_FLAG: Final = {GIVE_OWED: GIVE, DISCARD_OWED: DISCARD}
_GIVE_OR_DISCARD: Final = GIVE | DISCARD
# Events of the hot path built without NamedTuple's Python-level ``__new__``.
_new_event: Final = tuple.__new__

# A pass's entries (about two in five of a round's moves) are the same for every round: the
# history's (trick number, seat, PASS) and the trick's (seat, PASS), made once and shared by
# every round instead of one tuple a pass (a live round's history is its largest part). Typed
# ``Any``: compiled, a ``tuple[int, int, int]`` is a value made into a new object each time
# it is stored.
_PASS_ENTRIES: Final[dict[int, Any]] = {}
_PASSES_IN_TRICK: Final[dict[int, Any]] = {}


def _pass_entry(trick_number: int, seat: int) -> Any:
    key = trick_number << 8 | seat
    entry: Any = _PASS_ENTRIES.get(key)
    if entry is None:
        entry = (trick_number, seat, PASS)  # one object, stored (compiled, one per ``=``)
        _PASS_ENTRIES[key] = entry
    return entry


def _pass_in_trick(seat: int) -> Any:
    entry: Any = _PASSES_IN_TRICK.get(seat)
    if entry is None:
        entry = (seat, PASS)
        _PASSES_IN_TRICK[seat] = entry
    return entry


class TrickState(NamedTuple):
    """The trick in progress as one value."""

    top: int | None  # the play on top, None on lead
    top_seat: int
    passed: int  # bit set of seats that passed (R11)
    revolution: bool  # R15, for the rest of the round
    reversed: bool  # the order in force
    marks: int  # the parts' state of the trick (reports.py: the jack back, the lock), 0 at first
    owed: OwedAction | None  # a seven pass or ten discard to make now (R36, R37)


class Round:
    """The state of one round in play."""

    __slots__ = (
        "_fast",
        "_follows",
        "_legal",
        "_owed_queue",
        "_resume_clear",
        "bottom_place",
        "bottom_seats",
        "discarded",
        "fallen",
        "finished",
        "give_receivers",
        "hands",
        "history",
        "last_move",
        "last_seat",
        "log",
        "marks",
        "out_of_play",
        "owed",
        "passed",
        "places",
        "players",
        "previous_president",
        "recording",
        "reversed_now",
        "revolution",
        "rules",
        "ruleset",
        "straights_played",
        "ties_cover",
        "top_place",
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
        previous_president: int = -1,
    ) -> None:
        self.rules = rules
        self.ruleset = rs = ruleset_for(rules)
        self._fast = rs.fast_tables
        self._follows = rs.follows_play
        self.players = len(hands)
        #: the two flags the set tables take, as the parts declare them (R6, R10)
        self.ties_cover = rs.ties_cover
        self.straights_played = rs.plays_straights
        self.hands = list(hands)
        self.turn = leader
        self.revolution = revolution
        #: the order in force: the revolution's, unless a part turned it for the trick (R32)
        self.reversed_now = revolution
        #: the parts' state of the trick, each report at its own bits (reports.py)
        self.marks = 0
        self.owed: OwedAction | None = None
        self._owed_queue: list[tuple[str, int]] = []
        self._resume_clear = False
        self.previous_president = previous_president
        self.finished: list[int] = []  # seats gone out, in the order they went (R20)
        self.places: list[int] = [-1] * self.players  # the seat of each place, -1 while free
        self.top_place = 0
        self.bottom_place = self.players - 1
        self.bottom_seats: list[int] = []  # seats placed from the bottom (R34, R35), in order
        self.fallen = 0  # bit set of seats a part made fall out of the round (R35)
        self.out_of_play = [0] * self.players  # their cards, which left the round unseen
        self.discarded = 0  # cards of the ten discards (R37), seen by everyone
        self.give_receivers: list[tuple[int, int]] = []  # (history index, receiver) of gives
        for seat in finished or []:
            self.places[self.top_place] = seat
            self.top_place += 1
            self.finished.append(seat)
        self.last_move: int | None = None  # the play on top of the trick, None on lead
        self.last_seat = -1
        self.passed = 0  # bit set of seats that passed in this trick (R11)
        self.trick: list[tuple[int, int]] = []  # (seat, move) of the trick in progress
        self.trick_number = 0
        self.history: list[tuple[int, int, int]] = []  # (trick number, seat, move) this round
        self.log: list[Event] | None = None
        self._legal: list[int] | None = None
        #: whether actions are written to ``trick`` and ``history`` (off in :meth:`playout`)
        self.recording = True

    def clone(self) -> Round:
        """An independent copy of this round (for search and what-if analysis); no event log."""
        return self._copy(self.hands, self.recording)

    def playout(self, hands: list[int]) -> Round:
        """A copy of this round with ``hands`` dealt, for a simulated finish (search).

        It keeps no record: ``trick``, ``history`` and the gives' receivers start empty and stay
        so, and there is no event log; everything the rules read (hands, the trick's state,
        places, what is owed) moves on as in any round, so its moves and places are the same.
        """
        return self._copy(hands, False)

    def _copy(self, hands: list[int], recording: bool) -> Round:
        # The constructor, then every field: compiled classes have no bare ``__new__``.
        other = Round(self.rules, hands, self.turn)
        other._owed_queue = list(self._owed_queue)
        other._resume_clear = self._resume_clear
        other.bottom_place = self.bottom_place
        other.bottom_seats = list(self.bottom_seats)
        other.discarded = self.discarded
        other.fallen = self.fallen
        other.finished = list(self.finished)
        other.last_move = self.last_move
        other.last_seat = self.last_seat
        other.marks = self.marks
        other.out_of_play = list(self.out_of_play)
        other.owed = self.owed
        other.passed = self.passed
        other.places = list(self.places)
        other.players = self.players
        other.previous_president = self.previous_president
        other.reversed_now = self.reversed_now
        other.revolution = self.revolution
        other.top_place = self.top_place
        other.trick_number = self.trick_number
        other.turn = self.turn
        other.recording = recording
        if recording:
            other.give_receivers = list(self.give_receivers)
            other.history = list(self.history)
            other.trick = list(self.trick)
        other.log = None
        other._legal = None
        return other

    # -- reading the state ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.turn < 0

    @property
    def reversed_order(self) -> bool:
        """Whether the order in force is reversed (a revolution, or a part's turn of the order
        for the trick such as a jack back, not both)."""
        return self.reversed_now

    @property
    def state(self) -> TrickState:
        return TrickState(
            self.last_move,
            self.last_seat,
            self.passed,
            self.revolution,
            self.reversed_now,
            self.marks,
            self.owed,
        )

    def order(self) -> list[int]:
        """Seats by place (1st first); free places are left out while the round goes on."""
        return [s for s in self.places if s >= 0]

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
            if self._fast and self.owed is None and self.turn >= 0:
                legal = legal_plays(
                    self.hands[self.turn],
                    self.last_move,
                    self.reversed_now,
                    self.ties_cover,
                    self.straights_played,
                )
                if self.last_move is not None:
                    legal.append(PASS)
            elif self.turn < 0:
                legal = []
            elif self.owed is not None:
                owed = self.owed
                legal = owed_moves(self.hands[self.turn], owed.number, OWED_FLAG[owed.owed])
            else:
                legal = self._plays(self.hands[self.turn])
                if self.last_move is not None:
                    legal.append(PASS)
            self._legal = legal
        return legal

    def _plays(self, hand: int) -> list[int]:
        """The generic path: the set tables, the plays the parts add, then their filters; the
        table path whenever no part needs more in this state."""
        rs = self.ruleset
        last = self.last_move
        for part in rs.generic:
            if part.generic_now(self):
                break
        else:
            return legal_plays(
                hand, last, self.reversed_now, self.ties_cover, self.straights_played
            )
        old = play_info(last) if last is not None else None
        out = set_plays(hand, old, self.reversed_now, self.ties_cover)
        for part in rs.extras:
            more = part.extra_plays(self, hand, old)
            if more:
                out += more
        for part in rs.filters:
            out = part.filter_plays(self, out)
        return out

    def check(self, seat: int, move: int) -> Refusal | None:
        """Why ``seat`` may not make ``move`` now, or None when it may."""
        if self.turn < 0:
            return refuse("round_over", "R20", "the round is over")
        if not 0 <= seat < self.players:
            return refuse("no_such_seat", "R12", f"there is no seat {seat}", seat=seat)
        if self.fallen >> seat & 1:
            return refuse(
                "fallen",
                "R35",
                f"seat {seat} lost the presidency this round and plays no more",
                seat=seat,
            )
        if self.owed is not None:
            return self._check_owed(seat, move)
        if move & GIVE:
            if GIVE_OWED in self.ruleset.owed_kinds:
                return refuse(
                    "give_not_owed", "R36", "no give is owed: cards are given after a play of 7s"
                )
            return refuse(
                "not_exchange", "R25", "cards are given only during the exchange before a round"
            )
        if move & DISCARD:
            return refuse(
                "discard_not_owed",
                "R37",
                "no discard is owed: cards are discarded after a play of 10s"
                + (
                    ""
                    if DISCARD_OWED in self.ruleset.owed_kinds
                    else ", and the ten discard is not played here"
                ),
            )
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
        return self._check_play(seat, move)

    def _check_owed(self, seat: int, move: int) -> Refusal | None:
        owed = self.owed
        assert owed is not None
        rule = OWED_RULE[owed.owed]
        verb = "give" if owed.owed == GIVE_OWED else "discard"
        if seat != owed.seat:
            return refuse(
                f"{owed.owed}_owed",
                rule,
                f"seat {owed.seat} must first {verb} {owed.number} card(s); no one else acts "
                "until then",
                seat=owed.seat,
                count=owed.number,
                owed=owed.owed,
            )
        if move == PASS or not move & OWED_FLAG[owed.owed]:
            return refuse(
                f"{owed.owed}_owed",
                rule,
                f"seat {seat} must {verb} {owed.number} card(s) before anything else",
                seat=seat,
                count=owed.number,
                owed=owed.owed,
            )
        cards = move & CARDS_MASK
        missing = cards & ~self.hands[seat]
        if missing:
            names = " ".join(card_name(c) for c in cards_of(missing))
            return refuse(
                "card_not_in_hand", rule, f"not in seat {seat}'s hand: {names}", cards=names
            )
        if cards.bit_count() != owed.number or move & ~(CARDS_MASK | OWED_FLAG[owed.owed]):
            return refuse(
                "owed_count",
                rule,
                f"seat {seat} must {verb} exactly {owed.number} card(s)",
                count=owed.number,
                given=cards.bit_count(),
            )
        return None

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
        for part in self.ruleset.off_refusers:  # a straight where straights are off
            refusal = part.refuse_off(self, move)
            if refusal is not None:
                return refusal
        largest = self.ruleset.largest_set
        try:
            info = analyse(move)
        except PlayShapeError as shape:
            if shape.code == "set_too_large" or (
                shape.code == "five_set_shape" and largest <= MAX_SET_SIZE
            ):
                return _set_too_large(largest, cards.bit_count())
            return Refusal(shape.code, shape.rule, shape.message, dict(shape.params))
        if not info.straight and info.size > largest:
            return _set_too_large(largest, info.size)
        if move & DECLARATIONS_MASK and not info.straight and not self.ruleset.set_joker_suits:
            return refuse(
                "joker_suit_not_named_here",
                "R5",
                "a joker in a set stands for the set's rank and names no suit under these rules: "
                "declare no suit for it",
            )
        if self.last_move is not None:
            old = play_info(self.last_move)
            if info.straight != old.straight:
                if old.straight:
                    return refuse(
                        "set_on_straight",
                        "R9",
                        f"a straight of {old.size} was led: only a straight of {old.size} "
                        "may follow",
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
            reversed_order = self.reversed_now
            if not beats(info, old, reversed_order, self.ties_cover) and not any(
                part.covers(self, move, info, old) for part in self.ruleset.coverers
            ):
                for part in self.ruleset.cover_refusers:  # R33, R10's jokers and equal plays
                    refusal = part.refuse_cover(self, move, info, old)
                    if refusal is not None:
                        return refusal
                return _does_not_beat(
                    info, old, reversed_order, self.ties_cover, reversed_order != self.revolution
                )
        for part in self.ruleset.refusers:
            refusal = part.refuse(self, seat, move, info)
            if refusal is not None:
                return refusal
        return None

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
        recording = self.recording
        if move == PASS:
            if recording:
                self.history.append(_pass_entry(self.trick_number, seat))
                self.trick.append(_pass_in_trick(seat))
            self.passed |= 1 << seat
            self._next_turn(seat)
            return
        if self.owed is not None:  # only a give or a discard is legal now
            self._make_owed(seat, move)
            return
        if recording:
            self.history.append((self.trick_number, seat, move))
            self.trick.append((seat, move))
        hand = self.hands[seat] & ~move
        self.hands[seat] = hand
        reversed_before = self.reversed_now
        # R14, R17, R33: the ruleset's one answer, by the order in force before the play
        clears = self.ruleset.clears(move, reversed_before, self.last_move)
        if not self._follows:
            self.last_move = move
            self.last_seat = seat
            if not hand:
                self._go_out(seat, FINISH)
                if self._round_ends():
                    return
        elif self._follow_play(seat, move, play_info(move), hand, reversed_before, clears):
            return
        if clears:
            self._end_trick(seat, True)
        else:
            self._next_turn(seat)

    def _follow_play(
        self, seat: int, move: int, info: PlayInfo, hand: int, reversed_before: bool, clears: bool
    ) -> bool:
        """The parts' part of a play; True when the round ended or a give or discard is owed.

        ``clears`` is the ruleset's answer for the play (:meth:`Ruleset.clears`).
        """
        rs = self.ruleset
        for part in rs.after:
            part.after_play(self, seat, move, info)  # R15, R31, R32: the top is still the old
        if not hand:
            how = FINISH
            for part in rs.finishers:
                if part.finish_from_bottom(self, seat, move, info, reversed_before):
                    how = part.finish_how
                    break
            self.last_move = move
            self.last_seat = seat
            self._go_out(seat, how)
            if self._round_ends():
                return True
        else:
            self.last_move = move
            self.last_seat = seat
            if rs.owers:
                queue = []
                for part in rs.owers:
                    owes = part.owes(self, seat, move)
                    if owes is not None:
                        queue.append(owes)
                if queue:
                    self._owed_queue = queue
                    self._resume_clear = clears
                    if self._next_owed(seat):
                        return True
        if clears:
            self._end_trick(seat, True)
        else:
            self._next_turn(seat)
        return True

    def _next_owed(self, seat: int) -> bool:
        """Make the next owed give or discard of ``seat`` current; False when none is left."""
        queue = self._owed_queue
        while queue:
            kind, counted = queue.pop(0)
            count = min(counted, self.hands[seat].bit_count())
            if not count:
                continue
            receiver = self.next_holder(seat) if kind == GIVE_OWED else -1
            owed = OwedAction(seat, kind, count, receiver)
            self.owed = owed
            self.turn = seat
            if self.log is not None:
                self.log.append(owed)
            return True
        self.owed = None
        return False

    def skip_owed(self, seat: int) -> None:
        """Drop what ``seat`` owes and go on as if it were made (rebuilding a past trick)."""
        self.owed = None
        self._owed_queue = []
        if self._resume_clear:
            self._end_trick(seat, True)
        else:
            self._next_turn(seat)

    def _make_owed(self, seat: int, move: int) -> None:
        owed = self.owed
        assert owed is not None
        cards = move & CARDS_MASK
        if self.recording:
            self.history.append((self.trick_number, seat, move))
        self.hands[seat] &= ~cards
        if owed.owed == GIVE_OWED:
            self.hands[owed.receiver] |= cards
            if self.recording:
                self.give_receivers.append((len(self.history) - 1, owed.receiver))
            if self.log is not None:
                self.log.append(Gave(seat, owed.receiver, cards, owed.number))
        else:
            self.discarded |= cards
            if self.log is not None:
                self.log.append(Discarded(seat, cards))
        self.owed = None
        if not self.hands[seat]:
            self._owed_queue = []
            self._go_out(seat, FINISH)  # going out by a give or discard is never forbidden
            if self._round_ends():
                return
        elif self._next_owed(seat):
            return
        if self._resume_clear:
            self._end_trick(seat, True)
        else:
            self._next_turn(seat)

    def _go_out(self, seat: int, how: str) -> None:
        """``seat`` takes the highest free place, or the lowest for ``how`` from the bottom."""
        if how == FINISH:
            place = self.top_place
            self.top_place += 1
        else:
            place = self.bottom_place
            self.bottom_place -= 1
            self.bottom_seats.append(seat)
        self.places[place] = seat
        self.finished.append(seat)
        if self.log is not None:
            self.log.append(_new_event(WentOut, (seat, place, how)))
        for part in self.ruleset.placers:
            part.after_place(self, seat, place)

    def fall(self, seat: int, how: str) -> None:
        """``seat`` falls out of the round (R35): the lowest free place, told as ``how``; its
        cards leave unseen."""
        self.out_of_play[seat] = self.hands[seat]
        self.hands[seat] = 0
        self.fallen |= 1 << seat
        self._go_out(seat, how)

    def _round_ends(self) -> bool:
        """End the round when fewer than two seats hold cards (R20, R40)."""
        holders = [s for s in range(self.players) if self.hands[s]]
        if len(holders) > 1:
            return False
        for last in holders:  # the one seat left takes the one free place
            place = self.top_place
            self.top_place += 1
            self.places[place] = last
            self.finished.append(last)
            if self.log is not None:
                self.log.append(_new_event(WentOut, (last, place, LAST)))
        self.turn = -1
        self.owed = None
        self._owed_queue = []
        return True

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
        self._end_trick(last, False)

    def _end_trick(self, winner: int, cleared: bool) -> None:
        self.trick_number += 1
        if self.recording:
            self.trick = []
        self.last_move = None
        self.last_seat = -1
        self.passed = 0
        self.turn = leader = winner if self.hands[winner] else self.next_holder(winner)
        log = self.log
        if log is not None:
            log.append(_new_event(TrickEnded, (winner, leader, cleared)))
        marks = self.marks
        if marks:
            # The parts' state lasts for the trick (R31, R32): the next one is played in the
            # revolution's order.
            self.marks = 0
            self.reversed_now = self.revolution
            for part in self.ruleset.trick_enders:
                part.end_trick(self, marks)


def owed_moves(hand: int, count: int, flag: int) -> list[int]:
    """Every choice of ``count`` cards of ``hand`` for a give or discard, each once."""
    bits = [1 << card for card in cards_of(hand)]
    return [flag + sum(chosen) for chosen in combinations(bits, count)]


def _set_too_large(largest: int, size: int) -> Refusal:
    return refuse(
        "set_too_large",
        "R5",
        f"a set holds at most {largest} cards under these rules",
        size=size,
        largest=largest,
    )


def _does_not_beat(
    new: PlayInfo, old: PlayInfo, revolution: bool, equal: bool, trick_reversed: bool = False
) -> Refusal:
    """The R10 refusal for a play of the right shape that is not high (or low) enough.

    ``revolution`` is the order in force; when a part turned it for the trick (R32's jack back)
    the message says so. What
    the parts say first (a set made only of jokers, an equal play while equal plays are off, the
    3♠ on a joker) is theirs (:meth:`~cardverse.engine.parts.base.Part.refuse_cover`).
    """
    reason = "the order is reversed (jack back, R32)" if trick_reversed else "during a revolution"
    if old.straight:
        if revolution:
            need = "a lower bottom" + (" or an equal one" if equal else "")
            return refuse(
                "straight_too_high",
                "R10",
                f"{reason} a straight must have {need} than "
                f"{RANK_WORDS[old.bottom]}, its bottom is {RANK_WORDS[new.bottom]}",
                need=RANK_WORDS[old.bottom],
                got=RANK_WORDS[new.bottom],
                equal_plays=equal,
                trick_reversed=trick_reversed,
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
            trick_reversed=trick_reversed,
        )
    direction = "lower" if revolution else "higher"
    during = f"{reason} " if revolution else ""
    return refuse(
        "set_too_low" if not revolution else "set_too_high",
        "R10",
        f"{RANK_WORDS[new.rank]} does not beat {RANK_WORDS[old.rank]}: {during}play a "
        f"{direction} rank" + (" or the same rank" if equal else ""),
        need=RANK_WORDS[old.rank],
        got=RANK_WORDS[new.rank],
        equal_plays=equal,
        trick_reversed=trick_reversed,
    )


__all__ = [
    "Round",
]
