"""Downfall of the President (R35, R40): a new President sends the previous one to the bottom.

From round 2: when someone other than the previous round's President takes first place while
that President still holds cards, the previous President takes the lowest free place at once and
their cards leave the round unseen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BOOL, N_, OptionSpec, Part, SheetLine, Words

if TYPE_CHECKING:
    from .base import RoundState


class Downfall(Part):
    spec = OptionSpec(
        name="downfall",
        kind=BOOL,
        default=False,
        rule="R35",
        presets={"daifugo": True},
        page="downfall",
    )
    words = Words(
        went_out=(
            N_("Downfall: you lose the presidency and take place %(place)s."),
            N_("Downfall: %(name)s loses the presidency and takes place %(place)s."),
        ),
        label=N_("Downfall of the President"),
        help=N_("From round 2, a President who loses first place drops to the bottom."),
        sheet=(
            SheetLine(
                N_(
                    "From round 2, when someone other than the previous President goes out first "
                    "while the previous President still holds cards, the previous President takes "
                    "the lowest free place at once; their cards leave the round unseen."
                )
            ),
            SheetLine(
                N_("This holds too when first place is taken by giving or discarding cards."),
                "@gives|@discards",
            ),
            SheetLine(N_("Everyone sees which places were taken by a downfall.")),
        ),
    )
    house_rule = True
    cards_leave_by_plays = False  # a fallen President's cards leave the round unseen
    places_from_bottom = True
    reads_previous_president = True
    finish_how = "downfall"

    def after_place(self, round_: RoundState, seat: int, place: int) -> None:
        previous = round_.previous_president
        if place == 0 and previous >= 0 and seat != previous and round_.hands[previous]:
            round_.fall(previous, self.finish_how)


PART = Downfall()
