"""Rules R26–R27: what each player knows, and that computer players know no more."""

from __future__ import annotations

import dataclasses
import json

from engine_testkit import card_strings, give, hand, play

from cardverse.engine import PASS, Game, Phase, Rules, player_view


def names(mask: int) -> set[str]:
    from cardverse.engine import mask_names

    return set(mask_names(mask))


def five_player_game_in_round_two() -> Game:
    """Round 1 ends 0, 1, 2, 3, 4; round 2 starts with its exchange (5 players)."""
    rules = Rules.make("standard", players=5, rounds=2, first_lead="first_seat")
    game = Game(rules, hands=[hand(c) for c in ("3C", "4C", "5C", "6C", "7C")])
    while game.phase is Phase.PLAY:
        game.apply(game.legal_moves()[0])
    assert game.places == [[0, 1, 2, 3, 4]]
    game.start_next_round(
        [
            hand("3D", "4D", "5D"),
            hand("6D", "7D", "8D"),
            hand("9D", "10D", "JD"),
            hand("3H", "4H", "QH"),
            hand("5H", "6H", "KH", "AH"),
        ]
    )
    return game


# -- R26 ------------------------------------------------------------------------------------------


def test_R26_view_shows_own_hand_counts_of_others_and_the_public_state() -> None:
    rules = Rules.make("standard", players=3, first_lead="first_seat")
    game = Game(rules, hands=[hand("3C", "9C", "KD"), hand("4C", "5C"), hand("6C", "7C", "8C")])
    game.apply(play("3C"))
    game.apply(play("4C"))
    game.apply(PASS)  # seat 2 passes
    view = player_view(game, 1)
    assert view.hand == hand("5C")
    assert view.hand_counts == (2, 1, 3)
    assert view.trick == ((0, play("3C")), (1, play("4C")), (2, PASS))
    assert view.history == ((0, 0, play("3C")), (0, 1, play("4C")), (0, 2, PASS))
    assert view.passed == (2,)
    assert view.turn == 0 and view.legal_moves == ()  # only the seat on turn gets moves
    assert view.points == (0, 0, 0) and view.revolution is False and view.finished == ()
    data = view.to_json()
    assert data["hand"] == ["5C"]
    assert data["hand_counts"] == [2, 1, 3]
    assert data["trick"][2] == {"seat": 2, "action": "pass"}
    assert data["history"][0] == {"trick": 0, "seat": 0, "action": "play", "cards": ["3C"]}
    own = player_view(game, 0)
    assert own.legal_moves and set(own.legal_moves) == set(game.legal_moves())
    assert card_strings(own.to_json()["legal_moves"]) <= names(own.hand)


def test_R26_view_never_holds_another_seats_cards() -> None:
    game = Game(Rules.make("standard", players=4, jokers=2, straights=True), seed=11)
    for _ in range(12):
        game.apply(game.legal_moves()[0])
    played = 0
    assert game.round is not None
    for _, _, move in game.round.history:
        if move != PASS:
            played |= move & ((1 << 54) - 1)
    for seat in range(4):
        view = player_view(game, seat)
        seen = card_strings(view.to_json())
        assert seen <= names(game.hands[seat]) | names(played), seat
        for other in range(4):
            if other != seat:
                assert not seen & names(game.hands[other])


def test_R26_places_titles_points_and_revolution_are_public() -> None:
    rules = Rules.make("cardverse", players=3, rounds=2, exchange=False)
    game = Game(rules, hands=[hand("5C", "5D", "5H", "5S", "9C"), hand("4C", "KD"), hand("6C")])
    game.apply(play("5C", "5D", "5H", "5S"))
    assert all(player_view(game, s).revolution for s in range(3))
    game.apply(PASS)
    game.apply(PASS)
    game.apply(play("9C"))
    assert all(player_view(game, s).finished == (0,) for s in range(3))
    game.apply(play("4C"))
    game.apply(PASS)
    game.apply(play("KD"))
    view = player_view(game, 2)
    assert view.places == ((0, 1, 2),)
    assert view.points == (3, 2, 1)
    assert view.to_json()["titles"] == {"0": "president", "1": "citizen", "2": "scum"}
    assert view.turn == 2  # the next round's leader
    assert view.revolution is False  # between rounds


