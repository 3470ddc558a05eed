"""The library's public API (issue 32, docs/library.md): moves as text that reads back to the
same move for every kind of action, the game's OpenSpiel-style names (``current_player``,
``is_terminal``, ``is_chance_node``, ``returns``, ``clone``) and seeded dealing; the doctests of
the library's modules and of docs/library.md run here too."""

from __future__ import annotations

import doctest
import random
from pathlib import Path

import pytest

import cardverse
import cardverse.moves
import cardverse.perft
from cardverse.engine import ActionFormatError, Game, Phase, Rules, action_from_json
from cardverse.engine.plays import DISCARD, GIVE, HIDDEN, PASS
from cardverse.env import action_table
from cardverse.moves import Move, legal_moves

ROOT = Path(__file__).resolve().parent.parent

RULE_SETS = [
    Rules.make("standard", players=4, rounds=2),
    Rules.make("cardverse", players=5, rounds=2),
    Rules.make("daifugo", players=4, rounds=3, jokers=2),
    Rules.make("daifugo", players=3, rounds=2, jokers=1),
]


def _random_games(rules: Rules, games: int, seed: int) -> list[tuple[Game, int]]:
    """Every (game state, legal move) of a few random games, the deal included."""
    rng = random.Random(seed)
    seen: list[tuple[Game, int]] = []
    for number in range(games):
        game = Game(rules, seed=seed * 100 + number)
        while not game.is_terminal:
            if game.is_chance_node:
                assert game.current_player is None and game.legal_moves() == []
                game.start_next_round()
                continue
            moves = game.legal_moves()
            assert moves and game.current_player == game.turn
            seen.extend((game, m) for m in moves[:40])
            game.apply(rng.choice(moves))
    return seen


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.preset}-{r.players}")
def test_every_legal_move_reads_back_from_its_text(rules: Rules) -> None:
    kinds = set()
    for _, code in _random_games(rules, 3, seed=rules.players):
        move = Move(code)
        text = str(move)
        assert Move.parse(text) == move, text
        assert Move.parse(text.lower()) == move
        assert Move.from_action(action_from_json(move.action().to_json())) == move
        kinds.add(move.kind)
    assert {"play", "pass", "give"} <= kinds  # give-backs of the exchange (R25) included


def test_R32_every_play_of_the_action_table_reads_back() -> None:
    """Every set and straight of a 54-card deck, with jokers standing for cards."""
    for code in action_table.PLAY_INDEX:  # the sets of five and named jokers (R43, R44) too
        assert Move.parse(str(Move(code))) == Move(code)
    straights = [str(Move(c)) for c in action_table.STRAIGHT_MOVES]
    assert "5H 6H 7H" in straights and "5H 6H BJ=7" in straights and "5H RJ=7 BJ=6" in straights


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("pass", PASS),
        ("give 4C 9D", GIVE | 1 << 4 | 1 << 25),
        ("discard 5H", DISCARD | 1 << 10),
        ("9H RJ", 1 << 26 | 1 << 52),
    ],
)
def test_R36_R37_gives_discards_and_passes_read_back(text: str, code: int) -> None:
    assert Move.parse(text) == Move(code)
    assert str(Move(code)) == text


def test_R39_a_give_the_reader_may_not_see_is_written_with_question_marks() -> None:
    move = Move.parse("give ? ?")
    assert move.code & HIDDEN and move.kind == "give" and move.cards == ()
    assert str(move) == "give ? ?"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("9H 9H", "twice"),
        ("pass 9H", "no cards"),
        ("give 9H ?", "all '?'"),
        ("discard RJ=7", "declares no joker"),
        ("5H 6H BJ=", "rank after"),
        ("5H 6H BJ", "say which rank"),
        ("ZZ", "card"),
        ("give", "at least one card"),
    ],
)
def test_malformed_move_text_says_why(text: str, says: str) -> None:
    with pytest.raises(ActionFormatError, match=says):
        Move.parse(text)


def test_R22_returns_are_the_points_so_far_and_the_game_ends() -> None:
    rules = Rules.make("standard", players=4, rounds=2)
    game = Game(rules, seed=5)
    rng = random.Random(5)
    rounds_seen = 0
    while not game.is_terminal:
        if game.is_chance_node:
            assert game.phase is Phase.ROUND_OVER
            assert sum(game.returns()) == 10 * rounds_seen  # 4 + 3 + 2 + 1 a round
            game.start_next_round()
            continue
        events = game.apply(rng.choice(game.legal_moves()))
        rounds_seen += sum(1 for e in events if e.kind == "round_over")
    assert game.current_player is None and not game.is_chance_node
    assert game.returns() == game.points and sum(game.returns()) == 20


def test_R23_seeded_deals_repeat_and_a_clone_goes_its_own_way() -> None:
    rules = Rules.make("cardverse", players=4)
    assert Game(rules, seed=11).hands == Game(rules, seed=11).hands
    assert Game(rules, seed=11).hands != Game(rules, seed=12).hands
    game = Game(rules, seed=11)
    copy = game.clone()
    move = legal_moves(game)[-1]
    game.apply(int(move))
    assert copy.hands != game.hands and copy.current_player != game.current_player
    copy.apply(int(move))
    assert copy.hands == game.hands and copy.returns() == game.returns()


def test_the_package_names_its_api_lazily() -> None:
    assert cardverse.Move is Move and cardverse.Game is Game and cardverse.Rules is Rules
    with pytest.raises(AttributeError):
        _ = cardverse.NoSuchName


@pytest.mark.parametrize("module", [cardverse.moves, cardverse.perft, action_table])
def test_the_modules_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.failed == 0


def test_docs_library_md_runs() -> None:
    result = doctest.testfile(
        str(ROOT / "docs" / "library.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 5 and result.failed == 0
