"""The bots under the house rules (R31–R40): legal play in every option combination, strict
simulation, and sensible choices for the seven pass, the ten discard and forbidden finishes."""

from __future__ import annotations

from typing import Any

import pytest
from engine_testkit import hand, play
from hypothesis import given, settings
from hypothesis import strategies as st

from cardverse.arena import turns
from cardverse.bots import make_bot, policy
from cardverse.bots.hard import _playout
from cardverse.bots.positions import round_of_view
from cardverse.engine import DISCARD, GIVE, PASS, Game, IllegalAction, Rules, player_view

HOUSE_RULES = (
    "suit_lock",
    "jack_back",
    "spade_three",
    "forbidden_finish",
    "downfall",
    "seven_pass",
    "ten_discard",
)


@st.composite
def house_rules(draw: st.DrawFn) -> Rules:
    options: dict[str, Any] = {name: draw(st.booleans()) for name in HOUSE_RULES}
    options["jokers"] = draw(st.integers(0, 2))
    if not options["jokers"]:
        options["spade_three"] = False
    return Rules.make(
        "daifugo",
        players=draw(st.integers(3, 6)),
        rounds=2,
        straights=draw(st.booleans()),
        revolution=draw(st.booleans()),
        eight_stop=draw(st.booleans()),
        equal_plays=draw(st.booleans()),
        **options,
    )


@settings(max_examples=12, deadline=None)
@given(rules=house_rules(), seed=st.integers(0, 2**16))
def test_R27_strict_bots_play_whole_games_under_any_house_rules(rules: Rules, seed: int) -> None:
    """Every bot's choice is legal, and the hard bot's strict playouts never simulate an illegal
    action (a strict playout raises IllegalAction on one)."""
    game = Game(rules, seed=seed)
    levels = ["hard", "normal", "easy"]
    bots = [
        make_bot(levels[s % 3], seed=seed + s, playouts=12, strict=True)
        for s in range(rules.players)
    ]
    for steps, (seat, view) in enumerate(turns(game), 1):
        move = bots[seat].choose(view)
        assert move in view.legal_moves
        game.apply(move, seat)
        assert steps < 4000
    assert sum(game.points) == 2 * rules.players * (rules.players + 1) // 2


def test_R27_strict_mode_catches_a_shortcut_the_rules_do_not_allow() -> None:
    """Under a suit lock the rank-count shortcut would play outside the lock: the rules declare it
    unsafe, and forcing it on in strict mode makes the playout fail instead of passing silently."""
    rules = Rules.make("standard", players=3, suit_lock=True, equal_plays=False)
    style = policy.Style.of(rules)
    assert not style.fast_playouts
    game = Game(
        rules, hands=[hand("3H", "9C", "2D"), hand("4H", "8S", "5D"), hand("7H", "KS", "6D")]
    )
    game.apply(play("3H"))
    game.apply(play("4H"))  # hearts on hearts: locked to hearts
    view = player_view(game, 2)
    template = round_of_view(view)
    hands = list(game.hands)
    assert _playout(template, hands, play("7H"), 2, style, True) >= 1  # the real style is legal
    unsafe = style._replace(fast_playouts=True)
    # Seat 2 passes; the shortcut then has seat 0 cover 4H with its weakest single, 9C.
    with pytest.raises(IllegalAction) as caught:
        _playout(template, hands, PASS, 2, unsafe, True)
    assert caught.value.refusal.rule == "R31"


def test_R36_normal_gives_its_weakest_cards_and_keeps_its_twos() -> None:
    rules = Rules.make("standard", players=3, seven_pass=True)
    game = Game(
        rules, hands=[hand("3C", "7C", "2D", "5S", "5H", "8D"), hand("4H", "9S"), hand("6D", "KD")]
    )
    game.apply(play("3C"))
    game.apply(play("4H"))
    game.apply(play("6D"))
    game.apply(play("7C"))
    view = player_view(game, 0)
    assert view.legal_moves[0] & GIVE and view.owed is not None
    # A single card goes; the 2 and the pair of 5s stay.
    assert make_bot("normal").choose(view) == hand("8D") | GIVE


def test_R37_normal_discards_the_cards_that_break_no_group() -> None:
    rules = Rules.make("standard", players=3, ten_discard=True)
    game = Game(
        rules, hands=[hand("3C", "10C", "4D", "9S", "9H", "2D"), hand("4H", "JS"), hand("6D", "KD")]
    )
    game.apply(play("3C"))
    game.apply(play("4H"))
    game.apply(play("6D"))
    game.apply(play("10C"))
    view = player_view(game, 0)
    assert view.legal_moves[0] & DISCARD
    assert make_bot("normal").choose(view) == hand("4D") | DISCARD


def test_R34_normal_does_not_go_out_on_a_forbidden_finish() -> None:
    for forbidden in (True, False):
        rules = Rules.make("standard", players=3, forbidden_finish=forbidden, equal_plays=False)
        game = Game(rules, hands=[hand("3C", "9C"), hand("2C"), hand("6D", "KD", "4S")])
        game.apply(play("3C"))
        view = player_view(game, 1)  # a lone 2 against a 3: going out on it is forbidden (R34)
        choice = make_bot("normal").choose(view)
        assert choice == (PASS if forbidden else play("2C"))
        hard = make_bot("hard", seed=3, playouts=40, strict=True)
        assert hard.choose(view) in view.legal_moves


@pytest.mark.parametrize(
    "options",
    [
        {"seven_pass": True, "ten_discard": True, "jokers": 2},
        {"suit_lock": True, "jack_back": True, "straights": True, "jokers": 1},
        {"forbidden_finish": True, "spade_three": True, "revolution": True, "jokers": 1},
        {"downfall": True, "eight_stop": True, "equal_plays": False},
    ],
)
def test_R30_the_search_tree_simulates_only_legal_actions_under_house_rules(
    options: dict[str, Any],
) -> None:
    """The hard bot's tree over its own later decisions (tree_search) reuses a decision for every
    deal that looks the same to it: in strict mode an action illegal in one of them would raise."""
    from cardverse.bots.hard import HardBot

    rules = Rules.make("daifugo", players=4, rounds=2, **options)
    game = Game(rules, seed=21)
    bots = [HardBot(seed=s, playouts=40, strict=True, tree=True) for s in range(4)]
    grown = 0
    for seat, view in turns(game):
        move = bots[seat].choose(view)
        assert move in view.legal_moves
        tree = bots[seat].last_tree
        if bots[seat].last_reason == "search" and tree is not None and tree.children:
            grown += 1
        game.apply(move, seat)
    assert grown > 0  # the searches did reach the bots' later decisions
