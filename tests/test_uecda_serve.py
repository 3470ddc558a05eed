"""``cardverse uecda serve`` (docs/uecda.md, section 8) against protocol clients written here:
the message sequence and its codes, the match structure (the exchange from game 2, the seats
redrawn every 3 games), records that replay to the server's results, hidden cards, and the
programs that misbehave (a pass or a refused play on lead, garbage, a disconnect, a short message,
a wrong protocol version, no handshake)."""

from __future__ import annotations

import io
import itertools
import json
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from uecda_client import (
    Client,
    Table,
    always_pass,
    disconnect_after,
    garbage,
    handshake,
    random_player,
    short_message_after,
    stall_after,
    table_to_bytes,
    zeros,
)

from cardverse.cli import main
from cardverse.engine import parse_cards
from cardverse.engine.exchange import highest_cards
from cardverse.notation import replay_record
from cardverse.uecda.serve import (
    GameReport,
    ServeConfig,
    UecdaServer,
    handshake_name,
    lowest,
)

WAIT = 120  # seconds: generous, the machine is shared
SUITS = "SHDC"
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def names_of(table: Table) -> set[str]:
    """The cards a table's rows 0-4 show, by CardVerse name (any joker cell is RJ)."""
    out = set()
    for row in range(5):
        for column in range(15):
            cell = table[row][column]
            if cell == 2 or (row == 4 and cell):
                out.add("RJ")
            elif cell:
                out.add(RANKS[column - 1] + SUITS[row])
    return out


