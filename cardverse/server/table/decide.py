"""Decide: (state, seat, message) → the events to store, or a refusal.

Each function here reads a :class:`~.state.TableState` and a parsed client message and returns
the events (``(kind, data)``) that the message makes, in order, or raises
:class:`~cardverse.server.protocol.ProtocolError` (the refusal, told to the sender). Nothing
here changes the state, stores, sends or schedules: the room stores the events, applies them
(:mod:`.apply`) and tells everyone (:mod:`.outbox`). The host's commands are looked up by the
message's kind in :data:`HOST`; moves in :data:`MOVES`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from ...engine import ActionFormatError, OptionsError, rules_from_dict
from .. import protocol as P
from ..protocol import ProtocolError
from .moves import action_of, move_of
from .state import Seat, TableState, token_hash

Event = tuple[str, dict[str, Any]]
HostCommand = Callable[[TableState, int, Any], list[Event]]

MOVES = frozenset({"play", "pass", "give", "discard"})
#: the options a table open to programs may change besides the preset's (docs/uecda.md §10)
PROGRAM_OPTIONS = frozenset({"preset", "players", "rounds"})


def programs_unavailable(rules: Any) -> str | None:
    """Why programs (the UECda port) cannot sit at a table with these rules, or None: the
    protocol describes five players and the ``uecda`` preset's rules (the number of rounds
    aside)."""
    if rules.players != 5:
        return "players"
    changed = rules.changed_options()
    if changed.get("preset") != "uecda" or set(changed) - PROGRAM_OPTIONS:
        return "rules"
    return None


def not_playing(state: TableState) -> None:
    if state.phase == "playing":
        raise ProtocolError("game_in_progress", "not while a game is being played")


def check_seat(state: TableState, index: int) -> None:
    if index >= len(state.seats):
        raise ProtocolError(
            "no_such_seat",
            f"this table has seats 0 to {len(state.seats) - 1}",
            seat=index,
            seats=len(state.seats),
        )


def not_kept(seat: Seat) -> None:
    if seat.kept:
        raise ProtocolError(
            "seat_kept",
            f"after {seat.timeouts} time-outs the computer player keeps your seat "
            "until the end of this round",
            timeouts=seat.timeouts,
        )


# -- joining -------------------------------------------------------------------------------


def seat_of_token(state: TableState, token: str) -> Seat:
    """The seat a returning person's token opens (``bad_token`` if none)."""
    import hmac

    wanted = token_hash(token)
    for seat in state.seats:
        if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, wanted):
            return seat
    raise ProtocolError("bad_token", "no seat at this table has that token")


def sit(state: TableState, message: P.Join, token: str, from_program: bool = False) -> Event:
    """A newcomer's seat (the one asked for, else the first free one); ``from_program``: the
    connection is a program's, through the UECda port (only such a one joins as a program)."""
    name = P.check_name(message.name)
    not_playing(state)
    if message.seat is not None:
        check_seat(state, message.seat)
        seat = state.seats[message.seat]
        if seat.kind != "empty":
            raise ProtocolError("seat_taken", f"seat {seat.index} is taken", seat=seat.index)
    else:
        free = [s for s in state.seats if s.kind == "empty"]
        if not free:
            raise ProtocolError("table_full", "every seat at this table is taken")
        seat = free[0]
    data: dict[str, Any] = {"seat": seat.index, "name": name, "token_hash": token_hash(token)}
    if message.program:
        if not state.programs:
            raise ProtocolError("programs_closed", "the host has not opened this table to programs")
        if not from_program:
            raise ProtocolError(
                "bad_message",
                "join message: program: only a program on the UECda port joins as a program",
                field="program",
            )
        data["program"] = True
    return ("sit", data)


# -- moves ---------------------------------------------------------------------------------


def move(state: TableState, index: int, message: Any) -> Event:
    game = state.game
    if state.phase != "playing" or game is None:
        raise ProtocolError("no_game", "no game is being played at this table")
    # A pass has no cards, a give no jokers: read from the model's fields rather than asked of
    # the model (pydantic's look-up of a missing attribute raises and catches, a few µs).
    fields = message.__dict__
    cards: tuple[str, ...] = tuple(fields.get("cards", ()))
    jokers: dict[str, str] = fields.get("jokers") or {}
    try:
        chosen = move_of(message.type, cards, jokers)
    except ActionFormatError as error:
        raise ProtocolError("bad_action", str(error)) from None
    refusal = game.check(index, chosen)
    if refusal is not None:
        raise ProtocolError(refusal.code, refusal.message, refusal.rule, **refusal.params)
    return move_event(index, chosen, message.seq, "human")


def move_event(index: int, chosen: int, seq: int | None, actor: str) -> Event:
    data: dict[str, Any] = {
        "seat": index,
        "action": action_of(chosen),
        "actor": actor,
    }
    if seq is not None:
        data["by"] = index
        data["seq"] = seq
    return ("move", data)


# -- leaving -------------------------------------------------------------------------------


def leave(state: TableState, index: int, seq: int) -> Event:
    data: dict[str, Any] = {"by": index, "seq": seq}
    if state.host == index:
        data["host"] = state.next_host(index)
    return ("leave", data)


def come_back(seat: Seat) -> Event:
    """A person who left during the game takes their seat back (token or ``back``)."""
    return ("return", {"seat": seat.index})


def after_leave(state: TableState) -> list[Event]:
    """A game whose people have all left ends at once."""
    if state.phase == "playing" and not any(
        s.kind == "human" and s.auto != "left" for s in state.seats
    ):
        return [("abandon", {})]
    return []


