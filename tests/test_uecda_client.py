"""``cardverse uecda client`` (docs/uecda.md, section 11): our players as UECda programs.

The golden transcripts of the reference server (tests/data/uecda/) are fed to our client as the
server's side of a session: whatever it decides, every table it sends must be one the reference
accepts on the board it was shown. Whole matches of ``cardverse uecda serve`` against five of our
clients end with no refused play. The plays the client lists follow the reference's rules where
they differ from ours (a 2 does not clear, the lone joker on a single 2, only the 3♠ on the lone
joker, a pass when asked to cover its own play), and the command fails clearly on a refused
connection, a refused handshake and a short message."""

from __future__ import annotations

import gzip
import io
import json
import socket
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from cardverse.bots import make_bot
from cardverse.cli import main
from cardverse.engine import PASS, Rules, from_move, parse_cards, to_move
from cardverse.engine.actions import Action
from cardverse.uecda.check import ReferenceTrick, RefPlay, analyse
from cardverse.uecda.client import (
    Board,
    ClientError,
    Connection,
    GameState,
    Player,
    play_session,
    reference_plays,
)
from cardverse.uecda.serve import ServeConfig, UecdaServer
from cardverse.uecda.tables import Table, hand_from_table, read_table, table_of_action

DATA = Path(__file__).parent / "data" / "uecda"
WAIT = 180  # seconds: generous, the machine is shared
RULES = Rules.make("uecda", players=5, rounds=1)


def records(path: Path) -> list[tuple[str, bytes]]:
    data = gzip.decompress(path.read_bytes())
    out = []
    offset = 0
    while offset < len(data):
        direction = chr(data[offset])
        (size,) = struct.unpack(">I", data[offset + 1 : offset + 5])
        out.append((direction, data[offset + 5 : offset + 5 + size]))
        offset += 5 + size
    return out


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise AssertionError(f"the client closed after {len(data)} of {size} bytes")
        data += chunk
    return data


def reference_accepts(table: Table, hand: Table, board: Table) -> str:
    """Why the reference would refuse (or we would not send) ``table`` on this turn; empty: it
    accepts it. A pass on an empty trick is legal there, but our client must never make it."""
    play = analyse(table)
    empty = hand[5][4] == 1
    if play is None:
        return "a pass on an empty trick" if empty else ""
    if isinstance(play, str):
        return play
    held = hand_from_table(hand)
    if play.cards & ~held:
        return "cards not held"
    top = None if empty else analyse([row[:] for row in board[:5]] + [[0] * 15] * 3)
    assert top is None or isinstance(top, RefPlay)
    model = ReferenceTrick(
        hands=[held],
        actor=0,
        revolution=bool(hand[5][6]),
        top=top,
        lock=top.suits if top is not None and hand[5][7] else None,
    )
    return model.covers(play)


def replay_transcript(path: Path, level: str, **bot: Any) -> dict[str, int]:
    """The server's side of a recorded session sent to our client over a socket pair; each of
    the client's tables is read where the protocol has one and checked."""
    ours, theirs = socket.socketpair()
    counts = {"plays": 0, "passes": 0, "gives": 0}
    failures: list[str] = []

    # The fake server needs the last hand and board tables: follow the S stream as it goes.
    stream = records(path)
    state: dict[str, Table | None] = {"hand": None, "board": read_table(bytes(480))}

    def server_with_state() -> None:
        handshake_done = False
        expect_board = False
        try:
            for direction, payload in stream:
                if direction == "S":
                    theirs.sendall(payload)
                    if len(payload) == 480:
                        table = read_table(payload)
                        if expect_board:
                            state["board"] = table
                            expect_board = False
                        else:
                            state["hand"] = table
                            expect_board = table[5][0] != 1 and table[5][2] != 1
                    continue
                sent = read_table(recv_exact(theirs, 480))
                if not handshake_done:
                    handshake_done = sent[0][0] == 20070
                    if not handshake_done:
                        failures.append("no handshake")
                    continue
                hand = state["hand"]
                assert hand is not None
                if hand[5][0] == 1:
                    held = hand_from_table(hand)
                    given = hand_from_table(sent)
                    if given & ~held or given.bit_count() != hand[5][1]:
                        failures.append(f"a give-back of {given:#x} from {held:#x}")
                    counts["gives"] += 1
                    continue
                board = state["board"]
                assert board is not None
                expect_board = True  # after the accept code
                why = reference_accepts(sent, hand, board)
                if why:
                    failures.append(f"{why}: {sent[:5]}")
                counts["plays" if analyse(sent) else "passes"] += 1
        except (AssertionError, OSError) as error:
            failures.append(str(error))
        finally:
            theirs.close()

    thread = threading.Thread(target=server_with_state, daemon=True)
    thread.start()
    player = Player(make_bot(level, seed=3, **bot), RULES)
    try:
        report = play_session(Connection(ours, timeout=WAIT), player, "cv")
    finally:
        ours.close()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert failures == []
    assert report.games == 3
    counts["turns"] = report.turns
    return counts


