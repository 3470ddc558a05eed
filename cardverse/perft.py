"""Perft: the number of legal action sequences of a given length from a position, as chess
engines count them to check their move generation (python-chess keeps such files too).

:func:`perft` counts from a round (:class:`~cardverse.engine.Round`); a sequence that ends the
round before the depth is not counted, as a mate ends a chess perft line. The files
``tests/data/perft/<preset>.json`` hold positions of each preset (notation.md's position
objects) with their counts to depth 3; ``tests/test_perft.py`` recounts them, so a change to
the rules' move generation shows there. They were written once by::

    python -m cardverse.perft tests/data/perft

>>> from cardverse.engine import Game, Rules
>>> game = Game(Rules.make("standard", players=4), seed=1)
>>> [perft(game.round, depth) for depth in (1, 2)]
[17, 89]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from .engine import Game, Round, Rules
from .notation import position_to_json, read_position

#: the positions of each preset's file: (players, seed of the deal, random actions before)
POSITIONS: tuple[tuple[int, int, int], ...] = ((4, 1, 0), (4, 2, 0), (4, 3, 9), (5, 4, 17))
#: options beside the preset's own (more kinds of play to count)
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "standard": {},
    "cardverse": {},
    "daifugo": {"jokers": 2},
}
DEPTHS = (1, 2, 3)


def perft(round_: Round, depth: int) -> int:
    """The number of legal action sequences of exactly ``depth`` actions from ``round_``."""
    if depth == 0:
        return 1
    if round_.turn < 0:
        return 0
    moves = round_.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = round_.clone()
        child.apply(move)
        total += perft(child, depth - 1)
    return total


def positions(preset: str) -> list[dict[str, Any]]:
    """The preset's positions (notation.md's JSON) with their counts to depth 3."""
    out = []
    for players, seed, actions in POSITIONS:
        rules = Rules.make(preset, players=players, **PRESET_OPTIONS[preset])
        game = Game(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(actions):
            game.apply(rng.choice(game.legal_moves()))
        assert game.round is not None
        position = position_to_json(game.round, rules)
        round_ = read_position(position).round
        out.append({"position": position, "perft": [perft(round_, d) for d in DEPTHS]})
    return out


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "tests/data/perft")
    folder.mkdir(parents=True, exist_ok=True)
    for preset in PRESET_OPTIONS:
        path = folder / f"{preset}.json"
        path.write_text(json.dumps(positions(preset), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
