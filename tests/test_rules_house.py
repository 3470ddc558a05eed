"""The house rules of Dai Fugō (rules.md section 10, R31–R40) and the ``daifugo`` preset.

Each test sets up a small round (partial deals keep them readable) and checks the rule through
the public engine: legal moves, the single-action check and its refusal, the events of
``Game.apply`` or the round's state.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from engine_testkit import do, expect, give, hand, legal, make_round, play, play_out

from cardverse.engine import (
    DISCARD,
    PASS,
    Action,
    Game,
    OptionsError,
    Phase,
    Round,
    Rules,
    from_move,
    player_view,
    to_move,
)
from cardverse.engine.events import (
    Discarded,
    Gave,
    OwedAction,
    TrickEnded,
    TrickStateChanged,
    WentOut,
)
from cardverse.engine.order import clearing_rank, order_reversed
from cardverse.engine.parts.jack_back import ON as JACK_BACK
from cardverse.engine.parts.suit_lock import LOCK
from cardverse.engine.ruleset import ruleset_for


def discard(*names: str) -> int:
    return to_move(Action("discard", tuple(names)))


def house(hands: list[list[str]], leader: int = 0, **options: Any) -> Round:
    """A round under the standard preset with the given options (equal plays off by default)."""
    options.setdefault("equal_plays", False)
    round_ = make_round(hands, leader, **options)
    round_.log = []
    return round_


def lock(round_: Round) -> int:
    """The suits the trick is locked to (R31), as the suit lock's report reads them."""
    return LOCK.read(round_.marks)


def jack_back(round_: Round) -> bool:
    """Whether a jack back is in force (R32), as its report reads it."""
    return bool(JACK_BACK.read(round_.marks))


def events(round_: Round) -> list[Any]:
    assert round_.log is not None
    out = list(round_.log)
    round_.log.clear()
    return out


# -- the preset and the options table (section 2, R4) ------------------------------------------


def test_R4_daifugo_preset_values() -> None:
    rules = Rules.make("daifugo")
    assert (rules.rounds, rules.equal_plays, rules.revolution, rules.straights) == (
        3,
        False,
        True,
        True,
    )
    assert (rules.jokers, rules.eight_stop, rules.exchange) == (1, True, True)
    assert rules.first_lead == "three_of_diamonds"
    for name in ("suit_lock", "jack_back", "spade_three", "forbidden_finish", "downfall"):
        assert getattr(rules, name) is True
    assert rules.seven_pass and rules.ten_discard
    # It locks nothing: every option may change, players 3 to 8.
    Rules.make("daifugo", players=8, equal_plays=True, straights=False, jokers=2)
    Rules.make("daifugo", players=3, suit_lock=False, first_lead="first_seat")


def test_R4_new_options_default_off_in_the_other_presets() -> None:
    for preset in ("standard", "cardverse"):
        rules = Rules.make(preset)
        assert not any(
            getattr(rules, name)
            for name in ("suit_lock", "jack_back", "spade_three", "forbidden_finish")
        )
        assert not (rules.downfall or rules.seven_pass or rules.ten_discard)


def test_R33_spade_three_needs_a_joker() -> None:
    with pytest.raises(OptionsError, match="spade_three needs jokers"):
        Rules.make("standard", spade_three=True)
    # Only the preset turned it on: taking the joker out quietly turns it off.
    assert Rules.make("daifugo", jokers=0).spade_three is False
    assert Rules.make("standard", spade_three=True, jokers=1).spade_three


def test_R24_three_of_diamonds_leads_round_one() -> None:
    rules = Rules.make("standard", players=3, first_lead="three_of_diamonds")
    game = Game(rules, hands=[hand("3C", "9H"), hand("5D", "3D"), hand("7C", "8C")])
    assert game.turn == 1


