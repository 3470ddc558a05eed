"""A round built from what is known (notation.md positions, a player's view, a refusal check).

:func:`round_from_known` takes the public facts of a round at one moment (hand counts, the trick's
plays and passes, the order, places so far, what is owed) and the hands that are known (one seat's
own hand is enough; hidden hands are counts), and replays the trick through the rules of the
table's parts, so the parts' trick state (a lock, a jack back) and the revolution come from the
same code that plays; a trick state the facts give is checked against it.
Anything inconsistent raises :class:`PositionError` with a message that names the rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import DISCARD_OWED, GIVE_OWED, OwedAction
from .options import Rules
from .parts import REPORTS
from .pickling import by_constructor
from .plays import CARDS_MASK, GIVE, PASS, STRAIGHT, PlayShapeError, analyse
from .rounds import OWED_RULE, Round
from .ruleset import ruleset_for

_KEEP = 1 << 70  # a bit no move touches: keeps every hand non-empty while the trick is replayed


class PositionError(ValueError):
    """A position that cannot be: the message says what is wrong."""


@dataclass
class Known:
    """The facts of a round at one moment, as a position or a view gives them."""

    rules: Rules
    hands: list[int | None]  # known hands; None where only the count is known
    counts: list[int]  # cards every seat holds
    turn: int
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, move): plays, passes
    revolution: bool = False  # in force now, after every play of the trick
    finished: list[int] = field(default_factory=list)  # in the order they went out
    from_bottom: list[int] = field(default_factory=list)  # of those, placed from the bottom
    fallen: list[int] = field(default_factory=list)  # of those, fallen out of the round (R35)
    out_of_play: dict[int, int] = field(default_factory=dict)  # seat -> cards that left unseen
    #: the parts' trick state given, by report name (reports.py); one left out: the trick says
    reports: dict[str, int] = field(default_factory=dict)
    owed: tuple[str, int] | None = None  # (give or discard, count), owed by the seat on turn
    previous_president: int = -1
    trick_number: int = 0

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor


def placeholder(count: int) -> int:
    """A stand-in for a hidden hand of ``count`` cards (only its size is ever read)."""
    return (1 << count) - 1 if count else 0


def round_from_known(known: Known) -> Round:
    """The :class:`Round` these facts describe; raises :class:`PositionError`."""
    rules = known.rules
    ruleset = ruleset_for(rules)
    players = rules.players
    counts = known.counts
    hands = [
        h if h is not None else placeholder(c) for h, c in zip(known.hands, counts, strict=True)
    ]
    finished = known.finished
    for seat in range(players):
        if (counts[seat] == 0) != (seat in finished):
            if counts[seat] == 0:
                raise PositionError(f"seat {seat} holds no cards but is not listed in finished")
            raise PositionError(f"seat {seat} is listed in finished but still holds cards")
    if players - len(finished) < 2:
        raise PositionError("the round is over: fewer than two seats still hold cards")
    for seat in known.from_bottom:
        if seat not in finished:
            raise PositionError(f"seat {seat} is placed from the bottom but has not gone out")
    for seat in known.fallen:
        if seat not in known.from_bottom:
            raise PositionError(f"seat {seat} fell (R35) and so takes a place from the bottom")
        if not ruleset.reads_previous_president:
            raise PositionError("a seat fell (R35), but no option in force makes a seat fall")
    if known.from_bottom and not ruleset.places_from_bottom:
        raise PositionError(
            "places are taken from the bottom only with an option that places from the bottom "
            "(R34, R35)"
        )
    turn = known.turn
    if not counts[turn]:
        raise PositionError(f"seat {turn} is on turn but has gone out")
    if known.revolution and not rules.revolution:
        raise PositionError('"revolution" is true but the revolution option is off')

    # The order at the trick's start: walk back over its fours (R15).
    revolution = known.revolution
    if rules.revolution:
        for _, move in known.trick:
            if move != PASS and not move & STRAIGHT and (move & CARDS_MASK).bit_count() == 4:
                revolution = not revolution
    played = [0] * players
    for seat, move in known.trick:
        if move != PASS:
            played[seat] |= move & CARDS_MASK
    replay = Round(
        rules,
        [hands[s] | played[s] | _KEEP for s in range(players)],
        known.trick[0][0] if known.trick else turn,
        revolution=revolution,
        previous_president=known.previous_president,
    )
    last = len(known.trick) - 1
    for index, (seat, move) in enumerate(known.trick):
        where = f"trick[{index}]"
        if move == PASS:
            if replay.last_move is None:
                raise PositionError(f"{where}: a trick starts with a play, not a pass")
            replay.passed |= 1 << seat
            replay.trick.append((seat, move))
            replay.history.append((0, seat, move))
            continue
        if move & GIVE:
            raise PositionError(f"{where}: a trick holds plays and passes, not gives")
        try:
            analyse(move)
        except PlayShapeError as error:
            raise PositionError(f"{where}: {error.rule}: {error.message}") from None
        replay.turn = seat
        refusal = replay.check(seat, move)
        if refusal is not None:
            raise PositionError(f"{where}: {refusal.rule}: {refusal.message}")
        replay.apply_unchecked(move)
        if replay.owed is not None:
            if index == last and known.owed is not None:
                break  # the owed give or discard is the position's own
            replay.skip_owed(seat)  # made long ago: its cards are in the hands given
        if replay.last_move is None:
            if index == last and known.owed is not None:
                break
            raise PositionError(
                f"{where} is a clearing play, which ends the trick at once (R14): "
                "leave the trick empty and give the turn to the next leader"
            )
    round_ = replay
    round_.hands = hands
    round_.history = [(known.trick_number, s, m) for _, s, m in round_.history]
    round_.trick_number = known.trick_number
    round_.finished = []
    round_.places = [-1] * players
    round_.top_place, round_.bottom_place = 0, players - 1
    round_.bottom_seats = []
    for seat in finished:
        if seat in known.from_bottom:
            round_.places[round_.bottom_place] = seat
            round_.bottom_place -= 1
            round_.bottom_seats.append(seat)
        else:
            round_.places[round_.top_place] = seat
            round_.top_place += 1
        round_.finished.append(seat)
    for seat in known.fallen:
        round_.fallen |= 1 << seat
    for seat, count in known.out_of_play.items():
        round_.out_of_play[seat] = placeholder(count)
    _check_reports(round_, known)
    round_.owed = None
    round_._owed_queue = []
    round_.turn = turn
    if known.owed is not None:
        _set_owed(round_, known, turn)
    else:
        _check_turn(round_, known)
    round_._legal = None
    return round_


def _check_reports(round_: Round, known: Known) -> None:
    """Each trick state the facts give must be what the trick's plays lead to (R39)."""
    active = {report.name for report in ruleset_for(round_.rules).reports}
    for name, value in known.reports.items():
        report = next((r for r in REPORTS if r.name == name), None)
        if report is None:
            raise PositionError(f'"{name}" is no trick state of any option')
        if value and name not in active:
            raise PositionError(f'"{name}" is given but its option is off ({report.rule})')
        if value != report.read(round_.marks):
            raise PositionError(f'"{name}" is given, but {report.mismatch}')


