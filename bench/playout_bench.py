"""Playout speed of the hard bot (issue 14): playouts per CPU-second, and a fingerprint of them.

The positions are the hard seat's decisions in seeded games (4 players, one round each, every
seat played by the normal bot), each with the true hands and the policy's own move first, so a
playout here is the one the hard bot runs (:func:`cardverse.bots.playout.play_out`), without the
deal sampling and the tree around it. Every position is played out once per pass; a run is
``--passes`` passes, the figure the median over ``--runs`` runs, in playouts per CPU-second (a
dedicated core). The fingerprint (a hash of every playout's points) changes if any decision of the
playout policy changes: compare it before and after a speed change.

    python -m bench.playout_bench --preset cardverse --positions 400 --runs 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cardverse.bots import policy
from cardverse.bots.normal import NormalBot, view_context
from cardverse.bots.playout import play_out
from cardverse.bots.positions import round_of_view
from cardverse.engine import Game, Phase, player_view, rules_from_dict
from cardverse.engine.plays import DISCARD, GIVE
from cardverse.engine.rounds import Round

try:
    from cardverse import _native
except ImportError:  # pragma: no cover - a checkout without the compiled modules
    _native = None  # type: ignore[assignment]

Position = tuple[Round, list[int], int, int, policy.Style]


def positions(
    preset: str, count: int, seed: int, fitted: str = "none", fitted_hand: int = 99
) -> list[Position]:
    """``count`` decisions of seat 0 met in seeded games of ``preset`` (4 players); with
    ``fitted`` "me" or "all", the playouts play seat 0 or every seat by the fitted policy
    (:mod:`cardverse.bots.fitted`) at ``fitted_hand`` cards or fewer."""
    rules = rules_from_dict({"preset": preset, "players": 4})
    style = policy.Style.of(rules)
    if fitted != "none":
        style = style._replace(fitted_seat=0 if fitted == "me" else -2, fitted_hand=fitted_hand)
    rng = random.Random(seed)
    found: list[Position] = []
    number = 0
    while len(found) < count:
        game = Game(rules, seed=seed * 1_000_003 + number)
        bots = [NormalBot(seed=number * 7 + s) for s in range(4)]
        number += 1
        while not game.over and game.phase is not Phase.ROUND_OVER and len(found) < count:
            seat = game.turn
            assert seat is not None
            view = player_view(game, seat)
            move = bots[seat].decide(view)
            legal = view.legal_moves
            if (
                seat == 0
                and game.phase is Phase.PLAY
                and len(legal) > 1
                and not legal[0] & (GIVE | DISCARD)
                and rng.random() < 0.5
            ):
                last_move, fewest, last_count = view_context(view)
                first = policy.choose(
                    view.hand, legal, last_move, view.reversed_order, style, fewest, last_count
                )
                found.append((round_of_view(view), list(game.hands), first, 0, style))
            game.apply(move)
    return found


def run(found: list[Position], passes: int) -> tuple[float, int, str]:
    """Every position played out ``passes`` times: (CPU seconds, playouts, fingerprint)."""
    digest = hashlib.sha256()
    points: list[int] = []
    cpu = time.process_time()
    for _ in range(passes):
        for template, hands, first, me, style in found:
            points.append(play_out(template, hands, first, me, style, False))
    spent = time.process_time() - cpu
    digest.update(bytes(points))
    return spent, len(points), digest.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--passes", type=int, default=25)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bench/results/playout.json")
    parser.add_argument(
        "--fitted",
        choices=("none", "me", "all"),
        default="none",
        help="the seats the fitted playout policy plays (default none: the rules of thumb)",
    )
    parser.add_argument("--fitted-hand", type=int, default=99)
    args = parser.parse_args(argv)
    found = positions(args.preset, args.positions, args.seed, args.fitted, args.fitted_hand)
    run(found, 1)  # warm up
    rates: list[float] = []
    prints: set[str] = set()
    for _ in range(args.runs):
        spent, done, fingerprint = run(found, args.passes)
        rates.append(done / max(spent, 1e-9))
        prints.add(fingerprint)
    compiled = bool(_native is not None and getattr(_native, "COMPILED", False))
    result: dict[str, Any] = {
        "preset": args.preset,
        "fitted": args.fitted,
        "fitted_hand": args.fitted_hand,
        "positions": len(found),
        "passes": args.passes,
        "playouts_per_cpu_s_median": int(statistics.median(rates)),
        "playouts_per_cpu_s_runs": [int(r) for r in rates],
        "fingerprint": sorted(prints),
        "compiled": compiled,
    }
    print(
        f"playouts ({args.preset}, fitted {args.fitted} at <= {args.fitted_hand} cards, "
        f"{len(found)} positions x {args.passes} passes, "
        f"{'compiled' if compiled else 'pure Python'}): "
        f"{result['playouts_per_cpu_s_median']:,} per CPU-second (median of {args.runs}: "
        f"{result['playouts_per_cpu_s_runs']}), fingerprint {','.join(sorted(prints))}"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
