"""Rules R20–R25: going out, titles, points, dealing, the lead of each round, the exchange."""

from __future__ import annotations

import random

import pytest
from engine_testkit import do, give, hand, make_round, play

from cardverse.engine import (
    PASS,
    Game,
    IllegalAction,
    Phase,
    Rules,
    round_points,
    standings,
    title_for_place,
    titles_by_seat,
)
from cardverse.engine.cards import deck_mask
from cardverse.engine.dealing import deal

CLUBS = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C"]


def quick_game(players: int, rounds: int = 2, first: int = 0, **options: object) -> Game:
    """A game whose round 1 is dealt one club each; seat ``first`` holds the 3 of clubs.

    With ``three_of_clubs`` the holder of 3C leads and each seat in turn plays its only card
    (each beats the one before), so the places of round 1 are first, first+1, … in seat order.
    """
    rules = Rules.make("standard", players=players, rounds=rounds, **options)
    hands = [0] * players
    for offset in range(players):
        hands[(first + offset) % players] = hand(CLUBS[offset])
    game = Game(rules, hands=hands)
    while game.phase is Phase.PLAY:
        game.apply(game.legal_moves()[0])
    return game


# -- R20: going out and places -------------------------------------------------------------------


def test_R20_going_out_takes_the_next_place_and_the_last_holder_is_last() -> None:
    r = make_round([["5C"], ["6C", "9C"], ["7C", "10C"], ["8C", "JC"]], 0)
    do(r, 0, "5C")
    assert r.finished == [0]
    do(r, 1, "6C")
    do(r, 2, "7C")
    do(r, 3, "8C")
    do(r, 1, "9C")
    assert r.finished == [0, 1]
    assert not r.over
    do(r, 2, "10C")
    assert r.finished == [0, 1, 2, 3]  # only seat 3 held cards: the round ended
    assert r.over
    refusal = r.check(3, play("JC"))
    assert refusal is not None and refusal.rule == "R20"


def test_R20_a_seat_that_went_out_plays_no_more() -> None:
    r = make_round([["5C"], ["6C", "9C"], ["7C", "10C"]], 0)
    do(r, 0, "5C")
    refusal = r.check(0, PASS)
    assert refusal is not None and refusal.rule == "R20"


def test_R20_places_in_a_game_follow_the_order_of_going_out() -> None:
    game = quick_game(5, rounds=1, first=2, first_lead="three_of_clubs")
    assert game.places == [[2, 3, 4, 0, 1]]


# -- R21: titles ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "titles"),
    [
        (3, ["president", "citizen", "scum"]),
        (4, ["president", "vice_president", "vice_scum", "scum"]),
        (5, ["president", "vice_president", "citizen", "vice_scum", "scum"]),
        (6, ["president", "vice_president", "citizen", "citizen", "vice_scum", "scum"]),
        (8, ["president", "vice_president", *["citizen"] * 4, "vice_scum", "scum"]),
    ],
)
def test_R21_titles_by_place(players: int, titles: list[str]) -> None:
    assert [title_for_place(p, players) for p in range(players)] == titles
    order = list(range(players))[::-1]
    assert titles_by_seat(order) == {seat: titles[i] for i, seat in enumerate(order)}


# -- R22: points ----------------------------------------------------------------------------------


def test_R22_points_from_players_count_down_to_one() -> None:
    assert round_points([2, 0, 1]) == [2, 1, 3]
    assert round_points([3, 1, 0, 2]) == [2, 3, 1, 4]
    for players in range(3, 9):
        order = list(range(players))
        random.Random(players).shuffle(order)
        points = round_points(order)
        assert sorted(points) == list(range(1, players + 1))
        assert points[order[0]] == players and points[order[-1]] == 1


def test_R22_points_add_up_and_the_game_ends_after_its_rounds() -> None:
    game = quick_game(4, rounds=2, first=1, first_lead="three_of_clubs", exchange=False)
    assert game.places == [[1, 2, 3, 0]]
    assert game.points == [1, 4, 3, 2]
    assert game.phase is Phase.ROUND_OVER and not game.over
    game.start_next_round([hand("3D"), hand("5D"), hand("4D"), hand("6D")])
    assert game.turn == 0  # the previous Scum leads (R24)
    game.apply(play("3D"))
    game.apply(play("5D"))
    game.apply(PASS)  # seat 2 holds only the 4D
    game.apply(play("6D"))  # seat 3 goes out: seat 2 is left holding cards
    assert game.places == [[1, 2, 3, 0], [0, 1, 3, 2]]
    assert game.points == [1 + 4, 4 + 3, 3 + 1, 2 + 2]
    assert game.over and game.phase is Phase.GAME_OVER and game.turn is None
    with pytest.raises(IllegalAction) as error:
        game.start_next_round()
    assert error.value.refusal.rule == "R22"
    assert game.final_places() == [1, 0, 2, 2]  # seats 2 and 3 share the third place


