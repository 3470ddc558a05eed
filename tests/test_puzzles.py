"""Sure-win puzzles (issue 14, R30): every stored puzzle is checked by the exhaustive search over
the hidden hands, and the hard bot must solve all of them at a fixed playout budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardverse.bots import make_bot
from cardverse.bots.knowledge import Knowledge
from cardverse.engine import PASS
from cardverse.puzzles import Puzzle, PuzzleError, load, puzzle_round, puzzle_view, verify

SUITE = Path(__file__).parent / "puzzles" / "sure_wins.json"
PUZZLES = load(SUITE)
PLAYOUTS = 200  # a fixed budget: the test's time does not depend on the machine's speed


def test_the_suite_spans_presets_options_and_table_sizes() -> None:
    assert len(PUZZLES) >= 60
    rule_sets = {tuple(sorted(p.position["rules"].items())) for p in PUZZLES}
    options = {key for p in PUZZLES for key in p.position["rules"]} - {"preset", "players"}
    assert {"jokers", "straights", "eight_stop", "revolution"} <= options
    assert {p.position["rules"]["preset"] for p in PUZZLES} == {"cardverse", "standard"}
    assert len(rule_sets) >= 10
    assert any(p.position["trick"] for p in PUZZLES)  # answers to a trick as well as leads
    assert any(not p.position["trick"] for p in PUZZLES)


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p.name for p in PUZZLES])
def test_R30_puzzle_is_a_sure_win_by_exhaustive_search(puzzle: Puzzle) -> None:
    won = verify(puzzle)  # raises unless the stored answers are exactly the winning moves
    assert won


def test_R30_hard_solves_every_puzzle() -> None:
    missed = []
    for puzzle in PUZZLES:
        won = verify(puzzle)
        bot = make_bot("hard", seed=1, playouts=PLAYOUTS)
        move = bot.choose(puzzle_view(puzzle.position))
        if move not in won:
            missed.append(f"{puzzle.name} ({bot.last_reason})")  # type: ignore[attr-defined]
    assert not missed, f"hard missed {len(missed)} of {len(PUZZLES)} puzzles: {missed}"


def test_R26_a_puzzle_view_sees_its_own_hand_and_counts_only() -> None:
    puzzle = PUZZLES[0]
    round_, _ = puzzle_round(puzzle.position)
    view = puzzle_view(puzzle.position)
    seat = round_.turn
    others = 0
    for other, hand in enumerate(round_.hands):
        if other != seat:
            others |= hand
    assert view.hand == round_.hands[seat]
    assert view.hand_counts == tuple(h.bit_count() for h in round_.hands)
    assert Knowledge.of(view).unseen == others  # the hidden cards, and nothing else
    assert view.legal_moves == tuple(round_.legal_moves())


def test_a_wrong_solution_is_refused() -> None:
    puzzle = PUZZLES[0]
    wrong = Puzzle(puzzle.name, puzzle.position, puzzle.solutions[1:] or ({"action": "pass"},))
    with pytest.raises(PuzzleError, match="winning first moves"):
        verify(wrong)


def test_R30_some_puzzles_need_every_answer_read() -> None:
    """Not every puzzle is a line of unbeatable plays: in some the others may cover, and the
    win holds only because every cover and every deal was searched."""
    from cardverse.bots.endgame import holders_of, sure_win

    needing = []
    for puzzle in PUZZLES:
        view = puzzle_view(puzzle.position)
        knowledge = Knowledge.of(view)
        last = next((m for _, m in reversed(view.trick) if m != PASS), None)
        holders = holders_of(knowledge.unseen, knowledge.counts, knowledge.pinned, view.seat)
        line = sure_win(
            view.rules,
            view.hand,
            view.legal_moves,
            last,
            view.reversed_order,
            knowledge.unseen,
            holders=holders,
        )
        if line is None:
            needing.append(puzzle.name)
    assert len(needing) >= 5, needing
