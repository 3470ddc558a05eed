"""Changes (docs/protocol.md, *Changes*): a connection that applies every ``change`` it gets to
the last full ``state`` holds exactly the view the engine gives its seat (R26), after every
action of whole games with every house rule, exchanges, seven passes and ten discards; a
spectator holds the spectators' full view; one frame goes to each connection per change, the
move's ack inside its sender's; and a connection out of step gets a full state instead.

The tables run in-process (the real :class:`Table`, its store and view filter) with connections
that keep what they are sent; the changes are applied by the test's own client code
(:func:`server_support.apply_change`), not the server's.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from server_support import apply_change

from cardverse.engine import player_view
from cardverse.server.protocol import parse_client_message
from cardverse.server.sent import SERVER_MESSAGE
from cardverse.server.tables import Settings, Table, TableService
from cardverse.server.viewfilter import STATS

pytestmark = pytest.mark.timeout(120)


class KeepingConn:
    """A connection that applies the changes it is sent to its last full state."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.synced: Any = None
        self.state: dict[str, Any] | None = None
        self.frames: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        message = json.loads(text)
        SERVER_MESSAGE.validate_python(message)
        self.frames.append(message)
        if message["type"] == "state":
            self.state = message
        elif message["type"] == "change":
            assert self.state is not None, "a change before any state"
            self.state = apply_change(self.state, message)

    def close(self, code: int, reason: str) -> None:
        pass


def _send(table: Table, conn: KeepingConn, message: dict[str, Any]) -> None:
    table.handle(conn, parse_client_message(json.dumps(message)))


def _service(tmp_path: Path, turn_timer: float | None = None) -> TableService:
    """A table service with no timers but ``turn_timer``, and computer players in-process."""
    settings = Settings(
        data_dir=tmp_path, turn_timer=turn_timer, grace=None, bot_delay=0, round_pause=0
    )
    settings.bot_processes = 0
    return TableService(settings)


def _hosted_game(service: TableService) -> tuple[Table, KeepingConn]:
    """A standard 4-player game started by its host (seat 0) with computer players (seq 1-3)."""
    table, token = service.create("Ann", {"preset": "standard", "players": 4})
    host = KeepingConn()
    table.attach(host)
    _send(table, host, {"type": "join", "token": token, "seq": 1})
    _send(table, host, {"type": "add_bot", "seq": 2, "level": "easy"})
    _send(table, host, {"type": "start", "seq": 3})
    return table, host