def test_R22_equal_totals_share_a_place() -> None:
    assert standings([5, 7, 5, 3]) == [1, 0, 1, 3]
    assert standings([4, 4, 4]) == [0, 0, 0]
    assert standings([1, 9, 9, 2, 1]) == [3, 0, 0, 2, 3]


# -- R23: dealing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 9))
@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_R23_whole_deck_dealt_as_evenly_as_possible(players: int, jokers: int) -> None:
    rules = Rules.make("standard", players=players, jokers=jokers)
    hands = deal(rules, random.Random(players * 10 + jokers))
    union = 0
    for h in hands:
        assert not union & h
        union |= h
    assert union == deck_mask(jokers)
    sizes = [h.bit_count() for h in hands]
    assert max(sizes) - min(sizes) <= 1
    # One card at a time in seat order, from seat 0: the first seats hold the extra cards.
    assert sizes == sorted(sizes, reverse=True)
    assert sum(sizes) == 52 + jokers


def test_R23_every_round_is_shuffled_and_dealt_again() -> None:
    rules = Rules.make("standard", players=4, rounds=3, exchange=False)
    game = Game(rules, seed=7)
    assert Game(rules, seed=7).deals == game.deals  # a seed fixes the deal
    assert Game(rules, seed=8).deals != game.deals
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            assert sum(h.bit_count() for h in game.deals[-1]) == 52
            continue
        game.apply(game.legal_moves()[0])
    assert len(game.deals) == 3
    assert game.deals[0] != game.deals[1] != game.deals[2]


def test_R23_the_deals_generator_is_kept_only_while_a_round_is_left_to_deal() -> None:
    rules = Rules.make("standard", players=4, rounds=2, exchange=False)
    game = Game(rules, seed=7)
    same = Game(rules, seed=7)
    assert game.rng is not None  # round 2 is still to deal
    copy = game.clone()
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        game.apply(game.legal_moves()[0])
    assert game.rng is None  # the last round is dealt: its 2.5 KB of state is let go
    while not same.over:  # the same seed still deals the same rounds
        if same.phase is Phase.ROUND_OVER:
            same.start_next_round()
            continue
        same.apply(same.legal_moves()[0])
    assert same.deals == game.deals and same.rng is None
    assert copy.rng is not None and copy.clone().rng is not None
    assert game.clone().rng is None
    one = Rules.make("standard", players=4, rounds=1)
    assert Game(one, seed=3).rng is None  # one round, dealt at once
    assert Game(one, hands=Game(one, seed=3).deals[0]).rng is None  # never made
    with pytest.raises(IllegalAction):
        Game(one, seed=3).start_next_round()


# -- R24: who leads -------------------------------------------------------------------------------


def test_R24_first_seat_leads_round_one() -> None:
    rules = Rules.make("standard", players=3, first_lead="first_seat")
    game = Game(rules, hands=[hand("9C"), hand("3C"), hand("5D")])
    assert game.turn == 0 and game.leader == 0


def test_R24_holder_of_three_of_clubs_leads_round_one_with_any_play() -> None:
    rules = Rules.make("standard", players=4)
    game = Game(rules, hands=[hand("9C"), hand("4D"), hand("3C", "KD", "KS"), hand("5D")])
    assert game.turn == 2
    assert game.check(2, play("KD", "KS")) is None  # not obliged to play the 3C
    game.apply(play("KD", "KS"))


def test_R24_engine_choice_lowest_natural_leads_when_no_three_of_clubs() -> None:
    rules = Rules.make("standard", players=3, jokers=1)
    game = Game(rules, hands=[hand("9C", "RJ"), hand("6H"), hand("4S", "2D")])
    assert game.turn == 2
    game = Game(rules, hands=[hand("RJ", "KH"), hand("5H"), hand("QS")])
    assert game.turn == 1


def test_R24_later_rounds_are_led_by_the_previous_scum() -> None:
    for exchange in (False, True):
        game = quick_game(4, rounds=3, first=2, first_lead="three_of_clubs", exchange=exchange)
        assert game.places[-1][-1] == 1
        assert game.turn == 1  # between rounds: the next round's leader
        game.start_next_round(
            [hand("3D", "7H"), hand("4D", "8H", "9H"), hand("5D", "10H"), hand("6D", "JH")]
        )
        if exchange:
            game.apply(game.legal_moves()[0])  # the President (seat 2) gives back
            game.apply(game.legal_moves()[0])  # the Vice-President (seat 3) gives back
        assert game.phase is Phase.PLAY
        assert game.turn == 1, exchange


# -- R25: the exchange ----------------------------------------------------------------------------


def test_R25_no_exchange_in_round_one_or_with_the_option_off() -> None:
    game = Game(Rules.make("standard", players=4), seed=3)
    assert game.phase is Phase.PLAY and game.exchange_log == []
    game = quick_game(4, rounds=2, exchange=False)
    game.start_next_round([hand("3D"), hand("4D"), hand("5D"), hand("6D", "2S", "AS")])
    assert game.phase is Phase.PLAY and game.exchange_log == []
    assert game.hands[3] == hand("6D", "2S", "AS")


