"""Rules R1–R7: the deck, the order, options and presets, and the shapes of plays."""

from __future__ import annotations

import itertools

import pytest
from engine_testkit import RANK_ORDER, expect, hand, legal, make_round, play, play_out

from cardverse.engine import (
    PRESETS,
    CardError,
    OptionsError,
    PlayShapeError,
    Rules,
    analyse,
    card_name,
    parse_card,
    rules_from_dict,
)
from cardverse.engine.cards import deck, deck_mask
from cardverse.engine.plays import beats

SUITS = ("C", "D", "H", "S")

# -- R1: the deck -------------------------------------------------------------------------------


def test_R1_deck_has_52_distinct_cards_13_ranks_4_suits() -> None:
    cards = deck(0)
    assert len(cards) == len(set(cards)) == 52
    texts = {card_name(c) for c in cards}
    assert texts == {rank + suit for rank in RANK_ORDER for suit in SUITS}
    assert deck_mask(0).bit_count() == 52


def test_R1_card_text_forms_are_case_insensitive_and_strict() -> None:
    assert parse_card("10h") == parse_card("10H")
    assert parse_card("qs") == parse_card("QS")
    assert card_name(parse_card("rj")) == "RJ"
    for bad in ("1C", "11H", "ZZ", "", "3X", "T9", "JOKER", 7, None):
        with pytest.raises(CardError):
            parse_card(bad)


def test_R1_suits_never_decide_who_beats_whom() -> None:
    # With equal plays off, no other 7 covers a 7, whatever the suits; an 8 of clubs covers 7S.
    for top in ("7C", "7S"):
        others = [f"7{s}" for s in SUITS if f"7{s}" != top]
        r = make_round([[top, "3C"], [*others, "8C"]], 0, equal_plays=False)
        r.apply(play(top))
        assert legal(r) == expect("8C", "pass")
        for card in others:
            refusal = r.check(1, play(card))
            assert refusal is not None and refusal.rule == "R10"
    # With equal plays on, every other 7 may cover the 7, whatever its suit.
    r = make_round([["7S", "3C"], ["7C", "7D", "7H"]], 0)
    r.apply(play("7S"))
    assert legal(r) == expect("7C", "7D", "7H", "pass")


# -- R2: jokers -----------------------------------------------------------------------------------


def test_R2_jokers_option_adds_red_then_black_joker() -> None:
    assert [card_name(c) for c in deck(1)][52:] == ["RJ"]
    assert [card_name(c) for c in deck(2)][52:] == ["RJ", "BJ"]
    assert Rules.make("standard", jokers=1).deck_size == 53
    assert Rules.make("standard", jokers=2).deck_size == 54
    assert Rules.make("standard").deck_size == 52


def test_R2_jokers_are_dealt_only_when_the_option_is_on() -> None:
    from cardverse.engine import Game

    for jokers in (0, 1, 2):
        game = Game(Rules.make("standard", players=5, jokers=jokers), seed=jokers)
        dealt = 0
        for h in game.deals[0]:
            dealt |= h
        assert dealt == deck_mask(jokers)
        assert dealt.bit_count() == 52 + jokers


# -- R3: order ------------------------------------------------------------------------------------


@pytest.mark.parametrize("revolution", [False, True])
def test_R3_order_of_ranks_normal_and_reversed(revolution: bool) -> None:
    order = list(RANK_ORDER) if not revolution else list(reversed(RANK_ORDER))
    clearing = "3" if revolution else "2"
    for low, high in itertools.combinations(order, 2):
        # ``high`` comes later in the order in force: it beats ``low``, never the reverse.
        assert beats(analyse(play(high + "D")), analyse(play(low + "C")), revolution, False)
        assert not beats(analyse(play(low + "D")), analyse(play(high + "C")), revolution, True)
        spare = "4S" if "4" not in (low, high) else "5S" if "5" not in (low, high) else "6S"
        r = make_round([[low + "C", spare], [high + "D"]], 0, in_revolution=revolution)
        r.apply(play(low + "C"))
        assert r.check(1, play(high + "D")) is None, (low, high)
        if high == clearing:
            continue  # it would clear the trick at once (R14)
        r = make_round([[high + "C", spare], [low + "D"]], 0, in_revolution=revolution)
        r.apply(play(high + "C"))
        refusal = r.check(1, play(low + "D"))
        assert refusal is not None and refusal.rule == "R10", (high, low)


