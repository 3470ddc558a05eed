"""Rules R8–R14: leading, following, beating, passing, turn order, the end of a trick, clearing."""

from __future__ import annotations

import pytest
from engine_testkit import do, expect, legal, make_round, play

from cardverse.engine import PASS, IllegalAction

# -- R8: own cards; the leader may not pass -------------------------------------------------------


def test_R8_a_play_is_made_only_of_own_cards() -> None:
    r = make_round([["5C", "9D"], ["6C", "KS"], ["7C"]], 0)
    refusal = r.check(0, play("6C"))  # seat 1's card
    assert refusal is not None and refusal.rule == "R8"
    refusal = r.check(0, play("5C", "5D"))  # 5D is nobody's
    assert refusal is not None and refusal.rule == "R8"
    with pytest.raises(IllegalAction) as error:
        r.apply(play("6C"))
    assert error.value.refusal.rule == "R8"
    assert r.hands[1] & play("6C")  # nothing changed


def test_R8_player_on_lead_plays_anything_and_may_not_pass() -> None:
    r = make_round([["5C", "5D", "9D"], ["6C"], ["7C"]], 0)
    assert legal(r) == expect("5C", "5D", "9D", "5C 5D")
    refusal = r.check(0, PASS)
    assert refusal is not None and refusal.rule == "R8"
    assert PASS not in r.legal_moves()


# -- R9: the shape of the lead -------------------------------------------------------------------


def test_R9_a_pair_lead_accepts_only_pairs() -> None:
    r = make_round([["5C", "5D", "3S"], ["KC", "KD", "KH", "AS"], ["7C"]], 0)
    do(r, 0, "5C", "5D")
    for cards in (("AS",), ("KC", "KD", "KH"), ("KC",)):
        refusal = r.check(1, play(*cards))
        assert refusal is not None and refusal.rule == "R9", cards
    assert legal(r) == expect("KC KD", "KC KH", "KD KH", "pass")


def test_R9_no_sets_on_straights_and_no_straights_on_sets() -> None:
    r = make_round(
        [["5C", "6C", "7C", "3S"], ["8H", "9H", "10H", "JH", "QS", "QD", "QH"], ["4D"]],
        0,
        straights=True,
    )
    do(r, 0, "5C", "6C", "7C")
    refusal = r.check(1, play("QS", "QD", "QH"))
    assert refusal is not None and refusal.rule == "R9"
    refusal = r.check(1, play("8H", "9H", "10H", "JH"))  # a straight of the wrong length
    assert refusal is not None and refusal.rule == "R9"
    assert legal(r) == expect("8H 9H 10H", "9H 10H JH", "10H JH QH", "pass")
    r = make_round([["QS", "QD", "QH", "3S"], ["8H", "9H", "10H", "KC"], ["4D"]], 0, straights=True)
    do(r, 0, "QS", "QD", "QH")
    refusal = r.check(1, play("8H", "9H", "10H"))
    assert refusal is not None and refusal.rule == "R9"
    assert legal(r) == expect("pass")


# -- R10: beating ---------------------------------------------------------------------------------


@pytest.mark.parametrize("equal_plays", [True, False])
def test_R10_set_on_set_higher_rank_equal_only_with_equal_plays(equal_plays: bool) -> None:
    r = make_round([["9C", "9D", "3S"], ["8H", "8S", "9H", "9S", "10C", "10D"], ["4D"]], 0,
                   equal_plays=equal_plays)  # fmt: skip
    do(r, 0, "9C", "9D")
    expected = expect("10C 10D", "pass")
    if equal_plays:
        expected |= expect("9H 9S")
    assert legal(r) == expected
    refusal = r.check(1, play("8H", "8S"))
    assert refusal is not None and refusal.rule == "R10"
    refusal = r.check(1, play("9H", "9S"))
    assert (refusal is None) == equal_plays
    if not equal_plays:
        assert refusal is not None and refusal.rule == "R10"