@pytest.mark.parametrize("number", range(5))
def test_golden_transcripts_get_only_tables_the_reference_accepts(number: int) -> None:
    path = DATA / f"session-player{number}.uect.gz"
    for level in ("easy", "normal"):
        counts = replay_transcript(path, level)
        assert counts["plays"] + counts["passes"] == counts["turns"] > 0
        assert counts["plays"] > 0


def test_golden_transcript_with_the_hard_player() -> None:
    counts = replay_transcript(DATA / "session-player1.uect.gz", "hard", playouts=40)
    assert counts["plays"] > 0


def test_the_president_gives_back_what_the_bot_chooses() -> None:
    """Game 2 of the transcripts has an exchange: its President and Vice-President answer their
    start table with a hand table of 2 and 1 of their cards (checked in the replay above)."""
    givers = []
    for number in range(5):
        stream = records(DATA / f"session-player{number}.uect.gz")
        starts = [read_table(p) for d, p in stream if d == "S" and len(p) == 480]
        if any(t[5][0] == 1 and t[5][1] for t in starts):
            givers.append(number)
            counts = replay_transcript(DATA / f"session-player{number}.uect.gz", "normal")
            assert counts["gives"] >= 1
    assert len(givers) >= 2


# -- the reference's plays ------------------------------------------------------------------


def _play(text: str, jokers: dict[str, str] | None = None) -> tuple[RefPlay, int]:
    move = to_move(Action("play", tuple(text.split()), jokers or {}))
    play = analyse(table_of_action(from_move(move)))
    assert isinstance(play, RefPlay)
    return play, move


def _names(moves: list[int]) -> set[str]:
    out = set()
    for move in moves:
        action = from_move(move)
        out.add(" ".join(action.cards) if action.kind == "play" else "pass")
    return out


def test_R14_reference_a_single_2_stands_and_only_the_lone_joker_covers_it() -> None:
    two, move = _play("2H")
    hand = parse_cards(["RJ", "2S", "AS", "3S"])
    plays = reference_plays(hand, Board(two, move, False, False), RULES)
    assert _names(plays) == {"RJ", "pass"}  # no 2 on a 2, and the 2 did not clear


def test_R45_only_the_three_of_spades_covers_the_lone_joker() -> None:
    joker, move = _play("RJ")
    hand = parse_cards(["3S", "3H", "2S"])
    plays = reference_plays(hand, Board(joker, move, False, False), RULES)
    assert _names(plays) == {"3S", "pass"}


def test_R44_a_lock_keeps_the_suit_and_R41_straights_are_all_higher() -> None:
    five, move = _play("5H")
    hand = parse_cards(["6H", "7S", "8H"])
    locked = reference_plays(hand, Board(five, move, False, True), RULES)
    assert _names(locked) == {"6H", "8H", "pass"}
    straight, move = _play("9D 10D JD")
    hand = parse_cards(["10H", "JH", "QH", "KH", "AH"])
    plays = reference_plays(hand, Board(straight, move, False, False), RULES)
    assert _names(plays) == {"QH KH AH", "pass"}  # 10 J Q and J Q K are not all higher


def test_R8_no_pass_on_lead_and_R13_a_pass_when_asked_to_cover_its_own_play() -> None:
    hand = parse_cards(["3S", "4S", "5S", "KD"])
    leads = reference_plays(hand, Board(None, None, False, False), RULES)
    assert "pass" not in _names(leads) and "3S 4S 5S" in _names(leads)
    game = GameState(number=1, me=2, start=[[0] * 15 for _ in range(8)])
    game.hand = hand
    game.counts = [5, 5, 4, 5, 5]
    game.top, game.top_move = _play("QD")
    game.top_player = 2
    player = Player(make_bot("normal"), RULES)
    assert player.play(game) == PASS


# -- whole matches ----------------------------------------------------------------------------


