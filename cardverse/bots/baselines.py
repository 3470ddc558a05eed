"""Test opponents for the arena, built independently of the ``normal`` policy (issue 14).

They are not levels offered to players (:data:`cardverse.bots.BOT_LEVELS` does not list them):
the arena fields them to measure the ``hard`` bot against players unlike its own model.

- :class:`FlatMonteCarloBot` (``montecarlo``): the textbook determinized Monte Carlo player. It
  samples deals of the unseen cards uniformly (hand sizes and its own exchange respected, no
  inference from the play), splits its playout budget evenly over its legal moves, and finishes
  every playout greedily: each seat plays its lowest legal play (the easy bot's rule, R28).
  It plays the move with the best mean points.
- :class:`StructureBot` (``structure``): a fast heuristic that keeps the shape of its hand. It
  counts the plays still needed to empty the hand (one per rank group, fewer with straights),
  leads its weakest whole group, covers with the play that leaves the fewest plays needed while
  keeping its control cards (clearing plays by the ruleset, jokers), and spends a control
  card only when few plays are left or the player on top is about to go out.
"""

from __future__ import annotations

import random

from ..engine import DISCARD, GIVE, PASS, PlayerView
from ..engine.rounds import Round
from ..engine.ruleset import ruleset_for
from .base import BotBase
from .easy import lowest_give, lowest_key
from .knowledge import Knowledge
from .models import plays_needed, structure_play
from .normal import view_context
from .positions import round_of_view

__all__ = ["BASELINES", "FlatMonteCarloBot", "StructureBot", "make_baseline", "plays_needed"]

BASELINES: tuple[str, ...] = ("montecarlo", "structure")
DEFAULT_PLAYOUTS = 300


def _lowest(legal: list[int], revolution: bool) -> int:
    plays = [m for m in legal if m != PASS]
    if not plays:
        return PASS
    return min(plays, key=lambda m: lowest_key(m, revolution))


def greedy_playout(round_: Round, me: int) -> int:
    """Finish ``round_`` with every seat on its lowest legal play; the points of ``me`` (R22)."""
    held = round_.hands
    while round_.turn >= 0 and held[me]:
        legal = round_.legal_moves()
        if len(legal) == 1 or legal[0] & (GIVE | DISCARD):
            move = legal[0]
        else:
            move = _lowest(legal, round_.reversed_now)
        round_.apply_unchecked(move)
    return round_.players - round_.places.index(me)


class FlatMonteCarloBot(BotBase):
    """Uniform deals, even split of the budget over the legal moves, greedy playouts."""

    level = "montecarlo"

    def __init__(self, *, seed: int | None = None, playouts: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.playouts = playouts if playouts is not None else DEFAULT_PLAYOUTS

    def decide(self, view: PlayerView) -> int:
        legal = list(view.legal_moves)
        if legal[0] & GIVE and view.phase == "exchange":
            return lowest_give(view)
        knowledge = Knowledge.of(view)
        template = round_of_view(view)
        me = view.seat
        totals = [0] * len(legal)
        rounds = max(1, self.playouts // len(legal))
        for _ in range(rounds):
            hands = knowledge.sample(self.rng)
            for index, move in enumerate(legal):
                round_ = template.clone()
                round_.hands = list(hands)
                round_.apply_unchecked(move)
                totals[index] += greedy_playout(round_, me)
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        return legal[best]


# -- the structure-keeping heuristic: its rules are :func:`.models.structure_play` ----------------


class StructureBot(BotBase):
    """Minimises the plays needed to empty its hand and keeps its control cards."""

    level = "structure"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed

    def decide(self, view: PlayerView) -> int:
        legal = list(view.legal_moves)
        if legal[0] & (GIVE | DISCARD):
            return lowest_give(view)
        rules = view.rules
        last_move, opponent_min, last_count = view_context(view)
        return structure_play(
            view.hand,
            legal,
            last_move is None,
            view.reversed_order,
            ruleset_for(rules),
            ruleset_for(rules).plays_straights,
            opponent_min,
            last_count,
        )


def make_baseline(kind: str, *, seed: int | None = None, playouts: int | None = None) -> BotBase:
    """Build a baseline opponent: ``montecarlo`` or ``structure`` (see the module's doc)."""
    if kind == "montecarlo":
        return FlatMonteCarloBot(seed=seed, playouts=playouts)
    if kind == "structure":
        return StructureBot(seed=seed)
    raise ValueError(f"unknown baseline {kind!r}: choose one of {', '.join(BASELINES)}")