def test_R10_set_with_a_joker_is_judged_by_its_natural_rank() -> None:
    r = make_round([["8C", "8D", "3S"], ["7H", "9H", "RJ"], ["4D"]], 0, jokers=1)
    do(r, 0, "8C", "8D")
    assert legal(r) == expect("9H RJ", "pass")
    refusal = r.check(1, play("7H", "RJ"))
    assert refusal is not None and refusal.rule == "R10"


@pytest.mark.parametrize("equal_plays", [True, False])
def test_R10_straight_on_straight_normal_order_by_top_any_suit(equal_plays: bool) -> None:
    r = make_round(
        [["5C", "6C", "7C", "3S"], ["4D", "5D", "6D", "5H", "6H", "7H", "6S", "7S", "8S"], ["KD"]],
        0,
        straights=True,
        equal_plays=equal_plays,
    )
    do(r, 0, "5C", "6C", "7C")
    expected = expect("6S 7S 8S", "pass")
    if equal_plays:
        expected |= expect("5H 6H 7H")
    assert legal(r) == expected
    refusal = r.check(1, play("4D", "5D", "6D"))
    assert refusal is not None and refusal.rule == "R10"


@pytest.mark.parametrize("equal_plays", [True, False])
def test_R10_straight_on_straight_in_revolution_by_lower_bottom(equal_plays: bool) -> None:
    r = make_round(
        [["5C", "6C", "7C", "3S"], ["4D", "5D", "6D", "5H", "6H", "7H", "6S", "7S", "8S"], ["KD"]],
        0,
        straights=True,
        revolution=True,
        equal_plays=equal_plays,
        in_revolution=True,
    )
    do(r, 0, "5C", "6C", "7C")
    expected = expect("4D 5D 6D", "pass")
    if equal_plays:
        expected |= expect("5H 6H 7H")
    assert legal(r) == expected
    refusal = r.check(1, play("6S", "7S", "8S"))
    assert refusal is not None and refusal.rule == "R10"


def test_R10_longer_straights_compare_top_in_normal_and_bottom_in_revolution() -> None:
    # 4-card straights: 6-9 of clubs on the table. 3-6 has a lower top and a lower bottom;
    # 7-10 a higher top and a higher bottom.
    for in_revolution, winner in ((False, "7H 8H 9H 10H"), (True, "3D 4D 5D 6D")):
        r = make_round(
            [["6C", "7C", "8C", "9C", "2S"], ["3D", "4D", "5D", "6D", "7H", "8H", "9H", "10H"]],
            0,
            straights=True,
            in_revolution=in_revolution,
        )
        do(r, 0, "6C", "7C", "8C", "9C")
        assert legal(r) == expect(winner, "pass")


@pytest.mark.parametrize("equal_plays", [True, False])
def test_R10_all_joker_set_covered_only_by_jokers_with_equal_plays(equal_plays: bool) -> None:
    r = make_round([["RJ", "3S"], ["BJ", "2C", "2D"], ["4D"]], 0, jokers=2, equal_plays=equal_plays)
    do(r, 0, "RJ")
    assert legal(r) == (expect("BJ", "pass") if equal_plays else expect("pass"))
    refusal = r.check(1, play("2C"))
    assert refusal is not None and refusal.rule == "R10"
    refusal = r.check(1, play("BJ"))
    assert (refusal is None) == equal_plays
    # A pair of jokers is covered by nothing at all: there is only one such pair.
    r = make_round([["RJ", "BJ", "3S"], ["2C", "2D", "2H"], ["4D"]], 0, jokers=2)
    do(r, 0, "RJ", "BJ")
    assert legal(r) == expect("pass")


# -- R11: a pass lasts for the whole trick -------------------------------------------------------


def test_R11_player_who_passed_takes_no_further_part_in_the_trick() -> None:
    r = make_round([["4C", "6C", "3D"], ["5C", "9C", "KD"], ["7C", "8C", "JD"]], 0)
    do(r, 0, "4C")
    do(r, 1)  # seat 1 passes
    do(r, 2, "7C")
    assert r.turn == 0  # seat 1 is skipped
    refusal = r.check(1, play("9C"))
    assert refusal is not None and refusal.rule == "R11"
    do(r, 0)  # seat 0 passes too: seat 2 wins the trick
    assert r.turn == 2 and r.last_move is None
    do(r, 2, "8C")
    assert r.turn == 0  # a new trick: the passes are forgotten
    do(r, 0)
    assert r.turn == 1
    assert r.check(1, play("9C")) is None


