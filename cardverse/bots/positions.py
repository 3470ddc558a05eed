"""The round a view describes (R30): the public state of the table, with the seat's own hand.

Searches (the hard bot's playouts, the exact proofs, the baselines) fill in the hidden hands per
sampled or listed deal; :func:`round_of_view` builds the rest through the engine's
:func:`~cardverse.engine.positions.round_from_known`, so the rules in force judge every action.
"""

from __future__ import annotations

from ..engine import PlayerView
from ..engine.positions import Known, round_from_known
from ..engine.rounds import Round
from ..engine.ruleset import ruleset_for


def round_of_view(view: PlayerView) -> Round:
    """A :class:`Round` in the view's public state (hands are filled in per sampled deal)."""
    public = view.public
    rules = view.rules
    counts = list(view.hand_counts)
    hands: list[int | None] = [None] * rules.players
    hands[view.seat] = view.hand
    owed = view.owed
    reads_previous = ruleset_for(rules).reads_previous_president
    previous = view.places[-1][0] if view.places and reads_previous else -1
    return round_from_known(
        Known(
            rules=rules,
            hands=hands,
            counts=counts,
            turn=view.seat,
            trick=list(view.trick),
            revolution=view.revolution,
            finished=list(view.finished),
            from_bottom=list(public.from_bottom),
            fallen=list(public.fallen),
            out_of_play={s: c for s, c in enumerate(public.out_of_play) if c},
            reports=public.reported(),
            owed=None if owed is None else (owed.owed, owed.number),
            previous_president=previous,
        )
    )
