"""The strength run behind the site's /bots page (issue 14): arena pairings, one result file.

Each pairing is one arena run (:func:`cardverse.arena.run_arena`: duplicate deals, every
rotation of the line-up, 4 players, cardverse preset unless ``--preset``) of one player against
three copies of another, games of ``--rounds`` rounds (default 1; points per round, so the
fair share stays 2.5), at a fixed playout budget (the hard bot's and the Monte Carlo
baseline's). The file records, per pairing, the line-up, the budget, the number of deals and
games, the mean points with their 95% interval for both kinds, and the run's date and version;
``cardverse/web/strength.json`` is the copy the site shows.

    python -m bench.strength --jobs 2 --playouts 300 --out cardverse/web/strength.json \\
        --pairing hard:normal:200 --pairing hard:montecarlo:60 --pairing hard:structure:200 \\
        --pairing hard:easy:200 --pairing normal:easy:300
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path
from typing import Any

from cardverse import __version__
from cardverse.arena import ARENA_KINDS, run_arena, summarise
from cardverse.engine import rules_from_dict


def parse_pairing(text: str) -> tuple[str, str, int]:
    parts = text.split(":")
    if len(parts) != 3 or not parts[2].isdigit():
        raise argparse.ArgumentTypeError(f"a pairing is PLAYER:OPPONENT:DEALS, not {text!r}")
    player, opponent, deals = parts[0], parts[1], int(parts[2])
    for kind in (player, opponent):
        if kind not in ARENA_KINDS:
            raise argparse.ArgumentTypeError(f"unknown player {kind!r}: use {ARENA_KINDS}")
    if deals < 1:
        raise argparse.ArgumentTypeError("a pairing plays at least one deal")
    return player, opponent, deals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--playouts", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1, help="rounds per game (default 1)")
    parser.add_argument("--pairing", type=parse_pairing, action="append", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--append", action="store_true", help="keep the pairings already in --out (same date)"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rules = rules_from_dict({"preset": args.preset, "players": 4, "rounds": args.rounds})
    pairings: list[dict[str, Any]] = []
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    about = "python -m bench.strength " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.append and args.out.exists():
        kept = json.loads(args.out.read_text(encoding="utf-8"))
        pairings = kept["pairings"]
        about = kept["about"] + "; then " + about
    for player, opponent, deals in args.pairing:
        started = time.monotonic()
        lineup = [player, opponent, opponent, opponent]
        results = run_arena(
            rules, lineup, deals, seed=args.seed, playouts=args.playouts, jobs=args.jobs
        )
        report = summarise(results, deals)
        pairings.append(
            {
                "player": player,
                "opponent": opponent,
                "lineup": lineup,
                "playouts": args.playouts,
                "rounds": args.rounds,
                "deals": deals,
                "games": report["games"],
                "player_result": report["by_kind"][player],
                "opponent_result": report["by_kind"][opponent],
                "seconds": round(time.monotonic() - started),
                "command": about.rsplit("; then ", 1)[-1],
            }
        )
        row = report["by_kind"][player]
        print(
            f"{player} vs 3 {opponent}: {row['mean_points']:.3f} {row['ci95']} "
            f"({deals} deals, {report['games']} games, {time.monotonic() - started:.0f}s)",
            file=sys.stderr,
        )
        # The file is rewritten after every pairing, so a long run's figures so far are kept.
        document = {
            "about": about,
            "date": date,
            "version": __version__,
            "preset": args.preset,
            "players": 4,
            "fair_share": 2.5,
            "pairings": pairings,
        }
        args.out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
