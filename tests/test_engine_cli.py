"""The ``cardverse moves`` and ``cardverse check`` command line, as real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_testkit import SPEC_POSITION, cli

POSITION = SPEC_POSITION

RECORD: dict[str, Any] = {
    "format": "president-record/1",
    "rules": {"preset": "standard", "players": 3, "first_lead": "first_seat"},
    "rounds": [
        {
            "hands": [["3C", "9H", "4S"], ["5D", "KS"], ["7C", "8C"]],
            "actions": [
                {"seat": 0, "action": "play", "cards": ["3C"]},
                {"seat": 1, "action": "play", "cards": ["5D"]},
                {"seat": 2, "action": "play", "cards": ["7C"]},
            ],
        }
    ],
}


def write(tmp_path: Path, data: Any, name: str = "input.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_moves_prints_each_legal_action_once_with_its_seat(tmp_path: Path) -> None:
    done = cli("moves", write(tmp_path, POSITION))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"seat": 1, "action": "play", "cards": ["9H", "9S"]},
        {"seat": 1, "action": "pass"},
    ]
    assert done.stderr == ""


def test_moves_and_check_read_standard_input_with_a_dash() -> None:
    done = cli("moves", "-", stdin=json.dumps(POSITION))
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 2
    done = cli("check", "-", stdin=json.dumps(RECORD))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "round": 1,
        "over": False,
        "turn": 0,
        "revolution": False,
        "trick": [
            {"seat": 0, "action": "play", "cards": ["3C"]},
            {"seat": 1, "action": "play", "cards": ["5D"]},
            {"seat": 2, "action": "play", "cards": ["7C"]},
        ],
        "places": [[]],
        "points": [0, 0, 0],
    }


@pytest.mark.parametrize("command", ["moves", "check"])
def test_bad_json_exits_2_with_a_clear_message(command: str, tmp_path: Path) -> None:
    done = cli(command, write(tmp_path, '{"hands": [["3C"],'))
    assert done.returncode == 2
    assert "not valid JSON" in done.stderr and "line 1" in done.stderr
    assert done.stdout == ""
    done = cli(command, "-", stdin="")
    assert done.returncode == 2 and "not valid JSON" in done.stderr


@pytest.mark.parametrize("command", ["moves", "check"])
def test_missing_file_exits_2(command: str, tmp_path: Path) -> None:
    done = cli(command, str(tmp_path / "nowhere.json"))
    assert done.returncode == 2
    assert "cannot read" in done.stderr


def test_unknown_card_exits_2_naming_the_card(tmp_path: Path) -> None:
    position = {**POSITION, "hands": [["3C", "7D", "7Z"], ["9H", "9S", "2C"], ["4D", "KH"]]}
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 2
    assert "7Z" in done.stderr and "unknown card" in done.stderr
    record = json.loads(json.dumps(RECORD))
    record["rounds"][0]["actions"][0]["cards"] = ["3X"]
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 2 and "3X" in done.stderr


def test_card_in_two_places_exits_2(tmp_path: Path) -> None:
    position = {**POSITION, "hands": [["3C", "7D", "7S"], ["9H", "9S", "7D"], ["4D", "KH"]]}
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 2
    assert "7D" in done.stderr and "two places" in done.stderr
    position = {**POSITION, "hands": [["3C", "7D", "6C"], ["9H", "9S", "2C"], ["4D", "KH"]]}
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 2 and "6C" in done.stderr
    record = json.loads(json.dumps(RECORD))
    record["rounds"][0]["hands"][2] = ["7C", "5D"]
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 2 and "5D" in done.stderr


@pytest.mark.parametrize(("option", "value"), [("jokers", 1), ("straights", True)])
def test_locked_option_exits_2_naming_option_and_preset(
    option: str, value: Any, tmp_path: Path
) -> None:
    position = {**POSITION, "rules": {"preset": "cardverse", "players": 3, option: value}}
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 2
    assert option in done.stderr and "cardverse" in done.stderr and "locked" in done.stderr
    record = {**RECORD, "rules": {"preset": "cardverse", "players": 3, option: value}}
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 2
    assert option in done.stderr and "cardverse" in done.stderr


def test_joker_of_a_straight_without_a_rank_exits_2(tmp_path: Path) -> None:
    record = {
        "rules": {"players": 3, "straights": True, "jokers": 1, "first_lead": "first_seat"},
        "rounds": [
            {
                "hands": [["5H", "6H", "RJ", "9C"], ["3H"], ["4H"]],
                "actions": [{"seat": 0, "action": "play", "cards": ["5H", "6H", "RJ"]}],
            }
        ],
    }
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 2
    assert "RJ" in done.stderr and "actions[0]" in done.stderr
    record["rounds"][0]["actions"][0]["jokers"] = {"RJ": "7"}
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["trick"][0]["jokers"] == {"RJ": "7"}


def test_illegal_action_exits_1_naming_round_index_seat_and_rule(tmp_path: Path) -> None:
    record = json.loads(json.dumps(RECORD))
    record["rounds"][0]["actions"].append({"seat": 0, "action": "play", "cards": ["4S"]})
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 1
    assert done.stdout == ""
    err = done.stderr
    assert "round 1" in err and "index 3" in err and "seat 0" in err and "R10" in err
    record["rounds"][0]["actions"][3] = {"seat": 1, "action": "play", "cards": ["KS"]}
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 1
    assert "index 3" in done.stderr and "seat 1" in done.stderr and "R12" in done.stderr


def test_illegal_action_in_a_later_round_names_that_round(tmp_path: Path) -> None:
    record = {
        "rules": {"preset": "cardverse", "players": 3, "rounds": 2, "exchange": False},
        "rounds": [
            {
                "hands": [["3C"], ["4C"], ["5C"]],
                "actions": [
                    {"seat": 0, "action": "play", "cards": ["3C"]},
                    {"seat": 1, "action": "play", "cards": ["4C"]},
                ],
            },
            {
                "hands": [["3D", "4D"], ["5D"], ["6D", "7D"]],
                "actions": [
                    {"seat": 2, "action": "play", "cards": ["6D"]},
                    {"seat": 0, "action": "play", "cards": ["4D"]},
                ],
            },
        ],
    }
    done = cli("check", write(tmp_path, record))
    assert done.returncode == 1
    err = done.stderr
    assert "round 2" in err and "index 1" in err and "seat 0" in err and "R10" in err


def test_usage_errors_exit_2() -> None:
    done = cli("moves")
    assert done.returncode == 2
    done = cli("frobnicate", "x")
    assert done.returncode == 2


def test_moves_output_is_one_json_list_even_when_only_passing(tmp_path: Path) -> None:
    position = {
        "hands": [["3C"], ["4D", "5D"], ["KH"]],
        "trick": [{"seat": 2, "action": "play", "cards": ["AS"]}],
        "turn": 1,
    }
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 0
    assert json.loads(done.stdout) == [{"seat": 1, "action": "pass"}]


def test_card_input_is_case_insensitive_and_output_upper_case(tmp_path: Path) -> None:
    position = {
        "rules": {"straights": True, "jokers": 1},
        "hands": [["3s"], ["9s", "10s", "js", "qh"], ["kd"]],
        "trick": [
            {"seat": 0, "action": "play", "cards": ["5h", "6h", "rj"], "jokers": {"rj": "7"}}
        ],
        "turn": 1,
    }
    done = cli("moves", write(tmp_path, position))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"seat": 1, "action": "play", "cards": ["9S", "10S", "JS"]},
        {"seat": 1, "action": "pass"},
    ]
