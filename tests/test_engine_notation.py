"""Notation (notation.md) through the Python API: actions, positions, records, round trips."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from engine_testkit import SPEC_POSITION, SPEC_RECORD, canon, expect, hand, move_texts, play

from cardverse.engine import (
    PASS,
    Action,
    ActionFormatError,
    Game,
    Phase,
    Rules,
    action_from_json,
    from_move,
    to_move,
)
from cardverse.notation import (
    IllegalRecordAction,
    NotationError,
    position_to_json,
    read_position,
    record_to_json,
    replay_record,
    summary,
)


def moves_of(position: dict[str, Any]) -> set[str]:
    texts = move_texts(read_position(position).legal_moves())
    assert len(texts) == len(set(texts))
    return set(texts)


# -- actions --------------------------------------------------------------------------------------


def test_action_json_round_trip_and_case_insensitive_cards() -> None:
    for data in (
        {"seat": 2, "action": "play", "cards": ["5H", "6H", "BJ"], "jokers": {"BJ": "7"}},
        {"seat": 1, "action": "pass"},
        {"seat": 0, "action": "give", "cards": ["4C", "9D"]},
        {"action": "play", "cards": ["10H", "10S"]},
    ):
        move = to_move(action_from_json(data))
        assert canon(from_move(move, data.get("seat")).to_json()) == canon(data)
    lower = to_move(action_from_json({"action": "play", "cards": ["qs", "10h", "jh"]}))
    assert from_move(lower).cards == ("10H", "JH", "QS")


def test_joker_declaring_its_sets_own_rank_is_that_set() -> None:
    declared = to_move(Action("play", ("7H", "7S", "RJ"), {"RJ": "7"}))
    assert declared == play("7H", "7S", "RJ")
    assert from_move(declared).to_json() == {"action": "play", "cards": ["7H", "7S", "RJ"]}


@pytest.mark.parametrize(
    "data",
    [
        {"action": "play", "cards": ["5H", "6H", "RJ"]},  # straight joker without a rank
        {"action": "play", "cards": ["5H", "RJ", "BJ"], "jokers": {"RJ": "6"}},
        {"action": "play", "cards": ["5H", "6H", "7H"], "jokers": {"RJ": "8"}},  # not played
        {"action": "play", "cards": ["5H", "6H", "RJ"], "jokers": {"RJ": "1"}},
        {"action": "play", "cards": ["5H", "6H", "7H"], "jokers": {"7H": "8"}},
        {"action": "play", "cards": ["5H", "5H"]},
        {"action": "play", "cards": ["5X"]},
        {"action": "play", "cards": []},
        {"action": "pass", "cards": ["5H"]},
        {"action": "fold"},
        {"action": "play", "cards": "5H"},
        {"action": "play", "cards": ["5H"], "seat": -1},
        {"action": "play", "cards": ["5H"], "seat": True},
        {"action": "play", "cards": ["5H"], "extra": 1},
        {"action": "give", "cards": ["5H", "RJ"], "jokers": {"RJ": "6"}},
        ["play", "5H"],
    ],
)
def test_malformed_actions_are_refused(data: Any) -> None:
    with pytest.raises(ActionFormatError):
        action_from_json(data)


# -- positions ------------------------------------------------------------------------------------


def test_spec_position_lists_its_moves() -> None:
    assert moves_of(SPEC_POSITION) == expect("9H 9S", "pass")


def test_position_with_hidden_hands_as_counts() -> None:
    data = copy.deepcopy(SPEC_POSITION)
    data["hands"] = [{"count": 3}, ["9H", "9S", "2C"], {"count": 2}]
    assert moves_of(data) == expect("9H 9S", "pass")
    data["turn"] = 0
    with pytest.raises(NotationError, match="on turn"):
        read_position(data)


def test_R13_engine_choice_position_after_all_others_passed_is_a_new_lead() -> None:
    data = {
        "hands": [["3C", "7D"], ["9H", "9S"], ["4D", "KH"]],
        "trick": [
            {"seat": 2, "action": "play", "cards": ["6C"]},
            {"seat": 0, "action": "pass"},
            {"seat": 1, "action": "pass"},
        ],
        "turn": 2,
    }
    assert moves_of(data) == expect("4D", "KH")
    data["trick"] = data["trick"][:2]
    with pytest.raises(NotationError, match="may still answer"):
        read_position(data)


def test_R13_position_after_all_passed_on_a_winner_who_went_out_is_a_new_lead() -> None:
    data = {
        "hands": [[], ["9H", "9S"], ["4D", "KH"]],
        "finished": [0],
        "trick": [
            {"seat": 0, "action": "play", "cards": ["JS"]},
            {"seat": 1, "action": "pass"},
            {"seat": 2, "action": "pass"},
        ],
        "turn": 1,
    }
    assert moves_of(data) == expect("9H", "9S", "9H 9S")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hands": [["3C", "7D"], ["3C"], ["4D"]]}, "two places"),
        ({"hands": [["6C", "7D"], ["9H"], ["4D"]]}, "two places"),  # 6C is in the trick
        ({"hands": [["3C", "7D"], ["9H"], ["4Z"]]}, "unknown card"),
        ({"hands": [["3C", "RJ"], ["9H"], ["4D"]]}, "not in the deck"),
        ({"rules": {"preset": "cardverse", "jokers": 1}}, "jokers"),
        ({"rules": {"preset": "standard", "players": 4}}, "players"),
        ({"turn": 0}, "passed"),
        ({"turn": 3}, "seat"),
        ({"finished": [2]}, "holds cards"),
        ({"revolution": "yes"}, "revolution"),
        ({"trick": [{"seat": 0, "action": "pass"}]}, "starts with a play"),
        ({"trick": [{"seat": 2, "action": "play", "cards": ["5C", "6C", "7C"]}]}, "straight"),
        (
            {
                "trick": [
                    {"seat": 2, "action": "play", "cards": ["6C", "6D"]},
                    {"seat": 0, "action": "play", "cards": ["8C"]},
                ]
            },
            "R9",
        ),
        ({"trick": [{"seat": 2, "action": "give", "cards": ["6C"]}]}, "give"),
        ({"colour": 1}, "unknown key"),
        ({"hands": [["3C"]]}, "hands"),
    ],
)
def test_malformed_positions_are_refused_clearly(change: dict[str, Any], message: str) -> None:
    data = {**copy.deepcopy(SPEC_POSITION), **change}
    with pytest.raises(NotationError, match=message):
        read_position(data)


def test_position_needs_two_seats_holding_cards() -> None:
    data = {"hands": [[], ["9H"], []], "turn": 1, "finished": [0, 2]}
    with pytest.raises(NotationError, match="fewer than two"):
        read_position(data)
    data = {"hands": [[], ["9H"], ["3S"]], "turn": 1}
    with pytest.raises(NotationError, match="finished"):
        read_position(data)


def test_position_written_and_read_back_has_the_same_moves() -> None:
    rules = Rules.make("standard", players=4, jokers=2, straights=True, revolution=True)
    for seed in range(6):
        game = Game(rules, seed=seed)
        for _ in range(seed * 3):
            game.apply(game.legal_moves()[-1])
        assert game.round is not None
        data = json.loads(json.dumps(position_to_json(game.round, rules)))
        position = read_position(data)
        assert set(move_texts(position.legal_moves())) == set(move_texts(game.legal_moves()))
        own = position_to_json(game.round, rules, own_seat=game.round.turn)
        assert sum(isinstance(h, dict) for h in own["hands"]) == 3
        assert set(move_texts(read_position(own).legal_moves())) == set(
            move_texts(game.legal_moves())
        )


# -- records --------------------------------------------------------------------------------------


def test_spec_record_replays_to_its_result() -> None:
    replay = replay_record(copy.deepcopy(SPEC_RECORD))
    assert summary(replay.game) == {
        "round": 2,
        "over": True,
        "turn": None,
        "revolution": False,
        "trick": [],
        "places": [[0, 1, 2], [0, 1, 2]],
        "points": [6, 4, 2],
    }
    assert replay.players[1] == {"name": "Bot", "ai": "hard"}


def test_record_in_progress_describes_the_game_so_far() -> None:
    data = copy.deepcopy(SPEC_RECORD)
    del data["result"]
    data["rounds"][1]["actions"] = data["rounds"][1]["actions"][:4]
    assert summary(replay_record(data).game) == {
        "round": 2,
        "over": False,
        "turn": 0,
        "revolution": False,
        "trick": [
            {"seat": 2, "action": "play", "cards": ["4H"]},
            {"seat": 0, "action": "play", "cards": ["JD"]},
            {"seat": 1, "action": "play", "cards": ["QS"]},
            {"seat": 2, "action": "pass"},
        ],
        "places": [[0, 1, 2], []],
        "points": [3, 2, 1],
    }
    data["rounds"][1]["exchange"] = data["rounds"][1]["exchange"][:1]
    data["rounds"][1]["actions"] = []
    state = summary(replay_record(data).game)
    assert (state["turn"], state["places"], state["trick"]) == (0, [[0, 1, 2], []], [])
    data["rounds"] = data["rounds"][:1]
    state = summary(replay_record(data).game)
    assert (state["round"], state["turn"], state["over"]) == (1, 2, False)  # next: the Scum


def test_record_result_must_match_the_replay() -> None:
    data = copy.deepcopy(SPEC_RECORD)
    data["result"]["points"] = [6, 2, 4]
    with pytest.raises(IllegalRecordAction) as error:
        replay_record(data)
    assert error.value.refusal.rule == "R22"
    data["result"] = {"places": [[0, 1, 2], [1, 0, 2]]}
    with pytest.raises(IllegalRecordAction) as error:
        replay_record(data)
    assert error.value.refusal.rule == "R20"


def test_illegal_record_action_names_round_index_seat_and_rule() -> None:
    data = copy.deepcopy(SPEC_RECORD)
    data["rounds"][1]["actions"][2] = {"seat": 1, "action": "play", "cards": ["10S"]}
    with pytest.raises(IllegalRecordAction) as error:
        replay_record(data)
    e = error.value
    assert (e.round, e.part, e.index, e.seat, e.refusal.rule) == (2, "actions", 2, 1, "R10")
    text = str(e)
    assert "round 2" in text and "index 2" in text and "seat 1" in text and "R10" in text


def test_wrong_automatic_gift_is_reported_at_its_own_index_and_seat() -> None:
    # A bug fixed in notation.py: the error pointed at the first gift, not the wrong one.
    data = {
        "rules": {"preset": "standard", "players": 4, "rounds": 2, "first_lead": "first_seat"},
        "rounds": [
            {
                "hands": [["3C"], ["4C"], ["5C"], ["6C"]],
                "actions": [
                    {"seat": 0, "action": "play", "cards": ["3C"]},
                    {"seat": 1, "action": "play", "cards": ["4C"]},
                    {"seat": 2, "action": "play", "cards": ["5C"]},
                ],
            },
            {
                "hands": [["3D", "4D"], ["5D", "6D"], ["7D", "8D"], ["9D", "10D"]],
                "exchange": [
                    {"seat": 3, "action": "give", "cards": ["9D", "10D"]},
                    {"seat": 2, "action": "give", "cards": ["7D"]},
                ],
            },
        ],
    }
    with pytest.raises(IllegalRecordAction) as error:
        replay_record(data)
    e = error.value
    assert (e.round, e.part, e.index, e.seat, e.refusal.rule) == (2, "exchange", 1, 2, "R25")


def test_record_written_by_the_engine_replays_to_the_same_state() -> None:
    rules = Rules.make("standard", players=5, rounds=3, jokers=2, straights=True, revolution=True)
    game = Game(rules, seed=42)
    step = 0
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        moves = game.legal_moves()
        game.apply(moves[step % len(moves)])
        step += 1
        if step % 37 == 0:  # in progress too, at many moments
            data = json.loads(json.dumps(record_to_json(game)))
            assert summary(replay_record(data).game) == summary(game)
    data = json.loads(json.dumps(record_to_json(game)))
    assert data["result"]["points"] == game.points
    assert summary(replay_record(data).game) == summary(game)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "pgn"}, "format"),
        ({"rounds": []}, "rounds"),
        ({"players": [{"name": "A"}]}, "players"),
        ({"players": [{"name": "A"}, {"name": "B", "ai": "genius"}, {"name": "C"}]}, "ai"),
        ({"rules": {"preset": "cardverse", "players": 3, "straights": True}}, "straights"),
        ({"rules": {"preset": "cardverse", "players": 3, "rounds": 1}}, "rounds"),
        ({"extra": True}, "unknown key"),
    ],
)
def test_malformed_records_are_refused_clearly(change: dict[str, Any], message: str) -> None:
    data = {**copy.deepcopy(SPEC_RECORD), **change}
    with pytest.raises(NotationError, match=message):
        replay_record(data)


def test_record_round_listed_before_the_previous_one_ends_is_malformed() -> None:
    data = copy.deepcopy(SPEC_RECORD)
    data["rounds"][0]["actions"] = data["rounds"][0]["actions"][:3]
    del data["result"]
    with pytest.raises(NotationError, match="not finished"):
        replay_record(data)


def test_record_deal_must_be_distinct_cards_of_the_deck() -> None:
    data = copy.deepcopy(SPEC_RECORD)
    data["rounds"][0]["hands"][2] = ["7C", "3C"]
    with pytest.raises(NotationError, match="twice"):
        replay_record(data)
    data["rounds"][0]["hands"][2] = ["7C", "RJ"]
    with pytest.raises(NotationError, match="deck"):
        replay_record(data)
    data["rounds"][0]["hands"][2] = []
    with pytest.raises(NotationError, match="no card"):
        replay_record(data)


def test_pass_and_set_moves_round_trip_through_from_move() -> None:
    assert from_move(PASS, 3).to_json() == {"seat": 3, "action": "pass"}
    move = play("KS", "KD")
    assert move == hand("KS", "KD")
    assert from_move(move).to_json(with_seat=False) == {"action": "play", "cards": ["KD", "KS"]}


def test_R15_position_with_revolution_in_force_needs_the_revolution_option() -> None:
    data = {"hands": [["3C"], ["4C"], ["5C"]], "turn": 0, "revolution": True}
    with pytest.raises(NotationError, match="revolution option is off"):
        read_position(data)
    data["rules"] = {"preset": "standard", "revolution": True}
    assert moves_of(data) == expect("3C")


def test_R14_position_whose_trick_holds_a_clearing_play_is_refused() -> None:
    data = {
        "hands": [["3C"], ["4C"], ["5C"]],
        "trick": [{"seat": 2, "action": "play", "cards": ["2S"]}],
        "turn": 0,
    }
    with pytest.raises(NotationError, match="clearing play"):
        read_position(data)


def test_R17_clearing_in_a_position_is_judged_by_the_order_before_each_play() -> None:
    # 3-3-3-3 played during a revolution clears (R17) and turns the order back to normal, so a
    # trick showing it with "revolution": false cannot be in progress. Played in the normal order
    # it clears nothing, starts a revolution, and in the reversed order nothing beats four 3s.
    rules = {"preset": "standard", "revolution": True}
    data = {
        "rules": rules,
        "hands": [["9C", "9D", "9H", "9S"], ["4C"], ["5C"]],
        "trick": [{"seat": 2, "action": "play", "cards": ["3C", "3D", "3H", "3S"]}],
        "turn": 0,
        "revolution": False,  # the four of 3s was played during a revolution and cleared
    }
    with pytest.raises(NotationError, match="clearing play"):
        read_position(data)
    data["revolution"] = True  # the same four played in the normal order: no clearing play
    assert moves_of(data) == expect("pass")


def test_position_with_more_hidden_cards_than_the_deck_is_refused() -> None:
    data = {"hands": [["3C"], {"count": 60}, ["5C"]], "turn": 0}
    with pytest.raises(NotationError, match="more cards than the deck"):
        read_position(data)
