"""The hard bot's decision time at its default budget (issue 14: p95 <= 1.0 s), and what that
budget is worth in playouts on this machine.

It plays games of one hard bot (default budget: 1 s per move, or ``--time-limit``) against three
normal bots, seat rotating with the game, and times every hard decision that has more than one
legal action, as the arena does. It prints the median and the 95th percentile of those times,
how the decisions were made (search, proof, sure win, ...), and for the searched ones the
playouts run and the playouts per second, so that strength "at 1 s" can be measured at a fixed,
equivalent playout budget (fixed-budget strength does not depend on the machine's load).

    python -m bench.hard_time --games 16 [--options '{"tree": false}']
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time

from cardverse.arena import _percentile, turns
from cardverse.bots import make_bot
from cardverse.bots.hard import HardBot
from cardverse.engine import Game, rules_from_dict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--time-limit", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--options", type=json.loads, default={}, help="HardBot keyword arguments, as JSON"
    )
    args = parser.parse_args(argv)
    rules = rules_from_dict({"preset": args.preset, "players": 4})
    times: list[float] = []
    reasons: collections.Counter[str] = collections.Counter()
    playouts: list[int] = []
    rates: list[float] = []
    clock = time.perf_counter
    for number in range(args.games):
        game = Game(rules, seed=args.seed * 100_003 + number)
        me = number % rules.players
        hard = HardBot(seed=number, time_limit=args.time_limit, **args.options)
        others = [make_bot("normal", seed=seat) for seat in range(rules.players)]
        for seat, view in turns(game):
            if seat != me:
                game.apply(others[seat].choose(view), seat)
                continue
            started = clock()
            move = hard.choose(view)
            spent = clock() - started
            if len(view.legal_moves) > 1:
                times.append(spent)
                reasons[hard.last_reason] += 1
                if hard.last_reason == "search":
                    playouts.append(hard.last_playouts)
                    rates.append(hard.last_playouts / spent)
            game.apply(move, seat)
    report = {
        "decisions": len(times),
        "time_limit": args.time_limit if args.time_limit is not None else hard.time_limit,
        "p50_s": round(_percentile(times, 0.5), 3),
        "p95_s": round(_percentile(times, 0.95), 3),
        "max_s": round(max(times), 3) if times else 0.0,
        "reasons": dict(reasons),
        "search_playouts_p50": int(_percentile([float(p) for p in playouts], 0.5)),
        "search_playouts_p10": int(_percentile([float(p) for p in playouts], 0.1)),
        "playouts_per_s_p50": int(statistics.median(rates)) if rates else 0,
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:22} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
