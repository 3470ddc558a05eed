"""The arena: play many games between computer players and measure their strength fairly.

``cardverse arena`` (registered with :func:`cardverse.cli.register_command`) plays a line-up of
bot levels under any rules. Every deal is played once per rotation of the line-up (duplicate
deals), so each kind of player holds each seat's cards: luck of the deal cancels out. A game is
one round unless ``--rounds`` asks for more (R22-R25: the exchange between them); a deal is then
the game's sequence of deals, the same for every rotation. It reports, per kind of player, the
mean points per round with a 95% confidence interval (computed over deals, each deal's mean over
its rotations being one sample), first- and last-place rates (by the game's total), and the
median and 95th percentile of its decision time (decisions with more than one legal action).

This module owns running games between bots (:func:`play_game`, :func:`run_arena`), the summary
statistics and the sub-command; the bots themselves live in :mod:`cardverse.bots`.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from .bots import BOT_LEVELS, Bot, make_bot
from .bots.baselines import BASELINES, make_baseline
from .cli import register_command
from .engine import Game, OptionsError, Phase, PlayerView, Rules, player_view, rules_from_dict
from .notation import record_to_json

#: every kind of player the arena can field: the levels, then the test opponents (baselines)
ARENA_KINDS: tuple[str, ...] = BOT_LEVELS + BASELINES

EXIT_OK = 0
EXIT_MALFORMED = 2


@dataclass
class GameResult:
    """One game of the arena: who sat where, their points, their decision times."""

    deal: int
    rotation: int
    lineup: list[str]  # the kind of player in each seat
    points: list[int]  # the game's totals (R22: summed over its rounds)
    decision_ms: dict[str, list[float]] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    rounds: int = 1

    def per_round(self, seat: int) -> float:
        """The seat's points per round of this game (the fair share is (players + 1) / 2)."""
        return self.points[seat] / self.rounds


def _seed_for(seed: int, *parts: int) -> int:
    """A reproducible seed for one deal or one bot (independent of how the work is split)."""
    value = seed & 0xFFFFFFFF
    for part in parts:
        value = (value * 1_000_003 + part + 0x9E3779B9) & 0xFFFFFFFFFFFF
    return value


def make_player(
    kind: str, *, seed: int, playouts: int | None = None, time_limit: float | None = None
) -> Bot:
    """A level (:func:`make_bot`) or a baseline opponent; baselines get the same playout budget
    as hard (300 when none is given)."""
    if kind in BASELINES:
        return make_baseline(kind, seed=seed, playouts=playouts)
    return make_bot(kind, seed=seed, playouts=playouts, time_limit=time_limit)


def turns(game: Game) -> Iterator[tuple[int, PlayerView]]:
    """The game loop every bot-only game shares: the seat on turn and its view, one decision at
    a time, the next round dealt when one ends, until the game is over.

    The caller applies the seat's action (``game.apply(move, seat)``) before asking for the
    next turn; a turn left unanswered is an error, not an endless loop.
    """
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        seat = game.turn
        assert seat is not None
        before = _progress(game)
        yield seat, player_view(game, seat)
        if _progress(game) == before:
            raise RuntimeError(f"seat {seat} was asked to act and no action was applied")


def _progress(game: Game) -> tuple[int, int, int]:
    """How far a game has got: its round, the give-backs still owed, the actions of the round."""
    played = len(game.round.history) if game.round is not None else -1
    return (game.round_number, len(game.pending), played)


def play_game(
    rules: Rules,
    lineup: list[str],
    *,
    deal_seed: int,
    bot_seed: int,
    playouts: int | None = None,
    time_limit: float | None = None,
    keep_record: bool = False,
) -> tuple[list[int], dict[str, list[float]], dict[str, Any] | None]:
    """Play one game of bots; (points per seat, decision times in ms by kind, record)."""
    game = Game(rules, seed=deal_seed)
    bots = [
        make_player(kind, seed=_seed_for(bot_seed, seat), playouts=playouts, time_limit=time_limit)
        for seat, kind in enumerate(lineup)
    ]
    times: dict[str, list[float]] = {kind: [] for kind in lineup}
    clock = time.perf_counter
    for seat, view in turns(game):
        started = clock()
        move = bots[seat].choose(view)
        elapsed = clock() - started
        if len(view.legal_moves) > 1:
            times[lineup[seat]].append(elapsed * 1000.0)
        game.apply(move, seat)
    record = None
    if keep_record:
        players = [{"name": f"{kind} {seat}", "ai": kind} for seat, kind in enumerate(lineup)]
        record = record_to_json(game, players)
    return list(game.points), times, record


@dataclass(frozen=True)
class _DealTask:
    rules: dict[str, Any]
    lineup: tuple[str, ...]
    deal: int
    seed: int
    playouts: int | None
    time_limit: float | None
    keep_records: bool