def test_R3_three_is_lowest_and_two_highest_in_normal_order() -> None:
    r = make_round([["3C", "5C"], ["2S", "4D"]], 1)
    r.apply(play("2S"))  # a 2 clears (R14): seat 1 leads again
    assert r.turn == 1
    r = make_round([["3C", "5C"], ["2S", "4D"]], 0)
    r.apply(play("3C"))
    assert legal(r) == expect("2S", "4D", "pass")


# -- R4: options and presets ---------------------------------------------------------------------


def test_R4_standard_preset_values_match_the_table() -> None:
    r = Rules.make("standard")
    assert (r.rounds, r.equal_plays, r.revolution, r.straights, r.jokers) == (
        1,
        True,
        False,
        False,
        0,
    )
    assert (r.eight_stop, r.exchange, r.first_lead) == (False, True, "three_of_clubs")
    assert PRESETS["standard"].locked == frozenset()
    assert (PRESETS["standard"].min_players, PRESETS["standard"].max_players) == (3, 8)


def test_R4_cardverse_preset_values_match_the_table() -> None:
    r = Rules.make("cardverse")
    assert (r.rounds, r.equal_plays, r.revolution, r.straights, r.jokers) == (
        1,
        False,
        True,
        False,
        0,
    )
    assert (r.eight_stop, r.exchange, r.first_lead) == (False, True, "first_seat")
    assert PRESETS["cardverse"].locked == frozenset({"equal_plays", "straights", "jokers"})
    assert (PRESETS["cardverse"].min_players, PRESETS["cardverse"].max_players) == (3, 6)


@pytest.mark.parametrize(
    ("option", "value"),
    [("equal_plays", True), ("straights", True), ("jokers", 1), ("jokers", 2)],
)
def test_R4_locked_option_cannot_change_under_cardverse(option: str, value: object) -> None:
    with pytest.raises(OptionsError) as info:
        Rules.make("cardverse", **{option: value})
    assert option in str(info.value)
    assert "cardverse" in str(info.value)
    assert info.value.rule == "R4"


@pytest.mark.parametrize(("option", "value"), [("equal_plays", False), ("straights", False)])
def test_R4_locked_option_may_repeat_its_preset_value(option: str, value: object) -> None:
    assert getattr(Rules.make("cardverse", **{option: value}), option) == value
    assert Rules.make("cardverse", jokers=0).jokers == 0


def test_R4_unlocked_options_change_from_either_preset() -> None:
    changes = {
        "rounds": 20,
        "revolution": False,
        "eight_stop": True,
        "exchange": False,
        "first_lead": "three_of_clubs",
    }
    for name, value in changes.items():
        assert getattr(Rules.make("cardverse", **{name: value}), name) == value
    std = {"equal_plays": False, "revolution": True, "straights": True, "jokers": 2}
    for name, value in std.items():
        assert getattr(Rules.make("standard", **{name: value}), name) == value
    assert Rules.make("standard", first_lead="first_seat").first_lead == "first_seat"


def test_R4_player_ranges_of_each_preset() -> None:
    for players in range(3, 9):
        assert Rules.make("standard", players=players).players == players
    for players in range(3, 7):
        assert Rules.make("cardverse", players=players).players == players
    for preset, bad in (("standard", 2), ("standard", 9), ("cardverse", 7), ("cardverse", 8)):
        with pytest.raises(OptionsError) as info:
            Rules.make(preset, players=bad)
        assert info.value.rule == "R4"
    with pytest.raises(OptionsError) as info:
        Rules.make("cardverse", players=7)
    assert "cardverse" in str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        {"rounds": 0},
        {"rounds": 21},
        {"jokers": 3},
        {"jokers": True},
        {"players": 4.0},
        {"revolution": 1},
        {"first_lead": "dealer"},
        {"preset": "house"},
        {"colour": "red"},
    ],
)
def test_R4_values_outside_the_table_are_refused(data: dict[str, object]) -> None:
    with pytest.raises(OptionsError):
        rules_from_dict(data)


def test_R4_rounds_range_one_to_twenty() -> None:
    assert Rules.make("standard", rounds=1).rounds == 1
    assert Rules.make("cardverse", rounds=20).rounds == 20


