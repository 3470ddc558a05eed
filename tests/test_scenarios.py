"""Scenario files (tests/scenarios/*.json): positions with their exact legal moves, and game
records with their expected ``check`` summary, refusal or malformation.

Every case runs through the Python API; every other case (and all of a few kinds) also runs
through the real command line, ``python -m cardverse moves|check``, as a subprocess.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from engine_testkit import canon, cli, move_texts

from cardverse.engine import OptionsError, rules_from_dict
from cardverse.notation import (
    IllegalRecordAction,
    NotationError,
    read_position,
    replay_record,
    summary,
)

SCENARIOS = Path(__file__).parent / "scenarios"
OUTCOMES = ("moves", "malformed", "summary", "illegal")


def load_cases() -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for path in sorted(SCENARIOS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            cases.append((f"{path.stem}: {case['name']}", case))
    return cases


CASES = load_cases()
CLI_CASES = [c for i, c in enumerate(CASES) if i % 2 == 0 or "malformed" in c[1]]


def kind(case: dict[str, Any]) -> str:
    return "position" if "position" in case else "record"


def outcome(case: dict[str, Any]) -> str:
    found = [key for key in OUTCOMES if key in case]
    assert len(found) == 1, f"a case needs exactly one of {OUTCOMES}: {found}"
    return found[0]


def trick_texts(trick: list[dict[str, Any]]) -> list[tuple[int, str]]:
    return [(a["seat"], canon(a)) for a in trick]


def check_summary(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert set(got) == set(want)
    for key in want:
        if key == "trick":
            assert trick_texts(got[key]) == trick_texts(want[key])
        else:
            assert got[key] == want[key], key


# -- the files themselves ----------------------------------------------------------------------


def test_scenario_files_are_well_formed() -> None:
    names = [name for name, _ in CASES]
    assert len(names) == len(set(names)), "scenario names must be unique"
    for name, case in CASES:
        assert ("position" in case) != ("record" in case), name
        result = outcome(case)
        if kind(case) == "position":
            assert result in ("moves", "malformed"), name
        else:
            assert result in ("summary", "illegal", "malformed"), name
        if result == "moves":
            texts = [canon(a) for a in case["moves"]]
            assert len(texts) == len(set(texts)), f"{name}: an expected move is listed twice"
        for rule in case.get("rules_checked", []):
            assert re.fullmatch(r"R([1-9]|[1-3][0-9]|4[0-9])", rule), name


def test_scenarios_cover_every_play_rule_option_preset_and_table_size() -> None:
    rules_seen: set[str] = set()
    values: dict[str, set[Any]] = {}
    for _, case in CASES:
        rules_seen |= set(case.get("rules_checked", []))
        data = case.get("position") or case["record"]
        hands = data.get("hands") or data["rounds"][0]["hands"]
        try:
            rules = rules_from_dict({"players": len(hands), **(data.get("rules") or {})})
        except OptionsError:
            continue  # a malformed case about the options themselves
        for key, value in rules.to_dict().items():
            values.setdefault(key, set()).add(value)
    assert {f"R{n}" for n in range(1, 26)} <= rules_seen
    assert {f"R{n}" for n in range(31, 41)} <= rules_seen
    assert {f"R{n}" for n in range(41, 49)} <= rules_seen
    assert values["preset"] == {"standard", "cardverse", "daifugo", "uecda"}
    assert set(range(3, 9)) <= values["players"]
    assert values["jokers"] == {0, 1, 2}
    assert values["first_lead"] == {"first_seat", "three_of_clubs", "three_of_diamonds"}
    assert {1, 2} <= values["rounds"]
    for option in ("equal_plays", "revolution", "straights", "eight_stop", "exchange"):
        assert values[option] == {False, True}, option
    for option in ("jack_back", "forbidden_finish", "downfall"):
        assert values[option] == {False, True}, option
    assert values["suit_lock"] == {False, True, "with_jokers"}
    assert values["spade_three"] == {False, True, "over_lock"}
    for option in ("seven_pass", "ten_discard", "five_card_sets", "lead_every_round"):
        assert values[option] == {False, True}, option
    assert values["straight_cover"] == {"top", "all_higher"}
    assert {0, 5} <= values["straight_revolution"]


# -- through the Python API --------------------------------------------------------------------


@pytest.mark.parametrize(("name", "case"), CASES, ids=[n for n, _ in CASES])
def test_scenario_through_the_api(name: str, case: dict[str, Any]) -> None:
    result = outcome(case)
    if kind(case) == "position":
        if result == "malformed":
            with pytest.raises(NotationError) as error:
                read_position(case["position"])
            assert case["malformed"].lower() in str(error.value).lower()
            return
        texts = move_texts(read_position(case["position"]).legal_moves())
        assert len(texts) == len(set(texts)), "the engine listed a move twice"
        assert set(texts) == {canon(a) for a in case["moves"]}
        return
    if result == "malformed":
        with pytest.raises(NotationError) as error:
            replay_record(case["record"])
        assert case["malformed"].lower() in str(error.value).lower()
    elif result == "illegal":
        with pytest.raises(IllegalRecordAction) as error:
            replay_record(case["record"])
        want = case["illegal"]
        got = error.value
        assert (got.round, got.part, got.index, got.seat, got.refusal.rule) == (
            want["round"],
            want["part"],
            want["index"],
            want["seat"],
            want["rule"],
        )
    else:
        check_summary(summary(replay_record(case["record"]).game), case["summary"])


# -- through the command line ------------------------------------------------------------------


def run_cli(
    command: str, data: Any, tmp_path: Path, use_stdin: bool
) -> subprocess.CompletedProcess:
    text = json.dumps(data)
    if use_stdin:
        args, given = [command, "-"], text
    else:
        path = tmp_path / f"{command}.json"
        path.write_text(text, encoding="utf-8")
        args, given = [command, str(path)], None
    return cli(*args, stdin=given)


@pytest.mark.parametrize(("name", "case"), CLI_CASES, ids=[n for n, _ in CLI_CASES])
def test_scenario_through_the_command_line(name: str, case: dict[str, Any], tmp_path: Path) -> None:
    result = outcome(case)
    use_stdin = len(name) % 2 == 0
    if kind(case) == "position":
        done = run_cli("moves", case["position"], tmp_path, use_stdin)
    else:
        done = run_cli("check", case["record"], tmp_path, use_stdin)
    if result == "malformed":
        assert done.returncode == 2, done.stderr
        assert done.stdout == ""
        assert case["malformed"].lower() in done.stderr.lower()
        return
    if result == "illegal":
        want = case["illegal"]
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        assert f"round {want['round']}" in done.stderr
        assert f"index {want['index']}" in done.stderr
        seat = "no seat" if want["seat"] is None else f"seat {want['seat']}"
        assert seat in done.stderr
        assert re.search(rf"\b{want['rule']}\b", done.stderr), done.stderr
        return
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    if result == "moves":
        turn = case["position"]["turn"]
        assert all(action["seat"] == turn for action in output)
        texts = [canon(action) for action in output]
        assert len(texts) == len(set(texts)), "a move is printed twice"
        assert set(texts) == {canon(a) for a in case["moves"]}
    else:
        check_summary(output, case["summary"])