def test_R25_three_players_scum_gives_two_highest_president_gives_back_two() -> None:
    game = quick_game(3, rounds=2)  # places 0, 1, 2: seat 2 is the Scum
    game.start_next_round([hand("4D", "5D"), hand("6D", "7D"), hand("3S", "9S", "KS", "10S")])
    assert game.phase is Phase.EXCHANGE
    assert game.exchange_log == [(2, 0, hand("KS", "10S"))]
    assert game.hands[0] == hand("4D", "5D", "10S", "KS")
    assert game.turn == 0
    # Any two cards of the President's hand, received ones included: C(4, 2) = 6 choices.
    gives = {m & ~(1 << 64) for m in game.legal_moves()}
    assert len(gives) == 6 and all(m.bit_count() == 2 for m in gives)
    assert game.check(1, give("6D", "7D")) is not None  # the Citizen takes no part
    game.apply(give("KS", "4D"))
    assert game.phase is Phase.PLAY
    assert game.hands == [hand("5D", "10S"), hand("6D", "7D"), hand("3S", "9S", "KS", "4D")]
    assert game.turn == 2


def test_R25_jokers_are_the_highest_cards_of_the_exchange() -> None:
    game = quick_game(3, rounds=2, jokers=2)
    game.start_next_round([hand("4D"), hand("6D"), hand("2S", "2H", "BJ", "AS")])
    assert game.exchange_log == [(2, 0, hand("BJ", "2S"))] or game.exchange_log == [
        (2, 0, hand("BJ", "2H"))
    ]


def test_R25_four_players_vice_scum_gives_one_highest_to_vice_president() -> None:
    game = quick_game(4, rounds=2, jokers=2)  # places 0, 1, 2, 3
    game.start_next_round(
        [hand("4D", "5D", "6D"), hand("7D", "8D", "9D"), hand("3H", "JH", "QH"),
         hand("4S", "2S", "RJ", "9S")]
    )  # fmt: skip
    assert game.exchange_log == [(3, 0, hand("RJ", "2S")), (2, 1, hand("QH"))]
    assert game.turn == 0  # the President gives back first
    assert len(game.legal_moves()) == 10  # C(5, 2)
    refusal = game.check(1, give("7D"))
    assert refusal is not None and refusal.rule == "R25"
    game.apply(give("4D", "5D"))
    assert game.turn == 1
    assert len(game.legal_moves()) == 4  # any one of the Vice-President's 4 cards
    refusal = game.check(1, give("7D", "8D"))
    assert refusal is not None and refusal.rule == "R25"
    game.apply(give("QH"))
    assert game.phase is Phase.PLAY
    assert game.hands == [
        hand("6D", "2S", "RJ"),
        hand("7D", "8D", "9D"),
        hand("3H", "JH", "QH"),
        hand("4S", "9S", "4D", "5D"),
    ]
    assert game.turn == 3  # the Scum leads


def test_R25_nobody_plays_during_the_exchange() -> None:
    game = quick_game(3, rounds=2)
    game.start_next_round([hand("4D", "5D"), hand("6D", "7D"), hand("3S", "9S", "KS")])
    for seat, move in ((2, play("3S")), (0, play("4D")), (0, PASS)):
        refusal = game.check(seat, move)
        assert refusal is not None and refusal.rule == "R25"
    refusal = game.check(0, give("8C", "4D"))  # not in the hand
    assert refusal is not None and refusal.rule == "R25"
    with pytest.raises(IllegalAction):
        game.apply(play("3S"), 2)


def test_R25_recorded_gift_may_name_any_equally_high_cards() -> None:
    game = quick_game(3, rounds=2)
    deal2 = [hand("4D", "5D"), hand("6D", "7D"), hand("3S", "KS", "KH", "KD")]
    game.start_next_round(deal2, gifts={2: hand("KS", "KD")})
    assert game.exchange_log == [(2, 0, hand("KS", "KD"))]
    game = quick_game(3, rounds=2)
    with pytest.raises(IllegalAction) as error:
        game.start_next_round(deal2, gifts={2: hand("KS", "3S")})
    assert error.value.refusal.rule == "R25"


def test_R25_give_back_answers_the_gift_card_for_card_with_a_short_scum() -> None:
    # A bug fixed in game.py: with a partial deal the Scum held one card, gave it, and the
    # President had to give back two, emptying its hand; the round then ended with a place -1.
    game = quick_game(3, rounds=2)
    game.start_next_round([hand("3D"), hand("4D"), hand("5D")])
    assert game.exchange_log == [(2, 0, hand("5D"))]
    assert {m & ~(1 << 64) for m in game.legal_moves()} == {hand("3D"), hand("5D")}
    refusal = game.check(0, give("3D", "5D"))
    assert refusal is not None and refusal.rule == "R25"
    game.apply(give("3D"))
    assert game.hands == [hand("5D"), hand("4D"), hand("3D")]
    game.apply(play("3D"))  # the Scum leads and goes out
    game.apply(play("5D"))
    assert game.places == [[0, 1, 2], [2, 0, 1]]
    assert game.points == [5, 3, 4]
