"""In-process checks of the server's parts: the view filter, restoring from the event log, the
protocol documentation."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from cardverse.engine import Game, Rules, mask_names, player_view
from cardverse.server import protocol as P
from cardverse.server.protocol import parse_client_message
from cardverse.server.stores import open_store
from cardverse.server.tables import Settings, Table, TableService
from cardverse.server.viewfilter import STATS, played_cards, render, visible_cards

pytestmark = pytest.mark.timeout(60)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def _game() -> Game:
    return Game(Rules.make("standard", players=4), seed=5)


def test_R26_filter_withholds_another_seats_cards() -> None:
    game = _game()
    before = STATS["violations"]
    leak = {"type": "state", "view": {"hand": mask_names(game.hand(1))}}
    out = json.loads(render(leak, 0, game))
    assert out["type"] == "error" and out["code"] == "internal"
    assert STATS["violations"] == before + 1
    own = {"type": "state", "view": player_view(game, 0).to_json()}
    assert json.loads(render(own, 0, game)) == own
    # A connection without a seat sees no card at all.
    assert json.loads(render(own, None, game))["code"] == "internal"


def test_R26_filter_resolves_exchange_cards_for_the_pair_only() -> None:
    game = _game()
    cards = mask_names(game.hand(3))[:2]
    event = {
        "event": "gift",
        "seat": 3,
        "to": 0,
        "count": 2,
        "_private": {"seats": [3, 0], "cards": cards},
    }
    message = {"type": "state", "events": [event]}
    for seat in (1, 2):
        out = json.loads(render(message, seat, game))
        assert out["events"] == [{"event": "gift", "seat": 3, "to": 0, "count": 2}]
    assert json.loads(render(message, 3, game))["events"][0]["cards"] == cards


def test_filter_ignores_names_that_look_like_cards_and_allows_echoes() -> None:
    game = _game()
    table = {"type": "table", "seats": [{"name": "AS"}, {"name": "RJ"}]}
    assert json.loads(render(table, None, None)) == table
    foreign = mask_names(game.hand(2))[0]
    error = {
        "type": "error",
        "code": "card_not_in_hand",
        "message": "x",
        "params": {"cards": [foreign]},
    }
    from cardverse.engine import parse_card

    echo = 1 << parse_card(foreign)
    assert json.loads(render(error, 0, game, echo=echo))["code"] == "card_not_in_hand"
    assert json.loads(render(error, 0, game))["code"] == "internal"
    assert visible_cards(game, 0) == game.hand(0)


def test_R44_filter_reads_a_set_jokers_card_as_a_declaration_not_a_card() -> None:
    """Under the suit lock with jokers a set's joker names the card it stands for ("RJ": "7H");
    another seat may hold that very card: the declaration passes, a real hidden card does not."""
    game = Game(Rules.make("uecda", players=4, jokers=1), seed=5)
    holder = next(seat for seat in range(4) if "RJ" in mask_names(game.hand(seat)))
    hidden = mask_names(game.hand((holder + 1) % 4))[0]
    played = {"seat": holder, "action": "play", "cards": ["RJ"], "jokers": {"RJ": hidden}}
    message = {"type": "state", "view": {"trick": [played]}}
    assert json.loads(render(message, holder, game)) == message
    before = STATS["violations"]
    leak = {"type": "state", "view": {"trick": [played | {"cards": ["RJ", hidden]}]}}
    assert json.loads(render(leak, holder, game))["code"] == "internal"
    assert STATS["violations"] == before + 1


class FakeConn:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Table | None = None
        self.standby = False
        self.sent: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        pass


def _state_of(table: Table) -> Any:
    game = table.game
    assert game is not None
    return (
        table.phase,
        table.v,
        table.n,
        table.game_number,
        table.rules,
        [(s.kind, s.name, s.level, s.token_hash, s.last_seq) for s in table.seats],
        game.phase,
        game.round_number,
        game.hands,
        game.points,
        game.places,
        list(game.round.history) if game.round else None,
        game.exchange_log,
        len(table.records),
    )


@pytest.mark.timeout(60)
def test_restoring_from_the_log_rebuilds_the_same_table(
    tmp_path: Path, database: str | None
) -> None:
    async def body() -> None:
        settings = Settings(
            data_dir=tmp_path,
            database=database,
            turn_timer=None,
            grace=None,
            bot_delay=0,
            round_pause=0,
            bot_processes=0,
        )
        service = TableService(settings)
        table, token = service.create("Ann", {"preset": "standard", "rounds": 3})
        conns = [FakeConn() for _ in range(4)]
        for conn in conns:
            table.attach(conn)
        table.handle(conns[0], parse_client_message(json.dumps({"type": "join", "token": token})))
        for index in (1, 2):
            table.handle(
                conns[index],
                parse_client_message(json.dumps({"type": "join", "name": f"P{index}"})),
            )
        seq = [10, 10, 10, 10]

        def send(index: int, message: dict[str, Any]) -> None:
            seq[index] += 1
            text = json.dumps({**message, "seq": seq[index]})
            table.handle(conns[index], parse_client_message(text))

        send(0, {"type": "add_bot", "level": "easy"})
        send(0, {"type": "start"})
        rng = random.Random(2)
        for _ in range(2000):
            await asyncio.sleep(0)
            game = table.game
            assert game is not None
            if game.over:
                break
            turn = game.turn
            if turn is None or turn == 3 or not game.legal_moves():
                await asyncio.sleep(0.005)
                continue
            view = player_view(game, turn).to_json()
            move = dict(rng.choice(view["legal_moves"]))
            kind = move.pop("action")
            send(turn, {"type": kind, **move})
            if game.round_number == 2 and game.round and len(game.round.history) == 7:
                restored = Table.restore(service, table.id, service.store.events(table.id))
                assert _state_of(restored) == _state_of(table)
        assert table.game is not None and table.game.over
        send(0, {"type": "rematch"})
        service.store.commit()  # group commit: the turn's transaction ends with the turn
        reopened = open_store(database, tmp_path)
        restored = Table.restore(service, table.id, reopened.events(table.id))
        assert _state_of(restored) == _state_of(table)
        assert restored.records == table.records
        assert json.loads(restored.records[0])["format"] == "president-record/1"
        reopened.close()
        service.close()

    asyncio.run(asyncio.wait_for(body(), 50))


def test_every_error_code_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for code in P.ERROR_CODES:
        assert f"`{code}`" in docs, code


def test_docs_hold_the_current_schemas() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    begin, end = "<!-- schemas:begin -->", "<!-- schemas:end -->"
    section = docs[docs.index(begin) + len(begin) : docs.index(end)].strip()
    assert section == P.schemas_markdown().strip(), (
        "docs/protocol.md is out of date: run python -m cardverse.server.protocol"
    )
    assert f"Protocol version: {P.PROTOCOL_VERSION}" in docs


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "standard", "players": 4, "rounds": 3},
        {
            "preset": "standard",
            "players": 5,
            "rounds": 2,
            "straights": True,
            "jokers": 2,
            "revolution": True,
            "eight_stop": True,
        },
        {"preset": "cardverse", "players": 3, "rounds": 2},
        {"preset": "daifugo", "players": 4, "rounds": 3, "straights": True, "jokers": 2},
    ],
)
def test_wire_views_equal_the_engines_player_views(options: dict[str, Any]) -> None:
    from cardverse.engine import rules_from_dict
    from cardverse.server.wire import WireViews

    rng = random.Random(9)
    rules = rules_from_dict(options)
    wire = WireViews()
    for game_index in range(2):
        game = Game(rules, seed=game_index)
        for _ in range(3000):
            if game.over:
                break
            assert wire.played(game) == played_cards(game)
            shared = wire.shared(game)
            for seat in range(rules.players):
                text = render(
                    {"type": "state", "view": wire.seat_view(game, seat, shared)}, seat, game
                )
                assert json.loads(text)["view"] == player_view(game, seat).to_json()
            if game.phase.value == "round_over":
                game.start_next_round()
            else:
                game.apply(rng.choice(game.legal_moves()))
        assert game.over


def test_R26_shared_view_part_holds_only_played_cards() -> None:
    from cardverse.server.viewfilter import SeatView, share

    game = _game()
    before = STATS["violations"]
    hidden = mask_names(game.hand(1))[0]
    leaked = share(f'"trick":[{{"seat":1,"action":"play","cards":["{hidden}"]}}]', game)
    assert not leaked.ok and STATS["violations"] == before + 1
    message = {"type": "state", "view": SeatView('"seat":0', leaked)}
    assert json.loads(render(message, 0, game))["code"] == "internal"
    assert share('"trick":[]', game).ok


def test_actions_tallied_in_a_loop_turn_reach_the_metrics_at_its_end() -> None:
    from prometheus_client import REGISTRY

    from cardverse.server import metrics

    def figure(name: str, labels: dict[str, str] | None = None) -> float:
        return REGISTRY.get_sample_value(name, labels or {}) or 0.0

    kind = {"type": "suggest"}
    count, total = figure("cardverse_actions_total", kind), figure("cardverse_action_seconds_sum")
    fast = figure("cardverse_action_seconds_bucket", {"le": "0.0005"})
    slow = figure("cardverse_action_seconds_bucket", {"le": "0.25"})

    async def turn() -> tuple[float, float]:
        metrics.observe_action("suggest", 0.0001)
        metrics.observe_action("suggest", 0.2)
        during = figure("cardverse_actions_total", kind)
        await asyncio.sleep(0)  # the turn ends: the tally is added
        return during, figure("cardverse_actions_total", kind)

    during, after = asyncio.run(turn())
    assert during == count and after == count + 2
    assert figure("cardverse_action_seconds_sum") == pytest.approx(total + 0.2001)
    assert figure("cardverse_action_seconds_bucket", {"le": "0.0005"}) == fast + 1
    assert figure("cardverse_action_seconds_bucket", {"le": "0.25"}) == slow + 2
    metrics.observe_action("suggest", 0.0001)  # outside a loop: counted at once
    assert figure("cardverse_actions_total", kind) == count + 3


@pytest.mark.parametrize(
    "text", ['{"type":"pass","seq":1}', ' {"type":"pass","seq":1} ', '{"type":"pass"}{}', "[1,"]
)
def test_client_messages_read_as_json_loads_reads_them(text: str) -> None:
    def outcome(read: Any) -> Any:
        try:
            return read(text)
        except ValueError as error:
            return str(error)

    assert outcome(P._loads) == outcome(json.loads)
