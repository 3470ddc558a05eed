"""The WebSocket protocol: what the server receives, limits, error codes and the version.

Client messages are parsed here (:func:`parse_client_message`) into pydantic models; anything
that does not parse becomes a :class:`ProtocolError` with a stable ``code``. The models describe
only what the server *receives*. What it sends is built as JSON text (the view through the
engine's one description of it) and described as JSON schema in :mod:`cardverse.server.sent`.
Both sets of schemas are the last section of ``docs/protocol.md`` (``python -m
cardverse.server.protocol`` prints it; a test fails when the page drifts from them).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .sent import server_schema

PROTOCOL_VERSION = 3  # 2: changes as `change` messages; 3: events named as the engine names them

MAX_MESSAGE_BYTES = 4096  # a client message longer than this is refused (code message_too_large)
MAX_NAME_LENGTH = 24
MAX_TOKEN_LENGTH = 128
BOT_LEVELS = ("easy", "normal", "hard")
TURN_TIMER_MIN = 5.0
TURN_TIMER_MAX = 600.0
MAX_NESTING = 16  # arrays and objects in a client message nest this deep at most (bad_message)
MAX_SEQ = 2**31 - 1  # a seat's seq may reach this; ``join`` with ``reset_seq`` starts it again


class ProtocolError(Exception):
    """A refused client message: a stable ``code``, the rule (``R-number``) if one applies."""

    def __init__(self, code: str, message: str, rule: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.params = params
        self.seq: int | None = None  # the refused message's seq, when it could be read
        # the refused message as read (JSON), when it could be: an error may repeat its words
        self.received: Any = None

    def to_message(self, seq: int | None = None) -> dict[str, Any]:
        seq = self.seq if seq is None else seq
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        out["params"] = self.params
        if seq is not None:
            out["seq"] = seq
        return out


# -- client messages ---------------------------------------------------------------------------

Seq = Annotated[int, Field(ge=1, le=MAX_SEQ)]
SeatNumber = Annotated[int, Field(ge=0, le=7)]
CardList = Annotated[list[Annotated[str, Field(max_length=4)]], Field(max_length=16)]


class _Client(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    type: str


class Join(_Client):
    """Sit down: with ``name`` in a free seat (``seat`` to choose one), or with ``token`` to
    take back one's own seat (reconnection, a new tab). ``reset_seq`` with a token starts the
    seat's numbering again from 1 (``welcome`` then says ``last_seq`` 0)."""

    type: Literal["join"]
    seq: Seq | None = None
    name: str | None = None
    token: Annotated[str, Field(max_length=MAX_TOKEN_LENGTH)] | None = None
    seat: SeatNumber | None = None
    reset_seq: bool = False
    program: bool = False  # a program through the UECda port (only where the host allows it)


class Play(_Client):
    """Play cards (a set or a straight); ``jokers`` maps a straight's jokers to ranks ("7"), and
    under the suit lock with jokers (R44) a set's jokers to the cards they stand for ("7H")."""

    type: Literal["play"]
    seq: Seq
    cards: CardList
    jokers: Annotated[dict[str, str], Field(max_length=2)] = Field(default_factory=dict)


class Pass(_Client):
    type: Literal["pass"]
    seq: Seq


class Give(_Client):
    """Give cards: back in the exchange (President, Vice-President), or a seven pass owed
    during a round (R36; the receiver follows from the rules)."""

    type: Literal["give"]
    seq: Seq
    cards: CardList


class Discard(_Client):
    """Discard cards face up: a ten discard owed during a round (R37)."""

    type: Literal["discard"]
    seq: Seq
    cards: CardList


class Options(_Client):
    """Host only, between games: ``rules`` is a whole rules object (notation.md: a preset plus
    changed options; ``players`` is the number of seats); ``turn_timer`` is seconds or null
    (off). A key left out keeps its value."""

    type: Literal["options"]
    seq: Seq
    rules: dict[str, Any] | None = None
    turn_timer: Annotated[float, Field(ge=TURN_TIMER_MIN, le=TURN_TIMER_MAX)] | None = None
    hints: bool | None = None
    programs: bool | None = None


class AddBot(_Client):
    """Host only, between games: a computer player in ``seat``, or in every empty seat."""

    type: Literal["add_bot"]
    seq: Seq
    level: Literal["easy", "normal", "hard"]
    seat: SeatNumber | None = None


class RemoveBot(_Client):
    type: Literal["remove_bot"]
    seq: Seq
    seat: SeatNumber


class Start(_Client):
    """Host only: start the game once every seat is taken."""

    type: Literal["start"]
    seq: Seq


class Rematch(_Client):
    """Host only, after the last round: a new game with the same seats and options."""

    type: Literal["rematch"]
    seq: Seq


class Leave(_Client):
    """Give up one's seat. Between games the seat is freed (the token stops working); during a
    game a computer player (normal) takes over at once and the token still takes the seat back
    until the game ends. When the host leaves, the next connected person hosts."""

    type: Literal["leave"]
    seq: Seq


