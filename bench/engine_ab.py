"""Side-by-side engine benchmark: this checkout's engine against another one, interleaved.

Runs complete random games (standard preset, 4 players) with both engines in one process,
alternating chunks of games so that a busy machine slows both alike, and reports the medians and
their ratio (CPU time of this process, so time spent waiting for a core is not counted). The
other engine is imported from ``--other`` (a directory holding a ``cardverse`` package, e.g.
``git archive main cardverse | tar -x -C /tmp/main-engine``) under another package name.

    python -m bench.engine_ab --other /tmp/main-engine
"""

from __future__ import annotations

import argparse
import importlib
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any


def load_other(path: Path) -> ModuleType:
    """The other checkout's ``cardverse.engine``, copied as package ``cvother`` (it uses
    relative imports only)."""
    scratch = Path(tempfile.mkdtemp(prefix="engine-ab-"))
    package = scratch / "cvother"
    package.mkdir()
    (package / "__init__.py").write_text('"""The other engine."""\n', encoding="utf-8")
    shutil.copytree(path / "cardverse" / "engine", package / "engine")
    sys.path.insert(0, str(scratch))
    return importlib.import_module("cvother.engine")


def rate(engine: Any, rules: Any, games: int, seed: int) -> float:
    rng = random.Random(seed)
    choice = rng.choice
    round_over = engine.Phase.ROUND_OVER
    start = time.process_time()
    for number in range(games):
        game = engine.Game(rules, seed=seed * 1_000_003 + number)
        while not game.over:
            if game.phase is round_over:
                game.start_next_round()
                continue
            game.apply(choice(game.legal_moves()))
    return games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="a checkout to compare with")
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--games", type=int, default=200, help="games per chunk")
    args = parser.parse_args(argv)
    import cardverse.engine as this

    other = load_other(args.other)
    rules_this = this.Rules.make("standard", players=4)
    rules_other = other.Rules.make("standard", players=4)
    rate(this, rules_this, 50, 999)
    rate(other, rules_other, 50, 999)
    ours: list[float] = []
    theirs: list[float] = []
    for chunk in range(args.chunks):
        theirs.append(rate(other, rules_other, args.games, chunk))
        ours.append(rate(this, rules_this, args.games, chunk))
    mine, base = statistics.median(ours), statistics.median(theirs)
    print(
        f"standard 4p, games/s (CPU): other {base:,.0f}  this {mine:,.0f}  ratio {mine / base:.3f}"
    )
    if hasattr(this.Rules, "spade_three"):
        every = this.Rules.make("daifugo", players=4, straights=True, jokers=2)
        rates = [rate(this, every, max(10, args.games // 8), chunk) for chunk in range(5)]
        games = statistics.median(rates)
        print(
            f"every option (daifugo + straights + 2 jokers, {every.rounds} rounds), this engine "
            f"(CPU): {games:,.0f} games/s = {games * every.rounds:,.0f} rounds/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
