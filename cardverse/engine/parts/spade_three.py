"""Spade three (R33, R40): a lone 3♠ covers and beats a lone joker, in either order, and clears.

The part adds the play (the tables do not hold it), lets it cover, makes it a clearing play and
says why anything else does not cover a lone joker while the rule is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..plays import PlayInfo, play_info
from ..refusals import Refusal, refuse
from .base import LONE_JOKER, N_, SWITCH, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState

#: the value of R45: the 3♠ covers a lone joker whatever lock is in force
OVER_LOCK = "over_lock"
THREE_OF_SPADES = 3  # rank 0 (the 3), suit 3 (spades)
SPADE_THREE_MOVE = 1 << THREE_OF_SPADES


def is_lone_joker(move: int | None) -> bool:
    if move is None:
        return False
    info = play_info(move)
    return info.all_jokers and info.size == 1


class SpadeThree(Part):
    spec = OptionSpec(
        name="spade_three",
        kind=SWITCH,
        default=False,
        rule="R33",
        choices=(OVER_LOCK,),
        aliases={"off": False, "on": True},
        presets={"daifugo": True, "uecda": OVER_LOCK},
        requires=("jokers", 1),
        page="spade-three",
    )
    words = Words(
        label=N_("Spade three"),
        help=N_("The 3 of spades alone beats a lone joker and clears the pile."),
        sheet=(
            SheetLine(
                N_(
                    "The 3 of spades played alone beats a lone joker, in either order, and clears "
                    "the pile."
                )
            ),
            SheetLine(
                N_("A lock binds the 3 of spades played on a joker too."), "@lock&spade_three=True"
            ),
            SheetLine(
                N_(
                    "The 3 of spades covers a lone joker whatever lock is in force: no lock binds "
                    "the 3 of spades played on a lone joker."
                ),
                "@lock&spade_three=over_lock",
            ),
            # What covers a set made only of jokers (R5, R10), with the spade three and without
            # it: the sheet says one of these where the jokers are (each names this option).
            SheetLine(
                N_(
                    "The joker played alone beats every other single card; only the 3 of spades "
                    "played alone can cover it."
                ),
                "jokers=1&spade_three",
                LONE_JOKER,
            ),
            SheetLine(
                N_("The joker played alone beats every single card, and nothing can cover it."),
                "jokers=1&!spade_three",
                LONE_JOKER,
            ),
            SheetLine(
                N_(
                    "A set made only of jokers (a joker alone, or both jokers as a pair) beats "
                    "every other set of its size. A joker alone can be covered only by the other "
                    "joker or by the 3 of spades played alone; nothing can cover the pair of "
                    "jokers."
                ),
                "jokers=2&equal_plays&spade_three",
                LONE_JOKER,
            ),
            SheetLine(
                N_(
                    "A set made only of jokers (a joker alone, or both jokers as a pair) beats "
                    "every other set of its size. A joker alone can be covered only by the other "
                    "joker; nothing can cover the pair of jokers."
                ),
                "jokers=2&equal_plays&!spade_three",
                LONE_JOKER,
            ),
            SheetLine(
                N_(
                    "A set made only of jokers (a joker alone, or both jokers as a pair) beats "
                    "every other set of its size. Only the 3 of spades played alone can cover a "
                    "joker alone; nothing can cover the pair of jokers."
                ),
                "jokers=2&!equal_plays&spade_three",
                LONE_JOKER,
            ),
            SheetLine(
                N_(
                    "A set made only of jokers (a joker alone, or both jokers as a pair) beats "
                    "every other set of its size, and nothing can cover it."
                ),
                "jokers=2&!equal_plays&!spade_three",
                LONE_JOKER,
            ),
        ),
        values=((OVER_LOCK, N_("Also over a lock")),),
        refusals=(
            (
                "beat_joker_spade_three",
                {
                    True: N_(
                        "A lone joker can be covered only by the 3 of spades or by the other joker."
                    ),
                    False: N_("A lone joker can be covered only by the 3 of spades."),
                },
            ),
        ),
    )
    house_rule = True
    fast_tables = False  # adds a play the tables do not hold
    fast_playouts = False  # the shortcut never plays it
    refusal_first = True  # its refusal narrows the jokers' one (R10) for a lone joker

    def active(self, options: Mapping[str, Any]) -> bool:
        return bool(options["spade_three"]) and options["jokers"] > 0

    def generic_now(self, round_: RoundState) -> bool:
        return is_lone_joker(round_.last_move)

    def extra_plays(self, round_: RoundState, hand: int, old: PlayInfo | None) -> list[int]:
        if old is not None and old.all_jokers and old.size == 1 and hand & SPADE_THREE_MOVE:
            return [SPADE_THREE_MOVE]
        return []

    def covers(self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo) -> bool:
        return move == SPADE_THREE_MOVE and old.all_jokers and old.size == 1

    def refuse_cover(
        self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo
    ) -> Refusal | None:
        if not (old.all_jokers and old.size == 1):
            return None
        equal = round_.ties_cover
        return refuse(
            "beat_joker_spade_three",
            "R33",
            "a lone joker can be covered only by the 3♠"
            + (" or by the other joker" if equal else ""),
            equal_plays=equal,
        )

    def clears(self, move: int, top: int | None, reversed_before: bool) -> bool:
        return move == SPADE_THREE_MOVE and is_lone_joker(top)

    def free_of_lock(self, round_: RoundState, move: int) -> bool:
        # R45: with ``over_lock`` no lock binds the 3♠ on a lone joker (R40: with on, it does)
        return (
            move == SPADE_THREE_MOVE
            and round_.rules.spade_three == OVER_LOCK
            and is_lone_joker(round_.last_move)
        )


PART = SpadeThree()