# -- R12: turn order ------------------------------------------------------------------------------


def test_R12_play_moves_to_the_next_seat_skipping_passed_and_out() -> None:
    r = make_round([["3C", "9S"], ["4C"], ["5C", "10S"], ["6C", "JS"], ["7C", "QS"]], 1)
    do(r, 1, "4C")  # seat 1 goes out
    assert r.turn == 2
    do(r, 2)  # pass
    assert r.turn == 3
    do(r, 3, "6C")
    assert r.turn == 4
    do(r, 4, "7C")
    assert r.turn == 0  # round again, from seat 0
    do(r, 0, "9S")
    assert r.turn == 3  # seat 1 is out, seat 2 passed
    refusal = r.check(4, play("QS"))
    assert refusal is not None and refusal.rule == "R12"


# -- R13: the end of a trick ----------------------------------------------------------------------


def test_R13_trick_ends_when_all_others_passed_and_last_player_leads() -> None:
    r = make_round([["3C", "9S"], ["4C", "10S"], ["5C", "JS"], ["6C", "QS"]], 0)
    do(r, 0, "3C")
    do(r, 1, "4C")
    do(r, 2)
    do(r, 3)
    assert r.turn == 0 and r.last_move is not None  # seat 0 has not passed: it may answer
    do(r, 0)
    assert r.turn == 1 and r.last_move is None and r.trick == []
    assert PASS not in r.legal_moves()


def test_R13_winner_who_went_out_hands_the_lead_to_the_next_holder() -> None:
    r = make_round([["3C", "9S"], ["KC"], ["5C", "JS"], ["6C", "QS"]], 0)
    do(r, 0, "3C")
    do(r, 1, "KC")  # seat 1 goes out with the top play
    assert r.finished == [1]
    do(r, 2)
    do(r, 3)
    assert r.turn == 0  # seat 0 still answers
    do(r, 0)
    assert r.turn == 2 and r.last_move is None  # the next seat after 1 holding cards


def test_R13_the_passes_of_the_trick_count_even_after_a_later_play() -> None:
    r = make_round([["3C", "9S"], ["4C", "10S"], ["5C", "JS"]], 0)
    do(r, 0, "3C")
    do(r, 1)
    do(r, 2, "5C")
    do(r, 0)  # seat 1 passed earlier, seat 0 now: seat 2 wins
    assert r.turn == 2 and r.last_move is None


# -- R14: clearing plays --------------------------------------------------------------------------


def test_R14_set_of_twos_clears_without_revolution() -> None:
    r = make_round([["2C", "2D", "5S"], ["AC", "AD"], ["KC", "KD"]], 1)
    do(r, 1, "AC", "AD")
    do(r, 2)
    do(r, 0, "2C", "2D")
    assert r.turn == 0 and r.last_move is None and r.trick_number == 1


def test_R14_set_of_threes_clears_during_a_revolution_and_twos_do_not() -> None:
    r = make_round([["3C", "5S"], ["4C", "6D"], ["2C", "KD"]], 1, in_revolution=True)
    do(r, 1, "4C")
    do(r, 2)
    do(r, 0, "3C")
    assert r.turn == 0 and r.last_move is None
    r = make_round([["2C", "5S"], ["4C", "6D"], ["3S", "KD"]], 0, in_revolution=True)
    do(r, 0, "2C")
    assert r.turn == 1 and r.last_move is not None  # a 2 is the lowest card now


def test_R14_two_with_a_joker_clears_but_an_all_joker_set_does_not() -> None:
    r = make_round([["2C", "RJ", "5S"], ["4C", "6D"], ["9S", "KD"]], 0, jokers=2)
    do(r, 0, "2C", "RJ")
    assert r.turn == 0 and r.last_move is None
    r = make_round([["RJ", "BJ", "5S"], ["4C", "6D"], ["9S", "KD"]], 0, jokers=2)
    do(r, 0, "RJ", "BJ")
    assert r.turn == 1 and r.last_move is not None


