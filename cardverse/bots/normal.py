"""The ``normal`` bot (R29): the heuristic policy of :mod:`cardverse.bots.policy`, from a view.

Before its rules of thumb it looks for a finishing line (:func:`finishing_line`): a sequence of
plays nobody can beat, or that clear the trick, ending with its last card; it plays it.
It keeps its clearing sets (2s, and whatever else the ruleset says clears), fours and jokers to
take back the lead, does not break up pairs and triples when it need not, and plays straights,
revolutions and clearing plays sensibly. It is deterministic: the seed is accepted for the common
interface only.
"""

from __future__ import annotations

import cardverse.bots.policy as policy

from ..engine import DISCARD, GIVE, PASS, PlayerView
from .base import BotBase
from .endgame import holders_of, sure_win
from .knowledge import Knowledge
from .positions import round_of_view
from .proof import deals_of, first_winning_move

FINISH_HAND = 10  # hand size from which normal looks for a finishing line first
PROOF_DEALS = 60  # few enough deals of the unseen cards for an exact check (and its budget)
PROOF_BUDGET = 600


def view_context(view: PlayerView) -> tuple[int | None, int, int]:
    """(play on top of the trick, fewest cards of an opponent, cards of the player on top)."""
    last_move: int | None = None
    last_seat = -1
    for seat, move in view.trick:
        if move != PASS:
            last_move, last_seat = move, seat
    counts = view.hand_counts
    others = [c for s, c in enumerate(counts) if s != view.seat and c]
    opponent_min = min(others) if others else 0
    last_count = counts[last_seat] if last_seat >= 0 else 0
    return last_move, opponent_min, last_count


def plain_sure_win(view: PlayerView, knowledge: Knowledge, last_move: int | None) -> int | None:
    """The first play of a line that clears or that no one can cover, to the last card, with
    the others' hand sizes and what the exchange told respected (:func:`sure_win`)."""
    holders = holders_of(knowledge.unseen, knowledge.counts, knowledge.pinned, view.seat)
    return sure_win(
        view.rules,
        view.hand,
        view.legal_moves,
        last_move,
        view.reversed_order,
        knowledge.unseen,
        holders=holders,
    )


def finishing_line(view: PlayerView, last_move: int | None) -> int | None:
    """The first play of a finishing line, or None: plays that clear the trick or that no deal
    of the unseen cards lets anyone cover (the others' hand sizes respected), ending with the
    last card (:func:`~cardverse.bots.endgame.sure_win`)."""
    legal = view.legal_moves
    if legal[0] & (GIVE | DISCARD) or view.hand.bit_count() > FINISH_HAND:
        return None
    knowledge = Knowledge.of(view)
    found = plain_sure_win(view, knowledge, last_move)
    if found is not None:
        return found
    # Late in a round the deals left are few: an exact check also finds the lines in which
    # the others may answer (a play they can cover only by giving up the lead for good).
    deals = deals_of(knowledge, PROOF_DEALS)
    if deals is None:
        return None
    return first_winning_move(round_of_view(view), view.seat, deals, PROOF_BUDGET)


class NormalBot(BotBase):
    """Keeps its control cards and its groups (R29); see :mod:`cardverse.bots.policy`."""

    level = "normal"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def decide(self, view: PlayerView) -> int:
        last_move, opponent_min, last_count = view_context(view)
        finish = finishing_line(view, last_move)
        if finish is not None:
            return finish
        return policy.choose(
            view.hand,
            view.legal_moves,
            last_move,
            view.reversed_order,
            policy.Style.of(view.rules),
            opponent_min,
            last_count,
        )
