"""Apply: (state, stored event) → the next state. Restoring a table is a fold of its log.

:func:`apply` looks the event's kind up in :data:`APPLY` and changes the
:class:`~.state.TableState` (the engine's :class:`~cardverse.engine.Game` changes in place), and
says in an :class:`Outcome` what happened: the game events to tell (in the server's words, from
:mod:`cardverse.tabletalk.narrate`), whether the table message changed, and *notices* for the
room (a host change to tell, a connection to move or dismiss, the next turn to schedule). It
sends nothing, starts no timer and reads no clock: the live table and a table restored from its
log get the same state from the same events (:func:`restore`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...engine import Game, Phase, mask_names, rules_from_dict
from ...notation import record_to_json
from ...tabletalk.narrate import protocol_events
from ...tabletalk.story import AwayLog, final_titles
from .moves import move_of
from .state import STAND_IN_LEVEL, Seat, TableState


@dataclass(slots=True)
class Outcome:
    """What applying events did, for the room to tell and schedule."""

    events: list[dict[str, Any]] = field(default_factory=list)  # game events, to be told
    table_changed: bool = False  # the ``table`` message changed
    schedule: bool = False  # the turn's timer or computer player must be arranged again
    notices: list[tuple[Any, ...]] = field(default_factory=list)  # ("host", ...), ("moved", ...)


Applier = Callable[[TableState, dict[str, Any], Outcome], None]


def apply(state: TableState, kind: str, data: dict[str, Any], out: Outcome) -> None:
    """Apply one stored event (the caller checked it, or it comes from the log)."""
    APPLY[kind](state, data, out)
    by, seq = data.get("by"), data.get("seq")
    if by is not None and seq is not None and state.seats[by].kind == "human":
        state.seats[by].last_seq = max(state.seats[by].last_seq, seq)


def new_state(table_id: str, turn_timer: float | None) -> TableState:
    from ...engine import Rules

    return TableState(table_id, Rules.make(), turn_timer)


def restore(
    table_id: str, events: Iterable[tuple[int, str, dict[str, Any]]], turn_timer: float | None
) -> tuple[TableState, int, int | None]:
    """Fold a log ``(n, kind, data)`` into a state; returns it, the number of events and the
    row of a coalesced lobby at the log's end (None: none)."""
    state = new_state(table_id, turn_timer)
    n = 0
    lobby_row: int | None = None
    out = Outcome()
    for number, kind, data in events:
        if number != n:
            raise ValueError(f"table {table_id}: event {number} out of order")
        apply(state, kind, data, out)
        state.story.add(out.events)
        out.events.clear()
        lobby_row = n if kind == "lobby" else None
        n += 1
    return state, n, lobby_row


# -- the lobby -------------------------------------------------------------------------------