def test_R4_every_allowed_combination_is_a_valid_game() -> None:
    from cardverse.engine import Game

    count = 0
    booleans = ("equal_plays", "revolution", "straights", "eight_stop", "exchange")
    for preset_name, preset in PRESETS.items():
        for values in itertools.product((False, True), repeat=len(booleans)):
            for jokers in (0, 1, 2):
                for first_lead in ("first_seat", "three_of_clubs"):
                    options = dict(zip(booleans, values, strict=True))
                    options.update(jokers=jokers, first_lead=first_lead)
                    if any(
                        name in preset.locked and options[name] != preset.defaults[name]
                        for name in options
                    ):
                        with pytest.raises(OptionsError):
                            Rules.make(preset_name, **options)
                        continue
                    players = preset.min_players + count % (
                        preset.max_players - preset.min_players + 1
                    )
                    r = Rules.make(preset_name, players=players, rounds=2, **options)
                    game = Game(r, seed=count)
                    play_out(game, lambda g, moves: moves[0])
                    assert len(game.places) == 2
                    count += 1
    # standard, daifugo and uecda (which lock nothing): 2^5 * 3 * 2 combinations each;
    # cardverse: 2^3 free booleans * 2 first leads. The house rules' combinations are in
    # test_rules_house.py, those of section 11 in test_rules_uecda.py.
    assert count == 192 + 16 + 192 + 192


# -- R5: sets -------------------------------------------------------------------------------------


def test_R5_set_is_one_to_four_cards_of_one_rank() -> None:
    for size in range(1, 5):
        info = analyse(play(*[f"9{s}" for s in SUITS[:size]]))
        assert (info.straight, info.size, info.rank) == (False, size, RANK_ORDER.index("9"))
    with pytest.raises(PlayShapeError) as error:
        analyse(play("9C", "10C"))  # not consecutive-and-three: read as a straight of 2
    assert error.value.rule in ("R5", "R6")
    with pytest.raises(PlayShapeError) as error:
        analyse(play("9C", "9D", "10C"))  # three cards, mixed suits: no set, no straight
    assert error.value.rule in ("R5", "R6")


def test_R5_joker_stands_in_for_any_card_of_a_set() -> None:
    info = analyse(play("7C", "7D", "7H", "RJ"))
    assert (info.straight, info.size, info.rank, info.all_jokers) == (False, 4, 4, False)
    info = analyse(play("KS", "RJ", "BJ"))
    assert (info.size, info.rank) == (3, RANK_ORDER.index("K"))


def test_R5_a_set_holds_at_most_four_cards() -> None:
    # five cards make a set only as four of a rank and a joker (R43's shape), six never
    for cards, rule in (
        (("7C", "7D", "7H", "RJ", "BJ"), "R43"),
        (("7C", "7D", "7H", "7S", "RJ", "BJ"), "R5"),
    ):
        with pytest.raises(PlayShapeError) as error:
            analyse(play(*cards))
        assert error.value.rule == rule
    r = make_round([["7C", "7D", "7H", "7S", "RJ", "BJ"], ["3C"]], 0, jokers=2)
    for cards in (("7C", "7D", "7H", "7S", "RJ"), ("7C", "7D", "7H", "RJ", "BJ")):
        refusal = r.check(0, play(*cards))  # no sets of five here: too large, whatever the shape
        assert refusal is not None and (refusal.code, refusal.rule) == ("set_too_large", "R5")
        assert refusal.params["largest"] == 4
    assert all(m.bit_count() <= 4 for m in r.legal_moves())


def test_R5_all_joker_set_outranks_natural_sets_in_either_order() -> None:
    lone, pair = analyse(play("RJ")), analyse(play("RJ", "BJ"))
    for revolution in (False, True):
        for rank in RANK_ORDER:
            single = analyse(play(rank + "S"))
            double = analyse(play(rank + "S", rank + "H"))
            for equal in (False, True):
                assert beats(lone, single, revolution, equal)
                assert beats(pair, double, revolution, equal)
                assert not beats(single, lone, revolution, equal)
                assert not beats(double, pair, revolution, equal)
    # Through the round too: a lone joker covers a 2; during a revolution it covers a 3.
    r = make_round([["AS", "4C"], ["RJ", "5C"]], 0, jokers=1)
    r.apply(play("AS"))
    assert legal(r) == expect("RJ", "pass")
    r = make_round([["4S", "5C"], ["RJ", "2C", "3C"]], 0, jokers=1, in_revolution=True)
    r.apply(play("4S"))
    assert legal(r) == expect("RJ", "3C", "pass")


# -- R6: straights --------------------------------------------------------------------------------


