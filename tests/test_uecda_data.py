"""The UECda reference data under tests/data/uecda keeps the format its README describes.

These tests read the recorded files only (no server, no parser in cardverse): the transcripts
are framed messages of the 20070 protocol in protocol order, the tndhms logs have whole games
of 53 distinct cards, and the transcripts agree with the log of the same match.
"""

from __future__ import annotations

import gzip
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "uecda"
TABLE_BYTES = 8 * 15 * 4
SUITS = "SHDC"
RANKS = "x3456789TJQKA2x"  # column 0 … 14 as the tndhms log writes them
JOKER_IN_PLAY = "KLMNJ"  # a joker placed in row 0 … 4 of a play
LOG_LINE = re.compile(r"^%(-----|\d{5})%(\w+)% ?(.*)$")
GAME_KEYS = ["mibun", "seat", "palyer_cards", "play", "result"]
LOG_FILES = ["session.log", "tndhms-selected.log", "all-pass.log"]


@dataclass(frozen=True)
class Message:
    sender: str  # "S" server, "C" program
    payload: bytes

    def table(self) -> list[list[int]]:
        assert len(self.payload) == TABLE_BYTES
        return [list(struct.unpack(">15I", self.payload[r * 60 : (r + 1) * 60])) for r in range(8)]

    def integer(self) -> int:
        assert len(self.payload) == 4
        return int(struct.unpack(">I", self.payload)[0])


def read_transcript(path: Path) -> list[Message]:
    data = gzip.decompress(path.read_bytes())
    messages, at = [], 0
    while at < len(data):
        sender = chr(data[at])
        (length,) = struct.unpack(">I", data[at + 1 : at + 5])
        payload = data[at + 5 : at + 5 + length]
        assert sender in "SC", f"{path.name}: bad direction byte at {at}"
        assert length in (4, TABLE_BYTES), f"{path.name}: bad length {length} at {at}"
        assert len(payload) == length, f"{path.name}: truncated record at {at}"
        messages.append(Message(sender, payload))
        at += 5 + length
    return messages


@dataclass
class Session:
    player: int
    starts: list[list[list[int]]]  # the game-start hand table of each game
    plays: list[list[list[int]]]  # every table this program sent on its turn
    codes: list[int]


def walk_protocol(messages: list[Message]) -> Session:
    """Follow the message order of docs/uecda.md; fail on any message out of place."""
    queue = list(messages)

    def take(sender: str, length: int) -> Message:
        assert queue, f"transcript ends where a {sender} message of {length} bytes is due"
        message = queue.pop(0)
        assert (message.sender, len(message.payload)) == (sender, length)
        return message

    hello = take("C", TABLE_BYTES).table()
    assert hello[0][0] == 20070
    session = Session(take("S", 4).integer(), [], [], [])
    code = 0
    while code != 2:
        start = take("S", TABLE_BYTES).table()
        assert start[5][0] == 1
        session.starts.append(start)
        if start[5][1] > 0:
            given = take("C", TABLE_BYTES).table()
            assert sum(cell != 0 for row in given[:5] for cell in row) == start[5][1]
        code = 0
        while code == 0:
            hand = take("S", TABLE_BYTES).table()
            if hand[5][2] == 1:
                assert hand[5][3] == session.player
                session.plays.append(take("C", TABLE_BYTES).table())
                assert take("S", 4).integer() in (8, 9)
            take("S", TABLE_BYTES)
            code = take("S", 4).integer()
            assert code in (0, 1, 2)
            session.codes.append(code)
    assert not queue, "messages after the match-over code"
    return session


def log_cards(table: list[list[int]]) -> str:
    """Cards of rows 0–4 written as the tndhms log writes them."""
    text = ""
    for row in range(5):
        for column in range(15):
            cell = table[row][column]
            if cell:
                suit = (SUITS + "J")[row] if cell == 1 else JOKER_IN_PLAY[row]
                text += suit + RANKS[column]
    return text


