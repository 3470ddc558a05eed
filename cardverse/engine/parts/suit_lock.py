"""Suit lock (R31, R40, R44): a play with the same suits as the play it covers locks the trick to
them.

With ``suit_lock`` on (natural, R31) neither play may hold a joker; while the lock lasts (to the
end of the trick) every play's natural cards must be of the locked suits, and a joker may stand in
for a missing suit. With ``with_jokers`` (R44) a joker stands for a card of a named suit: in a
straight the straight's suit, in a set a suit no other card of the set has, which the move
declares (:func:`~cardverse.engine.plays.declare_suit`; the legal moves list every declaration
once). A play's suits are then those of all its cards, jokers as named, and any play may start
or keep a lock; a set made only of jokers (a lone joker, both jokers as a pair) has no suit and
neither starts nor breaks one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..cards import (
    BLACK_JOKER,
    JOKER_MASK,
    JOKER_NAMES,
    NATURAL_MASK,
    NUM_RANKS,
    RED_JOKER,
    SUIT_NAMES,
)
from ..events import TrickStateChanged
from ..plays import STRAIGHT, PlayInfo, declare_suit, declared_suit, set_joker_suits
from ..refusals import Refusal, refuse
from .base import N_, SUITS, SWITCH, OptionSpec, Part, Report, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

#: the value of R44: jokers take a named suit, and any play may start or keep a lock
WITH_JOKERS = "with_jokers"
SUIT_MASKS = tuple(sum(1 << (rank * 4 + suit) for rank in range(NUM_RANKS)) for suit in range(4))


#: the suits the trick is locked to (R31, shown to everyone: R39)
LOCK = Report(
    name="lock",
    kind=SUITS,
    shift=1,
    rule="R31",
    meaning="the suits the trick is locked to",
    text=N_("Locked to %(suits)s"),
    symbol="⊠",
    mismatch="it does not match the trick (R31, R44: a play in exactly the suits of the play it "
    "covers locks the trick to those suits; under R31 neither may hold a joker, under R44 "
    "jokers count by the suits they name)",
    told=N_("Suit lock: until the trick ends, only %(suits)s."),
)
_SHIFT = LOCK.shift


def play_suits(move: int) -> int:
    """The suits of a play's natural cards, as a 4-bit set (bit 0 clubs … bit 3 spades)."""
    return (
        (1 if move & SUIT_MASKS[0] else 0)
        | (2 if move & SUIT_MASKS[1] else 0)
        | (4 if move & SUIT_MASKS[2] else 0)
        | (8 if move & SUIT_MASKS[3] else 0)
    )


def named_suits(move: int) -> int:
    """A play's suits under R44: its natural cards' and those its set's jokers name (a
    straight's jokers take its suit; a set made only of jokers has none)."""
    return play_suits(move) | set_joker_suits(move)


_DECLARATIONS: dict[int, tuple[int, ...]] = {}


def suit_declarations(move: int) -> tuple[int, ...]:
    """Every way the jokers of ``move`` may name their suits (R44), each exactly once: a set
    holding natural cards and jokers gives one move per choice of missing suits (which joker
    takes which is part of the choice); any other play, and a set of five (no suit is missing),
    gives itself."""
    if not move & JOKER_MASK or move & STRAIGHT or not move & NATURAL_MASK:
        return (move,)
    found = _DECLARATIONS.get(move)
    if found is None:
        missing = [suit for suit in range(4) if not play_suits(move) >> suit & 1]
        if not missing:
            found = (move,)
        elif move & JOKER_MASK == JOKER_MASK:
            found = tuple(
                declare_suit(declare_suit(move, RED_JOKER, red), BLACK_JOKER, black)
                for red in missing
                for black in missing
                if red != black
            )
        else:
            joker = RED_JOKER if move >> RED_JOKER & 1 else BLACK_JOKER
            found = tuple(declare_suit(move, joker, suit) for suit in missing)
        if len(_DECLARATIONS) > 100_000:
            _DECLARATIONS.clear()
        _DECLARATIONS[move] = found
    return found


def _with_jokers(round_: RoundState) -> bool:
    return bool(round_.rules.suit_lock == WITH_JOKERS)


def suit_names(suits: int) -> list[str]:
    return [SUIT_NAMES[s] for s in range(4) if suits >> s & 1]


