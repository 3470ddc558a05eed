"""The golden transcripts of the reference server replayed against our server (issue 31).

tests/data/uecda holds the bytes of one 3-game match of ``tndhms`` and five sample clients, one
transcript per connection, and the server's log of the same match (README.md there). Here our
server (:class:`UecdaServer`) is given that match's seats and deals, five scripted programs
connect in the recorded order and send exactly the recorded client bytes, each when our server
asks for it, and every byte our server sends is compared with the recorded server bytes: the
player number, the game-start tables, the hand tables, the accept codes, the boards, the codes.

Where our ``uecda`` rules differ from the reference's (docs/uecda.md, section 7) the reference
asks for turns our server does not: after the other players have all passed it asks the player
whose play stands again (R13), and after a 2 it asks the others (our 2s clear the trick, R14).
When the reference's turns on a trick our server has already ended are all passes, the scripted
program skips them (it never sends those submissions) and the comparison goes on from the next
trick, which must then be byte for byte the same; each such skip is counted under its rule.
The first difference that is not such a skip ends the comparison; it must be one of section 7's.
"""

from __future__ import annotations

import io
import socket
import threading
from dataclasses import dataclass, field

import pytest
from test_uecda_client import DATA, WAIT, records, recv_exact

from cardverse.uecda.check import CATEGORIES, LoggedGame, check_file, read_log
from cardverse.uecda.serve import FixedDeal, GameRunner, ServeConfig, UecdaServer
from cardverse.uecda.tables import Table, read_table

TABLE = 480
KNOWN = {"R8", "R13", "R14", "R6", "R44", "R49"}  # docs/uecda.md, section 7


@dataclass
class Frame:
    kind: str  # hello number start give hand play accept board code
    sender: str
    payload: bytes
    game: int  # counted from 0
    turn: int  # the turn of the game, from 0 (-1 before the first)


def frames(player: int) -> list[Frame]:
    """The recorded messages of one connection, each named by its place in the protocol."""
    queue = records(DATA / f"session-player{player}.uect.gz")
    out: list[Frame] = []
    game, turn = -1, -1

    def take(kind: str, sender: str, size: int) -> bytes:
        direction, payload = queue.pop(0)
        assert (direction, len(payload)) == (sender, size), (kind, len(out))
        out.append(Frame(kind, sender, payload, game, turn))
        return payload

    take("hello", "C", TABLE)
    take("number", "S", 4)
    code = 0
    while code != 2:
        game, turn = game + 1, -1
        start = read_table(take("start", "S", TABLE))
        if start[5][1] > 0:
            take("give", "C", TABLE)
        code = 0
        while code == 0:
            turn += 1
            hand = read_table(take("hand", "S", TABLE))
            if hand[5][2] == 1:
                take("play", "C", TABLE)
                take("accept", "S", 4)
            take("board", "S", TABLE)
            code = int.from_bytes(take("code", "S", 4), "big")
    assert not queue
    return out


@dataclass
class Replay:
    """What one scripted program saw."""

    player: int
    matched_frames: int = 0
    matched_bytes: int = 0
    skips: list[tuple[int, int, str, int]] = field(default_factory=list)  # game, turn, rule, n
    stop: Frame | None = None
    ours: bytes = b""
    why: str = ""
    seated: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)


def standing_rule(board: Table, revolution: bool) -> str:
    """R14 when the play that stands is of 2s (3s in a revolution), else R13."""
    column = 1 if revolution else 13
    cells = [(r, c) for r in range(5) for c in range(15) if board[r][c]]
    ranks = {c for r, c in cells if board[r][c] == 1}
    return "R14" if ranks == {column} else "R13"


