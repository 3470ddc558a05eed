"""People around the table (issue 10): what the new features cost, on one core.

Measures:
  (a) a suggestion: the normal computer player's decision from a seat's own view, ms per call
      (median over the turns of random games, standard preset, 4 players);
  (b) a replay: ``replay_steps`` of a whole game's record, ms (median of runs), for a short game
      (4 players, 3 rounds) and the longest the rules allow (8 players, 20 rounds, 2 jokers,
      straights), with the size of the answer;
  (c) the invite directory at start-up: ms to index N stored tables (codes and watch ids);
  (d) the QR code of a share link (segno SVG), ms per code.
The table is printed and the JSON written to ``bench/results/people.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from cardverse.arena import turns
from cardverse.bots import make_bot
from cardverse.engine import Game, rules_from_dict
from cardverse.notation import record_to_json
from cardverse.server.spectators import watch_id_for
from cardverse.tabletalk.invites import Directory
from cardverse.web.i18n import translator
from cardverse.web.invites import qr_svg
from cardverse.web.replay import replay_steps


def _random_game(options: dict[str, Any], seed: int) -> Game:
    game = Game(rules_from_dict(options), seed=seed)
    rng = random.Random(seed)
    while not game.over:
        if game.phase.value == "round_over":
            game.start_next_round()
            continue
        game.apply(rng.choice(game.legal_moves()), game.turn)
    return game


def suggestion_ms(games: int) -> float:
    times: list[float] = []
    for seed in range(games):
        game = Game(rules_from_dict({"preset": "standard", "players": 4}), seed=seed)
        rng = random.Random(seed)
        for seat, view in turns(game):
            started = time.perf_counter()
            make_bot("normal", seed=seed).choose(view)
            times.append(time.perf_counter() - started)
            game.apply(rng.choice(game.legal_moves()), seat)
    return 1000 * statistics.median(times)


def replay_ms(options: dict[str, Any], runs: int) -> tuple[float, int, int]:
    record = json.loads(json.dumps(record_to_json(_random_game(options, 5))))
    times = []
    answer: dict[str, Any] = {}
    for _ in range(runs):
        started = time.perf_counter()
        answer = replay_steps(record)
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times), len(answer["steps"]), len(json.dumps(answer))


def directory_ms(tables: int) -> float:
    ids = [f"table-{n:08d}-xxxxxxxxxxxx" for n in range(tables)]
    started = time.perf_counter()
    directory = Directory()
    for table_id in ids:
        directory.add(table_id, watch_id_for(table_id))
    return 1000 * (time.perf_counter() - started)


def qr_ms(count: int) -> float:
    t = translator("en")
    started = time.perf_counter()
    for n in range(count):
        qr_svg(f"https://cardverse.example/t/abcdefghijklmnopqrstu{n:03d}", t)
    return 1000 * (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tables", type=int, default=100_000)
    parser.add_argument("--out", default="bench/results/people.json")
    args = parser.parse_args()
    short = replay_ms({"preset": "standard", "players": 4, "rounds": 3}, args.runs)
    longest = replay_ms(
        {"preset": "standard", "players": 8, "rounds": 20, "jokers": 2, "straights": True},
        args.runs,
    )
    results = {
        "suggestion_ms_median": round(suggestion_ms(args.games), 3),
        "replay_short_ms_median": round(short[0], 1),
        "replay_short_steps": short[1],
        "replay_short_answer_bytes": short[2],
        "replay_longest_ms_median": round(longest[0], 1),
        "replay_longest_steps": longest[1],
        "replay_longest_answer_bytes": longest[2],
        "directory_tables": args.tables,
        "directory_ms": round(directory_ms(args.tables), 1),
        "qr_svg_ms": round(qr_ms(50), 2),
    }
    for key, value in results.items():
        print(f"{key:32} {value}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