class SuitLock(Part):
    spec = OptionSpec(
        name="suit_lock",
        kind=SWITCH,
        default=False,
        rule="R31",
        choices=(WITH_JOKERS,),
        aliases={"off": False, "on": True, "natural": True},
        presets={"daifugo": True, "uecda": WITH_JOKERS},
        page="suit-lock",
    )
    words = Words(
        label=N_("Suit lock"),
        help=N_("A play in exactly the suits of the one it covers locks the trick to them."),
        sheet=(
            SheetLine(
                N_(
                    "When a play covers a play in exactly the same suits, the trick is locked: "
                    "until it ends, play only cards of those suits."
                )
            ),
            SheetLine(
                N_(
                    "A lock needs two plays without jokers: a play holding a joker never starts "
                    "one, and neither does a play on a play holding a joker. Under a lock, a "
                    "joker may stand in for a card of a missing suit."
                ),
                "suit_lock=True&jokers",
            ),
            SheetLine(
                N_(
                    "A joker stands for a card of a named suit: in a straight, the straight's "
                    "suit; in a set, a suit that no other card of the set has, which you choose "
                    "as you play it. Its suit counts like any card's: a play holding a joker may "
                    "start a lock, and under a lock it must name one of the locked suits."
                ),
                "suit_lock=with_jokers&jokers",
            ),
            SheetLine(
                N_(
                    "A lone joker, or both jokers played as a pair, has no suit: it neither "
                    "starts nor breaks a lock, and may be played under one."
                ),
                "suit_lock=with_jokers&jokers",
            ),
            SheetLine(N_("Everyone sees whether a lock is in force, and on which suits.")),
        ),
        values=((True, N_("Natural cards")), (WITH_JOKERS, N_("Jokers too"))),
    )
    house_rule = True
    reports = (LOCK,)
    fast_tables = False  # the generic filter drops plays outside the lock
    fast_playouts = False  # suits matter

    def names_set_joker_suits(self, options: Mapping[str, Any]) -> bool:
        return bool(options["suit_lock"] == WITH_JOKERS)  # R44

    def generic_now(self, round_: RoundState) -> bool:
        if round_.marks >> _SHIFT & 15:
            return True
        # R44: a set's jokers name their suits, which the set tables do not
        return round_.rules.suit_lock == WITH_JOKERS and bool(
            round_.hands[round_.turn] & JOKER_MASK
        )

    def filter_plays(self, round_: RoundState, plays: list[int]) -> list[int]:
        lock = round_.marks >> _SHIFT & 15
        if round_.rules.suit_lock != WITH_JOKERS:  # R31
            if not lock:
                return plays
            rulebook = round_.ruleset
            outside = 15 & ~lock
            return [
                m
                for m in plays
                if not play_suits(m) & outside or rulebook.free_of_lock(round_, m)  # R45
            ]
        rulebook = round_.ruleset
        out: list[int] = []
        outside = 15 & ~lock if lock else 0
        for move in plays:
            for declared in suit_declarations(move):  # R44
                if (
                    not outside
                    or not named_suits(declared) & outside
                    or rulebook.free_of_lock(round_, declared)  # R45
                ):
                    out.append(declared)
        return out

    def refuse(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> Refusal | None:
        with_jokers = _with_jokers(round_)
        if with_jokers and move & JOKER_MASK and not info.straight and not info.all_jokers:
            missing = 15 & ~play_suits(move)
            for joker in (RED_JOKER, BLACK_JOKER):
                if missing and move >> joker & 1 and declared_suit(move, joker) is None:
                    name = JOKER_NAMES[joker]
                    return refuse(
                        "joker_suit_missing",
                        "R44",
                        f"say which card the joker {name} stands for in the set: under the suit "
                        "lock with jokers it names a suit the set does not hold ("
                        + " ".join(suit_names(missing))
                        + ")",
                        joker=name,
                        suits=suit_names(missing),
                    )
        lock = round_.marks >> _SHIFT & 15
        if not lock:
            return None
        suits = named_suits(move) if with_jokers else play_suits(move)
        if not suits & ~lock:
            return None
        if round_.ruleset.free_of_lock(round_, move):  # R45
            return None
        names = " ".join(suit_names(lock))
        return refuse(
            "outside_lock",
            "R44" if with_jokers else "R31",
            f"the trick is locked to {names}: play only cards of those suits "
            + ("(a joker names one of them)" if with_jokers else "(a joker may stand in for one)"),
            suits=suit_names(lock),
        )

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        old = round_.last_move
        if round_.marks >> _SHIFT & 15 or old is None:
            return
        if round_.rules.suit_lock != WITH_JOKERS:  # R31: neither play holds a joker
            if (move | old) & JOKER_MASK:
                return
            suits = play_suits(move)
            if suits != play_suits(old):
                return
        else:  # R44: jokers count by their named suits; a suitless play starts no lock
            suits = named_suits(move)
            if not suits or suits != named_suits(old):
                return
        round_.marks |= suits << _SHIFT
        if round_.log is not None:
            round_.log.append(TrickStateChanged(LOCK, suits))


PART = SuitLock()