@pytest.mark.parametrize("eight_stop", [True, False])
def test_R14_eight_stop_sets_of_eights_clear(eight_stop: bool) -> None:
    r = make_round([["8C", "8D", "5S"], ["4C", "4D", "9C", "9D"], ["KS"]], 1, eight_stop=eight_stop)
    do(r, 1, "4C", "4D")
    do(r, 2)
    do(r, 0, "8C", "8D")
    assert (r.turn == 0 and r.last_move is None) == eight_stop
    if not eight_stop:
        assert legal(r) == expect("9C 9D", "pass")


def test_R14_eight_stop_straight_holding_an_eight_clears_joker_eight_too() -> None:
    for cards, jokers in ((("6H", "7H", "8H"), {}), (("6H", "7H", "RJ"), {"RJ": "8"})):
        r = make_round(
            [[*cards, "5S"], ["4C", "9C"], ["KS"]], 0, eight_stop=True, straights=True, jokers=1
        )
        do(r, 0, *cards, **jokers)
        assert r.turn == 0 and r.last_move is None, cards
    # Without an eight, even with a joker standing for a 7, it does not clear.
    r = make_round([["5H", "6H", "RJ", "5S"], ["4C"], ["KS"]], 0, eight_stop=True, straights=True,
                   jokers=1)  # fmt: skip
    do(r, 0, "5H", "6H", "RJ", RJ="7")
    assert r.turn == 1 and r.last_move is not None


def test_R14_straight_ending_in_a_two_never_clears() -> None:
    r = make_round([["KD", "AD", "2D", "5S"], ["4C", "9C"], ["KS"]], 0, straights=True)
    do(r, 0, "KD", "AD", "2D")
    assert r.turn == 1 and r.last_move is not None
    r = make_round(
        [["KD", "AD", "2D", "5S"], ["4C", "9C"], ["KS"]], 0, straights=True, eight_stop=True
    )
    do(r, 0, "KD", "AD", "2D")
    assert r.turn == 1 and r.last_move is not None


def test_R14_player_going_out_with_a_clearing_play_hands_the_lead_on() -> None:
    r = make_round([["2C"], ["4C", "9C"], ["KS", "3D"], ["5D", "6D"]], 1)
    do(r, 1, "4C")
    do(r, 2)
    do(r, 3)
    do(r, 0, "2C")  # seat 0 goes out with a clearing 2
    assert r.finished == [0]
    assert r.turn == 1 and r.last_move is None  # the next seat in order still holding cards


def test_R11_a_pass_is_recorded_as_one_entry_shared_by_every_round() -> None:
    import random

    from cardverse.engine import Game, Rules
    from cardverse.engine import rounds as rounds_module

    rules = Rules.make("standard", players=5)
    rng = random.Random(11)
    passes: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    tricks = 0
    for seed in range(30):
        game = Game(rules, seed=seed)
        while not game.over:
            game.apply(rng.choice(game.legal_moves()))
            trick = game.round.trick if game.round is not None else []
            assert all(entry[1] != PASS or entry == (entry[0], PASS) for entry in trick)
        history = game.past_rounds[-1][1]
        tricks = max(tricks, max(entry[0] for entry in history) + 1)
        for entry in history:
            if entry[2] == PASS:
                assert passes.setdefault(entry, entry) is entry  # the same object every time
    assert passes  # random play passes
    assert tricks <= 55
    # One entry per trick number and seat, whatever the number of rounds played (by this test
    # or any other before it in this process): a trick takes at least one of the deck's 54
    # cards, and a table seats at most 8.
    cards, seats = 54, 8
    entries = rounds_module._PASS_ENTRIES.values()
    assert all(trick <= cards and 0 <= seat < seats for trick, seat, _ in entries)
    assert len(rounds_module._PASS_ENTRIES) <= (cards + 1) * seats
    assert len(rounds_module._PASSES_IN_TRICK) <= seats
