"""Rules engine benchmark (``make bench``): random play through the public engine API.

Measures, on one core:
  (a) complete games per second, ``standard`` preset, 4 players;
  (b) complete games per second, every variant on (revolution, straights, 2 jokers, eight_stop,
      equal plays), 4 players;
  (b') complete games per second with every option on: the ``daifugo`` preset (its 3 rounds, the
      house rules of section 10) plus straights and 2 jokers, 4 players; and the same per round;
  (c) legal-move generation, microseconds per call (median over positions met in random games);
  (d) the hard player's playouts in a 1 s decision, standard preset, 4 players (median over
      decisions met in seeded games where it searches);
  (e) a reference any reader can repeat: the same random-game harness over OpenSpiel's C++ Dou
      Dizhu (``pyspiel``, the optional ``bench`` extra), printed as a ratio beside ours.
Random games pick from ``Game.legal_moves()`` and apply through ``Game.apply_trusted`` (the
lean path for moves taken from the legal list); ``standard_4p_checked`` is the same through
``Game.apply``, which checks every move again. Every figure is the median of several runs, in
games per second of wall time on one core (and per CPU-second, ``cpu_``). The engine runs as
built (compiled with mypyc by ``make``, or the pure-Python source); the pure-Python figures are
measured too, in a child process with ``CARDVERSE_PURE=1``, for the ratio. The table is printed
and the JSON written to ``bench/results/engine.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cardverse.engine import Game, Phase, Rules, player_view

try:
    from cardverse import _native
except ImportError:  # a checkout from before the compiled engine (for before/after figures)
    _native = None  # type: ignore[assignment]

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
UECDA = Rules.make("uecda", players=5)  # the UECda standard rules (section 11): 5 rounds


def play_games(
    rules: Rules, games: int, seed: int, trusted: bool = True
) -> tuple[float, float, int]:
    """Play ``games`` random games; return (wall seconds, CPU seconds, actions)."""
    rng = random.Random(seed)
    uniform = rng.random  # a uniform pick among the legal moves: legal[int(uniform() * n)]
    actions = 0
    round_over = Phase.ROUND_OVER
    start, cpu = time.perf_counter(), time.process_time()
    for number in range(games):
        game = Game(rules, seed=seed * 1_000_003 + number)
        apply = getattr(game, "apply_trusted", game.apply) if trusted else game.apply
        legal_moves = game.legal_moves
        while not game.over:
            if game.phase is round_over:
                game.start_next_round()
                continue
            legal = legal_moves()
            apply(legal[int(uniform() * len(legal))])
            actions += 1
    return time.perf_counter() - start, time.process_time() - cpu, actions


def games_per_second(rules: Rules, games: int, runs: int, trusted: bool = True) -> dict[str, Any]:
    rates = []
    cpu_rates = []
    actions_per_game = 0.0
    play_games(rules, max(10, games // 10), seed=999, trusted=trusted)  # warm caches
    for run in range(runs):
        seconds, cpu, actions = play_games(rules, games, seed=run, trusted=trusted)
        rates.append(games / seconds)
        cpu_rates.append(games / max(cpu, 1e-9))
        actions_per_game = actions / games
    return {
        "games_per_s_median": round(statistics.median(rates), 1),
        "cpu_games_per_s_median": round(statistics.median(cpu_rates), 1),
        "games_per_s_runs": [round(r, 1) for r in rates],
        "actions_per_game": round(actions_per_game, 1),
    }


def hard_playouts(decisions: int, time_limit: float = 1.0) -> dict[str, Any]:
    """Playouts the hard player runs in a ``time_limit`` decision, standard preset, 4 players:
    the median over the first ``decisions`` decisions of seeded games where it searches."""
    from cardverse.bots.hard import HardBot

    counts: list[int] = []
    per_cpu_second: list[int] = []  # playouts per CPU-second of the decision: a dedicated core
    rng = random.Random(11)
    number = 0
    while len(counts) < decisions:
        game = Game(STANDARD, seed=5000 + number)
        bot = HardBot(seed=number, time_limit=time_limit)
        number += 1
        while not game.over and len(counts) < decisions:
            if game.phase is Phase.ROUND_OVER:
                game.start_next_round()
                continue
            seat = game.turn
            assert seat is not None
            if game.phase is Phase.PLAY and seat == 0:
                cpu = time.process_time()
                move = bot.decide(player_view(game, seat))
                cpu = time.process_time() - cpu
                if bot.last_reason == "search":
                    counts.append(bot.last_playouts)
                    per_cpu_second.append(int(bot.last_playouts * time_limit / max(cpu, 1e-3)))
                    game.apply(move)
                    # One decision per stretch of a round: skip ahead to a fresh position.
                    for _ in range(rng.randrange(4, 12)):
                        if game.over or game.phase is not Phase.PLAY:
                            break
                        game.apply(rng.choice(game.legal_moves()))
                    continue
                game.apply(move)
                continue
            game.apply(rng.choice(game.legal_moves()))
    return {
        "playouts_per_decision_median": int(statistics.median(counts)),
        "playouts_per_decision_runs": counts,
        "per_cpu_second_median": int(statistics.median(per_cpu_second)),
        "per_cpu_second_runs": per_cpu_second,
        "time_limit_s": time_limit,
    }


def pyspiel_games(games: int, runs: int) -> dict[str, Any] | None:
    """The same harness (a random legal action until the end) over OpenSpiel's C++ Dou Dizhu."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")

    def one_run(seed: int, count: int) -> tuple[float, float]:
        rng = random.Random(seed)
        uniform = rng.random
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, weights = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(actions, weights)[0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(uniform() * len(legal))])
        return time.perf_counter() - start, time.process_time() - cpu

    one_run(999, max(10, games // 10))
    rates, cpu_rates = [], []
    for run in range(runs):
        seconds, cpu = one_run(run, games)
        rates.append(games / seconds)
        cpu_rates.append(games / max(cpu, 1e-9))
    return {
        "games_per_s_median": round(statistics.median(rates), 1),
        "cpu_games_per_s_median": round(statistics.median(cpu_rates), 1),
        "games_per_s_runs": [round(r, 1) for r in rates],
        "open_spiel": getattr(pyspiel, "__version__", "?"),
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


TARGETS = {  # issue 13
    "standard_4p": 10_000,
    "all_variants_4p": 5_000,
    "every_option_4p": 5_000,
    "hard_playouts": 50_000,
}


def measure(games: int, runs: int, decisions: int) -> dict[str, Any]:
    """Every figure of this engine as it runs in this process (compiled or pure)."""
    compiled = _native.running_compiled() if _native else False
    results: dict[str, Any] = {
        "compiled": compiled,
        "code": _native.REASON
        if _native and compiled == _native.COMPILED
        else "pure Python (an engine from elsewhere: not this checkout's build)",
        "standard_4p": games_per_second(STANDARD, games, runs),
        "standard_4p_checked": games_per_second(STANDARD, games, runs, trusted=False),
        "all_variants_4p": games_per_second(ALL_VARIANTS, games // 2, runs),
        "every_option_4p": games_per_second(EVERY_OPTION, games // 4, runs),
        "uecda_5p": games_per_second(UECDA, games // 4, runs),
        "movegen_standard": movegen_micros(STANDARD, 20_000, runs),
        "movegen_all_variants": movegen_micros(ALL_VARIANTS, 20_000, runs),
        "movegen_every_option": movegen_micros(EVERY_OPTION, 20_000, runs),
    }
    every = results["every_option_4p"]
    every["rounds_per_game"] = EVERY_OPTION.rounds
    every["rounds_per_s_median"] = round(every["games_per_s_median"] * EVERY_OPTION.rounds, 1)
    if decisions:
        results["hard_playouts"] = hard_playouts(decisions)
    return results


def pure_figures(games: int, runs: int, decisions: int) -> dict[str, Any]:
    """:func:`measure` in a child process running the pure-Python engine and bots."""
    env = dict(os.environ, CARDVERSE_PURE="1")
    child = subprocess.run(
        [
            *(sys.executable, "-m", "bench.engine_bench", "--only-this", "--json", "-"),
            *("--games", str(games), "--runs", str(runs), "--decisions", str(decisions)),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, Any] = json.loads(child.stdout)
    return figures


def _rate(row: dict[str, Any] | None, key: str = "games_per_s_median") -> str:
    return f"{row[key]:,.0f}" if row else "-"


def report(results: dict[str, Any]) -> None:
    """The table: wall-clock medians, and per CPU-second (what one dedicated core gives, which
    on a shared machine is the fairer figure), this code against the pure-Python one."""
    this, pure, spiel = results["this"], results.get("pure"), results.get("pyspiel_dou_dizhu")
    cpu = "cpu_games_per_s_median"
    print(f"engine: {this['code']}")
    print(
        f"{'benchmark':<32}{'this':>9}{'this/cpu':>10}{'pure/cpu':>10}{'ratio':>7}{'target':>9}"
        "  runs (this, wall)"
    )
    for key in (
        "standard_4p",
        "standard_4p_checked",
        "all_variants_4p",
        "every_option_4p",
        "uecda_5p",
    ):
        if key not in this:
            continue  # a figure the other checkout (an older engine) did not have
        row = this[key]
        base = pure[key] if pure and key in pure else None
        ratio = f"{row[cpu] / base[cpu]:.2f}" if base else "-"
        target = f"{TARGETS[key]:,}" if key in TARGETS else ""
        print(
            f"{key + ' (games/s)':<32}{_rate(row):>9}{_rate(row, cpu):>10}{_rate(base, cpu):>10}"
            f"{ratio:>7}{target:>9}  {row['games_per_s_runs']}"
        )
    every = this["every_option_4p"]
    print(f"{'every_option_4p (rounds/s)':<32}{every['rounds_per_s_median']:>9,.0f}")
    for key in ("movegen_standard", "movegen_all_variants", "movegen_every_option"):
        row = this[key]
        base = pure[key]["us_per_call_median"] if pure else "-"
        print(f"{key + ' (µs/call)':<32}{row['us_per_call_median']:>9.2f}{'':>10}{base:>10}")
    if "hard_playouts" in this:
        row = this["hard_playouts"]
        base = pure["hard_playouts"] if pure else None
        per_cpu = row["per_cpu_second_median"]
        ratio = f"{per_cpu / base['per_cpu_second_median']:.2f}" if base else "-"
        print(
            f"{'hard: playouts in a 1 s decision':<32}{row['playouts_per_decision_median']:>9,}"
            f"{per_cpu:>10,}{base['per_cpu_second_median'] if base else '-':>10}{ratio:>7}"
            f"{TARGETS['hard_playouts']:>9,}  {row['playouts_per_decision_runs']}"
        )
    if spiel is None:
        print("OpenSpiel reference: pyspiel is not installed (pip install -e '.[bench]')")
    else:
        print(
            f"{'pyspiel dou_dizhu (games/s)':<32}{_rate(spiel):>9}{_rate(spiel, cpu):>10}"
            f"{'':>26}  {spiel['games_per_s_runs']}"
        )
        ours = this["standard_4p"]
        print(
            "ours (standard 4p) / OpenSpiel's C++ Dou Dizhu, same harness: "
            f"{ours['games_per_s_median'] / spiel['games_per_s_median']:.2f} (wall), "
            f"{ours[cpu] / spiel[cpu]:.2f} (CPU)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument(
        "--decisions", type=int, default=9, help="hard decisions of 1 s (median reported)"
    )
    parser.add_argument("--out", default="bench/results/engine.json")
    parser.add_argument(
        "--only-this", action="store_true", help="no pure-Python and no OpenSpiel figures"
    )
    parser.add_argument("--json", help="write the JSON here instead ('-': standard output)")
    args = parser.parse_args(argv)

    if args.only_this:
        figures = measure(args.games, args.runs, args.decisions)
        if args.json == "-":
            print(json.dumps(figures))
            return 0
        results: dict[str, Any] = {"this": figures}
    else:
        results = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "games_per_run": args.games,
            "runs": args.runs,
            "this": measure(args.games, args.runs, args.decisions),
        }
        if results["this"]["compiled"]:
            results["pure"] = pure_figures(args.games // 2, args.runs, args.decisions)
        spiel = pyspiel_games(args.games, args.runs)
        if spiel is not None:
            results["pyspiel_dou_dizhu"] = spiel
    report(results)
    out = Path(args.json or args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
