"""What the server sends: the JSON schemas of its messages, and a check of a message against
them.

The server builds what it sends as JSON text (:mod:`cardverse.server.wire`, the table), not
through models; this module describes it. The view of a ``state`` and of a ``change`` is not
written here: its fields, their shapes and their meaning are the engine's one description of a
view (:data:`cardverse.engine.views.VIEW_FIELDS`, :func:`~cardverse.engine.views.view_schema`).
The events and the other messages are described below as JSON schema (draft 2020-12).
``docs/protocol.md`` holds these schemas, generated with the client's (``python -m
cardverse.server.protocol``). :data:`SERVER_MESSAGE` checks a message against them (the tests
check every message a real server sends).
"""

from __future__ import annotations

import json
from typing import Any

from ..engine.parts import PARTS as RULE_PARTS
from ..engine.parts import REPORTS
from ..engine.views import VIEW_DEFINITIONS, view_change_schema, view_schema

_INT: dict[str, Any] = {"type": "integer"}
_NUMBER: dict[str, Any] = {"type": "number"}
_STR: dict[str, Any] = {"type": "string"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_INTS: dict[str, Any] = {"type": "array", "items": _INT}
_CARDS: dict[str, Any] = {"type": "array", "items": _STR}
_TEXT_BY_SEAT: dict[str, Any] = {"type": "object", "additionalProperties": _STR}
_ANY_OBJECT: dict[str, Any] = {"type": "object"}
_REACTIONS = ["thumbs_up", "wow", "phew", "clap", "well_played", "hurry_up", "good_game"]
_AUTO = {"enum": ["timeout", "disconnected", "left"]}
_LEVEL = {"enum": ["easy", "normal", "hard"]}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": "#/$defs/" + name}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(
    doc: str, required: dict[str, Any], optional: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An object with these members (the ``optional`` ones may be left out) and no others."""
    out: dict[str, Any] = {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }
    if doc:
        out["description"] = doc
    return out


def _event(
    name: str, doc: str, required: dict[str, Any], optional: dict[str, Any] | None = None
) -> dict[str, Any]:
    return _object(doc, {"event": {"const": name}, **required}, optional)


_MAYBE_CARDS = {"cards": _or_null(_CARDS)}
# the ways a part places a seat going out, with its rule (a forbidden finish, a fall)
_PART_FINISHES = [(p.finish_how, p.spec.rule) for p in RULE_PARTS if p.finish_how]

# The events of ``state`` and ``change`` (docs/protocol.md, cardverse/tabletalk/narrate.py),
# by name.
EVENTS: dict[str, dict[str, Any]] = {
    "played": _event(
        "played",
        "",
        {"seat": _INT, "cards": _CARDS},
        {"jokers": _or_null({"type": "object", "additionalProperties": _STR})},
    ),
    "passed": _event("passed", "", {"seat": _INT}),
    "exchange": _event(
        "exchange",
        "A give-back in the exchange (the engine's exchange event); cards only for the two seats "
        "of the pair.",
        {"seat": _INT, "to": _INT, "count": _INT},
        _MAYBE_CARDS,
    ),
    "gift": _event(
        "gift",
        "The automatic gift of the highest cards; cards only for the two seats of the pair.",
        {"seat": _INT, "to": _INT, "count": _INT},
        _MAYBE_CARDS,
    ),
    "trick_ended": _event(
        "trick_ended", "", {"seat": _INT, "leader": _or_null(_INT), "cleared": _BOOL}
    ),
    "revolution": _event("revolution", "", {"on": _BOOL}),
    "went_out": _event(
        "went_out",
        "place counts from 0 (first place is 0), as in the engine; how: finish, "
        + ", ".join(f"{how} ({rule})" for how, rule in _PART_FINISHES)
        + " or last (the one seat left holding cards).",
        {
            "seat": _INT,
            "place": _INT,
            "how": {"enum": ["finish", *(how for how, _ in _PART_FINISHES), "last"]},
        },
    ),
    # each part's trick state, under its report's name (a jack back, a lock: R39)
    **{r.name: _event(r.name, "", {r.event_key: r.schema()}) for r in REPORTS},
    "owed": _event(
        "owed",
        "seat must give (to the next seat holding cards) or discard count cards now.",
        {"seat": _INT, "kind": {"enum": ["give", "discard"]}, "count": _INT},
        {"to": _or_null(_INT)},
    ),
    "gave": _event(
        "gave",
        "A seven pass was made; cards only for its two seats (R36).",
        {"seat": _INT, "to": _INT, "count": _INT},
        _MAYBE_CARDS,
    ),
    "discarded": _event("discarded", "", {"seat": _INT, "cards": _CARDS}),
    "game_started": _event("game_started", "", {"game": _INT}),
    "round_started": _event(
        "round_started", "", {"round": _INT, "leader": _INT, "exchange": _BOOL}
    ),
    "exchange_done": _event("exchange_done", "", {"leader": _INT}),
    "round_over": _event(
        "round_over",
        "",
        {
            "round": _INT,
            "places": _INTS,
            "titles": _TEXT_BY_SEAT,
            "round_points": _INTS,
            "points": _INTS,
        },
    ),
    "game_over": _event(
        "game_over",
        "standings: each seat's place by total points (0 = first, ties shared); titles: the "
        "title of that place (tied seats share the higher one).",
        {"game": _INT, "points": _INTS, "standings": _INTS, "titles": _TEXT_BY_SEAT},
    ),
    "game_abandoned": _event(
        "game_abandoned",
        "Every person left during the game: it ends here (its record is downloadable).",
        {"game": _INT},
    ),
}

# The parts messages share.
PARTS: dict[str, dict[str, Any]] = {
    "Event": {"oneOf": [_ref("Event_" + name) for name in EVENTS]},
    "Limits": _object(
        "",
        {
            "max_message_bytes": _INT,
            "max_name_length": _INT,
            "rate_per_second": _NUMBER,
            "burst": _INT,
            "max_seq": _INT,
        },
    ),
    "SeatInfo": _object(
        "",
        {
            "seat": _INT,
            "kind": {"enum": ["empty", "human", "bot"]},
            "name": _or_null(_STR),
            "level": _or_null(_LEVEL),
            "connected": _BOOL,
            "auto": _or_null(_AUTO),
            "host": _BOOL,
            "program": _BOOL,
        },
    ),
    "ProgramSeats": _object(
        "Seats for programs through the UECda port (docs/uecda.md, section 10): open (the host "
        "let programs take the empty seats), the server's UECda port (null: off), and why they "
        "cannot be opened (null: they can; players: not five seats; rules: not the uecda "
        "preset; no_port: the server has no UECda port).",
        {
            "open": _BOOL,
            "port": _or_null(_INT),
            "unavailable": _or_null({"enum": ["players", "rules", "no_port"]}),
        },
    ),
    "Stamp": _object(
        "Where in the game a state is: game number, round, actions applied in that round.",
        {"game": _INT, "round": _INT, "step": _INT},
    ),
    "TimerInfo": _object(
        "deadline: when the time runs out, in ms of the server's wall clock (Unix epoch); "
        "ends_in: seconds left when the message was made.",
        {"seat": _INT, "ends_in": _NUMBER, "deadline": _INT},
    ),
    "ScoreSheet": _object(
        "Points per round (rounds[r][seat]), the totals, and once the game is over each "
        "seat's final place by totals (0 = first, ties shared) with its title.",
        {
            "rounds": {"type": "array", "items": _INTS},
            "totals": _INTS,
            "standings": _or_null(_INTS),
            "titles": _or_null(_TEXT_BY_SEAT),
        },
    ),
    "AwayAction": _object(
        "An action the stand-in computer player took for you; cards (and jokers) only for "
        "the current round, count always for a play or a give.",
        {"round": _INT, "action": {"enum": ["play", "pass", "give", "discard"]}},
        {
            "count": _or_null(_INT),
            "cards": _or_null(_CARDS),
            "jokers": _or_null({"type": "object", "additionalProperties": _STR}),
        },
    ),
    "View": view_schema(),
    "ViewChange": view_change_schema(),
}

_TIMER = _or_null(_ref("TimerInfo"))
_EVENT_LIST = {"type": "array", "items": _ref("Event")}
_SEQ = {"seq": _or_null(_INT)}

# Every message the server sends, by its type.
MESSAGES: dict[str, dict[str, Any]] = {
    "hello": _object(
        "First message on every connection.",
        {"protocol": _INT, "table_id": _STR, "server_time": _INT, "limits": _ref("Limits")},
    ),
    "welcome": _object(
        "You hold seat. token is sent only when the seat is newly taken: keep it. Continue "
        "numbering your messages after last_seq.",
        {"seat": _INT, "name": _STR, "host": _BOOL, "last_seq": _INT, "resumed": _BOOL},
        {"token": _or_null(_STR)},
    ),
    "table": _object(
        "The public state of the table: seats, presence, options, phase.",
        {
            "table_id": _STR,
            "phase": {"enum": ["lobby", "playing", "over"]},
            "host": _or_null(_INT),
            "rules": _ANY_OBJECT,
            "turn_timer": _or_null(_NUMBER),
            "hints": _BOOL,
            "programs": _ref("ProgramSeats"),
            "game": _INT,
            "records": _INTS,
            "watching": _INT,
            "watch_id": _STR,
            "seats": {"type": "array", "items": _ref("SeatInfo")},
        },
    ),
    "state": _object(
        "Your full view of the game (with your legal moves) and the events that led to it. "
        "ack: your move that made this change (instead of an ack message).",
        {
            "v": _INT,
            "at": _ref("Stamp"),
            "view": _ref("View"),
            "timer": _TIMER,
            "events": _EVENT_LIST,
            "score": _ref("ScoreSheet"),
        },
        {
            "log": _or_null(_EVENT_LIST),
            "away": _or_null({"type": "array", "items": _ref("AwayAction")}),
            "ack": _or_null(_INT),
        },
    ),
    "change": _object(
        "Change v of the game, told to a connection that holds the state of change from: its "
        "events, the view fields that changed, the timer, the score sheet when it changed, and "
        "ack when your move made it.",
        {
            "v": _INT,
            "from": _INT,
            "at": _ref("Stamp"),
            "timer": _TIMER,
            "events": _EVENT_LIST,
            "view": _ref("ViewChange"),
        },
        {"score": _or_null(_ref("ScoreSheet")), "ack": _or_null(_INT)},
    ),
    "presence": _object(
        "A seat connected, disconnected, or is played by a computer player (auto).",
        {"seat": _INT, "connected": _BOOL, "auto": _or_null(_AUTO)},
    ),
    "ack": _object(
        "Your message seq was accepted (duplicate: it had been, and was not applied again).",
        {"seq": _INT, "duplicate": _BOOL},
    ),
    "error": _object(
        "Your message was refused and changed nothing.",
        {"code": _STR, "message": _STR, "params": _ANY_OBJECT},
        {"rule": _or_null(_STR), **_SEQ},
    ),
    "replaced": _object(
        "A newer connection took this seat; this one is closed next (close code 4001).",
        {"message": _STR},
    ),
    "host_changed": _object(
        "The host role passed from seat previous to seat host (null: nobody is seated), "
        "because the host left or was away longer than the grace period.",
        {"host": _or_null(_INT), "previous": _INT, "reason": {"enum": ["left", "away"]}},
    ),
    "seat_lost": _object(
        "The host took your seat away: removed from the lobby, or replaced_by_bot. You are "
        "watching now; your token no longer works.",
        {"reason": {"enum": ["removed", "replaced_by_bot"]}},
    ),
    "moved": _object("The host moved you to seat (your token moves with you).", {"seat": _INT}),
    "suggestion": _object(
        "The play the normal computer player would make for you now (v: the state it is for), "
        "from your own view only: one of your legal moves.",
        {"v": _INT, "level": {"const": "normal"}, "action": _ref("Action")},
        _SEQ,
    ),
    "reaction": _object(
        "Seat seat reacted (to everyone at the table, spectators too).",
        {"seat": _INT, "reaction": {"enum": _REACTIONS}},
    ),
    "pong": _object(
        "server_time: the server's wall clock (ms, Unix epoch) when it answered.",
        {"server_time": _INT},
        _SEQ,
    ),
}
for _name, _schema in MESSAGES.items():
    _schema["properties"] = {"type": {"const": _name}, **_schema["properties"]}
    _schema["required"] = ["type", *_schema["required"]]


def server_schema() -> dict[str, Any]:
    """The JSON schema of every server message (one of them, told apart by ``type``)."""
    defs: dict[str, Any] = {**VIEW_DEFINITIONS, **PARTS}
    defs.update({"Event_" + name: schema for name, schema in EVENTS.items()})
    defs.update({"Message_" + name: schema for name, schema in MESSAGES.items()})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "oneOf": [_ref("Message_" + name) for name in MESSAGES],
        "$defs": defs,
    }


class SentMessageError(ValueError):
    """A message that does not match the schema of what the server sends."""


class ServerMessages:
    """Checks a server message (a parsed JSON value) against :func:`server_schema`: the
    subset of JSON schema used there (type, const, enum, properties, required,
    additionalProperties, items, anyOf, oneOf, $ref). A ``type`` or ``event`` picks its
    schema, so an error names what is wrong in that one."""

    def __init__(self) -> None:
        self.schema = server_schema()
        self.defs: dict[str, Any] = self.schema["$defs"]

    def validate_python(self, message: Any) -> Any:
        """Return ``message`` when it matches; raise :class:`SentMessageError` when not."""
        kind = message.get("type") if isinstance(message, dict) else None
        if not isinstance(kind, str) or kind not in MESSAGES:
            raise SentMessageError(f"no server message has the type {kind!r}")
        self._check(MESSAGES[kind], message, kind)
        return message

    def validate_json(self, text: str) -> Any:
        return self.validate_python(json.loads(text))

    def _check(self, schema: dict[str, Any], value: Any, where: str) -> None:
        ref = schema.get("$ref")
        if ref is not None:
            self._check(self.defs[ref.rsplit("/", 1)[1]], value, where)
            return
        if "const" in schema and value != schema["const"]:
            raise SentMessageError(f"{where}: {value!r} is not {schema['const']!r}")
        if "enum" in schema and value not in schema["enum"]:
            raise SentMessageError(f"{where}: {value!r} is not one of {schema['enum']}")
        if "anyOf" in schema:
            self._one_of(schema["anyOf"], value, where)
        if "oneOf" in schema:
            self._one_of(schema["oneOf"], value, where)
        kind = schema.get("type")
        if kind is None:
            return
        if not _is(kind, value):
            raise SentMessageError(f"{where}: {value!r} is not of type {kind}")
        if isinstance(value, dict):
            for name in schema.get("required", ()):
                if name not in value:
                    raise SentMessageError(f"{where}: {name} is missing")
            properties = schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            for name, item in value.items():
                if name in properties:
                    self._check(properties[name], item, f"{where}.{name}")
                elif extra is False:
                    raise SentMessageError(f"{where}: {name} is not expected")
                elif isinstance(extra, dict):
                    self._check(extra, item, f"{where}.{name}")
        elif isinstance(value, list) and "items" in schema:
            for index, item in enumerate(value):
                self._check(schema["items"], item, f"{where}[{index}]")

    def _one_of(self, choices: list[dict[str, Any]], value: Any, where: str) -> None:
        if isinstance(value, dict) and "event" in value:  # an event: its own schema
            event = EVENTS.get(value["event"])
            if event is None:
                raise SentMessageError(f"{where}: no event is called {value['event']!r}")
            if any(c.get("$ref") == "#/$defs/Event_" + value["event"] for c in choices):
                self._check(event, value, where)
                return
        failures = []
        for choice in choices:
            try:
                self._check(choice, value, where)
            except SentMessageError as error:
                failures.append(str(error))
            else:
                return
        raise SentMessageError(f"{where}: matches none of its choices ({'; '.join(failures)})")


def _is(kind: str | list[str], value: Any) -> bool:
    if isinstance(kind, list):
        return any(_is(k, value) for k in kind)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "null":
        return value is None
    raise SentMessageError(f"the schema names an unknown type {kind!r}")


SERVER_MESSAGE = ServerMessages()