class Match:
    def __init__(self, tmp: Path, games: int, seed: int, **config: Any) -> None:
        self.logs: list[str] = []
        self.out = io.StringIO()
        self.records = tmp / "records"
        settings: dict[str, Any] = {
            "handshake_timeout": 0.5,
            "piece_timeout": 0.5,
            "move_timeout": 20,
            **config,
        }
        self.server = UecdaServer(
            ServeConfig(port=0, games=games, seed=seed, records=self.records, **settings),
            out=self.out,
            log=self.logs.append,
        )
        self.port = self.server.bind()
        self.reports: list[GameReport] = []
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.reports = self.server.run()
        except BaseException as error:  # the test reports it
            self.failure = error

    def seat(self, clients: list[Client]) -> None:
        """Connect the clients one after the other (so that they get numbers in this order)."""
        for client in clients:
            client.start(self.port)
            assert client.seated.wait(WAIT)

    def finish(self, clients: list[Client]) -> None:
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), "the match did not end"
        assert self.failure is None, self.failure
        for client in clients:
            assert client.done.wait(WAIT)

    def log_entries(self) -> list[dict[str, Any]]:
        lines = (self.records / "match.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    def record(self, number: int) -> dict[str, Any]:
        path = self.records / f"game-{number:04d}.json"
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data


@pytest.fixture(scope="module")
def random_match(tmp_path_factory: pytest.TempPathFactory) -> tuple[Match, list[Client]]:
    match = Match(tmp_path_factory.mktemp("random"), games=7, seed=11)
    clients = [Client(f"rand{i}", random_player, seed=i) for i in range(5)]
    match.seat(clients)
    match.finish(clients)
    return match, clients


def test_R47_players_are_numbered_in_connect_order_and_hear_every_code(
    random_match: tuple[Match, list[Client]],
) -> None:
    match, clients = random_match
    assert [c.number for c in clients] == [0, 1, 2, 3, 4]
    for client in clients:
        assert client.codes.count(1) == 6 and client.codes[-1] == 2
        assert set(client.codes) == {0, 1, 2}
        assert client.closed_by_server is False and client.error is None
    answers = [a for c in clients for a in c.answers]
    assert set(answers) == {8, 9}
    for client in clients:
        for hand, submission, answer, board in client.turn_log:
            assert board[5][3] == client.number  # the board names who acted
            if submission == table_to_bytes(zeros()):
                assert answer == 8 and not hand[5][4]  # a pass: only on a covered trick
            if answer == 9:
                assert names_of(board) == names_of(_table(submission))
    assert "game 7: places" in match.out.getvalue()


def _table(data: bytes) -> Table:
    import struct

    values = struct.unpack(">120I", data)
    return [list(values[r * 15 : (r + 1) * 15]) for r in range(8)]


def test_records_replay_to_the_results_the_server_reported(
    random_match: tuple[Match, list[Client]],
) -> None:
    match, _ = random_match
    assert len(match.reports) == 7
    entries = match.log_entries()
    for report, entry in zip(match.reports, entries, strict=True):
        record = match.record(report.number)
        replay = replay_record(record)
        assert replay.game.over
        places = [report.seats[seat] for seat in replay.game.places[-1]]
        assert places == report.places == entry["places"]
        assert [p["name"] for p in record["players"]] == [
            f"rand{player} (player {player})" for player in report.seats
        ]
        assert sorted(report.points) == [1, 2, 3, 4, 5]
    totals = [sum(r.points[p] for r in match.reports) for p in range(5)]
    assert match.server.totals == totals
    out = match.out.getvalue()
    for report in match.reports:
        assert f"game {report.number}: places {' '.join(map(str, report.places))}" in out


def test_R47_exchange_from_game_2_and_seats_redrawn_every_3_games(
    random_match: tuple[Match, list[Client]],
) -> None:
    match, clients = random_match
    entries = match.log_entries()
    assert entries[0]["exchange"] == [] and entries[0]["classes_before"] is None
    for before, entry in itertools.pairwise(entries):
        assert entry["classes_before"] == before["places"]
        president, vice, _, vice_scum, scum = entry["classes_before"]
        moves = [(e["giver"], e["receiver"], len(e["cards"]), e["how"]) for e in entry["exchange"]]
        assert moves == [
            (scum, president, 2, "gift"),
            (vice_scum, vice, 1, "gift"),
            (president, scum, 2, "chosen"),
            (vice, vice_scum, 1, "chosen"),
        ]
    seats = [tuple(e["seats"]) for e in entries]
    assert seats[0] == seats[1] == seats[2] and seats[3] == seats[4] == seats[5]
    assert len({seats[0], seats[3], seats[6]}) > 1  # this seed redraws to other seats
    for client in clients:
        starts = [r.table for r in client.received if r.kind == "start"]
        assert len(starts) == 7
        for game, (start, entry) in enumerate(zip(starts, entries, strict=True), start=1):
            assert start[5][0] == 1 and start[5][3] == 6
            assert start[6][10:15] == entry["seats"]
            classes = entry["classes_before"]
            if classes is None:
                assert start[5][1] == 0 and start[6][5:10] == [0] * 5
                continue
            rank = classes.index(client.number)
            assert start[5][1] == max(2 - rank, 0), game
            assert start[6][5:10] == [classes.index(p) for p in range(5)]
        hands = [r.table for r in client.received if r.kind == "hand"]
        assert all(h[5][0] == 0 and h[6][10:15] == h[6][10:15] for h in hands)


def test_R26_no_table_shows_a_program_another_players_cards(
    random_match: tuple[Match, list[Client]],
) -> None:
    match, clients = random_match
    entries = match.log_entries()
    for client in clients:
        me = client.number
        assert me is not None
        for received in client.received:
            entry = entries[received.game - 1]
            dealt = set(entry["dealt"][me])
            gifts = {c for e in entry["exchange"] if e["receiver"] == me for c in e["cards"]}
            shown = names_of(received.table)
            if received.kind == "board":
                played = {
                    card
                    for action in match.record(received.game)["rounds"][0]["actions"]
                    for card in action.get("cards", [])
                }
                assert shown <= played
                continue
            assert shown <= dealt | gifts, (received.kind, received.game)
            if received.kind == "start":
                classes = entry["classes_before"]
                if classes is not None and classes.index(me) >= 3:
                    assert shown == dealt  # the givers see their deal (docs/uecda.md 3.4)
                elif classes is not None and classes.index(me) < 2:
                    given = {
                        c
                        for e in entry["exchange"]
                        if e["how"] == "gift" and e["receiver"] == me
                        for c in e["cards"]
                    }
                    assert shown == dealt | given


def test_R8_a_program_that_will_not_lead_is_asked_again_then_led_for(tmp_path: Path) -> None:
    match = Match(tmp_path, games=2, seed=3, move_timeout=0.5)
    clients = [
        Client("passer", always_pass),
        Client("garbage", garbage, seed=1),
        Client("rand2", random_player, seed=2),
        Client("rand3", random_player, seed=3),
        Client("staller", stall_after(2), seed=4),
    ]
    match.seat(clients)
    match.finish(clients)
    passer = clients[0]
    assert set(passer.answers) == {8}
    leads = [(hand, board) for hand, _, _, board in passer.turn_log if hand[5][4]]
    assert leads
    # every third refused lead in a row, a computer player leads for it: the board shows a play
    # made in its name; before that the trick stays empty and it is asked again
    streak = 0
    led_for = 0
    for _, board in leads:
        streak += 1
        if streak == 3:
            assert names_of(board) and board[5][3] == passer.number and board[5][4] == 0
            led_for += 1
            streak = 0
        else:
            assert not names_of(board) and board[5][4] == 1
    assert led_for >= 1
    assert any("'passer'" in line and "did not lead in 3 tries" in line for line in match.logs)
    assert 8 in clients[1].answers
    assert "player 4 ('staller') sent nothing within 0.5 s: a CardVerse normal" in "\n".join(
        match.logs
    )
    assert clients[4].closed_by_server and clients[4].turns == 3
    assert clients[0].codes[-1] == 2
    for report in match.reports:
        replay_record(match.record(report.number))


def test_programs_that_fail_mid_match_are_replaced_and_bad_handshakes_refused(
    tmp_path: Path,
) -> None:
    match = Match(tmp_path, games=4, seed=5)
    wrong = Client("old", random_player, version=20060)
    silent = Client("silent", random_player, send_handshake=False)
    match.seat([wrong, silent])
    assert wrong.done.wait(WAIT) and silent.done.wait(WAIT)
    assert wrong.number is None and wrong.closed_by_server
    assert silent.number is None and silent.closed_by_server
    with socket.create_connection(("127.0.0.1", match.port), timeout=WAIT) as short:
        short.sendall(handshake("short")[:200])
        assert short.recv(4) == b""  # closed, no player number
    clients = [
        Client("rand", random_player, seed=1),
        Client("garbage", garbage, seed=2),
        Client("gone", disconnect_after(3), seed=3),
        Client("short", short_message_after(3), seed=4),
        Client("passer", always_pass),
    ]
    match.seat(clients)
    match.finish(clients)
    assert [c.number for c in clients] == [0, 1, 2, 3, 4]
    logs = "\n".join(match.logs)
    assert "protocol version 20060; this server speaks 20070 only" in logs
    assert "sent nothing within 0.5 s as its handshake" in logs
    assert "sent 200 of 480 bytes, then nothing more in time (a short message) as its" in logs
    assert "player 2 ('gone') closed its connection: a CardVerse normal computer player" in logs
    assert "player 3 ('short') sent 100 of 480 bytes" in logs
    assert len(match.reports) == 4
    for client in (clients[0], clients[1], clients[4]):
        assert client.codes[-1] == 2 and client.codes.count(1) == 3
    lost_in = {p.number: p.lost_in_game for p in match.server.programs if p.lost is not None}
    assert set(lost_in) == {2, 3}
    for report in match.reports:
        record = match.record(report.number)
        replay_record(record)
        for seat, player in enumerate(report.seats):
            entry = record["players"][seat]
            if player in lost_in and lost_in[player] < report.number:
                assert entry.get("ai") == "normal"
            elif player in lost_in and lost_in[player] == report.number:
                assert "normal computer player from action" in entry["name"]
            else:
                assert "ai" not in entry


def test_the_same_seed_gives_the_same_match(tmp_path: Path) -> None:
    def play(folder: Path) -> list[dict[str, Any]]:
        match = Match(folder, games=3, seed=99)
        clients = [Client(f"p{i}", random_player, seed=i) for i in range(5)]
        match.seat(clients)
        match.finish(clients)
        return match.log_entries()

    first = play(tmp_path / "a")
    assert play(tmp_path / "b") == first
    assert parse_cards(first[0]["dealt"][0])  # real cards were dealt


def test_cli_help_and_bad_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["uecda", "serve", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--port", "--host", "--games", "--seed", "--records", "--handshake-timeout"):
        assert flag in text
    for argv, message in (
        (["uecda", "serve", "--games", "0"], "argument --games: 0 is not 1 or more"),
        (["uecda", "serve", "--port", "70000"], "argument --port: 70000 is not a port"),
        (["uecda", "serve", "--handshake-timeout", "-1"], "give more than 0"),
        (["uecda", "serve", "--substitute", "hard"], "invalid choice: 'hard'"),
        (["uecda"], "the following arguments are required: COMMAND"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err


def test_cli_serves_a_match_and_its_records_pass_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "out"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cardverse",
            "uecda",
            "serve",
            "--port",
            "0",
            "--games",
            "2",
            "--seed",
            "4",
            "--records",
            str(records),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("listening on 127.0.0.1 port ")
        port = int(first.split()[-1])
        clients = [Client(f"c{i}", random_player, seed=i) for i in range(5)]
        for client in clients:
            client.start(port)
            assert client.seated.wait(WAIT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert "game 2: places" in out and "match over: 2 games" in out
    assert sorted(p.name for p in records.iterdir()) == [
        "game-0001.json",
        "game-0002.json",
        "match.jsonl",
    ]
    assert main(["check", str(records / "game-0002.json")]) == 0
    assert '"over": true' in capsys.readouterr().out


def test_cli_refuses_a_records_file_and_a_port_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x", encoding="utf-8")
    assert main(["uecda", "serve", "--port", "0", "--records", str(not_a_folder)]) == 2
    assert f"--records {not_a_folder} is not a folder" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["uecda", "serve", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1 port {port}" in capsys.readouterr().err


def test_R25_the_gifts_are_the_highest_cards_joker_first_then_spades() -> None:
    hand = parse_cards(["RJ", "2C", "2S", "2H", "AS", "3C"])
    assert highest_cards(hand, 2) == parse_cards(["RJ", "2S"])
    assert highest_cards(parse_cards(["2C", "2H", "AS"]), 1) == parse_cards(["2H"])
    assert lowest(hand, 2) == parse_cards(["3C", "AS"])


def test_a_handshake_name_is_printable_and_short() -> None:
    table = zeros()
    for index, code in enumerate([ord("a"), 200, ord("b")] + [ord("x")] * 20):
        table[1 + index // 15][index % 15] = code
    assert handshake_name(table) == "a?b" + "x" * 12
    assert handshake_name(zeros()) == ""