def _play_deal(task: _DealTask) -> list[GameResult]:
    """Every rotation of the line-up on one deal."""
    rules = rules_from_dict(task.rules)
    players = len(task.lineup)
    deal_seed = _seed_for(task.seed, task.deal)
    results = []
    for rotation in range(players):
        lineup = [task.lineup[(seat + rotation) % players] for seat in range(players)]
        points, times, record = play_game(
            rules,
            lineup,
            deal_seed=deal_seed,
            bot_seed=_seed_for(task.seed, task.deal, rotation + 1),
            playouts=task.playouts,
            time_limit=task.time_limit,
            keep_record=task.keep_records,
        )
        results.append(GameResult(task.deal, rotation, lineup, points, times, record, rules.rounds))
    return results


def run_arena(
    rules: Rules,
    lineup: list[str],
    deals: int,
    *,
    seed: int = 0,
    playouts: int | None = None,
    time_limit: float | None = None,
    jobs: int = 1,
    keep_records: bool = False,
    on_deal: Callable[[list[GameResult]], None] | None = None,
) -> list[GameResult]:
    """Play ``deals`` deals, each once per rotation of ``lineup``; results in deal order.

    A game lasts ``rules.rounds`` rounds. Its deals come from one generator seeded per deal, so
    every rotation gets the same sequence of deals; from the second round on, the exchange
    (R25) follows the places of the round before, which differ between rotations, so the hands
    after the exchange may differ too: only the first round's hands are exactly duplicated."""
    tasks = [
        _DealTask(rules.to_dict(), tuple(lineup), deal, seed, playouts, time_limit, keep_records)
        for deal in range(deals)
    ]
    results: list[GameResult] = []
    outcomes: Iterator[list[GameResult]]
    if jobs <= 1 or deals <= 1:
        outcomes = map(_play_deal, tasks)
        for outcome in outcomes:
            results.extend(outcome)
            if on_deal is not None:
                on_deal(outcome)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for outcome in pool.map(_play_deal, tasks, chunksize=1):
            results.extend(outcome)
            if on_deal is not None:
                on_deal(outcome)
    return results