class Replace(_Client):
    """Host only: a computer player (normal) instead of the person in ``seat``, who must be
    disconnected or have a computer player standing in; their token stops working."""

    type: Literal["replace"]
    seq: Seq
    seat: SeatNumber


class MoveSeat(_Client):
    """Host only, between games: move the person in ``seat`` to the empty seat ``to``."""

    type: Literal["move_seat"]
    seq: Seq
    seat: SeatNumber
    to: SeatNumber


class Remove(_Client):
    """Host only, between games: remove the person in ``seat``; their token stops working."""

    type: Literal["remove"]
    seq: Seq
    seat: SeatNumber


class Back(_Client):
    """Take one's seat back from the computer player that stood in after a timeout."""

    type: Literal["back"]
    seq: Seq | None = None


class Suggest(_Client):
    """Ask for the play the normal computer player would make now from your own view (R26);
    answered with ``suggestion`` (or an error: ``hints_off``, ``nothing_to_suggest``)."""

    type: Literal["suggest"]
    seq: Seq | None = None


class React(_Client):
    """A quick reaction, one of a fixed set (no free text), told to everyone at the table."""

    type: Literal["react"]
    seq: Seq | None = None
    reaction: Literal["thumbs_up", "wow", "phew", "clap", "well_played", "hurry_up", "good_game"]


class Sync(_Client):
    """Ask for the full current state again."""

    type: Literal["sync"]
    seq: Seq | None = None


class Ping(_Client):
    type: Literal["ping"]
    seq: Seq | None = None


ClientMessage = Annotated[
    Join
    | Play
    | Pass
    | Give
    | Discard
    | Options
    | AddBot
    | RemoveBot
    | Start
    | Rematch
    | Leave
    | Replace
    | MoveSeat
    | Remove
    | Back
    | Suggest
    | React
    | Sync
    | Ping,
    Field(discriminator="type"),
]
CLIENT_MODELS: dict[str, type[_Client]] = {
    "join": Join,
    "play": Play,
    "pass": Pass,
    "give": Give,
    "discard": Discard,
    "options": Options,
    "add_bot": AddBot,
    "remove_bot": RemoveBot,
    "start": Start,
    "rematch": Rematch,
    "leave": Leave,
    "replace": Replace,
    "move_seat": MoveSeat,
    "remove": Remove,
    "back": Back,
    "suggest": Suggest,
    "react": React,
    "sync": Sync,
    "ping": Ping,
}
CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def parse_client_message(text: str) -> _Client:
    """Read one client message; raise :class:`ProtocolError` when it cannot be accepted."""
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            "message_too_large",
            f"a message may hold at most {MAX_MESSAGE_BYTES} bytes, this one holds {size}",
            limit=MAX_MESSAGE_BYTES,
            size=size,
        )
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise ProtocolError(
            "bad_message",
            f"a message may nest arrays and objects {MAX_NESTING} deep at most, "
            f"this one {depth} deep",
            limit=MAX_NESTING,
        )
    try:
        data = _loads(text)
    except (ValueError, RecursionError) as error:
        detail = getattr(error, "msg", None) or (
            "too deeply nested" if isinstance(error, RecursionError) else "a number is too long"
        )
        raise ProtocolError(
            "bad_json", f"the message is not valid JSON: {detail}", detail=str(detail)
        ) from None
    if "\\u" in text and _has_surrogate(data):
        raise ProtocolError(
            "bad_json",
            "the message holds a lone surrogate (\\ud800 to \\udfff), which is not text",
            detail="lone surrogate",
        )
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", 'a message must be a JSON object with a "type"')
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", 'a message needs a "type" string')
    model = CLIENT_MODELS.get(kind)
    if model is None:
        unknown = ProtocolError(
            "unknown_type",
            f"unknown message type {kind[:40]!r}: the types are {', '.join(CLIENT_MODELS)}",
            type=kind[:40],
        )
        unknown.received = data
        raise unknown
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        refused = ProtocolError(
            "bad_message", f"{kind} message: {where}: {first['msg']}", field=where
        )
        seq = data.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            refused.seq = seq
        refused.received = data
        raise refused from None


_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON string (skipped whole: brackets in it do not nest) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


# the decoder's own scanner (set in its constructor; typeshed does not name it)
_scan_once: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _loads(text: str) -> Any:
    """``json.loads(text)``: a message that is one JSON value with no space around it (as
    clients send them) is read by the decoder's scanner itself; anything else, and every
    error, goes through ``json.loads``."""
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return json.loads(text)  # (its own error)
    if end != len(text):
        return json.loads(text)
    return value


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of JSON ``text`` nest (read without parsing it, so
    that nothing recursive ever meets a deeper message than :data:`MAX_NESTING`)."""
    brackets = text.count("[") + text.count("{")
    if brackets <= MAX_NESTING:
        return brackets  # at most this deep: no need to look
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif bracket in "]}":
            depth -= 1
    return deepest


def _has_surrogate(data: Any) -> bool:
    """Whether a parsed message holds a lone surrogate anywhere (it cannot be sent back).
    The walk keeps its own stack: no depth of nesting can exhaust Python's."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def check_name(raw: str | None) -> str:
    """A display name, trimmed; raise :class:`ProtocolError` when empty, too long or odd."""
    name = (raw or "").strip()
    if not name:
        raise ProtocolError("name_empty", "a display name is needed to sit down")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        raise ProtocolError(
            "name_control_chars",
            "a display name may not hold control or invisible characters",
        )
    if len(name) > MAX_NAME_LENGTH:
        raise ProtocolError(
            "name_too_long",
            f"a display name holds at most {MAX_NAME_LENGTH} characters, not {len(name)}",
            max=MAX_NAME_LENGTH,
            length=len(name),
        )
    return name