def _set_owed(round_: Round, known: Known, turn: int) -> None:
    kind, count = known.owed or ("", 0)
    if kind not in (GIVE_OWED, DISCARD_OWED):
        raise PositionError('"owed" kind must be "give" or "discard"')
    rule = OWED_RULE[kind]
    owing = round_.ruleset.owed_kinds
    if kind not in owing:
        raise PositionError(f"a {kind} is owed but its option is off ({rule})")
    top = round_.trick[-1][1] if round_.trick else PASS
    if not round_.trick or round_.trick[-1][0] != turn or top == PASS:
        raise PositionError(
            f"a {kind} is owed by the seat that made the last play of the trick ({rule})"
        )
    # what the parts make the last play owe, in their order (a give before a discard: R38)
    owed_by_play: list[tuple[str, int]] = []
    for part in round_.ruleset.owers:
        owes = part.owes(round_, turn, top)
        if owes is not None:
            owed_by_play.append(owes)
    counted = next((number for what, number in owed_by_play if what == kind), 0)
    if not 1 <= count <= min(counted, known.counts[turn]):
        raise PositionError(
            f"the last play owes at most {min(counted, known.counts[turn])} card(s) to "
            f"{kind} ({rule}), not {count}"
        )
    receiver = round_.next_holder(turn) if kind == GIVE_OWED else -1
    round_.owed = OwedAction(turn, kind, count, receiver)
    kinds = [what for what, _ in owed_by_play]
    round_._owed_queue = owed_by_play[kinds.index(kind) + 1 :] if kind in kinds else []


def _check_turn(round_: Round, known: Known) -> None:
    turn = known.turn
    players = round_.players
    counts = known.counts
    if round_.last_move is None:
        return
    last = round_.last_seat
    others = [s for s in range(players) if s != last and counts[s] and not round_.passed >> s & 1]
    if not others:
        # Everybody else passed: by R13 the trick is over and its winner (or, when the winner
        # went out, the next seat still holding cards) leads a new one.
        leader = last if counts[last] else round_.next_holder(last)
        if turn != leader:
            raise PositionError(
                f"everybody else passed, so the trick is over and seat {leader} leads, "
                f"not seat {turn} (R13)"
            )
        round_.trick = []
        round_.last_move = None
        round_.last_seat = -1
        round_.passed = 0
        round_.marks = 0  # the parts' state lasts for the trick (R31, R32)
        round_.reversed_now = round_.revolution
        round_.trick_number = known.trick_number + 1
    elif round_.passed >> turn & 1:
        raise PositionError(f"seat {turn} passed in this trick and cannot be on turn")
    elif turn == last:
        raise PositionError(
            f"seat {turn} made the last play, yet seats {others} may still answer it"
        )


__all__ = [
    "Known",
    "PositionError",
    "round_from_known",
]