def skip_turns(script: list[Frame], at: int, replay: Replay, last_board: Table) -> int | None:
    """At a recorded hand table on a trick our server has ended: skip the reference's turns
    while they are passes on that trick; the index of the next recorded hand, or None."""
    first = script[at]
    skipped = 0
    while script[at].kind == "hand" and read_table(script[at].payload)[5][4] == 0:
        hand = read_table(script[at].payload)
        at += 1
        if script[at].kind == "play":
            at += 2
        board = read_table(script[at].payload)
        if board[6][:5] != hand[6][:5] or script[at + 1].payload != bytes(4):
            return None  # a card was played, or the game ended: not a pass on that trick
        at += 2
        skipped += 1
    if skipped == 0 or script[at].kind != "hand":
        return None
    rule = standing_rule(last_board, bool(read_table(first.payload)[5][6]))
    replay.skips.append((first.game, first.turn, rule, skipped))
    return at


def run_script(player: int, port: int, replay: Replay) -> None:
    script = frames(player)  # read by the test too: a format error fails it there
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
    last_board: Table = read_table(bytes(TABLE))
    at = 0
    try:
        while at < len(script):
            frame = script[at]
            if frame.sender == "C":
                sock.sendall(frame.payload)
                at += 1
                continue
            try:
                ours = recv_exact(sock, len(frame.payload))
            except (AssertionError, OSError) as error:
                replay.stop, replay.why = frame, f"no bytes: {error}"
                return
            if ours != frame.payload and frame.kind == "hand":
                ours_table = read_table(ours)
                resumed = None
                if ours_table[5][4] == 1 and read_table(frame.payload)[5][4] == 0:
                    resumed = skip_turns(script, at, replay, last_board)
                if resumed is not None and script[resumed].payload == ours:
                    at, frame = resumed, script[resumed]
            if ours != frame.payload:
                replay.stop, replay.ours, replay.why = frame, ours, "different bytes"
                return
            if frame.kind == "board":
                last_board = read_table(ours)
            replay.matched_frames += 1
            replay.matched_bytes += len(ours)
            if frame.kind == "number":
                replay.seated.set()
            at += 1
    finally:
        sock.close()
        replay.seated.set()
        replay.done.set()


def recorded_deals() -> dict[int, FixedDeal]:
    _, games = read_log((DATA / "session.log").read_text(encoding="ascii"), "session.log")
    return {game.number + 1: (game.seats, game.dealt) for game in games}


def replay_match() -> tuple[list[Replay], list[LoggedGame]]:
    deals = recorded_deals()
    logs: list[str] = []
    server = UecdaServer(
        ServeConfig(port=0, games=3, seed=1, handshake_timeout=WAIT, move_timeout=WAIT),
        out=io.StringIO(),
        log=logs.append,
        deals=deals.get,
    )
    port = server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for player in range(5):
        frames(player)  # the recorded protocol order, checked before any connection
    replays = [Replay(player) for player in range(5)]
    for replay in replays:  # one at a time: the server numbers them in connect order
        threading.Thread(target=run_script, args=(replay.player, port, replay), daemon=True).start()
        assert replay.seated.wait(WAIT)
    for replay in replays:
        assert replay.done.wait(WAIT)
    thread.join(WAIT)
    assert not thread.is_alive()
    _, games = read_log((DATA / "session.log").read_text(encoding="ascii"), "session.log")
    return replays, games


@pytest.fixture(scope="module")
def replayed() -> tuple[list[Replay], list[LoggedGame]]:
    return replay_match()


#: the recorded game 0 (the match's first) until its 29th submission: 3 whole tricks and the
#: 4 passes on the fourth; at least this many frames of each connection are the same bytes
FIRST_DIFFERENCE_TURN = 28
MATCHED_FRAMES_AT_LEAST = 81