def rate_limited(rate_per_second: float, burst: int) -> ProtocolError:
    """The refusal told once to a connection that sends faster than its rate limit."""
    return ProtocolError(
        "rate_limited",
        f"at most {rate_per_second:g} messages a second: messages are dropped until you slow down",
        rate=rate_per_second,
        burst=burst,
    )


# Close codes of the WebSocket (besides the standard ones).
CLOSE_REPLACED = 4001
CLOSE_BAD_ORIGIN = 4003
CLOSE_NO_TABLE = 4004
CLOSE_FLOOD = 4008
CLOSE_SLOW = 4009
CLOSE_IDLE = 4010
CLOSE_TOO_MANY = 4029

# Error codes the server itself uses (the engine's refusal codes and the option codes come on
# top; see docs/protocol.md). Tests check each is documented.
ERROR_CODES: dict[str, str] = {
    "bad_json": "the message is not valid JSON",
    "bad_message": "the message does not have the fields its type needs",
    "unknown_type": "no such message type",
    "message_too_large": f"the message is over {MAX_MESSAGE_BYTES} bytes",
    "rate_limited": "too many messages: this one was dropped",
    "name_empty": "the display name is empty",
    "name_too_long": f"the display name is over {MAX_NAME_LENGTH} characters",
    "name_control_chars": "the display name holds control or invisible characters",
    "bad_token": "no seat at this table has that token",
    "token_missing": "the message needs a seat: join first (with a name or the seat token)",
    "already_seated": "this connection already holds a seat",
    "table_full": "every seat is taken",
    "seat_taken": "the chosen seat is not empty",
    "no_such_seat": "the table has no such seat",
    "not_host": "only the host may do this",
    "game_in_progress": "not while a game is being played",
    "no_game": "no game is being played",
    "game_not_over": "the game is not over yet",
    "seats_empty": "some seats are still empty",
    "seat_occupied": "a person sits in a seat that would be removed",
    "not_a_bot": "that seat holds no computer player",
    "watch_only": "a watch link cannot take a seat",
    "not_a_person": "that seat holds no person",
    "not_yourself": "the host cannot do this to their own seat",
    "person_present": "that person is connected and playing: only an absent one can be replaced",
    "not_auto": "no computer player stands in for you",
    "hints_off": "the host turned hints off at this table",
    "programs_closed": "the host has not opened this table to programs",
    "programs_unavailable": "programs play five at the uecda preset's rules",
    "nothing_to_suggest": "a suggestion is for your own turn, and it is not yours now",
    "suggestion_stale": "the game moved on before the suggestion was ready",
    "watchers_cannot_react": "only the people seated at the table may react",
    "reaction_rate_limited": "too many reactions in a short time",
    "bad_action": "the cards or jokers of the action cannot be read",
    "no_such_table": "no table has this id",
    "game_not_found": "the table has no finished game with that number",
    "unknown_invite_code": "no table has this invite code",
    "too_many_lookups": "too many invite codes that found no table: try again later",
    "seat_kept": "after repeated time-outs the computer player keeps the seat this round",
    "bad_origin": "the request comes from another site's page",
    "bad_content_type": "a request body must be application/json",
    "too_many_connections": "too many connections from one address",
    "too_many_watchers": "too many connections watch this table: only joining is accepted",
    "too_many_tables": "too many tables created from one address: try again later",
    "server_busy": "the server holds as many tables as it may",
    "internal": "the server failed to handle the message; nothing was changed",
    "try_again": "the change could not be saved just now (the database is unavailable, or the "
    "table is moving to another server): nothing was changed, try again",
}


def json_schemas() -> dict[str, Any]:
    """The JSON schemas of the client and the server messages."""
    return {
        "protocol": PROTOCOL_VERSION,
        "client": CLIENT_MESSAGE.json_schema(),
        "server": server_schema(),
    }


def schemas_markdown() -> str:
    """The schemas section of docs/protocol.md."""
    schemas = json_schemas()
    return (
        "### Client messages\n\n```json\n"
        + json.dumps(schemas["client"], indent=1, sort_keys=True)
        + "\n```\n\n### Server messages\n\n```json\n"
        + json.dumps(schemas["server"], indent=1, sort_keys=True)
        + "\n```\n"
    )


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(schemas_markdown())