def test_R4_every_house_rule_combination_is_a_valid_game() -> None:
    names = ("suit_lock", "jack_back", "spade_three", "forbidden_finish", "downfall")
    names += ("seven_pass", "ten_discard")
    count = 0
    for values in itertools.product((False, True), repeat=len(names)):
        options = dict(zip(names, values, strict=True))
        base = count % 3
        rules = Rules.make(
            "standard",
            players=3 + count % 6,
            rounds=2,
            jokers=1 + base % 2,
            revolution=base != 0,
            straights=base != 1,
            eight_stop=base != 2,
            **options,
        )
        game = Game(rules, seed=count)
        play_out(game, lambda g, moves: moves[(g.round_number * 7 + len(moves)) % len(moves)])
        assert len(game.places) == 2
        players = rules.players
        assert sum(game.points) == 2 * players * (players + 1) // 2  # R22 over two rounds
        count += 1
    assert count == 128


# -- R31: suit lock ------------------------------------------------------------------------------


def test_R31_same_suits_lock_the_trick() -> None:
    round_ = house([["5H", "9C"], ["7H", "7S"], ["8H", "8C", "KS"], ["3C"]], suit_lock=True)
    do(round_, 0, "5H")
    do(round_, 1, "7H")
    assert [e for e in events(round_) if isinstance(e, TrickStateChanged)] == [
        TrickStateChanged(LOCK, 0b0100)
    ]
    assert lock(round_) == 0b0100
    assert legal(round_) == expect("8H", "pass")
    refusal = round_.check(2, play("KS"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("outside_lock", "R31")


def test_R31_different_suits_do_not_lock() -> None:
    round_ = house([["5H", "9C"], ["7S", "7H"], ["8C", "KS"], ["3C"]], suit_lock=True)
    do(round_, 0, "5H")
    do(round_, 1, "7S")
    assert lock(round_) == 0
    assert legal(round_) == expect("8C", "KS", "pass")


def test_R31_pairs_lock_on_both_suits_and_a_joker_stands_in() -> None:
    round_ = house(
        [["5H", "5S", "3C"], ["7H", "7S", "4C"], ["9H", "9D", "QH", "RJ"], ["3D"]],
        suit_lock=True,
        jokers=1,
    )
    do(round_, 0, "5H", "5S")
    do(round_, 1, "7H", "7S")
    assert lock(round_) == 0b1100
    # 9H 9D has a diamond: refused; QH with the joker standing in for a spade is fine.
    assert legal(round_) == expect("QH RJ", "9H RJ", "pass")


def test_R31_a_joker_never_starts_a_lock_and_the_lock_ends_with_the_trick() -> None:
    round_ = house([["5H", "AC"], ["RJ", "6C"], ["8H", "9D"], ["3D"]], suit_lock=True, jokers=1)
    do(round_, 0, "5H")
    do(round_, 1, "RJ")
    assert lock(round_) == 0
    round_ = house([["5H", "9C"], ["7H", "6C"], ["8C", "3S"], ["4D"]], suit_lock=True)
    do(round_, 0, "5H")
    do(round_, 1, "7H")
    do(round_, 2)
    do(round_, 3)
    do(round_, 0)
    assert round_.last_move is None and lock(round_) == 0
    assert legal(round_) == expect("6C")


def test_R31_suit_lock_binds_straights_too() -> None:
    round_ = house(
        [
            ["3H", "4H", "5H", "KC"],
            ["6H", "7H", "8H", "9C"],
            ["9H", "10H", "JH", "10S", "JS", "QS"],
        ],
        suit_lock=True,
        straights=True,
    )
    do(round_, 0, "3H", "4H", "5H")
    do(round_, 1, "6H", "7H", "8H")
    assert lock(round_) == 0b0100
    assert legal(round_) == expect("9H 10H JH", "pass")


# -- R32: jack back ------------------------------------------------------------------------------


def test_R32_a_jack_reverses_the_order_for_the_rest_of_the_trick() -> None:
    round_ = house([["9C", "4D"], ["JD", "5C"], ["10S", "QS", "3H"], ["AC"]], jack_back=True)
    do(round_, 0, "9C")
    do(round_, 1, "JD")  # judged by the order before it: J beats 9
    assert [e for e in events(round_) if isinstance(e, TrickStateChanged)] == [
        TrickStateChanged(JACK_BACK, 1)
    ]
    assert jack_back(round_) and round_.reversed_order
    assert legal(round_) == expect("10S", "3H", "pass")
    refusal = round_.check(2, play("QS"))
    assert refusal is not None and refusal.rule == "R10" and "R32" in refusal.message


def test_R32_jack_back_ends_with_the_trick() -> None:
    round_ = house([["9C", "4D"], ["JD", "5C"], ["QS"], ["AC"]], jack_back=True)
    do(round_, 0, "9C")
    do(round_, 1, "JD")
    for seat in (2, 3, 0):
        do(round_, seat)
    assert [type(e) for e in events(round_)][-2:] == [TrickEnded, TrickStateChanged]
    assert not jack_back(round_) and not round_.reversed_order


def test_R32_jack_back_during_a_revolution_gives_the_normal_order_and_its_clearing_rank() -> None:
    round_ = house([["9C", "4D"], ["JD", "5C"], ["QS"], ["AC"]], jack_back=True, revolution=True,
                   in_revolution=True)  # fmt: skip
    do(round_, 0, "9C")
    # The jack is judged by the order before it: during a revolution a J does not beat a 9.
    refusal = round_.check(1, play("JD"))
    assert refusal is not None and refusal.rule == "R10"
    round_ = house(
        [["QC", "4D"], ["JD", "5C"], ["QS", "2H", "3H"], ["AC"]],
        jack_back=True,
        revolution=True,
        in_revolution=True,
    )
    do(round_, 0, "QC")
    do(round_, 1, "JD")
    assert jack_back(round_) and not round_.reversed_order
    assert clearing_rank(round_.reversed_order) == clearing_rank(order_reversed(True, True)) == 12
    assert legal(round_) == expect("QS", "2H", "pass")
    do(round_, 2, "2H")  # a set of 2s clears in the order in force (R14, section 10)
    assert round_.last_move is None and round_.turn == 2
    assert round_.revolution and not jack_back(round_)


def test_R32_a_second_jack_changes_nothing_more() -> None:
    round_ = house(
        [["QH", "KH", "AH", "3C"], ["9S", "10S", "JS", "4C"], ["10C", "JC", "QC", "5C"], ["6D"]],
        jack_back=True,
        revolution=True,
        in_revolution=True,
        straights=True,
    )
    do(round_, 0, "QH", "KH", "AH")
    do(round_, 1, "9S", "10S", "JS")  # a lower bottom during the revolution; a jack: normal order
    assert jack_back(round_) and not round_.reversed_order
    do(round_, 2, "10C", "JC", "QC")  # a higher top in the normal order; a second jack play
    assert jack_back(round_) and not round_.reversed_order


# -- R33: spade three ----------------------------------------------------------------------------


def test_R33_spade_three_beats_a_lone_joker_and_clears() -> None:
    round_ = house([["RJ", "4D"], ["3S", "5C"], ["QS"], ["AC"]], jokers=1, spade_three=True)
    do(round_, 0, "RJ")
    assert legal(round_) == expect("3S", "pass")
    do(round_, 1, "3S")
    assert round_.last_move is None and round_.turn == 1
    ended = [e for e in events(round_) if isinstance(e, TrickEnded)]
    assert ended == [TrickEnded(1, 1, True)]


def test_R33_spade_three_holds_in_a_revolution_and_with_equal_plays() -> None:
    round_ = house(
        [["RJ", "4D"], ["3S", "5C"], ["QS"], ["AC"]],
        jokers=1,
        spade_three=True,
        revolution=True,
        in_revolution=True,
        equal_plays=True,
    )
    do(round_, 0, "RJ")
    assert "3S" in str(sorted(legal(round_)))
    do(round_, 1, "3S")
    assert round_.last_move is None


def test_R33_spade_three_in_a_pair_is_ordinary_and_off_without_the_option() -> None:
    round_ = house([["RJ", "4D"], ["3S", "5C"], ["QS"], ["AC"]], jokers=1)
    do(round_, 0, "RJ")
    assert legal(round_) == expect("pass")
    round_ = house([["RJ", "4D", "4H"], ["3S", "3H"], ["QS"], ["AC"]], jokers=1, spade_three=True)
    do(round_, 0, "4D", "RJ")
    assert legal(round_) == expect("pass")


def test_R33_a_lone_joker_is_refused_by_the_spade_three_rule_not_by_the_jokers_alone() -> None:
    """With spade_three on, what may cover a lone joker is the 3♠ (R33): the refusal says so,
    with equal plays off and on; without the rule the R10 refusal of the jokers stands."""
    for equal in (False, True):
        round_ = house(
            [["RJ", "4D"], ["3S", "5C"], ["QS"], ["AC"]],
            jokers=1,
            spade_three=True,
            equal_plays=equal,
        )
        do(round_, 0, "RJ")
        refusal = round_.check(1, play("5C"))
        assert refusal is not None
        assert (refusal.code, refusal.rule) == ("beat_joker_spade_three", "R33")
        assert "3♠" in refusal.message and ("other joker" in refusal.message) is equal
    round_ = house([["RJ", "4D"], ["3S", "5C"], ["QS"], ["AC"]], jokers=1, equal_plays=True)
    do(round_, 0, "RJ")
    refusal = round_.check(1, play("5C"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("beat_jokers", "R10")


def test_R33_R14_the_ruleset_gives_one_answer_to_what_clears() -> None:
    """:meth:`Ruleset.clears` is the referee's, the forbidden finish's and the bots' answer."""
    plain = ruleset_for(Rules.make("standard"))
    assert plain.clears(play("2C", "2D"), False, None)
    assert not plain.clears(play("2C", "2D"), True, None)  # R17: 3s clear while reversed
    assert plain.clears(play("3H"), True, None)
    assert not plain.clears(play("8H"), False, None)
    eights = ruleset_for(Rules.make("standard", eight_stop=True, straights=True, jokers=1))
    assert eights.clears(play("8H"), False, None) and eights.clears(play("8H"), True, None)
    assert eights.clears(play("7H", "8H", "9H"), False, None)  # R14: a straight through 8
    assert eights.clears(play("7H", "RJ", "9H", RJ="8"), False, None)  # a joker standing for 8
    assert not eights.clears(play("KH", "AH", "2H"), False, None)  # no clearing by its top
    assert not eights.clears(play("RJ"), False, None)  # an all-joker set never clears
    assert eights.control_ranks(False) == 1 << 12 | 1 << 5
    assert eights.control_ranks(True) == 1 << 0 | 1 << 5
    spade = ruleset_for(Rules.make("standard", jokers=1, spade_three=True))
    assert spade.clears(play("3S"), False, play("RJ"))
    assert spade.clears(play("3S"), True, play("RJ"))
    assert not spade.clears(play("3S"), False, play("4C"))
    assert not plain.clears(play("3S"), False, play("RJ"))


# -- R34: forbidden finish -----------------------------------------------------------------------


def test_R34_going_out_on_a_two_takes_the_lowest_place() -> None:
    round_ = house([["2C"], ["5C", "6C"], ["7D", "8D"], ["9H", "10H"]], forbidden_finish=True)
    do(round_, 0, "2C")
    assert WentOut(0, 3, "forbidden") in events(round_)
    assert round_.places == [-1, -1, -1, 0] and round_.bottom_seats == [0]


def test_R34_places_fill_from_the_top_and_from_the_bottom() -> None:
    round_ = house(
        [["RJ"], ["5C", "2D"], ["7D"], ["9H", "10H", "QS"]], forbidden_finish=True, jokers=1
    )
    do(round_, 0, "RJ")  # a joker: forbidden, last place
    do(round_, 1)
    do(round_, 2)
    do(round_, 3)
    # Seat 0 went out and won the trick: seat 1 leads.
    do(round_, 1, "2D")  # a 2 while holding more: not a finish; it clears, seat 1 leads again
    do(round_, 1, "5C")  # an ordinary finish: first place
    do(round_, 2, "7D")  # first free place from the top: second
    assert round_.over
    assert round_.order() == [1, 2, 3, 0]


def test_R34_holds_is_literal_for_straights_and_eights_and_joker_sets() -> None:
    round_ = house(
        [["KH", "AH", "2H"], ["5C", "6C"], ["7D"]], forbidden_finish=True, straights=True
    )
    do(round_, 0, "KH", "AH", "2H")  # no clearing play, but it holds a 2
    assert round_.bottom_seats == [0]
    round_ = house([["8H"], ["5C", "6C"], ["7D", "4C"]], forbidden_finish=True, eight_stop=True)
    do(round_, 0, "8H")
    assert round_.bottom_seats == [0]
    round_ = house([["8H"], ["5C", "6C"], ["7D", "4C"]], forbidden_finish=True)
    do(round_, 0, "8H")  # without eight_stop an 8 is ordinary
    assert round_.bottom_seats == [] and round_.places[0] == 0


def test_R34_clearing_rank_is_the_one_in_force_before_the_play() -> None:
    round_ = house(
        [["3C"], ["5C", "6C"], ["7D", "4C"]], forbidden_finish=True, revolution=True,
        in_revolution=True,
    )  # fmt: skip
    do(round_, 0, "3C")  # 3 is the clearing rank during a revolution
    assert round_.bottom_seats == [0]
    round_ = house(
        [["2C"], ["5C", "6C"], ["7D", "4C"]],
        forbidden_finish=True,
        in_revolution=True,
        revolution=True,
    )
    do(round_, 0, "2C")  # 2 is the weakest rank then: an ordinary finish
    assert round_.bottom_seats == []


def test_R34_going_out_by_a_give_or_a_discard_is_never_forbidden() -> None:
    round_ = house(
        [["7C", "2D"], ["5C", "6C"], ["8D", "4C"]], forbidden_finish=True, seven_pass=True
    )
    do(round_, 0, "7C")
    round_.apply(give("2D"))
    assert round_.places[0] == 0 and round_.bottom_seats == []


# -- R35: downfall -------------------------------------------------------------------------------


def test_R35_a_new_president_sends_the_previous_one_to_the_bottom() -> None:
    rules = Rules.make("standard", players=4, downfall=True, equal_plays=False)
    round_ = Round(
        rules,
        [hand("5C"), hand("9C", "KD"), hand("6D", "AS"), hand("7H", "8H")],
        0,
        previous_president=1,
    )
    round_.log = []
    round_.apply(play("5C"))
    assert events(round_)[-2:] == [WentOut(0, 0, "finish"), WentOut(1, 3, "downfall")]
    assert round_.hands[1] == 0 and round_.out_of_play[1] == hand("9C", "KD")
    refusal = round_.check(1, PASS)
    assert refusal is not None and (refusal.code, refusal.rule) == ("fallen", "R35")


def test_R35_no_downfall_when_the_president_wins_again_or_in_round_one() -> None:
    rules = Rules.make("standard", players=4, downfall=True)
    round_ = Round(rules, [hand("5C"), hand("9C"), hand("6D"), hand("7H")], 0, previous_president=0)
    round_.apply(play("5C"))
    assert round_.fallen == 0
    round_ = Round(rules, [hand("5C"), hand("9C"), hand("6D"), hand("7H")], 0)
    round_.apply(play("5C"))
    assert round_.fallen == 0


def test_R35_downfall_in_a_game_and_its_view() -> None:
    rules = Rules.make("standard", players=3, rounds=2, downfall=True, exchange=False)
    game = Game(rules, hands=[hand("3C", "4C"), hand("5C"), hand("6C")])
    while game.phase is Phase.PLAY:
        game.apply(game.legal_moves()[0])
    president = game.places[0][0]
    # Round 2: someone else goes out first at once.
    deal = [hand("9C", "KD"), hand("9D", "KS"), hand("9H", "KH")]
    deal[president] = hand("4S", "5S")
    leader = game.places[0][-1]
    deal[leader] = hand("AC")
    game.start_next_round(deal)
    assert game.turn == leader
    events_ = game.apply(play("AC"))
    assert president != leader
    assert WentOut(president, 2, "downfall") in events_
    assert game.places[1][2] == president
    view = player_view(game, leader)
    assert president in view.public.fallen
    assert view.to_json()["out_of_play"][president] == 2  # a count: the cards stay unseen
    assert "4S" not in str(view.to_json())


# -- R36: seven pass -----------------------------------------------------------------------------


def test_R36_seven_pass_gives_cards_to_the_next_holder() -> None:
    round_ = house([["7C", "7D", "3H", "4H"], ["5C"], ["6D", "KD"], ["2S"]], seven_pass=True)
    do(round_, 0, "7C", "7D")
    owed = round_.owed
    assert owed == OwedAction(0, "give", 2, 1)
    assert round_.turn == 0
    assert all(m & (1 << 64) for m in round_.legal_moves()) and len(round_.legal_moves()) == 1
    refusal = round_.check(1, PASS)
    assert refusal is not None and (refusal.code, refusal.rule) == ("give_owed", "R36")
    round_.apply(give("3H", "4H"))
    assert round_.hands[1] == hand("5C", "3H", "4H")
    assert [e for e in events(round_) if isinstance(e, Gave)] == [Gave(0, 1, hand("3H", "4H"), 2)]
    # The trick goes on as the play made it: seat 1 must cover the pair of 7s.
    assert round_.turn == 1 and legal(round_) == expect("pass")


def test_R36_count_is_capped_by_the_cards_held_and_a_give_may_go_out() -> None:
    round_ = house([["7C", "7D", "3H"], ["5C"], ["6D", "KD"], ["2S"]], seven_pass=True)
    do(round_, 0, "7C", "7D")
    assert round_.owed is not None and round_.owed.number == 1
    round_.apply(give("3H"))
    assert round_.places[0] == 0  # R20: giving one's last card is going out


def test_R36_receiver_may_have_passed_and_stays_out_of_the_trick() -> None:
    round_ = house([["5C", "7D", "4H"], ["6C", "3S"], ["6D", "KD"], ["2S", "3D"]], seven_pass=True)
    do(round_, 0, "5C")
    do(round_, 1)  # seat 1 passes
    do(round_, 2, "6D")
    do(round_, 3)
    do(round_, 0, "7D")
    assert round_.owed is not None and round_.owed.receiver == 1
    round_.apply(give("4H"))
    assert round_.hands[1] == hand("6C", "3S", "4H")
    assert round_.passed >> 1 & 1 and round_.turn == 2


def test_R36_natural_sevens_only() -> None:
    round_ = house([["7C", "RJ", "3H", "4H"], ["5C"], ["6D"]], seven_pass=True, jokers=1)
    do(round_, 0, "7C", "RJ")
    assert round_.owed is not None and round_.owed.number == 1


# -- R37: ten discard ----------------------------------------------------------------------------


def test_R37_ten_discard_throws_cards_face_up() -> None:
    round_ = house([["10C", "3H", "4H"], ["5C"], ["6D", "KD"]], ten_discard=True)
    do(round_, 0, "10C")
    assert round_.owed == OwedAction(0, "discard", 1, -1)
    assert all(m & DISCARD for m in round_.legal_moves()) and len(round_.legal_moves()) == 2
    round_.apply(discard("3H"))
    assert round_.discarded == hand("3H") and round_.hands[0] == hand("4H")
    assert Discarded(0, hand("3H")) in events(round_)
    assert round_.turn == 1


def test_R37_give_comes_first_and_the_discard_counts_after_it() -> None:
    round_ = house(
        [["7H", "8H", "9H", "10H", "3C"], ["5C", "4D"], ["6D", "KD"]],
        seven_pass=True,
        ten_discard=True,
        straights=True,
    )
    do(round_, 0, "7H", "8H", "9H", "10H")
    assert round_.owed is not None and round_.owed.owed == "give"
    round_.apply(give("3C"))
    # The discard of min(1, 0 cards) is nothing: seat 0 went out by the give.
    assert round_.owed is None and round_.places[0] == 0


def test_R37_discard_not_owed_is_refused() -> None:
    round_ = house([["9C", "3H"], ["5C"], ["6D"]], ten_discard=True)
    refusal = round_.check(0, discard("3H"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("discard_not_owed", "R37")
    refusal = round_.check(0, give("3H"))
    assert refusal is not None and refusal.rule == "R25"


# -- R38: normal order for the owed and exchanged cards ---------------------------------------


def test_R38_any_cards_may_be_given_or_discarded_in_any_order() -> None:
    round_ = house(
        [["7C", "2H", "RJ", "3D"], ["5C"], ["6D"]], seven_pass=True, jokers=1, revolution=True,
        in_revolution=True,
    )  # fmt: skip
    do(round_, 0, "7C")
    moves = round_.legal_moves()
    assert len(moves) == 3  # 2H, RJ or 3D: no order-dependent limit
    assert give("RJ") in moves


# -- R39: what each player knows -------------------------------------------------------------------


def test_R39_views_show_lock_and_jack_back() -> None:
    rules = Rules.make("standard", players=3, suit_lock=True, jack_back=True, equal_plays=False)
    game = Game(
        rules, hands=[hand("3C", "9C", "9D"), hand("5C", "JC", "QS"), hand("4H", "8C", "2S")]
    )
    game.apply(play("3C"))
    game.apply(play("5C"))  # clubs on clubs: the trick is locked to clubs
    view = player_view(game, 2)
    assert view.public.reported() == {"lock": 0b0001, "jack_back": 0} and view.to_json()[
        "lock"
    ] == ["C"]
    assert legal_texts(view) == {"8C", "pass"}
    game.apply(play("8C"))
    game.apply(play("9C"))
    events_ = game.apply(play("JC"))
    assert TrickStateChanged(JACK_BACK, 1) in events_
    for seat in range(3):
        data = player_view(game, seat).to_json()
        assert data["jack_back"] is True and data["lock"] == ["C"]
        assert data["reversed_order"] is True


def test_R32_every_view_tells_the_order_in_force() -> None:
    """``reversed_order``: a revolution or a jack back reverses the order, both give it back."""
    rules = Rules.make("standard", players=3, revolution=True, jack_back=True, equal_plays=False)
    game = Game(
        rules,
        hands=[
            hand("5C", "5D", "5H", "5S", "QC", "3D"),
            hand("JD", "4C", "6C"),
            hand("KS", "3S", "6D"),
        ],
    )

    def told() -> set[tuple[bool, bool, bool]]:
        views = [player_view(game, seat).to_json() for seat in range(3)]
        return {(v["revolution"], v["jack_back"], v["reversed_order"]) for v in views}

    assert told() == {(False, False, False)}
    game.apply(play("5C", "5D", "5H", "5S"))  # a revolution (R15)
    assert told() == {(True, False, True)}
    game.apply(PASS)
    game.apply(PASS)
    game.apply(play("QC"))
    assert told() == {(True, False, True)}
    game.apply(play("JD"))  # a jack back during the revolution: the normal order (R32)
    assert told() == {(True, True, False)}


def legal_texts(view: Any) -> set[str]:
    out = set()
    for move in view.legal_moves:
        data = from_move(move).to_json()
        out.add(" ".join(data.get("cards", [])) or data["action"])
    return out


def test_R39_discards_and_places_from_the_bottom_are_public() -> None:
    rules = Rules.make("standard", players=3, ten_discard=True, forbidden_finish=True)
    game = Game(rules, hands=[hand("3C", "10C", "9D"), hand("5C", "2S"), hand("4H", "8C", "6S")])
    game.apply(play("3C"))
    game.apply(play("5C"))
    game.apply(play("8C"))
    game.apply(play("10C"))
    assert player_view(game, 1).owed == OwedAction(0, "discard", 1, -1)
    game.apply(discard("9D"))  # seat 0 goes out by the discard: an ordinary finish
    data = player_view(game, 2).to_json()
    assert data["discarded"] == ["9D"] and data["round_places"][0] == 0
    game.apply(play("2S"))  # seat 1 out on a 2: forbidden, the lowest free place
    data = player_view(game, 2).to_json()
    assert data["from_bottom"] == [1]


def test_R39_seven_pass_cards_are_seen_by_their_two_seats_only() -> None:
    rules = Rules.make("standard", players=3, seven_pass=True)
    game = Game(rules, hands=[hand("7C", "3H", "4H"), hand("5C", "9S"), hand("6D", "KD")])
    game.apply(play("7C"))
    owed_view = player_view(game, 2)
    assert owed_view.owed is not None and owed_view.owed.number == 1
    events_ = game.apply(give("3H"))
    assert Gave(0, 1, hand("3H"), 1) in events_
    for seat, sees in ((0, True), (1, True), (2, False)):
        data = player_view(game, seat).to_json()
        history = data["history"]
        gives = [h for h in history if h["action"] == "give"]
        assert gives and ("cards" in gives[0]) is False and gives[0]["count"] == 1
        assert bool(data["gives"]) is sees
        assert ("3H" in str(data)) is sees


# -- R40: the details ------------------------------------------------------------------------------


def test_R40_after_a_clearing_play_the_give_comes_first_then_the_player_leads() -> None:
    round_ = house(
        [["6C", "7C", "8C", "3H", "4H"], ["5C"], ["6D"]],
        seven_pass=True,
        eight_stop=True,
        straights=True,
    )
    do(round_, 0, "6C", "7C", "8C")  # a straight through 8 clears, and holds a 7
    assert round_.owed is not None and round_.last_move is not None
    round_.apply(give("3H"))
    assert round_.last_move is None and round_.turn == 0  # cleared: seat 0 leads


def test_R40_acting_while_someone_owes_is_refused_under_the_owed_rule() -> None:
    round_ = house([["10C", "3H", "4H"], ["5C"], ["6D", "KD"]], ten_discard=True)
    do(round_, 0, "10C")
    refusal = round_.check(2, play("KD"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("discard_owed", "R37")
    refusal = round_.check(0, give("3H"))
    assert refusal is not None and refusal.rule == "R37"
    refusal = round_.check(0, discard("3H", "4H"))
    assert refusal is not None and refusal.code == "owed_count"


def test_R40_a_lock_binds_the_spade_three_on_a_joker() -> None:
    round_ = house(
        [["5H", "9C"], ["6H", "4D"], ["RJ", "8C"], ["3S", "2C"]],
        suit_lock=True,
        spade_three=True,
        jokers=1,
    )
    do(round_, 0, "5H")
    do(round_, 1, "6H")
    do(round_, 2, "RJ")  # a lone joker satisfies a lock on one suit
    assert lock(round_) == 0b0100
    assert legal(round_) == expect("pass")  # 3S is outside the hearts lock


def test_R40_game_phase_flow_with_every_option() -> None:
    rules = Rules.make("daifugo", players=5, straights=True, jokers=2)
    game = Game(rules, seed=3)
    total = 0
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        game.apply(game.legal_moves()[-1])
        total += 1
    assert sum(game.points) == 3 * 15 and total > 0
