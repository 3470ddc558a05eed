"""Suit lock (R31, R40): a play with the same suits as the play it covers locks the trick to them.

Neither play may hold a joker. While the lock lasts (to the end of the trick) every play's natural
cards must be of the locked suits; a joker may stand in for a missing suit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import JOKER_MASK, NUM_RANKS, SUIT_NAMES
from ..events import TrickStateChanged
from ..plays import PlayInfo
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
    mismatch="it does not match the trick (R31: a play in exactly the suits of the play it "
    "covers, neither holding a joker, locks the trick to those suits)",
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
                "jokers",
            ),
            SheetLine(
                N_("A lock binds the 3 of spades played on a joker too."), "spade_three=True"
            ),
            SheetLine(
                N_(
                    "The 3 of spades covers a lone joker whatever lock is in force: no lock binds "
                    "the 3 of spades played on a lone joker."
                ),
                "spade_three=over_lock",
            ),
            SheetLine(N_("Everyone sees whether a lock is in force, and on which suits.")),
        ),
        values=((True, N_("Natural cards")), (WITH_JOKERS, N_("With jokers"))),
    )
    house_rule = True
    reports = (LOCK,)
    fast_tables = False  # the generic filter drops plays outside the lock
    fast_playouts = False  # suits matter

    def generic_now(self, round_: RoundState) -> bool:
        return round_.marks >> _SHIFT & 15 != 0

    def filter_plays(self, round_: RoundState, plays: list[int]) -> list[int]:
        lock = round_.marks >> _SHIFT & 15
        if not lock:
            return plays
        outside = 15 & ~lock
        rulebook = round_.ruleset
        return [
            m
            for m in plays
            if not play_suits(m) & outside or rulebook.free_of_lock(round_, m)  # R45
        ]

    def refuse(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> Refusal | None:
        lock = round_.marks >> _SHIFT & 15
        if not lock or not play_suits(move) & ~lock:
            return None
        if round_.ruleset.free_of_lock(round_, move):  # R45
            return None
        names = " ".join(suit_names(lock))
        return refuse(
            "outside_lock",
            "R31",
            f"the trick is locked to {names}: play only cards of those suits (a joker may "
            "stand in for one)",
            suits=suit_names(lock),
        )

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        old = round_.last_move
        if round_.marks >> _SHIFT & 15 or old is None or move & JOKER_MASK or old & JOKER_MASK:
            return
        suits = play_suits(move)
        if suits == play_suits(old):
            round_.marks |= suits << _SHIFT
            if round_.log is not None:
                round_.log.append(TrickStateChanged(LOCK, suits))


PART = SuitLock()