def test_R26_exchange_cards_are_seen_only_by_the_two_players_of_the_pair() -> None:
    game = five_player_game_in_round_two()
    # Scum 4 gives AH KH to President 0; Vice-Scum 3 gives QH to Vice-President 1.
    game.apply(give("3D", "4D"))
    game.apply(give("6D"))
    assert game.phase is Phase.PLAY
    seen = {seat: card_strings(player_view(game, seat).to_json()) for seat in range(5)}
    assert {"AH", "KH", "3D", "4D"} <= seen[0] and {"AH", "KH", "3D", "4D"} <= seen[4]
    assert {"QH", "6D"} <= seen[1] and {"QH", "6D"} <= seen[3]
    assert not seen[2] & {"AH", "KH", "3D", "4D", "QH", "6D"}  # the Citizen sees none
    assert not seen[1] & {"AH", "KH", "3D", "4D"}
    assert not seen[3] & {"AH", "KH", "3D", "4D"}
    assert not seen[4] & {"QH", "6D"}
    assert not seen[0] & {"QH", "6D"}
    # Who exchanges with whom and how many cards is public.
    pairs = player_view(game, 2).to_json()["exchange_pairs"]
    assert pairs == [
        {"giver": 4, "receiver": 0, "count": 2},
        {"giver": 3, "receiver": 1, "count": 1},
    ]
    scum = player_view(game, 4).to_json()["exchange"]
    assert scum == [
        {"giver": 4, "receiver": 0, "cards": ["KH", "AH"], "automatic": True},
        {"giver": 0, "receiver": 4, "cards": ["3D", "4D"], "automatic": False},
    ]


def test_R26_during_the_exchange_the_receiver_sees_its_gift_and_its_choices() -> None:
    game = five_player_game_in_round_two()
    president = player_view(game, 0)
    assert president.turn == 0 and president.phase == "exchange"
    assert president.hand == hand("3D", "4D", "5D", "KH", "AH")
    assert len(president.legal_moves) == 10
    citizen = player_view(game, 2)
    assert citizen.legal_moves == () and citizen.exchange == ()
    assert card_strings(citizen.to_json()) == {"9D", "10D", "JD"}


# -- R27 ------------------------------------------------------------------------------------------


def test_R27_a_view_depends_only_on_what_its_seat_may_see() -> None:
    # Two deals that differ only in how the cards of seats 1 and 2 are split (same counts):
    # seat 0's view, the only input a computer player gets, must be identical.
    a = [hand("3C", "9C", "KD"), hand("4C", "5C", "JH"), hand("6C", "7C", "QS")]
    b = [hand("3C", "9C", "KD"), hand("4C", "6C", "QS"), hand("5C", "7C", "JH")]
    rules = Rules.make("standard", players=3, first_lead="first_seat")
    games = [Game(rules, hands=list(a)), Game(rules, hands=list(b))]
    for game in games:
        game.apply(play("3C"))
        game.apply(play("4C"))
    views = [player_view(g, 0) for g in games]
    assert views[0] == views[1]
    assert json.dumps(views[0].to_json(), sort_keys=True) == json.dumps(
        views[1].to_json(), sort_keys=True
    )
    assert player_view(games[0], 1) != player_view(games[1], 1)


def test_R27_player_view_has_no_field_for_other_hands() -> None:
    from cardverse.engine import PlayerView, PublicView, SeatView

    assert {f.name for f in dataclasses.fields(PlayerView)} == {"public", "own"}
    fields = {f.name for part in (PublicView, SeatView) for f in dataclasses.fields(part)}
    assert "hands" not in fields and "deals" not in fields and "rng" not in fields
    game = Game(Rules.make("standard", players=4), seed=5)
    data = player_view(game, 2).to_json()
    assert set(data) == {
        "seat", "rules", "round", "phase", "hand", "hand_counts", "turn", "leader", "trick",
        "history", "passed", "finished", "revolution", "points", "places", "titles",
        "exchange", "exchange_pairs", "legal_moves",
        # the house rules' public facts (R39) and the seat's own seven passes
        "round_places", "from_bottom", "fallen", "out_of_play", "discarded", "jack_back", "lock",
        "owed", "gives", "reversed_order",
    }  # fmt: skip
    assert card_strings(data) == names(game.hands[2])