def host_away(state: TableState, index: int) -> list[Event]:
    """The host stayed away past the grace period: the next connected person hosts."""
    if state.host != index or state.seats[index].conn is not None:
        return []
    new = state.next_host(index)
    if new is None or state.seats[new].conn is None:
        return []  # nobody connected to take over: the host keeps the role
    return [("host", {"host": new, "previous": index, "reason": "away"})]


# -- the host's commands -------------------------------------------------------------------


def _options(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.Options)
    not_playing(state)
    given = message.model_fields_set
    data: dict[str, Any] = state.rules.changed_options()
    if "rules" in given and message.rules is not None:
        if "preset" in message.rules:
            data = {"preset": message.rules["preset"], "players": state.rules.players}
        data.update(message.rules)
    try:
        rules = rules_from_dict(data)
    except OptionsError as error:
        raise ProtocolError(error.code, error.message, error.rule, **error.params) from None
    turn_timer = message.turn_timer if "turn_timer" in given else state.turn_timer
    hints = message.hints if "hints" in given and message.hints is not None else state.hints
    programs = state.programs
    if "programs" in given and message.programs is not None:
        programs = message.programs
    why = programs_unavailable(rules)
    if programs and why is not None:
        if "programs" in given and message.programs:
            raise ProtocolError(
                "programs_unavailable",
                "programs play five at the uecda preset's rules (docs/uecda.md, section 10)",
                why=why,
            )
        programs = False  # the rules changed: the table is closed to programs again
    for seat in state.seats[rules.players :]:
        if seat.kind == "human":
            raise ProtocolError(
                "seat_occupied",
                f"{seat.name} sits in seat {seat.index}: a table of {rules.players} "
                "has no such seat",
                seat=seat.index,
                players=rules.players,
            )
    options = {
        "by": by,
        "seq": message.seq,
        "rules": rules.changed_options(),
        "turn_timer": turn_timer,
        "hints": hints,
        "programs": programs,
    }
    return [("options", options)]


def _add_bot(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.AddBot)
    not_playing(state)
    if message.seat is None:
        targets = [s.index for s in state.seats if s.kind == "empty"]
        if not targets:
            raise ProtocolError("table_full", "every seat at this table is taken")
    else:
        check_seat(state, message.seat)
        if state.seats[message.seat].kind != "empty":
            raise ProtocolError("seat_taken", f"seat {message.seat} is taken", seat=message.seat)
        targets = [message.seat]
    return [("bot", {"by": by, "seq": message.seq, "seats": targets, "level": message.level})]


def _remove_bot(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.RemoveBot)
    not_playing(state)
    check_seat(state, message.seat)
    if state.seats[message.seat].kind != "bot":
        raise ProtocolError(
            "not_a_bot", f"seat {message.seat} holds no computer player", seat=message.seat
        )
    return [("unbot", {"by": by, "seq": message.seq, "seat": message.seat})]


def _start(state: TableState, by: int, message: Any) -> list[Event]:
    not_playing(state)
    empty = [s.index for s in state.seats if s.kind == "empty"]
    if empty:
        raise ProtocolError(
            "seats_empty",
            "every seat needs a player or a computer player first: seats "
            + ", ".join(map(str, empty))
            + " are empty",
            seats=empty,
        )
    seq = getattr(message, "seq", None)
    return [("start", {"by": by, "seq": seq, "seed": secrets.randbits(63)})]


def _rematch(state: TableState, by: int, message: Any) -> list[Event]:
    if state.phase != "over":
        raise ProtocolError("game_not_over", "a rematch follows a finished game", phase=state.phase)
    return _start(state, by, message)


def _person_seat(state: TableState, index: int, by: int) -> Seat:
    check_seat(state, index)
    seat = state.seats[index]
    if seat.kind != "human":
        raise ProtocolError("not_a_person", f"seat {index} holds no person", seat=index)
    if index == by:
        raise ProtocolError("not_yourself", "the host cannot do this to their own seat")
    return seat


def _replace(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.Replace)
    seat = _person_seat(state, message.seat, by)
    if seat.conn is not None and seat.auto is None:
        raise ProtocolError(
            "person_present",
            f"{seat.name} is connected and playing: only an absent person can be replaced",
            seat=seat.index,
        )
    return [("replace", {"by": by, "seq": message.seq, "seat": seat.index})]


def _move_seat(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.MoveSeat)
    not_playing(state)
    check_seat(state, message.seat)
    check_seat(state, message.to)
    if state.seats[message.seat].kind != "human":
        raise ProtocolError(
            "not_a_person", f"seat {message.seat} holds no person", seat=message.seat
        )
    if state.seats[message.to].kind != "empty":
        raise ProtocolError("seat_taken", f"seat {message.to} is taken", seat=message.to)
    data = {"by": by, "seq": message.seq, "seat": message.seat, "to": message.to}
    return [("move_seat", data)]


def _remove(state: TableState, by: int, message: Any) -> list[Event]:
    assert isinstance(message, P.Remove)
    not_playing(state)
    seat = _person_seat(state, message.seat, by)
    return [("remove", {"by": by, "seq": message.seq, "seat": seat.index})]


HOST: dict[str, HostCommand] = {
    "options": _options,
    "add_bot": _add_bot,
    "remove_bot": _remove_bot,
    "start": _start,
    "rematch": _rematch,
    "replace": _replace,
    "move_seat": _move_seat,
    "remove": _remove,
}


def host_command(state: TableState, by: int, message: Any) -> list[Event]:
    """The events of one of the host's commands (``not_host`` for anyone else)."""
    if by != state.host:
        raise ProtocolError("not_host", "only the host may do this", host=state.host)
    command = HOST.get(message.type)
    if command is None:  # pragma: no cover - every client message kind has its handler
        raise ProtocolError("bad_message", f"no such command: {message.type}")
    return command(state, by, message)