def test_R47_our_server_sends_the_reference_bytes_until_the_first_rule_difference(
    replayed: tuple[list[Replay], list[LoggedGame]],
) -> None:
    replays, _ = replayed
    for replay in replays:
        assert replay.matched_frames >= MATCHED_FRAMES_AT_LEAST, replay
        # everything up to the stop was compared: the handshake answer, the game-start table,
        # and every hand, accept code, board and code of the first 28 turns but the skipped ones
        assert replay.stop is not None
        assert (replay.stop.game, replay.stop.turn, replay.stop.kind) == (
            0,
            FIRST_DIFFERENCE_TURN,
            "hand",
        ), replay.why
        assert replay.why == "different bytes"
    total = sum(replay.matched_bytes for replay in replays)
    assert total >= 5 * 24_000, total


def test_R13_the_reference_asking_the_standing_player_again_is_the_only_skip(
    replayed: tuple[list[Replay], list[LoggedGame]],
) -> None:
    """Turns 5, 14 and 21 of game 0 are the reference asking the player whose play stands to
    cover it after the others passed (R13; our trick ends instead); each was a pass, so the
    scripted programs skip it and the bytes of the next trick are the same again. The check of
    the same log (cardverse uecda check) names the pass before each as an ``own_cover``."""
    replays, _ = replayed
    report = check_file(DATA / "session.log")
    own_cover = {(d.game, d.step) for d in report.disagreements if d.category == "own_cover"}
    for replay in replays:
        assert replay.skips == [(0, 5, "R13", 1), (0, 14, "R13", 1), (0, 21, "R13", 1)]
        for game, turn, _, _ in replay.skips:
            assert (game, turn - 1) in own_cover


def test_R13_the_comparison_ends_where_a_player_covers_its_own_play(
    replayed: tuple[list[Replay], list[LoggedGame]],
) -> None:
    """Turn 28 of game 0: after player 2's pair of jacks the four others passed (turns 24-27);
    the reference asks player 2 again and it covers its own pair with kings (R13), where our
    trick has ended and player 2 leads a new one. From there on the two servers ask different
    programs (ours asks the four others to cover the kings), so the bytes cannot be compared."""
    replays, games = replayed
    submissions = games[0].submissions
    cover = submissions[FIRST_DIFFERENCE_TURN]
    assert (cover.player, cover.text) == (2, "2HKDKEE")
    assert submissions[FIRST_DIFFERENCE_TURN - 5].player == 2  # the pair of jacks
    assert all(s.text == f"{s.player}EE" for s in submissions[24:FIRST_DIFFERENCE_TURN])
    report = check_file(DATA / "session.log")
    before = [(d.category, d.step) for d in report.disagreements if d.game == 0]
    assert ("own_cover", FIRST_DIFFERENCE_TURN - 1) in before
    assert {CATEGORIES[c] for c, _ in before} <= KNOWN
    for replay in replays:
        assert replay.stop is not None
        recorded, ours = read_table(replay.stop.payload), read_table(replay.ours)
        # the reference: player 2 on turn on a covered trick; ours: the same player on a new one
        assert recorded[5][3] == ours[5][3] == 2
        assert (recorded[5][4], ours[5][4]) == (0, 1)
        # and nothing else in the table differs: the cards, the counts, classes and seats
        recorded[5][4] = 1
        assert recorded == ours


def test_a_fixed_deal_must_be_the_whole_deck_once() -> None:
    server = UecdaServer(ServeConfig(port=0, games=1), out=io.StringIO(), log=lambda _: None)
    seats, dealt = recorded_deals()[1]
    assert GameRunner(server, 1, seats, None, (seats, dealt))._deal() == dealt
    twice = [dealt[0], dealt[0], *dealt[2:]]
    with pytest.raises(ValueError, match="dealt twice"):
        GameRunner(server, 1, seats, None, (seats, twice))._deal()
    with pytest.raises(ValueError, match="whole deck"):
        GameRunner(server, 1, seats, None, (seats, [0, *dealt[1:]]))._deal()
    with pytest.raises(ValueError, match="five seats"):
        GameRunner(server, 1, seats, None, ([0, 0, 1, 2, 3], dealt))._deal()