def serve_match(
    tmp: Path, games: int, levels: list[tuple[str, dict[str, Any]]], seed: int
) -> tuple[list[Any], list[dict[str, Any]], str]:
    out = io.StringIO()
    logs: list[str] = []
    server = UecdaServer(
        ServeConfig(port=0, games=games, seed=seed, records=tmp / "records", move_timeout=60),
        out=out,
        log=logs.append,
    )
    port = server.bind()
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            server.run()
        except BaseException as error:  # the test reports it
            failure.append(error)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    reports: list[Any] = [None] * len(levels)

    def client(index: int, level: str, options: dict[str, Any]) -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        try:
            player = Player(make_bot(level, seed=index, **options), RULES)
            reports[index] = play_session(
                Connection(sock, timeout=WAIT), player, f"cv-{level}-{index}"
            )
        except ClientError as error:
            reports[index] = error
        finally:
            sock.close()

    threads = [
        threading.Thread(target=client, args=(i, level, options), daemon=True)
        for i, (level, options) in enumerate(levels)
    ]
    for t in threads:
        t.start()
    thread.join(WAIT * 3)
    for t in threads:
        t.join(WAIT)
    assert not thread.is_alive(), "the match did not end"
    assert not failure, failure
    entries = [
        json.loads(line)
        for line in (tmp / "records" / "match.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    return reports, entries, out.getvalue() + "\n".join(logs)


def test_a_match_of_our_server_and_five_of_our_clients(tmp_path: Path) -> None:
    levels = [("easy", {}), ("easy", {}), ("normal", {}), ("normal", {}), ("normal", {})]
    reports, entries, log = serve_match(tmp_path, 8, levels, seed=5)
    for report in reports:
        assert not isinstance(report, BaseException), report
        assert report.games == 8 and report.refused == 0 and report.turns > 0
    assert len(entries) == 8
    assert all(not any(entry["refused_plays"]) for entry in entries), log
    assert all(not entry["replaced"] for entry in entries)
    assert "match over: 8 games" in log


def test_a_short_match_with_the_hard_player(tmp_path: Path) -> None:
    levels = [("hard", {"playouts": 30})] + [("easy", {})] * 2 + [("normal", {})] * 2
    reports, entries, log = serve_match(tmp_path, 3, levels, seed=9)
    assert all(not isinstance(r, BaseException) and r.games == 3 for r in reports), reports
    assert all(not any(entry["refused_plays"]) for entry in entries), log


# -- errors -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["uecda", "client", *args])
    return code, capsys.readouterr().err


def _one_shot_server(behaviour: Any) -> int:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port: int = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            recv_exact(conn, 480)
            behaviour(conn)
        finally:
            conn.close()
            listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return port


def test_cli_errors_are_clear_and_not_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run_cli(["--port", str(_free_port()), "--bot", "easy"], capsys)
    assert code != 0 and "connection refused" in err
    # a server that closes the connection after the handshake (another protocol version)
    port = _one_shot_server(lambda conn: None)
    code, err = _run_cli(["--port", str(port), "--bot", "easy"], capsys)
    assert code != 0 and "handshake" in err and "20070" in err
    # a short message: the player number, then 100 bytes of a table
    port = _one_shot_server(lambda conn: conn.sendall(struct.pack(">I", 0) + bytes(100)))
    code, err = _run_cli(["--port", str(port), "--bot", "easy"], capsys)
    assert code != 0 and "short message" in err
    # not a player number
    port = _one_shot_server(lambda conn: conn.sendall(struct.pack(">I", 77)))
    code, err = _run_cli(["--port", str(port), "--bot", "easy"], capsys)
    assert code != 0 and "not a player number" in err


def test_cli_plays_a_match_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    server = UecdaServer(
        ServeConfig(port=0, games=2, seed=4), out=io.StringIO(), log=lambda line: None
    )
    port = server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    codes: list[int] = []

    def one(level: str) -> None:
        codes.append(main(["uecda", "client", "--port", str(port), "--bot", level]))

    threads = [threading.Thread(target=one, args=(lvl,)) for lvl in ["easy"] * 3 + ["normal"] * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    thread.join(WAIT)
    assert codes == [0] * 5
    out = capsys.readouterr().out
    assert out.count(": 2 games,") == 5 and "0 plays refused" in out


# -- the strength bench ---------------------------------------------------------------------


def test_the_strength_bench_skips_itself_without_the_sources(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import importlib.util

    path = Path(__file__).parent.parent / "bench" / "uecda_strength.py"
    spec = importlib.util.spec_from_file_location("uecda_strength", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    SOURCES_VARIABLE, main, read_places, wilson = (
        bench.SOURCES_VARIABLE,
        bench.main,
        bench.read_places,
        bench.wilson,
    )
    monkeypatch.delenv(SOURCES_VARIABLE, raising=False)
    assert main(["--out", str(tmp_path / "out.json")]) == 0
    assert SOURCES_VARIABLE in capsys.readouterr().out
    assert not (tmp_path / "out.json").exists()
    low, high = wilson(50, 100)
    assert round(low, 3) == 0.404 and round(high, 3) == 0.596
    log = "%-----%palyer_name% a b c d e\n%00000%result% 04123\n%00001%result% 10234\n"
    assert read_places(log) == [[0, 4, 1, 2, 3], [1, 0, 2, 3, 4]]
    assert bench.read_names(log) == ["a", "b", "c", "d", "e"]
    labels = ["hard", "fujigokoro", "sample0", "sample1", "sample2"]
    names = ["sample0", "cvhard", "lilovyy", "sample1", "sample2"]
    assert bench.player_labels(names, labels) == [
        "sample0",
        "hard",
        "fujigokoro",
        "sample1",
        "sample2",
    ]


def test_the_transcript_check_catches_a_lead_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """The replay's check is not empty: a client that always passes is caught on its leads."""
    monkeypatch.setattr(Player, "play", lambda self, game: PASS)
    with pytest.raises(AssertionError, match="a pass on an empty trick"):
        replay_transcript(DATA / "session-player0.uect.gz", "easy")
