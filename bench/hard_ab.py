"""Like-for-like strength of hard bot variants (issue 14): one arena run per variant, same deals.

A variant is a name and the keyword arguments of :class:`cardverse.bots.hard.HardBot` that it
changes (e.g. ``tree={"tree": true}``); ``base`` (the defaults) is always run first. Every
variant plays the same deals with the same seeds against three copies of ``--opponent``, at a
fixed playout budget, so the differences between variants are the variants' own. ``--rounds N``
plays games of N rounds with the exchange between them (points per round, as the arena reports).

    python -m bench.hard_ab --opponent normal --deals 200 --playouts 300 --jobs 2 \\
        --variant 'flat={"tree": false}' --variant 'tree={"tree": true}'
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pathlib
import statistics
import sys
import time
from typing import Any

from cardverse import arena
from cardverse.bots.hard import HardBot
from cardverse.engine import rules_from_dict

_VARIANT: dict[str, Any] = {}
_make_player = arena.make_player


def _player(kind: str, *, seed: int, playouts: int | None = None, time_limit: float | None = None):  # type: ignore[no-untyped-def]
    """The arena's players, with the hard bot built with the variant's arguments."""
    if kind == "hard":
        return HardBot(seed=seed, playouts=playouts, time_limit=time_limit, **_VARIANT)
    return _make_player(kind, seed=seed, playouts=playouts, time_limit=time_limit)


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, _, given = text.partition("=")
    options = json.loads(given) if given else {}
    if not name or not isinstance(options, dict):
        raise argparse.ArgumentTypeError(f"a variant is NAME=JSON-OBJECT, not {text!r}")
    return name, options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--opponent", default="normal")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--playouts", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1, help="rounds per game (default 1)")
    parser.add_argument("--variant", type=parse_variant, action="append", default=[])
    parser.add_argument("--no-base", action="store_true", help="do not run the defaults first")
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep each variant's per-deal results in DIR and reuse them when the same variant "
        "(name, options, opponent, deals, seed, playouts, rounds) was run before",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rules = rules_from_dict({"preset": args.preset, "players": 4, "rounds": args.rounds})
    lineup = ["hard", args.opponent, args.opponent, args.opponent]
    arena.make_player = _player  # type: ignore[assignment]  # inherited by the forked workers
    variants = ([] if args.no_base else [("base", {})]) + args.variant
    first: list[float] | None = None
    for name, options in variants:
        _VARIANT.clear()
        _VARIANT.update(options)
        started = time.monotonic()
        kept = _cached(args, name, options)
        if kept is not None and kept.exists():
            samples = json.loads(kept.read_text(encoding="utf-8"))["per_deal"]
            mean = statistics.fmean(samples)
            print(f"{name:12} vs 3 {args.opponent}: {mean:.3f} (kept in {kept})", flush=True)
        else:
            results = arena.run_arena(
                rules, lineup, args.deals, seed=args.seed, playouts=args.playouts, jobs=args.jobs
            )
            report = arena.summarise(results, args.deals)
            row = report["by_kind"]["hard"]
            print(
                f"{name:12} vs 3 {args.opponent} at {args.playouts} playouts, {args.deals} deals "
                f"of {args.rounds} round(s) (seed {args.seed}): "
                f"{row['mean_points']:.3f} {row['ci95']}  "
                f"p50 {row['decision_ms']['p50']:.1f} ms p95 {row['decision_ms']['p95']:.1f} ms "
                f"({time.monotonic() - started:.0f}s)",
                flush=True,
            )
            samples = _per_deal(results)
            if kept is not None:
                kept.parent.mkdir(parents=True, exist_ok=True)
                record = {"variant": name, "options": options, "per_deal": samples}
                kept.write_text(json.dumps(record), encoding="utf-8")
        if first is None:
            first = samples
        elif len(first) == len(samples):
            # Paired by deal: the difference to the first variant, with its 95% interval.
            diffs = [b - a for a, b in zip(first, samples, strict=True)]
            mean = statistics.fmean(diffs)
            half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
            low, high = mean - half, mean + half
            print(f"{'':12} minus {variants[0][0]}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]")
    return 0


def _cached(args: argparse.Namespace, name: str, options: dict[str, Any]) -> pathlib.Path | None:
    """Where a variant's per-deal results are kept (None: no --cache). The file name says what
    was run, so a changed option or flag never reuses another run's results."""
    if not args.cache:
        return None
    key = json.dumps(
        [
            name,
            options,
            args.preset,
            args.opponent,
            args.deals,
            args.seed,
            args.playouts,
            args.rounds,
        ],
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return pathlib.Path(args.cache) / f"{args.opponent}-{name}-{digest}.json"


def _per_deal(results: list[arena.GameResult]) -> list[float]:
    """The hard bot's mean points per round per deal (over the rotations), in deal order."""
    points: dict[int, list[float]] = {}
    for result in results:
        for seat, kind in enumerate(result.lineup):
            if kind == "hard":
                points.setdefault(result.deal, []).append(result.per_round(seat))
    return [statistics.fmean(points[deal]) for deal in sorted(points)]


if __name__ == "__main__":
    sys.exit(main())
