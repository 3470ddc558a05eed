"""Forbidden finish (R34, R40): going out on a strong card takes the lowest free place.

A play is a forbidden finish when it is the player's last card and it holds a joker or a
natural card of a rank that takes control (the clearing rank in force before it, and the ranks
parts make clearing: the eight stop's 8s), or it is a clearing play by another part's rule
(the spade three's 3♠ on a joker). The ruleset answers both questions (:class:`Rulebook`), so
this part names no other rule. Going out by a give or a discard is never one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import JOKER_MASK, rank_cards
from ..plays import PlayInfo
from .base import BOOL, N_, OptionSpec, Part, Rulebook, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState


def is_forbidden_finish(
    rulebook: Rulebook, move: int, reversed_before: bool, top: int | None
) -> bool:
    """Whether going out with ``move`` on ``top`` would be a forbidden finish (R34)."""
    if move & JOKER_MASK:
        return True
    if move & rank_cards(rulebook.control_ranks(reversed_before)):
        return True
    return rulebook.clears(move, reversed_before, top)


class ForbiddenFinish(Part):
    spec = OptionSpec(
        name="forbidden_finish",
        kind=BOOL,
        default=False,
        rule="R34",
        presets={"daifugo": True},
        page="forbidden-finish",
    )
    words = Words(
        went_out=(
            N_("Forbidden finish: you go out on a strong card and take place %(place)s."),
            N_("Forbidden finish: %(name)s goes out on a strong card and takes place %(place)s."),
        ),
        label=N_("Forbidden finish"),
        help=N_("Going out on a joker or a card that clears the pile takes the lowest free place."),
        sheet=(
            SheetLine(
                N_(
                    "Going out on a play that holds a card of the rank that clears the pile is a "
                    "forbidden finish: it takes the lowest free place. Such places fill from the "
                    "bottom."
                )
            ),
            SheetLine(
                N_("Going out on a play that holds a joker is a forbidden finish too."), "jokers"
            ),
            SheetLine(
                N_("Going out on a play that holds an 8 is a forbidden finish too."),
                "@eights_clear",
            ),
            SheetLine(
                N_("So is going out on the 3 of spades played on a joker."), "@joker_covered"
            ),
            SheetLine(
                N_("Going out by giving or discarding cards is never a forbidden finish."),
                "@gives|@discards",
            ),
            SheetLine(N_("Everyone sees which places were taken by a forbidden finish.")),
        ),
    )
    house_rule = True
    places_from_bottom = True
    finish_how = "forbidden"

    def finish_from_bottom(
        self, round_: RoundState, seat: int, move: int, info: PlayInfo, reversed_before: bool
    ) -> bool:
        return is_forbidden_finish(round_.ruleset, move, reversed_before, round_.last_move)

    def finishes_low(
        self, rulebook: Rulebook, move: int, reversed_before: bool, top: int | None
    ) -> bool:
        return is_forbidden_finish(rulebook, move, reversed_before, top)


PART = ForbiddenFinish()
