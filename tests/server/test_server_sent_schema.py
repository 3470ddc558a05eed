"""The one description of what the server sends (cardverse.server.sent, the engine's
VIEW_FIELDS): the engine's views follow it, and the check of sent messages refuses what
does not (so the tests that check every sent message check something)."""

from __future__ import annotations

import copy
import random

import pytest

from cardverse.engine import Game, player_view
from cardverse.engine.options import rules_from_dict
from cardverse.engine.views import PUBLIC_FIELDS, SEAT_FIELDS, VIEW_FIELDS, public_view
from cardverse.server.sent import EVENTS, MESSAGES, SERVER_MESSAGE, SentMessageError


def _games(count: int) -> list[Game]:
    """Games part-way through, with the house rules on (seven passes, ten discards)."""
    rng = random.Random(29)
    games = []
    for index in range(count):
        preset = ("standard", "cardverse", "daifugo", "uecda")[index % 4]
        game = Game(rules_from_dict({"preset": preset, "players": 4}), seed=rng.randrange(1 << 30))
        for _ in range(rng.randrange(0, 60)):
            if game.turn is None:
                break
            moves = game.legal_moves()
            if not moves:
                break
            game.apply(rng.choice(moves), game.turn)
        games.append(game)
    return games


def _state(view: dict[str, object]) -> dict[str, object]:
    return {
        "type": "state",
        "v": 3,
        "at": {"game": 1, "round": 1, "step": 2},
        "view": view,
        "timer": None,
        "events": [{"event": "passed", "seat": 1}],
        "score": {"rounds": [], "totals": [0, 0, 0, 0], "standings": None, "titles": None},
    }


def test_R26_the_engine_view_has_exactly_the_described_fields_in_order() -> None:
    for game in _games(12):
        for seat in range(game.rules.players):
            view = player_view(game, seat).to_json()
            assert list(view) == [f.name for f in VIEW_FIELDS]
        public = public_view(game).to_json(history=False)
        assert list(public) == [f.name for f in PUBLIC_FIELDS if not f.kept_as_text]
    assert {f.part for f in PUBLIC_FIELDS} == {"public"}
    assert {f.part for f in SEAT_FIELDS} == {"seat"}


def test_R26_every_engine_view_matches_the_sent_schema() -> None:
    for game in _games(12):
        for seat in range(game.rules.players):
            SERVER_MESSAGE.validate_python(_state(player_view(game, seat).to_json()))


def test_the_check_refuses_what_the_schema_does_not_describe() -> None:
    view = player_view(_games(1)[0], 0).to_json()
    good = _state(view)
    SERVER_MESSAGE.validate_python(good)
    wrong: list[dict[str, object]] = []
    extra = copy.deepcopy(good)
    extra["view"]["secret"] = ["AS"]  # type: ignore[index]
    wrong.append(extra)
    missing = copy.deepcopy(good)
    del missing["view"]["hand"]  # type: ignore[attr-defined]
    wrong.append(missing)
    typed = copy.deepcopy(good)
    typed["view"]["turn"] = "north"  # type: ignore[index]
    wrong.append(typed)
    phase = copy.deepcopy(good)
    phase["view"]["phase"] = "lunch"  # type: ignore[index]
    wrong.append(phase)
    event = copy.deepcopy(good)
    event["events"] = [{"event": "passed", "seat": 1, "cards": ["AS"]}]
    wrong.append(event)
    unknown = copy.deepcopy(good)
    unknown["events"] = [{"event": "teleport", "seat": 1}]
    wrong.append(unknown)
    boolean = copy.deepcopy(good)
    boolean["v"] = True
    wrong.append(boolean)
    wrong.append({"type": "whisper", "to": 2})
    for message in wrong:
        with pytest.raises(SentMessageError):
            SERVER_MESSAGE.validate_python(message)


def test_a_change_may_hold_any_view_field_and_history_at() -> None:
    change = {
        "type": "change",
        "v": 4,
        "from": 3,
        "at": {"game": 1, "round": 1, "step": 3},
        "timer": {"seat": 2, "ends_in": 29.5, "deadline": 1700000000000},
        "events": [{"event": "played", "seat": 1, "cards": ["9H"]}],
        "view": {"turn": 2, "history_at": 3, "history": [], "legal_moves": []},
        "ack": 7,
    }
    SERVER_MESSAGE.validate_python(change)
    change["view"] = {"history_at": "3"}
    with pytest.raises(SentMessageError):
        SERVER_MESSAGE.validate_python(change)


def test_every_message_and_event_is_in_the_schema() -> None:
    schema = SERVER_MESSAGE.schema
    for name in MESSAGES:
        assert "Message_" + name in schema["$defs"]
    for name in EVENTS:
        assert "Event_" + name in schema["$defs"]
    for field in VIEW_FIELDS:
        assert field.name in schema["$defs"]["View"]["properties"]
        assert field.doc
