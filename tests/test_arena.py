"""The arena (issue 3): a small smoke run through the command line, and its statistics."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cardverse import arena
from cardverse.cli import main
from cardverse.engine import Rules
from cardverse.notation import replay_record


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardverse", "arena", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_arena_smoke_json_shape(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    done = run_cli(
        "--lineup",
        "hard,normal,easy",
        "--deals",
        "2",
        "--seed",
        "3",
        "--playouts",
        "20",
        "--json",
        "--records",
        str(records),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {"by_kind", "deals", "games", "rounds"}
    assert report["deals"] == 2
    assert report["rounds"] == 1
    assert report["games"] == 6  # every deal once per rotation of three seats
    assert set(report["by_kind"]) == {"hard", "normal", "easy"}
    for row in report["by_kind"].values():
        assert set(row) == {"mean_points", "ci95", "first_rate", "last_rate", "decision_ms"}
        assert 1 <= row["mean_points"] <= 3
        low, high = row["ci95"]
        assert low <= row["mean_points"] <= high
        assert 0 <= row["first_rate"] <= 1 and 0 <= row["last_rate"] <= 1
        assert set(row["decision_ms"]) == {"p50", "p95"}
        assert 0 <= row["decision_ms"]["p50"] <= row["decision_ms"]["p95"]
    # Points shared out per game: 3 + 2 + 1 for each of the six games.
    total = sum(row["mean_points"] for row in report["by_kind"].values())
    assert total == pytest.approx(6.0, abs=1e-3)
    lines = records.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6
    for line in lines:
        record = json.loads(line)
        assert record["format"] == "president-record/1"
        assert replay_record(record).game.over  # every record replays to its end


def test_arena_table_output_and_rules_json() -> None:
    out, err = io.StringIO(), io.StringIO()
    args = arena_args(
        "--rules",
        '{"preset": "standard", "jokers": 2, "straights": true, "eight_stop": true, '
        '"revolution": true, "rounds": 2}',
        "--lineup",
        "normal,easy,easy,easy",
        "--deals",
        "2",
    )
    assert args.handler(args, io.StringIO(), out, err) == 0
    text = out.getvalue()
    assert "2 deals x 4 rotations = 8 games" in text
    assert "jokers=2" in text and "normal" in text


def arena_args(*argv: str) -> argparse.Namespace:
    from cardverse.cli import _load_extra_commands, build_parser

    _load_extra_commands()
    return build_parser().parse_args(["arena", *argv])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--lineup", "hard,expert,easy"], "unknown player"),
        (["--lineup", "easy,easy,easy", "--rules", '{"players": 4}'], "line-up has 3"),
        (["--rules", "{not json"], "not valid JSON"),
        (["--rules", '{"preset": "cardverse", "jokers": 2}'], "locked"),
        (["--deals", "0"], "at least 1"),
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--rounds", "2", "--rules", '{"rounds": 3}'], "the rules say 3 rounds"),
    ],
)
def test_arena_rejects_bad_options(argv: list[str], message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    args = arena_args(*argv)
    assert args.handler(args, io.StringIO(), out, err) == 2
    assert message in err.getvalue()


def test_arena_is_registered_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    assert "--lineup" in capsys.readouterr().out


def test_duplicate_deals_rotate_the_lineup_over_the_same_cards() -> None:
    rules = Rules.make("cardverse", players=3)
    results = arena.run_arena(rules, ["normal", "easy", "easy"], 2, seed=5, keep_records=True)
    assert [(r.deal, r.rotation) for r in results] == [(d, k) for d in range(2) for k in range(3)]
    for deal in range(2):
        games = [r for r in results if r.deal == deal]
        seats_of_normal = sorted(r.lineup.index("normal") for r in games)
        assert seats_of_normal == [0, 1, 2]
        hands = {json.dumps(r.record["rounds"][0]["hands"]) for r in games if r.record}
        assert len(hands) == 1  # the same deal in every rotation


def test_jobs_do_not_change_the_results() -> None:
    rules = Rules.make("cardverse", players=4)
    lineup = ["hard", "normal", "easy", "normal"]
    one = arena.run_arena(rules, lineup, 2, seed=9, playouts=15, jobs=1)
    two = arena.run_arena(rules, lineup, 2, seed=9, playouts=15, jobs=2)
    assert [r.points for r in one] == [r.points for r in two]


def test_summary_statistics() -> None:
    games = [
        arena.GameResult(0, 0, ["a", "b", "b"], [3, 2, 1], {"a": [1.0, 3.0], "b": [2.0]}),
        arena.GameResult(0, 1, ["b", "a", "b"], [3, 2, 1], {"a": [5.0]}),
        arena.GameResult(1, 0, ["a", "b", "b"], [1, 3, 2], {}),
        arena.GameResult(1, 1, ["b", "a", "b"], [2, 3, 1], {}),
    ]
    report = arena.summarise(games, 2)
    a = report["by_kind"]["a"]
    # Deal means for a: (3 + 2) / 2 = 2.5 and (1 + 3) / 2 = 2.0.
    assert a["mean_points"] == pytest.approx(2.25)
    half = 1.96 * 0.3535533905932738 / 2**0.5
    assert a["ci95"] == pytest.approx([2.25 - half, 2.25 + half], abs=1e-4)
    assert a["first_rate"] == pytest.approx(0.5)
    assert a["last_rate"] == pytest.approx(0.25)
    assert a["decision_ms"] == {"p50": 3.0, "p95": 4.8}
    assert report["games"] == 4 and report["deals"] == 2


def test_R22_R25_games_of_several_rounds_with_the_exchange_between_them() -> None:
    """--rounds: each game is the same sequence of deals in every rotation; the exchange runs
    between the rounds; points are the game's totals, reported per round (fair share kept)."""
    rules = Rules.make("cardverse", players=3, rounds=3)
    lineup = ["normal", "easy", "easy"]
    results = arena.run_arena(rules, lineup, 2, seed=4, keep_records=True)
    assert len(results) == 6
    for deal in range(2):
        games = [r for r in results if r.deal == deal]
        deals = set()
        for game in games:
            assert game.rounds == 3
            assert sum(game.points) == 3 * (3 + 2 + 1)  # R22: points add up over the rounds
            assert game.record is not None
            rounds = game.record["rounds"]
            assert len(rounds) == 3
            assert not rounds[0].get("exchange")
            assert all(later["exchange"] for later in rounds[1:])  # R25 from round 2 on
            deals.add(json.dumps([r["hands"] for r in rounds]))
        assert len(deals) == 1  # every rotation was dealt the same three hands in turn
    report = arena.summarise(results, 2)
    assert report["rounds"] == 3
    normal = report["by_kind"]["normal"]["mean_points"]
    easy = report["by_kind"]["easy"]["mean_points"]
    assert 1 <= easy < normal <= 3  # per round, not per game of three rounds
    assert normal + 2 * easy == pytest.approx(6.0, abs=1e-3)
    by_hand = [
        sum(r.points[r.lineup.index("normal")] for r in results if r.deal == d) / 9
        for d in range(2)
    ]
    assert normal == pytest.approx(sum(by_hand) / 2, abs=1e-4)


