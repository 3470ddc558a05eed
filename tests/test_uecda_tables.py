"""UECda tables as CardVerse hands and actions (docs/uecda.md section 1; cardverse.uecda).

Every play CardVerse has that a one-joker UECda deck can make goes to a table and back; every
table of the recorded reference matches (tests/data/uecda) reads as the bytes it was, and every
program's submission in them reads as a CardVerse action or is refused with the reason.
"""

from __future__ import annotations

import pytest
from test_uecda_data import DATA, read_transcript, walk_protocol

from cardverse.engine import Action, from_move, to_move
from cardverse.engine.plays import analyse
from cardverse.env.action_table import PLAY_INDEX
from cardverse.uecda import (
    TableError,
    action_from_table,
    empty_table,
    hand_from_table,
    read_table,
    table_of_action,
    table_of_hand,
    write_table,
)


def _uecda_plays() -> list[Action]:
    """The plays of the action table a deck with one joker (RJ) makes, as UECda writes them:
    a set's joker names its card (R44) except in a set of five (R43)."""
    plays = []
    for move in PLAY_INDEX:
        action = from_move(move)
        if action.kind != "play" or "BJ" in action.cards:
            continue
        info = analyse(move)
        naturals = len(action.cards) - ("RJ" in action.cards)
        undeclared = not info.straight and "RJ" in action.cards and not action.jokers
        if undeclared and naturals not in (0, 4):
            continue  # an undeclared set joker: not how UECda writes it (R44)
        plays.append(action)
    return plays


PLAYS = _uecda_plays()


def test_R5_R6_R43_R44_every_play_of_a_one_joker_deck_goes_to_a_table_and_back() -> None:
    # per suit, the straights of 3 to 13 cards with no joker or the joker at any of its places
    straights = 4 * sum((14 - n) * (1 + n) for n in range(3, 14))
    # per rank: 15 natural sets, 15 less the four of a kind with the joker naming a missing
    # suit, the set of five; and the lone joker
    sets = 13 * (15 + (4 * 3 + 6 * 2 + 4 * 1) + 1) + 1
    assert len(PLAYS) == straights + sets
    seen = set()
    for action in PLAYS:
        table = table_of_action(action)
        back = action_from_table(read_table(write_table(table)))
        assert to_move(back) == to_move(action), action
        seen.add(to_move(back))
    assert len(seen) == len(PLAYS)  # no two plays share a table


def test_the_examples_of_the_protocol_page() -> None:
    five = table_of_action(Action("play", ("9C", "9D", "9H", "9S", "RJ")))
    assert five[4][7] == 2 and [five[row][7] for row in range(4)] == [1, 1, 1, 1]
    named = table_of_action(Action("play", ("9D", "RJ"), {"RJ": "9S"}))
    assert named[0][7] == 2 and named[2][7] == 1  # the joker in the spade row (R44)
    straight = table_of_action(Action("play", ("5H", "7H", "RJ"), {"RJ": "6"}))
    assert straight[1][3:6] == [1, 2, 1]
    assert action_from_table(empty_table()) == Action("pass")
    lone = empty_table()
    lone[2][9] = 2  # anywhere in rows 0-3
    assert action_from_table(lone) == Action("play", ("RJ",))


@pytest.mark.parametrize("player", range(5))
def test_every_table_of_a_recorded_match_reads_back_as_its_bytes(player: int) -> None:
    for message in read_transcript(DATA / f"session-player{player}.uect.gz"):
        if len(message.payload) == 480:
            assert write_table(read_table(message.payload)) == message.payload


@pytest.mark.parametrize("player", range(5))
def test_every_submission_of_a_recorded_match_is_an_action_or_says_why_not(player: int) -> None:
    session = walk_protocol(read_transcript(DATA / f"session-player{player}.uect.gz"))
    plays = passes = 0
    for table in session.plays:
        try:
            action = action_from_table(table)
        except TableError as error:
            assert "R6" in str(error)  # only the joker beyond the end of a straight
            continue
        if action.kind == "pass":
            passes += 1
            continue
        analyse(to_move(action))  # a valid shape (raises otherwise)
        assert table_of_action(action)[:5] == [row[:] for row in table[:5]] or "RJ" in (
            action.cards
        )
        plays += 1
    assert plays and passes
    for start in session.starts:
        hand = hand_from_table(start)
        assert 10 <= hand.bit_count() <= 13  # dealt 10 or 11, the President's gifts on top
        assert table_of_hand(hand)[:5] == start[:5]


@pytest.mark.parametrize(
    ("cells", "words"),
    [
        ([(0, 3, 3)], "a card is 1, the joker 2"),
        ([(0, 3, 2), (1, 4, 2)], "the one joker at most once"),
        ([(0, 0, 1), (1, 0, 1)], "columns 0 and 14 hold no natural card"),
        ([(0, 3, 1), (1, 4, 1)], "one column (a set) or in one row (a straight)"),
        ([(0, 3, 1), (0, 5, 1), (0, 6, 1)], "neighbouring cells of one row"),
        ([(0, 3, 1), (1, 3, 1), (4, 3, 2)], "only in a set of five"),
        ([(1, 0, 2), (1, 1, 1), (1, 2, 1)], "no CardVerse play"),
        ([(4, 5, 2)], "rows 0-3, not at row 4"),
    ],
)
def test_a_table_that_is_no_play_is_refused_with_the_reason(
    cells: list[tuple[int, int, int]], words: str
) -> None:
    table = empty_table()
    for row, column, value in cells:
        table[row][column] = value
    with pytest.raises(TableError) as error:
        action_from_table(table)
    assert words in str(error.value)


def test_malformed_bytes_and_hands_are_refused() -> None:
    with pytest.raises(TableError, match="480 bytes"):
        read_table(b"\0" * 479)
    with pytest.raises(TableError, match="8 rows of 15"):
        write_table([[0] * 15] * 7)
    bad = empty_table()
    bad[4][2] = 2
    with pytest.raises(TableError, match=r"\[4\]\[1\]"):
        hand_from_table(bad)
    with pytest.raises(TableError, match="one joker"):
        table_of_action(Action("play", ("RJ", "BJ")))
