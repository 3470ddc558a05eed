"""The replay viewer's steps (issue 10): a game record replayed by the engine into every step,
every hand face up, checked against the record by bookkeeping of its own; ``POST /replay/read``
refuses bad files with a clear error in the person's language."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardverse.engine import Game, rules_from_dict
from cardverse.notation import record_to_json
from cardverse.web.replay import replay_steps


def played_record(options: dict[str, Any], seed: int) -> dict[str, Any]:
    """A whole game of random legal moves, as its record."""
    game = Game(rules_from_dict(options), seed=seed)
    rng = random.Random(seed)
    while not game.over:
        if game.phase.value == "round_over":
            game.start_next_round()
            continue
        game.apply(rng.choice(game.legal_moves()), game.turn)
    return json.loads(json.dumps(record_to_json(game)))


def expected_hands(record: dict[str, Any]) -> list[list[set[str]]]:
    """Every seat's hand after each step of the viewer, from the record alone (deal, gifts,
    give-backs, then each play): the standard rules, where cards only move these ways."""
    players = len(record["players"])
    out: list[list[set[str]]] = []
    places = record["result"]["places"]
    for number, round_ in enumerate(record["rounds"], start=1):
        hands = [set(hand) for hand in round_["hands"]]
        out.append([set(h) for h in hands])
        exchange = round_.get("exchange", [])
        if exchange:
            order = places[number - 2]
            partner = {order[-1]: order[0]}
            if players >= 4:
                partner[order[-2]] = order[1]
            back = {receiver: giver for giver, receiver in partner.items()}
            gifts = exchange[: len(partner)]
            for action in gifts:
                hands[action["seat"]] -= set(action["cards"])
                hands[partner[action["seat"]]] |= set(action["cards"])
            out.append([set(h) for h in hands])
            for action in exchange[len(partner) :]:
                hands[action["seat"]] -= set(action["cards"])
                hands[back[action["seat"]]] |= set(action["cards"])
                out.append([set(h) for h in hands])
        for action in round_["actions"]:
            hands[action["seat"]] -= set(action.get("cards", []))
            out.append([set(h) for h in hands])
    return out


@pytest.mark.parametrize(
    ("options", "seed"),
    [
        ({"preset": "standard", "players": 4, "rounds": 3}, 1),
        ({"preset": "standard", "players": 3, "rounds": 2, "jokers": 2, "straights": True}, 2),
        ({"preset": "standard", "players": 6, "rounds": 2, "revolution": True}, 3),
    ],
)
def test_every_step_shows_every_hand_as_the_record_has_it(
    options: dict[str, Any], seed: int
) -> None:
    record = played_record(options, seed)
    answer = replay_steps(record)
    steps = answer["steps"]
    hands = expected_hands(record)
    assert len(steps) == len(hands)
    for index, (step, expected) in enumerate(zip(steps, hands, strict=True)):
        assert [set(h) for h in step["hands"]] == expected, index
    # The rounds and tricks index the steps; the actions are the record's, in order.
    assert [r["round"] for r in answer["rounds"]] == list(range(1, len(record["rounds"]) + 1))
    for round_, entry in zip(record["rounds"], answer["rounds"], strict=True):
        assert steps[entry["first"]]["kind"] == "deal"
        actions = [
            s["action"] for s in steps if s["round"] == entry["round"] and s["kind"] == "action"
        ]
        assert actions == round_["actions"]
        for trick, first in enumerate(entry["tricks"], start=1):
            step = steps[first]
            assert step["trick"] == trick and steps[first - 1]["trick"] != trick
            ended = any(e["event"] in ("trick_ended", "round_over") for e in step["events"])
            assert step["pile"][:1] == [step["action"]] or (ended and not step["pile"])
    assert steps[-1]["points"] == record["result"]["points"]
    assert answer["score"]["totals"] == record["result"]["points"]
    assert answer["over"] and steps[-1]["events"][-1]["event"] == "game_over"
    assert [p["name"] for p in answer["players"]] == [p["name"] for p in record["players"]]


def test_a_game_that_stopped_midway_replays_as_far_as_it_went() -> None:
    record = played_record({"preset": "standard", "players": 4, "rounds": 2}, 7)
    record["rounds"][1]["actions"] = record["rounds"][1]["actions"][:5]
    del record["result"]
    answer = replay_steps(record)
    assert not answer["over"]
    assert answer["steps"][-1]["action"] == record["rounds"][1]["actions"][-1]


@pytest.fixture(scope="module")
def client() -> Any:
    from starlette.applications import Starlette

    from cardverse.web import error_handlers, web_routes

    return TestClient(Starlette(routes=web_routes(), exception_handlers=error_handlers()))


def test_bad_files_get_a_clear_error_in_the_persons_language(client: Any) -> None:
    good = played_record({"preset": "standard", "players": 3, "rounds": 1}, 4)
    ok = client.post("/replay/read", content=json.dumps(good))
    assert ok.status_code == 200 and ok.json()["steps"]

    not_json = client.post("/replay/read?lang=fi", content=b"{ not json")
    assert not_json.status_code == 400
    assert (
        not_json.json()["text"] == "Tämä tiedosto ei ole pelitallenne, jonka CardVerse osaa lukea."
    )

    malformed = client.post("/replay/read", content=json.dumps({"format": "chess/1"}))
    body = malformed.json()
    assert malformed.status_code == 400 and "not a game record" in body["text"]
    assert "chess/1" in body["detail"]

    cheating = json.loads(json.dumps(good))
    first = cheating["rounds"][0]["actions"][0]
    cheating["rounds"][0]["actions"].insert(0, {"seat": (first["seat"] + 1) % 3, "action": "pass"})
    illegal = client.post("/replay/read", content=json.dumps(cheating))
    body = illegal.json()
    assert illegal.status_code == 400 and body["rule"] and "round 1" in body["text"]
    assert "rules do not allow" in body["text"]

    huge = client.post("/replay/read", content=b"[" + b"0," * 600_000 + b"0]")
    assert huge.status_code == 413 and "too large" in huge.json()["text"]


def test_replays_are_limited_per_address_and_at_once() -> None:
    from cardverse.web.replay import REPLAYS_AT_ONCE, REPLAYS_BURST, ReplayLimits

    limits = ReplayLimits()
    for _ in range(REPLAYS_BURST):
        assert limits.take("10.0.0.1")
        limits.running -= 1  # made
    assert not limits.may_send("10.0.0.1")  # that address waits
    assert not limits.take("10.0.0.1")
    assert limits.may_send("10.0.0.2") and limits.may_send("10.0.0.2")  # another does not ...
    assert not limits.may_send("10.0.0.2")  # ... but sends two records at once at most
    limits.done_reading("10.0.0.2")
    assert limits.take("10.0.0.2")
    limits.running = REPLAYS_AT_ONCE
    assert not limits.take("10.0.0.3")  # nobody while as many are being made