def _percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile by linear interpolation (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(results: list[GameResult], deals: int) -> dict[str, Any]:
    """The arena's JSON report (see the issue and docs/bots.md)."""
    kinds: list[str] = []
    for result in results:
        for kind in result.lineup:
            if kind not in kinds:
                kinds.append(kind)
    per_deal: dict[str, dict[int, list[float]]] = {kind: {} for kind in kinds}
    firsts: dict[str, int] = dict.fromkeys(kinds, 0)
    lasts: dict[str, int] = dict.fromkeys(kinds, 0)
    seats: dict[str, int] = dict.fromkeys(kinds, 0)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for result in results:
        top = max(result.points)
        bottom = min(result.points)
        for seat, kind in enumerate(result.lineup):
            points = result.points[seat]
            per_deal[kind].setdefault(result.deal, []).append(result.per_round(seat))
            seats[kind] += 1
            firsts[kind] += points == top
            lasts[kind] += points == bottom
        for kind, spent in result.decision_ms.items():
            times[kind].extend(spent)
    by_kind: dict[str, Any] = {}
    for kind in kinds:
        samples = [sum(p) / len(p) for p in per_deal[kind].values()]
        mean = statistics.fmean(samples) if samples else 0.0
        half = 1.96 * statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else 0
        by_kind[kind] = {
            "mean_points": round(mean, 4),
            "ci95": [round(mean - half, 4), round(mean + half, 4)],
            "first_rate": round(firsts[kind] / seats[kind], 4) if seats[kind] else 0.0,
            "last_rate": round(lasts[kind] / seats[kind], 4) if seats[kind] else 0.0,
            "decision_ms": {
                "p50": round(_percentile(times[kind], 0.5), 2),
                "p95": round(_percentile(times[kind], 0.95), 2),
            },
        }
    rounds = results[0].rounds if results else 1
    return {"by_kind": by_kind, "deals": deals, "games": len(results), "rounds": rounds}


class _Progress:
    """A one-line progress bar on a terminal stream (nothing when the stream is not a tty)."""

    def __init__(self, total: int, stream: TextIO, enabled: bool) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.enabled = enabled
        self.started = time.monotonic()

    def step(self, _: object = None) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        elapsed = time.monotonic() - self.started
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        self.stream.write(
            f"\rarena [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} deals"
            f"  {elapsed:5.0f}s elapsed, ~{left:4.0f}s left"
        )
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def _parse_lineup(text: str) -> list[str]:
    kinds = [part.strip().lower() for part in text.split(",") if part.strip()]
    for kind in kinds:
        if kind not in ARENA_KINDS:
            raise ValueError(f"unknown player {kind!r} in --lineup: use {', '.join(ARENA_KINDS)}")
    return kinds


def _rules_of(args: argparse.Namespace, players: int) -> Rules:
    data: dict[str, Any] = {"preset": args.preset}
    if args.rules:
        given = json.loads(args.rules)
        if not isinstance(given, dict):
            raise OptionsError("rules_not_object", "--rules must be a JSON object")
        data.update(given)
    if "players" in data and data["players"] != players:
        raise ValueError(
            f"the rules say {data['players']} players but the line-up has {players} players"
        )
    data["players"] = players
    # Games of one round unless asked (a preset's own number of rounds is not used, so every
    # preset's figures are comparable); --rounds and a "rounds" in --rules must agree.
    if args.rounds is not None:
        if args.rounds < 1:
            raise ValueError("--rounds must be at least 1")
        if "rounds" in data and data["rounds"] != args.rounds:
            raise ValueError(
                f"the rules say {data['rounds']} rounds but --rounds says {args.rounds}"
            )
        data["rounds"] = args.rounds
    data.setdefault("rounds", 1)
    return rules_from_dict(data)


def cmd_arena(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    try:
        lineup = _parse_lineup(args.lineup)
        if not lineup:
            raise ValueError("--lineup names no player")
        rules = _rules_of(args, len(lineup))
        if args.deals < 1:
            raise ValueError("--deals must be at least 1")
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        if args.playouts is not None and args.playouts < 1:
            raise ValueError("--playouts must be at least 1")
        if args.time_limit is not None and args.time_limit <= 0:
            raise ValueError("--time-limit must be positive")
    except json.JSONDecodeError as error:
        print(f"cardverse arena: --rules is not valid JSON: {error.msg}", file=err)
        return EXIT_MALFORMED
    except (OptionsError, ValueError) as error:
        print(f"cardverse arena: {error}", file=err)
        return EXIT_MALFORMED
    show = args.progress if args.progress is not None else err.isatty()
    progress = _Progress(args.deals, err, show)
    records = None
    if args.records:
        try:
            records = open(args.records, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as error:
            print(f"cardverse arena: cannot write {args.records}: {error.strerror}", file=err)
            return EXIT_MALFORMED

    def on_deal(outcome: list[GameResult]) -> None:
        if records is not None:
            for game in outcome:
                records.write(json.dumps(game.record) + "\n")
        progress.step()

    started = time.monotonic()
    try:
        results = run_arena(
            rules,
            lineup,
            args.deals,
            seed=args.seed,
            playouts=args.playouts,
            time_limit=args.time_limit,
            jobs=args.jobs,
            keep_records=records is not None,
            on_deal=on_deal,
        )
    finally:
        if records is not None:
            records.close()
    report = summarise(results, args.deals)
    if args.json:
        out.write(json.dumps(report) + "\n")
        return EXIT_OK
    _print_table(report, rules, lineup, time.monotonic() - started, out)
    return EXIT_OK


def _print_table(
    report: dict[str, Any], rules: Rules, lineup: list[str], seconds: float, out: TextIO
) -> None:
    options = ", ".join(f"{k}={v}" for k, v in rules.changed_options().items())
    rounds = report["rounds"]
    length = f"{rounds} rounds each, points per round" if rounds > 1 else "one round each"
    out.write(
        f"{report['deals']} deals x {len(lineup)} rotations = {report['games']} games, "
        f"{length} ({options}) in {seconds:.0f}s\n"
    )
    out.write(
        f"{'player':8} {'points':>7} {'95% interval':>16} {'first':>6} {'last':>6} "
        f"{'ms p50':>8} {'ms p95':>8}\n"
    )
    for kind, row in report["by_kind"].items():
        low, high = row["ci95"]
        out.write(
            f"{kind:8} {row['mean_points']:7.3f} {f'[{low:.3f}, {high:.3f}]':>16} "
            f"{row['first_rate']:6.3f} {row['last_rate']:6.3f} "
            f"{row['decision_ms']['p50']:8.2f} {row['decision_ms']['p95']:8.2f}\n"
        )


def add_arena_parser(subparsers: Any) -> None:
    """Add ``arena`` to the command line's sub-commands."""
    parser = subparsers.add_parser(
        "arena",
        help="play many games between computer players and report their strength",
        description=(
            "Play --deals deals between a line-up of computer players, each deal once per "
            "rotation of the line-up (duplicate deals), and report mean points per round with a "
            "95% confidence interval, first- and last-place rates and decision times per kind."
        ),
    )
    parser.add_argument("--preset", default="cardverse", help="rules preset (default cardverse)")
    parser.add_argument(
        "--rules", metavar="JSON", help='rules object, e.g. \'{"preset": "standard", "jokers": 2}\''
    )
    parser.add_argument(
        "--lineup",
        default="hard,normal,normal,normal",
        help=(
            "comma-separated players, one per seat: levels (easy, normal, hard) or baselines "
            "(montecarlo, structure); default hard,normal,normal,normal"
        ),
    )
    parser.add_argument("--deals", type=int, default=100, help="deals to play (default 100)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help=(
            "rounds per game, with the exchange between them (default 1, or the rounds of "
            "--rules); points are reported per round"
        ),
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and bots")
    parser.add_argument(
        "--playouts",
        type=int,
        default=None,
        help="the hard bot's playouts per move (deterministic); default: 1 s per move",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="the hard bot's seconds per move (default 1 when --playouts is not given)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--records", metavar="FILE", help="write every game's record (JSON lines, notation.md)"
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show a progress bar on standard error (default: when it is a terminal)",
    )
    parser.set_defaults(handler=cmd_arena)


register_command(add_arena_parser)
