"""Rules engine benchmark (``make bench``): random play through the public engine API.

Measures, on one core:
  (a) complete games per second, ``standard`` preset, 4 players;
  (b) complete games per second, every variant on (revolution, straights, 2 jokers, eight_stop,
      equal plays), 4 players;
  (b') complete games per second with every option on: the ``daifugo`` preset (its 3 rounds, the
      house rules of section 10) plus straights and 2 jokers, 4 players; and the same per round;
  (c) legal-move generation, microseconds per call (median over positions met in random games).
Each figure is the median of several runs; the table is printed and the JSON written to
``bench/results/engine.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from cardverse.engine import Game, Phase, Rules

STANDARD = Rules.make("standard", players=4)
ALL_VARIANTS = Rules.make(
    "standard",
    players=4,
    revolution=True,
    straights=True,
    jokers=2,
    eight_stop=True,
    equal_plays=True,
)
EVERY_OPTION = Rules.make("daifugo", players=4, straights=True, jokers=2)


def play_games(rules: Rules, games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` random games; return (seconds, actions)."""
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    start = time.perf_counter()
    for number in range(games):
        game = Game(rules, seed=seed * 1_000_003 + number)
        while not game.over:
            if game.phase is Phase.ROUND_OVER:
                game.start_next_round()
                continue
            game.apply(choice(game.legal_moves()))
            actions += 1
    return time.perf_counter() - start, actions


def games_per_second(rules: Rules, games: int, runs: int) -> dict[str, Any]:
    rates = []
    actions_per_game = 0.0
    play_games(rules, max(10, games // 10), seed=999)  # warm caches
    for run in range(runs):
        seconds, actions = play_games(rules, games, seed=run)
        rates.append(games / seconds)
        actions_per_game = actions / games
    return {
        "games_per_s_median": round(statistics.median(rates), 1),
        "games_per_s_runs": [round(r, 1) for r in rates],
        "actions_per_game": round(actions_per_game, 1),
    }


def movegen_micros(rules: Rules, positions: int, runs: int) -> dict[str, Any]:
    """Median time of one legal-move generation over positions met in random play."""
    rng = random.Random(7)
    rounds = []
    number = 0
    while len(rounds) < positions:
        game = Game(rules, seed=number)
        number += 1
        while not game.over and len(rounds) < positions:
            if game.phase is Phase.ROUND_OVER:
                game.start_next_round()
                continue
            if game.phase is Phase.PLAY and game.round is not None:
                rounds.append(game.round.clone())
            game.apply(rng.choice(game.legal_moves()))
    per_call = []
    for _ in range(runs):
        copies = [r.clone() for r in rounds]  # fresh copies: no cached move list
        start = time.perf_counter_ns()
        for copy in copies:
            copy.legal_moves()
        per_call.append((time.perf_counter_ns() - start) / len(copies) / 1000)
    return {
        "us_per_call_median": round(statistics.median(per_call), 2),
        "us_per_call_runs": [round(x, 2) for x in per_call],
        "positions": len(rounds),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument("--out", default="bench/results/engine.json")
    args = parser.parse_args(argv)

    results: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "games_per_run": args.games,
        "runs": args.runs,
        "standard_4p": games_per_second(STANDARD, args.games, args.runs),
        "all_variants_4p": games_per_second(ALL_VARIANTS, args.games // 2, args.runs),
        "every_option_4p": games_per_second(EVERY_OPTION, args.games // 4, args.runs),
        "movegen_standard": movegen_micros(STANDARD, 20_000, args.runs),
        "movegen_all_variants": movegen_micros(ALL_VARIANTS, 20_000, args.runs),
        "movegen_every_option": movegen_micros(EVERY_OPTION, 20_000, args.runs),
    }
    every = results["every_option_4p"]
    every["rounds_per_game"] = EVERY_OPTION.rounds
    every["rounds_per_s_median"] = round(every["games_per_s_median"] * EVERY_OPTION.rounds, 1)
    targets = {"standard_4p": 2000, "all_variants_4p": 500, "every_option_4p": 1000}
    print(f"{'benchmark':<28}{'median':>14}{'target':>10}  runs")
    for key in ("standard_4p", "all_variants_4p", "every_option_4p"):
        row = results[key]
        print(
            f"{key + ' (games/s)':<28}{row['games_per_s_median']:>14,.1f}"
            f"{targets[key]:>10,}  {row['games_per_s_runs']}"
        )
    print(f"{'every_option_4p (rounds/s)':<28}{every['rounds_per_s_median']:>14,.1f}")
    for key in ("movegen_standard", "movegen_all_variants", "movegen_every_option"):
        row = results[key]
        print(
            f"{key + ' (µs/call)':<28}{row['us_per_call_median']:>14.2f}{'':>10}  "
            f"{row['us_per_call_runs']}"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