def test_arena_rounds_option_and_one_round_by_default() -> None:
    out, err = io.StringIO(), io.StringIO()
    args = arena_args("--preset", "daifugo", "--lineup", "normal,easy,easy", "--deals", "1")
    assert args.handler(args, io.StringIO(), out, err) == 0, err.getvalue()
    assert "one round each" in out.getvalue()  # not the preset's three rounds
    out = io.StringIO()
    args = arena_args("--lineup", "normal,easy,easy", "--deals", "1", "--rounds", "2", "--json")
    assert args.handler(args, io.StringIO(), out, err) == 0, err.getvalue()
    report = json.loads(out.getvalue())
    assert report["rounds"] == 2 and report["games"] == 3
    total = (
        report["by_kind"]["normal"]["mean_points"] + 2 * report["by_kind"]["easy"]["mean_points"]
    )
    assert total == pytest.approx(6.0, abs=1e-3)


def test_turns_deals_every_round_and_refuses_an_unanswered_turn() -> None:
    from cardverse.bots import make_bot
    from cardverse.engine import Game, Phase

    rules = Rules.make("cardverse", players=4, rounds=2)
    game = Game(rules, seed=8)
    bots = [make_bot("normal", seed=s) for s in range(4)]
    phases = set()
    for seat, view in arena.turns(game):
        assert view.seat == seat and view.legal_moves
        phases.add(game.phase)
        game.apply(bots[seat].choose(view), seat)
    assert game.over and game.round_number == 2
    assert phases == {Phase.PLAY, Phase.EXCHANGE}
    loop = arena.turns(Game(rules, seed=8))
    next(loop)
    with pytest.raises(RuntimeError, match="no action was applied"):
        next(loop)