def _lobby(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.rules = rules_from_dict(data["rules"])
    state.turn_timer = data["turn_timer"]
    state.hints = data.get("hints", True)  # lobbies stored before hints were an option
    state.programs = data.get("programs", False)
    state.host = data["host"]
    state.seats = []
    for index, stored in enumerate(data["seats"]):
        seat = Seat(index)
        seat.kind = stored["kind"]
        seat.name = stored["name"]
        seat.level = stored["level"]
        seat.token_hash = stored["token_hash"]
        seat.last_seq = stored["last_seq"]
        seat.program = stored.get("program", False)
        state.seats.append(seat)
    out.table_changed = True


def _create(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.rules = rules_from_dict(data["rules"])
    state.turn_timer = data["turn_timer"]
    state.seats = [Seat(i) for i in range(state.rules.players)]
    state.host = 0
    _sit(state, {"seat": 0, "name": data["name"], "token_hash": data["token_hash"]}, out)


def _sit(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    seat = state.seats[data["seat"]]
    seat.clear()
    seat.kind = "human"
    seat.name = data["name"]
    seat.token_hash = data["token_hash"]
    seat.program = data.get("program", False)
    if state.host is None:
        state.host = seat.index
    out.table_changed = True


def _options(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.rules = rules_from_dict(data["rules"])
    state.turn_timer = data["turn_timer"]
    state.hints = data.get("hints", state.hints)
    state.programs = data.get("programs", state.programs)
    players = state.rules.players
    del state.seats[players:]
    state.seats.extend(Seat(i) for i in range(len(state.seats), players))
    out.table_changed = True


def _bot(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    for index in data["seats"]:
        state.seats[index].make_bot(data["level"])
    out.table_changed = True


def _unbot(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.seats[data["seat"]].clear()
    out.table_changed = True


def _seq_reset(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.seats[data["seat"]].last_seq = 0


# -- the game --------------------------------------------------------------------------------


def _start(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.game_number += 1
    state.seed = data["seed"]
    state.game = Game(state.rules, seed=state.seed)
    state.phase = "playing"
    state.v += 1
    state.away = AwayLog()  # a new game: what stand-ins did in the last one is told no more
    for seat in state.seats:
        seat.auto = None
        seat.timeouts = 0
        seat.kept = False
    out.table_changed = True
    out.events.append({"event": "game_started", "game": state.game_number})
    out.notices.append(("absent",))  # people not connected: their grace period starts
    _round_started(state.game, out)


def _next_round(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    game = state.game
    assert game is not None
    game.start_next_round()
    state.v += 1
    for seat in state.seats:
        seat.timeouts = 0
        if seat.kept:  # the round is over: the seat is the person's again
            seat.kept = False
            seat.auto = None
            out.notices.append(("presence", seat.index))
    _round_started(game, out)


def _round_started(game: Game, out: Outcome) -> None:
    events = out.events
    events.append(
        {
            "event": "round_started",
            "round": game.round_number,
            "leader": game.leader,
            "exchange": game.phase is Phase.EXCHANGE,
        }
    )
    for index, (giver, receiver, cards) in enumerate(game.exchange_log):
        if index >= len(game.pairs):
            break
        events.append(
            {
                "event": "gift",
                "seat": giver,
                "to": receiver,
                "count": cards.bit_count(),
                "_private": {"seats": [giver, receiver], "cards": mask_names(cards)},
            }
        )
    if game.pairs and game.phase is Phase.PLAY:
        events.append({"event": "exchange_done", "leader": game.leader})


def _move(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    game = state.game
    assert game is not None
    seat = data["seat"]
    action = data["action"]
    move = move_of(action["action"], tuple(action.get("cards", ())), action.get("jokers") or {})
    if data.get("actor") == "auto":
        state.away.record(seat, game.round_number, action)
    exchanging = game.phase is Phase.EXCHANGE
    out.events.extend(
        protocol_events(game.apply(move, seat), game.rules.players)
    )  # told from the engine's events
    if exchanging and not game.pending:  # the exchange is over: play begins
        out.events.append({"event": "exchange_done", "leader": game.leader})
    state.v += 1
    if game.over:
        state.phase = "over"
        _keep_record(state, game)
        places, titles = final_titles(list(game.points))
        out.events.append(
            {
                "event": "game_over",
                "game": state.game_number,
                "points": list(game.points),
                "standings": places,
                "titles": titles,
            }
        )
        _end_stand_ins(state)
        out.table_changed = True


def _keep_record(state: TableState, game: Game) -> None:
    record = record_to_json(game, state.record_players())
    state.keep_record(json.dumps(record, separators=(",", ":"), ensure_ascii=False))


def _end_stand_ins(state: TableState) -> None:
    """The game is over: the seats of people who left are the computer players' now."""
    for seat in state.seats:
        if seat.kind == "human" and seat.auto == "left":
            seat.make_bot(STAND_IN_LEVEL)


# -- people and seats ------------------------------------------------------------------------


def _leave(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    index = data["by"]
    seat = state.seats[index]
    if state.phase == "playing":
        if seat.auto is None:
            state.away.start(index)
        seat.auto = "left"  # a computer player takes over; the token still works
        game = state.game
        if game is not None and game.turn == index:
            out.schedule = True
    else:
        seat.clear()
    if "host" in data:
        _set_host(state, data["host"], index, "left", out)
    elif state.host == index:  # tables stored before handover was an event's part
        humans = [s.index for s in state.seats if s.kind == "human"]
        state.host = humans[0] if humans else None
    out.table_changed = True


def _return(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    """A person who left during the game came back: the seat is theirs again."""
    seat = state.seats[data["seat"]]
    if seat.auto == "left":
        seat.auto = None
    out.table_changed = True


def _abandon(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    """Everyone left during a game: it ends here, its record as far as it went."""
    game = state.game
    assert game is not None
    state.phase = "over"
    state.v += 1
    _keep_record(state, game)
    _end_stand_ins(state)
    out.schedule = True  # (nothing is scheduled after a game: the turn's timer stops)
    out.events.append({"event": "game_abandoned", "game": state.game_number})
    out.table_changed = True


def _replace(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    seat = state.seats[data["seat"]]
    seat.make_bot(STAND_IN_LEVEL)
    out.notices.append(("dismiss", seat.index, "replaced_by_bot"))
    out.table_changed = True
    game = state.game
    if state.phase == "playing" and game is not None and game.turn == seat.index:
        out.schedule = True


def _move_seat(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    source, target = state.seats[data["seat"]], state.seats[data["to"]]
    for name in ("kind", "name", "level", "token_hash", "last_seq", "program"):
        setattr(target, name, getattr(source, name))
    source.clear()
    if state.host == source.index:
        state.host = target.index
    out.notices.append(("moved", source.index, target.index))
    out.table_changed = True


def _remove(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    state.seats[data["seat"]].clear()
    out.notices.append(("dismiss", data["seat"], "removed"))
    out.table_changed = True


def _host(state: TableState, data: dict[str, Any], out: Outcome) -> None:
    _set_host(state, data["host"], data["previous"], data["reason"], out)


def _set_host(state: TableState, new: int | None, previous: int, reason: str, out: Outcome) -> None:
    state.host = new
    out.table_changed = True
    out.notices.append(
        ("host", {"type": "host_changed", "host": new, "previous": previous, "reason": reason})
    )


APPLY: dict[str, Applier] = {
    "create": _create,
    "lobby": _lobby,
    "sit": _sit,
    "options": _options,
    "bot": _bot,
    "unbot": _unbot,
    "seq_reset": _seq_reset,
    "start": _start,
    "next_round": _next_round,
    "move": _move,
    "leave": _leave,
    "return": _return,
    "abandon": _abandon,
    "replace": _replace,
    "move_seat": _move_seat,
    "remove": _remove,
    "host": _host,
}