def test_R6_straight_is_three_or_more_consecutive_cards_of_one_suit() -> None:
    info = analyse(play("5H", "6H", "7H"))
    assert (info.straight, info.size, info.rank, info.bottom) == (True, 3, 4, 2)
    with pytest.raises(PlayShapeError) as error:
        analyse(play("5H", "6H", "7S"))
    assert error.value.rule == "R6"
    with pytest.raises(PlayShapeError) as error:
        analyse(play("5H", "6H", "8H"))
    assert error.value.rule == "R6"
    with pytest.raises(PlayShapeError) as error:
        analyse(play("5H", "6H"))
    assert error.value.rule == "R6"


def test_R6_ranks_do_not_wrap_K_A_2_is_highest_A_2_3_is_none() -> None:
    info = analyse(play("KD", "AD", "2D"))
    assert (info.rank, info.bottom) == (RANK_ORDER.index("2"), RANK_ORDER.index("K"))
    with pytest.raises(PlayShapeError) as error:
        analyse(play("AD", "2D", "3D"))
    assert error.value.rule == "R6"
    with pytest.raises(PlayShapeError):
        analyse(play("2D", "3D", "4D"))
    r = make_round([["KS", "AS", "2S", "3S", "4S"], ["5C"]], 0, straights=True)
    assert legal(r) == expect("KS", "AS", "2S", "3S", "4S", "KS AS 2S")


def test_R6_there_is_no_upper_length() -> None:
    every_heart = [rank + "H" for rank in RANK_ORDER]
    info = analyse(play(*every_heart))
    assert (info.size, info.bottom, info.rank) == (13, 0, 12)
    r = make_round([every_heart, ["3C"]], 0, straights=True)
    assert expect(" ".join(every_heart)) <= legal(r)


def test_R6_joker_fills_any_position_with_a_declared_rank() -> None:
    for filled in ("5", "6", "7"):
        naturals = [f"{rank}H" for rank in ("5", "6", "7") if rank != filled]
        info = analyse(play(*naturals, "RJ", RJ=filled))
        assert (info.straight, info.size, info.bottom, info.rank) == (True, 3, 2, 4)
    # The joker may extend the straight at either end too.
    info = analyse(play("5H", "6H", "RJ", RJ="4"))
    assert (info.bottom, info.rank) == (1, 3)
    info = analyse(play("5H", "6H", "RJ", RJ="7"))
    assert (info.bottom, info.rank) == (2, 4)


def test_R6_straight_needs_a_natural_card_whose_suit_it_takes() -> None:
    from cardverse.engine.plays import STRAIGHT, declare

    jokers_only = declare(declare(hand("RJ", "BJ") | STRAIGHT, 52, 2), 53, 3)
    with pytest.raises(PlayShapeError) as error:
        analyse(jokers_only)
    assert error.value.rule == "R6"
    info = analyse(play("5D", "6D", "RJ", RJ="7"))
    assert (info.straight, info.rank) == (True, 4)
    with pytest.raises(PlayShapeError) as error:
        analyse(play("5D", "6H", "RJ", RJ="7"))  # the natural cards must share one suit
    assert error.value.rule == "R6"


def test_R6_joker_in_a_straight_must_have_a_declared_rank() -> None:
    from cardverse.engine import ActionFormatError, to_move
    from cardverse.engine.actions import Action

    with pytest.raises(ActionFormatError):
        to_move(Action("play", ("5H", "6H", "RJ")))
    with pytest.raises(ActionFormatError):
        to_move(Action("play", ("5H", "RJ", "BJ"), {"RJ": "6"}))


def test_R6_straights_are_played_only_with_the_option() -> None:
    r = make_round([["5H", "6H", "7H"], ["3C"]], 0)
    refusal = r.check(0, play("5H", "6H", "7H"))
    assert refusal is not None and refusal.rule in ("R5", "R6")
    assert legal(r) == expect("5H", "6H", "7H")
    r = make_round([["5H", "6H", "7H"], ["3C"]], 0, straights=True)
    assert legal(r) == expect("5H", "6H", "7H", "5H 6H 7H")


# -- R7: a straight of four is no four of a kind -------------------------------------------------


def test_R7_four_card_straight_never_counts_as_four_of_a_kind() -> None:
    r = make_round(
        [["3H", "4H", "5H", "6H", "9C"], ["8C", "8D", "8H", "8S", "KC"]],
        0,
        straights=True,
        revolution=True,
    )
    r.apply(play("3H", "4H", "5H", "6H"))
    assert r.revolution is False
    assert legal(r) == expect("pass")  # a four of 8s may not cover a straight of four
    refusal = r.check(1, play("8C", "8D", "8H", "8S"))
    assert refusal is not None and refusal.rule == "R9"
    assert analyse(play("3H", "4H", "5H", "6H")).straight
