"""``cardverse uecda check``: the reference server's recorded games against our uecda referee.

On the three logs of tests/data/uecda every disagreement falls in a documented category of
docs/uecda.md section 7, and the cases the data's README names are found where it says.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from cardverse.cli import main
from cardverse.engine import mask_names
from cardverse.uecda.check import (
    RANKS,
    CheckReport,
    LogError,
    LoggedGame,
    ReferenceTrick,
    Submission,
    check_file,
    check_log,
    infer_exchange,
    read_fujigokoro,
    read_log,
)
from cardverse.uecda.tables import empty_table

DATA = Path(__file__).parent / "data" / "uecda"
LOGS = ["session.log", "tndhms-selected.log", "all-pass.log"]


@cache
def report(name: str) -> CheckReport:
    return check_file(DATA / name)


def cases(name: str, category: str) -> list[tuple[int, str]]:
    return [(d.game, d.submission) for d in report(name).disagreements if d.category == category]


@pytest.mark.parametrize("name", LOGS)
def test_every_disagreement_is_documented(name: str) -> None:
    checked = report(name)
    assert checked.unexplained == [] and checked.games_cut == []
    assert checked.submissions == sum(
        len(g.submissions) for g in read_log((DATA / name).read_text(), name)[1]
    )
    assert checked.compared > 0


def test_sample_client_games_mostly_agree() -> None:
    checked = report("tndhms-selected.log")
    assert checked.games == 8
    assert checked.agreements > 300 and checked.agreements <= checked.compared


def test_R13_own_cover_found_in_game_657() -> None:
    """R13: the reference asks the player whose play stands again once all others passed."""
    games = {game for game, _ in cases("tndhms-selected.log", "own_cover")}
    assert 657 in games
    # in game 657, player 3 played a pair of queens, all passed, and it covered itself
    ours = [d for d in report("tndhms-selected.log").disagreements if d.game == 657]
    assert any(d.category == "own_cover" and d.submission == "1EE" for d in ours)


def test_R14_a_single_2_stands_and_the_lone_joker_covers_it_in_game_509() -> None:
    """R14: our rules clear on a 2; the reference does not: player 3 covers 2♥ with the joker."""
    found = cases("tndhms-selected.log", "rank_clear")
    assert (509, "1H2EE") in found
    assert report("tndhms-selected.log").not_compared["rank_clear"] > 0


def test_R6_joker_below_the_three_in_game_19() -> None:
    """R6: joker-3-4-5 of hearts is no CardVerse play; the reference accepts it."""
    assert (19, "4LxH3H4H5EE") in cases("tndhms-selected.log", "joker_beyond_end")


def test_R8_lead_passes_and_R49_twenty_passes_in_all_pass_games() -> None:
    """R8: a lead pass is refused by our rules, accepted there; R49: 20 passes end a game."""
    checked = report("all-pass.log")
    assert checked.counts()["lead_pass"] == 12  # the first pass of each of four empty tricks
    assert [game for game, _ in cases("all-pass.log", "twenty_passes")] == [0, 1, 2]
    assert checked.agreements == 0


def test_reference_model_asks_the_last_player_again_and_ends_on_all_passes() -> None:
    """The model: after all others pass, the player whose play stands is asked again (R13)."""
    hands = [0b111 << (4 * seat) for seat in range(5)]  # three cards each, ranks by seat
    model = ReferenceTrick(hands, actor=0, given_to=0)
    play = empty_table()
    play[3][1] = 1  # 3♣
    assert model.submit(0, play).accepted
    for seat in (1, 2, 3, 4):
        assert not model.submit(seat, empty_table()).trick_ended
    assert model.actor == 0
    verdict = model.submit(0, empty_table())
    assert verdict.trick_ended and model.actor == 0 and model.top is None


def test_exchange_is_inferred_from_the_cards_played() -> None:
    _, games = read_log((DATA / "tndhms-selected.log").read_text(), "selected")
    game = games[1]  # the first game with an exchange
    hands, hidden = infer_exchange(game)
    assert hidden == 0
    assert sum(hand.bit_count() for hand in hands) == 53
    assert sorted(hand.bit_count() for hand in hands) == sorted(
        hand.bit_count() for hand in game.dealt
    )


def test_malformed_log_names_the_line() -> None:
    lines = (DATA / "session.log").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "%play%" in line)
    lines[at] = lines[at].replace("EE", "E?", 1)
    with pytest.raises(LogError) as error:
        check_log("\n".join(lines), "bad.log")
    assert error.value.line == at + 1 and f"bad.log:{at + 1}:" in str(error.value)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["uecda", "check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_summary_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(DATA / "session.log"))
    assert code == 0
    assert "3 games, 227 submissions" in out and "unexplained: 0" in out
    code, out, _ = run(capsys, "--json", str(DATA / "all-pass.log"))
    assert code == 0
    data = json.loads(out)
    assert data["categories"]["twenty_passes"] == 3 and data["categories"]["unexplained"] == 0
    assert {d["rule"] for d in data["disagreements"]} == {"R8", "R49"}


def test_cli_malformed_log_exits_2_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.log"
    text = (DATA / "all-pass.log").read_text().replace("%00001%seat% 40132", "%00001%seat% 4013")
    bad.write_text(text)
    code, _, err = run(capsys, str(bad))
    line = text.splitlines().index("%00001%seat% 4013") + 1
    assert code == 2 and f"bad.log:{line}:" in err and "seat" in err


def test_cli_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path / "none.log"))
    assert code == 2 and "cannot read" in err


def fujigokoro_text(game: LoggedGame) -> str:
    """A game of a tndhms log written in FujiGokoro's format (docs/uecda.md section 6)."""
    suits, ranks = "shdc", "x3456789tjqka2x"

    def card(mask: int) -> list[str]:
        names = []
        for name in mask_names(mask):
            rank = "T" if name[:-1] == "10" else name[:-1]
            names.append("jo" if name == "RJ" else name[-1].lower() + ranks[RANKS.index(rank) + 1])
        return names

    def move(submission: Submission) -> str:
        table = submission.table
        cells = [(r, c, table[r][c]) for r in range(5) for c in range(15) if table[r][c]]
        if not cells:
            return "p[1]"
        if len(cells) == 1 and cells[0][2] == 2:
            return "jk[1]"
        rows = sorted({r for r, _, _ in cells}, key=lambda r: "cdhs".index(suits[r]))
        columns = sorted({c for _, c, _ in cells})
        joker = next(((r, c) for r, c, v in cells if v == 2), None)
        if len(columns) == 1:
            naturals = [r for r in rows if joker is None or r != joker[0]]
            text = "".join(suits[r] for r in naturals) + "-" + ranks[columns[0]]
            return text + (f"({suits[joker[0]]})" if joker else "") + "[1]"
        text = suits[rows[0]] + "-" + "".join(ranks[c] for c in columns)
        return text + (f"({ranks[joker[1]]})" if joker else "") + "[1]"

    seat_of = [game.seats.index(player) for player in range(5)]
    earned = [game.result.index(player) for player in range(5)]
    hands = " ".join("{ " + " ".join(card(hand)) + " }" for hand in game.dealt)
    return "\n".join(
        [
            "player a b c d e",
            "/* ",
            f"game {game.number} ",
            "score ",
            "class 0 1 2 3 4 ",
            "seat " + " ".join(map(str, seat_of)) + " ",
            f"dealt {hands} ",
            "changed { } { } { } { } { } ",
            f"original {hands} ",
            "play " + " ".join(move(s) for s in game.submissions) + " ",
            "result " + " ".join(map(str, earned)) + " ",
            "*/ ",
        ]
    )


def test_fujigokoro_format_reads_the_same_game_as_the_tndhms_log() -> None:
    """The same game in both formats gives the same comparison (no player named in FujiGokoro's:
    the model's seat on turn acts, and the places check the model)."""
    _, games = read_log((DATA / "session.log").read_text(), "session")
    game = games[0]  # no exchange: the hands as dealt are the hands at the start
    text = fujigokoro_text(game)
    (parsed,) = read_fujigokoro(text, "fuji")
    assert parsed.seats == game.seats and parsed.result == game.result
    assert [s.table for s in parsed.submissions] == [s.table for s in game.submissions]
    fuji = check_log(text, "fuji")
    assert fuji.unexplained == [] and fuji.games_cut == []
    assert fuji.submissions == len(game.submissions)


def test_fujigokoro_malformed_move_names_the_line() -> None:
    _, games = read_log((DATA / "session.log").read_text(), "session")
    text = fujigokoro_text(games[0]).replace("p[1]", "q[1]", 1)
    with pytest.raises(LogError) as error:
        read_fujigokoro(text, "fuji")
    assert error.value.line == 10