def read_log(path: Path) -> tuple[dict[str, str], list[dict[str, str]]]:
    header: dict[str, str] = {}
    games: list[dict[str, str]] = []
    for number, line in enumerate(path.read_text(encoding="ascii").splitlines(), 1):
        match = LOG_LINE.match(line)
        assert match, f"{path.name}:{number}: not a log line"
        tag, key, value = match.groups()
        if tag == "-----":
            assert not games, f"{path.name}:{number}: header line after a game"
            header[key] = value
            continue
        if key == GAME_KEYS[0]:
            games.append({"number": tag})
        assert games and games[-1]["number"] == tag, f"{path.name}:{number}: game out of order"
        assert key not in games[-1] and key in GAME_KEYS, f"{path.name}:{number}: key {key}"
        games[-1][key] = value
    return header, games


@pytest.mark.parametrize("name", LOG_FILES)
def test_tndhms_logs_hold_whole_games_of_53_distinct_cards(name: str) -> None:
    header, games = read_log(DATA / name)
    assert len(header["palyer_name"].split()) == 5
    assert header["RULE_SHIBARI"] == "YES" and header["RULE_8GIRI"] == "YES"
    assert games
    permutation = re.compile(r"^(?!.*(.).*\1)[0-4]{5}$")
    for game in games:
        assert list(game) == ["number", *GAME_KEYS], game["number"]
        assert game["mibun"] == "22222" or permutation.match(game["mibun"])
        assert permutation.match(game["seat"]) and permutation.match(game["result"])
        assert game["palyer_cards"].endswith(" ")
        hands = game["palyer_cards"][:-1].split(" ")
        assert len(hands) == 5
        cards = [hand[i : i + 2] for hand in hands for i in range(0, len(hand), 2)]
        assert len(cards) == len(set(cards)) == 53
        assert cards.count("J3") == 1
        assert all(card == "J3" or (card[0] in SUITS and card[1] in RANKS[1:14]) for card in cards)
        for entry in game["play"].split():
            assert re.fullmatch(r"[0-4]([SHDCKLMNJ][x3-9TJQKA2])*EE", entry), entry


def test_all_pass_games_end_on_the_twentieth_pass() -> None:
    """R49: twenty passes in a row end the game (the places are then drawn at random)."""
    _, games = read_log(DATA / "all-pass.log")
    assert len(games) == 3
    for game in games:
        assert game["play"].split() == [entry[0] + "EE" for entry in game["play"].split()]
        assert len(game["play"].split()) == 20


@pytest.mark.parametrize("player", range(5))
def test_transcript_frames_follow_the_protocol(player: int) -> None:
    messages = read_transcript(DATA / f"session-player{player}.uect.gz")
    session = walk_protocol(messages)
    assert session.player == player
    assert session.codes.count(1) == 2 and session.codes[-1] == 2  # three games
    for message in messages[1:]:  # after the handshake table, every table holds cards 0/1/2
        if len(message.payload) == TABLE_BYTES:
            cards = [cell for row in message.table()[:5] for cell in row]
            assert set(cards) <= {0, 1, 2}


@pytest.mark.parametrize("player", range(5))
def test_transcript_agrees_with_the_log_of_the_same_match(player: int) -> None:
    """The hands dealt and the plays sent in the transcript are those of session.log."""
    session = walk_protocol(read_transcript(DATA / f"session-player{player}.uect.gz"))
    _, games = read_log(DATA / "session.log")
    assert len(session.starts) == len(games) == 3
    sent = [log_cards(table) for table in session.plays]
    logged = [
        entry[1:-2] for game in games for entry in game["play"].split() if int(entry[0]) == player
    ]
    assert sent == logged
    # The first game has no exchange: the game-start hand is the hand as dealt in the log.
    dealt = games[0]["palyer_cards"][:-1].split(" ")[player]
    assert log_cards(session.starts[0]) == dealt
