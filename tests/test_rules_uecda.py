"""The UECda standard rules (rules.md section 11, R41-R48) and the ``uecda`` preset.

Each rule is a part of its own (straight_cover, straight_revolution, five_card_sets,
lead_every_round, and the over_lock way of spade_three); R44 (the suit lock with jokers) has its
own module. Small partial deals keep the positions readable; every check goes through the
public engine: legal moves, the single-action check and its refusal, and the round's state.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from engine_testkit import do, expect, hand, legal, make_round, play, play_out

from cardverse.engine import PASS, Game, OptionsError, Phase, Rules
from cardverse.engine.events import RevolutionChanged
from cardverse.engine.options import PRESETS
from cardverse.engine.parts.suit_lock import LOCK
from cardverse.engine.plays import CARDS_MASK
from cardverse.engine.scoring import round_points


def uecda(hands: list[list[str]], leader: int = 0, **options: Any) -> Any:
    """A round under the ``uecda`` preset (5 seats unless the hands say fewer)."""
    options.setdefault("players", max(3, len(hands)))
    round_ = make_round(hands, leader, preset="uecda", **options)
    round_.log = []
    return round_


# -- the preset (section 11) ----------------------------------------------------------------------


def test_R41_to_R48_the_uecda_preset_starts_from_the_values_of_section_11() -> None:
    preset = PRESETS["uecda"]
    wanted = {
        "players": 5,
        "rounds": 5,
        "equal_plays": False,
        "revolution": True,
        "straights": True,
        "jokers": 1,
        "eight_stop": True,
        "exchange": True,
        "first_lead": "three_of_diamonds",
        "suit_lock": "with_jokers",
        "spade_three": "over_lock",
        "straight_cover": "all_higher",
        "straight_revolution": 5,
        "five_card_sets": True,
        "lead_every_round": True,
        # the other options of section 10 are off
        "jack_back": False,
        "forbidden_finish": False,
        "downfall": False,
        "seven_pass": False,
        "ten_discard": False,
    }
    assert dict(preset.defaults) == wanted
    assert preset.locked == frozenset()  # it locks nothing (R4)
    assert (preset.min_players, preset.max_players) == (3, 8)  # a web table may seat 3 to 8
    for players in range(3, 9):
        assert Rules.make("uecda", players=players).players == players


def test_R4_the_new_options_take_their_values_and_refuse_others_clearly() -> None:
    assert Rules.make("standard", suit_lock="natural").suit_lock is True
    assert Rules.make("standard", suit_lock="off").suit_lock is False
    assert Rules.make("standard", jokers=1, spade_three="on").spade_three is True
    assert Rules.make("standard", jokers=1, spade_three="over_lock").spade_three == "over_lock"
    assert Rules.make("standard", revolution=True, straight_revolution=7).straight_revolution == 7
    bad: list[dict[str, Any]] = [
        {"suit_lock": "sometimes"},
        {"spade_three": 1},
        {"straight_cover": True},
        {"straight_cover": "bottom"},
        {"revolution": True, "straight_revolution": 4},  # off (0) or 5 to 13
        {"revolution": True, "straight_revolution": 14},
        {"revolution": True, "straight_revolution": True},
        {"five_card_sets": "yes"},
    ]
    for options in bad:
        with pytest.raises(OptionsError) as error:
            Rules.make("standard", **options)
        assert error.value.code in (
            "option_bad_choice",
            "option_out_of_range",
            "option_not_boolean",
        )
        assert next(iter(options.keys() - {"revolution"})) in str(error.value)
    with pytest.raises(OptionsError) as needs:
        Rules.make("standard", straight_revolution=5)  # the revolution is off in standard
    assert needs.value.code == "option_needs"
    with pytest.raises(OptionsError) as needs:
        Rules.make("standard", five_card_sets=True)  # no joker
    assert needs.value.code == "option_needs"
    # Options the preset turned on quietly stay off when what they need is taken away.
    plain = Rules.make("uecda", jokers=0, revolution=False)
    assert (plain.five_card_sets, plain.straight_revolution, plain.spade_three) == (False, 0, False)


def test_R4_every_combination_of_section_11_plays_to_the_end() -> None:
    count = 0
    for cover, length, five, lead_every, lock, spade in itertools.product(
        ("top", "all_higher"),
        (0, 5, 9),
        (False, True),
        (False, True),
        (False, True, "with_jokers"),
        (False, True, "over_lock"),
    ):
        for preset in ("standard", "daifugo", "uecda"):
            rules = Rules.make(
                preset,
                players=3 + count % 6,
                rounds=2,
                straights=True,
                revolution=True,
                jokers=1 + count % 2,
                straight_cover=cover,
                straight_revolution=length,
                five_card_sets=five,
                lead_every_round=lead_every,
                suit_lock=lock,
                spade_three=spade,
            )
            game = Game(rules, seed=count)
            chooser = random.Random(count)
            play_out(game, lambda g, moves, pick=chooser.choice: pick(moves))
            assert len(game.places) == 2 and sorted(game.places[-1]) == list(range(rules.players))
            count += 1
    assert count == 2 * 3 * 2 * 2 * 3 * 3 * 3


# -- R41: straight cover ----------------------------------------------------------------------


def test_R41_with_all_higher_a_straight_covers_only_with_every_card_higher() -> None:
    r = uecda([["5H", "6H", "7H", "3C"], ["6S", "7S", "8S", "9S", "10S", "JS"], ["4C"]], 0)
    do(r, 0, "5H", "6H", "7H")
    moves = legal(r)
    assert moves == expect("8S 9S 10S", "9S 10S JS", "pass")  # not 6-7-8 nor 7-8-9
    refusal = r.check(1, play("6S", "7S", "8S"))
    assert refusal is not None and (refusal.code, refusal.rule) == (
        "straight_not_all_higher",
        "R41",
    )
    assert refusal.params == {"need": "7", "got": "6"}


def test_R41_during_a_revolution_every_card_must_be_lower() -> None:
    r = uecda(
        [["8H", "9H", "10H", "3C"], ["5S", "6S", "7S", "8S", "9S"], ["4C"]], 0, eight_stop=False
    )
    r.revolution = r.reversed_now = True
    do(r, 0, "8H", "9H", "10H")
    assert legal(r) == expect("5S 6S 7S", "pass")  # 6-7-8 and 7-8-9 overlap the 8
    refusal = r.check(1, play("6S", "7S", "8S"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("straight_not_all_lower", "R41")


def test_R41_with_top_R10_holds_and_equal_plays_apply_to_straights() -> None:
    r = make_round(
        [["5H", "6H", "7H", "3C"], ["6S", "7S", "8S", "KS"], ["4C"]],
        0,
        straights=True,
        straight_cover="top",
    )
    do(r, 0, "5H", "6H", "7H")
    assert legal(r) == expect("6S 7S 8S", "pass")  # a higher top is enough (R10)
    r = make_round(
        [["5H", "6H", "7H", "3C"], ["5S", "6S", "7S", "8S"], ["4C"]],
        0,
        straights=True,
        equal_plays=True,
        straight_cover="all_higher",
    )
    do(r, 0, "5H", "6H", "7H")
    assert legal(r) == expect("pass")  # the equal 5-6-7 and the higher 6-7-8 overlap


def test_R41_a_joker_counts_by_the_rank_it_stands_for() -> None:
    r = uecda([["9D", "10D", "JD", "3C"], ["QH", "KH", "RJ"], ["4C"]], 0)
    do(r, 0, "9D", "10D", "JD")
    assert legal(r) == expect(("QH KH RJ", {"RJ": "A"}), "pass")  # not the joker as the J
    refusal = r.check(1, play("QH", "KH", "RJ", RJ="J"))
    assert refusal is not None and refusal.rule == "R41"


# -- R42: straight revolution -----------------------------------------------------------------


def test_R42_a_straight_of_five_starts_a_revolution_and_a_shorter_one_does_not() -> None:
    r = uecda([["3H", "4H", "5H", "6H", "7H", "KC"], ["9S", "10S", "JS", "QS", "AC"], ["4C"]], 0)
    do(r, 0, "3H", "4H", "5H", "6H", "7H")
    assert r.revolution and r.reversed_order
    assert RevolutionChanged(True) in r.log
    r = uecda([["3H", "4H", "5H", "6H", "KC"], ["9S", "10S", "JS", "QS", "AC"], ["4C"]], 0)
    do(r, 0, "3H", "4H", "5H", "6H")
    assert not r.revolution


def test_R42_the_length_is_the_option_and_a_second_long_straight_turns_it_back() -> None:
    r = uecda(
        [["3H", "4H", "5H", "6H", "7H", "KD"], ["6S", "7S", "8S", "9S", "10S"], ["4C"]],
        0,
        straight_revolution=6,
    )
    do(r, 0, "3H", "4H", "5H", "6H", "7H")  # five cards: no revolution at a length of six
    assert not r.revolution
    r = uecda(
        [
            ["3H", "4H", "5H", "6H", "7H", "9C", "10C", "JC", "QC", "KC", "2D"],
            ["4S", "9S"],
            ["4C", "10D"],
        ],
        0,
        eight_stop=False,
    )
    do(r, 0, "3H", "4H", "5H", "6H", "7H")
    assert r.revolution
    do(r, 1)
    do(r, 2)  # the others passed: the trick ends and seat 0 leads again (R13)
    do(r, 0, "9C", "10C", "JC", "QC", "KC")
    assert not r.revolution  # a second straight of five turns the order back (R16)
    assert r.log.count(RevolutionChanged(True)) == 1 and RevolutionChanged(False) in r.log


def test_R42_straights_judged_by_the_order_before_them() -> None:
    r = uecda(
        [["6H", "7H", "8H", "9H", "10H", "KC"], ["3S", "4S", "5S", "QS", "AC"], ["4C"]],
        0,
        eight_stop=False,
    )
    do(r, 0, "6H", "7H", "8H", "9H", "10H")
    assert r.revolution  # the next straight of five must now be all lower
    r.hands[1] |= hand("6S", "7S")
    assert play("3S", "4S", "5S", "6S", "7S") not in r.legal_moves()  # overlaps 6-7
    assert r.check(1, play("3S", "4S", "5S", "6S", "7S")) is not None


# -- R43: five-card sets ----------------------------------------------------------------------


def test_R43_four_of_a_rank_and_a_joker_make_a_set_of_five() -> None:
    r = uecda([["9C", "9D", "9H", "9S", "RJ", "4D"], ["3C"], ["4C"]], 0)
    assert play("9C", "9D", "9H", "9S", "RJ") in r.legal_moves()
    do(r, 0, "9C", "9D", "9H", "9S", "RJ")
    assert r.revolution  # like a set of four (R15)
    assert RevolutionChanged(True) in r.log


def test_R43_only_a_higher_set_of_five_covers_a_set_of_five() -> None:
    r = uecda(
        [["6C", "6D", "6H", "6S", "RJ", "4D"], ["QC", "QD", "QH", "QS", "BJ", "KC"], ["4C"]],
        0,
        jokers=2,
        revolution=False,
        straight_revolution=0,
    )
    do(r, 0, "6C", "6D", "6H", "6S", "RJ")
    assert legal(r) == expect("QC QD QH QS BJ", "pass")  # not the four queens alone
    refusal = r.check(1, play("QC", "QD", "QH", "QS"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("wrong_size", "R9")


def test_R43_without_the_option_five_cards_are_refused_as_a_set() -> None:
    r = uecda([["9C", "9D", "9H", "9S", "RJ", "4D"], ["3C"], ["4C"]], 0, five_card_sets=False)
    assert all(m == PASS or (m & CARDS_MASK).bit_count() <= 4 for m in r.legal_moves())
    refusal = r.check(0, play("9C", "9D", "9H", "9S", "RJ"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("set_too_large", "R5")
    assert refusal.params["largest"] == 4


def test_R43_three_naturals_and_two_jokers_are_no_set_of_five() -> None:
    r = uecda([["9C", "9D", "9H", "RJ", "BJ"], ["3C"], ["4C"]], 0, jokers=2)
    refusal = r.check(0, play("9C", "9D", "9H", "RJ", "BJ"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("five_set_shape", "R43")
    assert play("9C", "9D", "9H", "RJ", "BJ") not in r.legal_moves()
    # without sets of five the same cards are simply too many for a set
    r = uecda([["9C", "9D", "9H", "RJ", "BJ"], ["3C"], ["4C"]], 0, jokers=2, five_card_sets=False)
    refusal = r.check(0, play("9C", "9D", "9H", "RJ", "BJ"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("set_too_large", "R5")
    assert refusal.params == {"size": 5, "largest": 4}


def test_R43_a_set_of_six_is_too_large_even_with_sets_of_five() -> None:
    r = uecda([["9C", "9D", "9H", "9S", "RJ", "BJ"], ["3C"], ["4C"]], 0, jokers=2)
    refusal = r.check(0, play("9C", "9D", "9H", "9S", "RJ", "BJ"))
    assert refusal is not None and (refusal.code, refusal.params) == (
        "set_too_large",
        {"size": 6, "largest": 5},
    )


# -- R45: the spade three over a lock -----------------------------------------------------------


@pytest.mark.parametrize("spade_three", [True, "over_lock"])
def test_R45_the_spade_three_covers_a_lone_joker_under_a_lock_only_over_lock(
    spade_three: bool | str,
) -> None:
    r = uecda(
        [["5H", "3S", "KC"], ["6H", "KD"], ["RJ", "QC", "QD"]],
        0,
        suit_lock=True,
        spade_three=spade_three,
    )
    do(r, 0, "5H")
    do(r, 1, "6H")
    assert LOCK.read(r.marks) == 1 << 2  # locked to hearts (R31)
    do(r, 2, "RJ")
    moves = r.legal_moves()
    refusal = r.check(0, play("3S"))
    if spade_three == "over_lock":
        assert play("3S") in moves and refusal is None
        do(r, 0, "3S")
        assert r.last_move is None and r.turn == 0  # it clears (R33): the same seat leads
    else:
        assert play("3S") not in moves  # R40: the lock binds it
        assert refusal is not None and (refusal.code, refusal.rule) == ("outside_lock", "R31")


# -- R46: the same lead every round -------------------------------------------------------------


def _after_round_one(rules: Rules) -> Game:
    """A game whose first round is played out with the first legal moves."""
    game = Game(rules, seed=3)
    while game.phase is not Phase.ROUND_OVER:
        game.apply(game.legal_moves()[0])
    return game


@pytest.mark.parametrize("every_round", [False, True])
def test_R46_every_round_is_led_by_the_holder_of_the_card_after_the_exchange(
    every_round: bool,
) -> None:
    rules = Rules.make("uecda", players=5, lead_every_round=every_round, rounds=2)
    game = _after_round_one(rules)
    president, scum = game.places[-1][0], game.places[-1][-1]
    # between rounds the next leader is known only without R46 (R24's previous Scum)
    assert game.turn == (None if every_round else scum)
    deal = list(Game(rules, seed=11).deals[0])
    game.start_next_round(deal)
    # The President gives back the 3♦ if it holds it, so the card may change hands.
    while game.phase is Phase.EXCHANGE:
        moves = game.legal_moves()
        three = hand("3D")
        chosen = next((m for m in moves if m & three), moves[0])
        game.apply(chosen)
    holder = next(seat for seat, cards in enumerate(game.hands) if cards & hand("3D"))
    assert game.round is not None
    assert game.round.turn == (holder if every_round else scum)
    assert game.leader == game.round.turn
    assert president != scum


# -- R47 and R48: the exchange's gift and the points --------------------------------------------


def test_R47_among_cards_of_one_rank_the_gift_takes_spades_then_hearts_diamonds_clubs() -> None:
    rules = Rules.make("uecda", players=5, rounds=2)
    game = _after_round_one(rules)
    scum = game.places[-1][-1]
    vice_scum = game.places[-1][-2]
    base = Game(rules, seed=5).deals[0]
    deal = list(base)
    aces = hand("AC", "AD", "AH", "AS")
    kings = hand("KC", "KD", "KH", "KS")
    twos_and_joker = hand("2C", "2D", "2H", "2S", "RJ")
    # The Scum's highest cards are its four aces; the Vice-Scum's its four kings.
    for seat in range(5):
        deal[seat] &= ~(aces | kings | twos_and_joker)
    others = [s for s in range(5) if s not in (scum, vice_scum)]
    deal[scum] |= aces
    deal[vice_scum] |= kings
    deal[others[0]] |= twos_and_joker
    game.start_next_round(deal)
    gifts = {giver: cards for giver, _, cards in game.exchange_log}
    assert gifts[scum] == hand("AS", "AH")
    assert gifts[vice_scum] == hand("KS")


def test_R48_points_are_five_four_three_two_one_with_five_players() -> None:
    assert round_points([2, 0, 4, 1, 3]) == [4, 2, 5, 1, 3]
    game = Game(Rules.make("uecda"), seed=1)
    play_out(game, lambda g, moves: moves[0])
    assert sum(game.points) == 15 * 5