OPTIONS: list[dict[str, Any]] = [
    {"preset": "standard", "players": 4, "rounds": 3},
    {"preset": "cardverse", "players": 5, "rounds": 3},
    {
        "preset": "standard",
        "players": 4,
        "rounds": 3,
        "straights": True,
        "jokers": 2,
        "revolution": True,
        "eight_stop": True,
    },
    {"preset": "daifugo", "players": 6, "rounds": 2, "straights": True, "jokers": 2},
    {"preset": "uecda", "players": 5, "rounds": 2},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_R26_changes_applied_make_the_engines_view(tmp_path: Path, options: dict[str, Any]) -> None:
    violations = STATS["violations"]

    async def body() -> None:
        service = _service(tmp_path)
        table, token = service.create("Ann", options)
        players = table.rules.players
        conns = [KeepingConn() for _ in range(players)]
        watcher = KeepingConn()
        for conn in [*conns, watcher]:
            table.attach(conn)
        _send(table, conns[0], {"type": "join", "token": token})
        for index in range(1, players):
            _send(table, conns[index], {"type": "join", "name": f"P{index}"})
        rng = random.Random(str(options))
        seq = [10] * players
        seq[0] += 1
        _send(table, conns[0], {"type": "start", "seq": seq[0]})
        late: KeepingConn | None = None
        steps = changes = 0
        while table.phase == "playing":
            game = table.game
            assert game is not None
            if game.phase.value == "round_over":
                table.clock.next_round(table.v)
                continue
            for conn in conns:
                assert conn.state is not None and conn.state["v"] == table.v
                assert conn.state["view"] == player_view(game, conn.seat).to_json()
            expected = json.loads(table.outbox.full_state_text(KeepingConn(), []))
            assert watcher.state is not None
            assert watcher.state["view"] == expected["view"]
            assert watcher.state["score"] == expected["score"]
            turn = game.turn
            assert turn is not None
            conn = conns[turn]
            moves = conn.state["view"]["legal_moves"]  # type: ignore[index]
            move = dict(rng.choice(moves))
            kind = move.pop("action")
            seq[turn] += 1
            before = [len(c.frames) for c in conns]
            _send(table, conn, {"type": kind, "seq": seq[turn], **move})
            # one frame to each seat, the ack inside the mover's
            for other, count in zip(conns, before, strict=True):
                new = other.frames[count:]
                assert len(new) in (1, 2), new  # 2: the table message when the game ends
                assert new[-1]["type"] == "change", new[-1]
            assert conn.frames[-1].get("ack") == seq[turn]
            changes += 1
            steps += 1
            if steps == 25:  # a spectator arriving mid-game starts from a full state
                late = KeepingConn()
                table.attach(late)
                assert [m["type"] for m in late.frames] == ["hello", "table", "state", "table"]
        assert changes > 50
        assert late is not None and late.state is not None
        assert late.state["view"] == watcher.state["view"]  # type: ignore[index]
        kinds = [m["type"] for m in conns[1].frames]
        assert kinds.count("change") > 10 * kinds.count("state"), kinds
        table.close()
        service.close()

    asyncio.run(body())
    assert STATS["violations"] == violations


def test_a_connection_out_of_step_gets_the_full_state(tmp_path: Path) -> None:
    async def body() -> None:
        service = _service(tmp_path)
        table, host = _hosted_game(service)
        assert host.frames[-1]["type"] == "state" and host.frames[-1]["log"] is not None
        # The connection lost track (as if a frame had gone missing): the next change is
        # told to it as a full state, with the round's log.
        host.synced.v -= 1
        game = table.game
        assert game is not None
        if game.turn == 0:
            move = dict(host.state["view"]["legal_moves"][0])  # type: ignore[index]
            kind = move.pop("action")
            _send(table, host, {"type": kind, "seq": 4, **move})
            assert host.frames[-1]["type"] == "state" and host.frames[-1]["ack"] == 4
        else:
            table.outbox.broadcast_state([])
            assert host.frames[-1]["type"] == "state"
        assert host.frames[-1]["log"] is not None
        assert host.state["view"] == player_view(game, 0).to_json()  # type: ignore[index]
        table.close()
        service.close()

    asyncio.run(body())


def test_R26_a_withheld_change_is_followed_by_full_states(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cardverse.server.table.outbox as tables
    from cardverse.server.viewfilter import Shared

    async def body() -> None:
        service = _service(tmp_path)
        table, host = _hosted_game(service)
        real_share = tables.share
        # The filter finds something wrong with a change's shared part: nobody gets it ...
        monkeypatch.setattr(tables, "share", lambda text, *a, **k: Shared(text, False))
        table.outbox.broadcast_state([])
        withheld = host.frames[-1]
        assert withheld["type"] == "error" and withheld["code"] == "internal"
        # ... so nobody holds its state, and the next change goes as a full state.
        monkeypatch.setattr(tables, "share", real_share)
        table.outbox.broadcast_state([])
        assert host.frames[-1]["type"] == "state"
        game = table.game
        assert game is not None
        assert host.state["view"] == player_view(game, 0).to_json()  # type: ignore[index]
        table.close()
        service.close()

    asyncio.run(body())


def _states(conn: KeepingConn) -> int:
    return sum(1 for m in conn.frames if m["type"] == "state")


@pytest.mark.parametrize("alone", [False, True], ids=["with-others", "alone"])
def test_a_join_racing_a_change_sends_one_full_state(tmp_path: Path, alone: bool) -> None:
    """A person comes back (a new connection, then ``join`` with the token) while the game goes
    on: the turn reaches their seat, where a computer player stands in, between attaching and
    joining. Taking the seat back ends the stand-in and restarts the turn timer; the joining
    connection is told all that in one full state (not the others' change as well), and the
    next change reaches it as a ``change``."""

    async def body() -> None:
        service = _service(tmp_path, turn_timer=60.0)
        table, token = service.create("Ann", {"preset": "standard", "players": 4})
        conns = [KeepingConn() for _ in range(4)]
        for conn in conns:
            table.attach(conn)
        _send(table, conns[0], {"type": "join", "token": token})
        tokens = [token]
        for index in range(1, 4):
            _send(table, conns[index], {"type": "join", "name": f"P{index}"})
            tokens.append(next(m["token"] for m in conns[index].frames if m["type"] == "welcome"))
        seq = [1] * 4
        _send(table, conns[0], {"type": "start", "seq": seq[0]})
        game = table.game
        assert game is not None and game.turn is not None
        away = (game.turn + 1) % 4  # the seat after the leader's goes away ...
        table.detach(conns[away])
        table.clock.on_grace(away)  # ... and a computer player stands in (as after the grace)
        assert table.seats[away].auto == "disconnected"
        back = KeepingConn()
        table.attach(back)
        assert _states(back) == 1  # a spectator's, on arriving during the game
        while game.turn != away:  # the others play until the turn reaches it
            turn = game.turn
            assert turn is not None and turn != away
            move = dict(conns[turn].state["view"]["legal_moves"][-1])  # type: ignore[index]
            kind = move.pop("action")
            seq[turn] += 1
            _send(table, conns[turn], {"type": kind, "seq": seq[turn], **move})
        assert back.frames[-1]["type"] == "change"  # it watched the change
        if alone:
            for index in range(4):
                if index != away:
                    table.detach(conns[index])
        others = [len(conn.frames) for conn in conns]
        before = len(back.frames)
        _send(table, back, {"type": "join", "token": tokens[away]})
        kinds = [m["type"] for m in back.frames[before:]]
        assert kinds.count("state") == 1, kinds
        assert table.seats[away].auto is None and table.clock.deadline is not None
        full = next(m for m in back.frames[before:] if m["type"] == "state")
        assert full["timer"] is not None and full["timer"]["seat"] == away
        assert full["view"] == player_view(game, away).to_json()
        if not alone:  # the others learn the new deadline in one change
            for index, conn in enumerate(conns):
                if index != away:
                    new = conn.frames[others[index] :]
                    changes = [m for m in new if m["type"] == "change"]
                    assert len(changes) == 1 and all(m["type"] != "state" for m in new), new
                    assert changes[0]["timer"]["seat"] == away
        # The person plays: that change reaches the new connection as a change.
        move = dict(back.state["view"]["legal_moves"][-1])  # type: ignore[index]
        kind = move.pop("action")
        last = table.seats[away].last_seq
        before = len(back.frames)
        _send(table, back, {"type": kind, "seq": last + 1, **move})
        assert [m["type"] for m in back.frames[before:]] == ["change"]
        assert back.state["view"] == player_view(game, away).to_json()  # type: ignore[index]
        table.close()
        service.close()

    asyncio.run(body())
