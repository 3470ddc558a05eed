"""Opponent models (bots/models.py), their per-seat posteriors and the deal sampler's chains
(bots/knowledge.py), and the playouts that play a seat by its model (bots/playout.py); R30."""

from __future__ import annotations

import random
from typing import Any

import pytest

from cardverse.arena import turns
from cardverse.bots import Bot
from cardverse.bots.baselines import StructureBot
from cardverse.bots.easy import EasyBot
from cardverse.bots.hard import HardBot
from cardverse.bots.knowledge import Knowledge, PlausibleDeals
from cardverse.bots.models import (
    HIGHEST,
    LOWEST,
    SENSIBLE,
    STRUCTURE,
    highest_play,
    lowest_play,
    model_move,
    plays_needed,
)
from cardverse.bots.normal import NormalBot
from cardverse.bots.playout import next_move, play_out
from cardverse.bots.policy import Style
from cardverse.bots.positions import round_of_view
from cardverse.engine import PASS, Game, Phase, PlayerView, Round, Rules, player_view
from cardverse.engine.cards import parse_cards
from cardverse.engine.exchange import card_height


def cards(text: str) -> int:
    return parse_cards(text.split())


def _view_after(game: Game, bots: list[Bot], actions: int, me: int) -> PlayerView | None:
    """Play ``actions`` actions of the current round, then on until ``me`` is on turn; its view
    (None when the round ends first)."""
    done = 0
    while game.phase is Phase.PLAY or game.phase is Phase.EXCHANGE:
        seat = game.turn
        assert seat is not None
        view = player_view(game, seat)
        if done >= actions and seat == me and len(view.legal_moves) > 1:
            return view
        game.apply(bots[seat].choose(view), seat)
        done += 1
    return None


def _posterior_of(
    kind: Bot, seeds: range, actions: int, decisive: float = 0.0
) -> list[tuple[float, ...]]:
    """Seat 1's posterior over the models (seat 1 played by ``kind``), seen by seat 0 of normal
    players ``actions`` actions into a round, for each game seed."""
    rules = Rules.make("cardverse")
    found = []
    for seed in seeds:
        game = Game(rules, seed=seed)
        bots: list[Bot] = [NormalBot(), kind, NormalBot(), NormalBot()]
        view = _view_after(game, bots, 20, 0)
        if view is None:
            continue
        knowledge = Knowledge.of(view)
        deals = PlausibleDeals(
            view,
            knowledge,
            random.Random(seed),
            pool=60,
            surprise=0.2,
            seat_models=True,
            decisive=decisive,
        )
        posterior = deals.posteriors[1]
        found.append(posterior)
        best = max(range(4), key=lambda m: (posterior[m], -m))
        assert deals.seat_model[1] == (best if posterior[best] >= decisive else SENSIBLE)
        assert abs(sum(deals.posteriors[1]) - 1.0) < 1e-9
    return found


def test_R30_the_per_seat_posterior_picks_lowest_play_for_a_seat_that_always_played_lowest() -> (
    None
):
    found = _posterior_of(EasyBot(), range(8), 20, decisive=0.6)
    assert len(found) >= 6
    assert all(max(p) == p[LOWEST] for p in found), found


def test_R30_the_per_seat_posterior_prefers_the_policy_for_a_normal_seat() -> None:
    """The policy and the structure keeper often agree; together they outweigh lowest play."""
    found = _posterior_of(NormalBot(), range(8), 30)
    assert len(found) >= 6
    liked = [p for p in found if p[SENSIBLE] + p[STRUCTURE] > p[LOWEST]]
    assert len(liked) >= len(found) - 1, found


def _lowest_shares(kind: type[Bot], lowest_gate: float) -> list[float]:
    """The lowest play's share of the posteriors of seats 1-3 (all played by ``kind``), seen by a
    normal seat 0 twenty actions into a round, over the policy, the lowest play and the
    structure keeper."""
    rules = Rules.make("cardverse")
    shares = []
    for seed in range(6):
        game = Game(rules, seed=seed)
        view = _view_after(game, [NormalBot(), kind(), kind(), kind()], 20, 0)
        if view is None:
            continue
        deals = PlausibleDeals(
            view,
            Knowledge.of(view),
            random.Random(seed),
            pool=60,
            surprise=0.2,
            seat_models=True,
            model_set=(True, True, False, True),
            lowest_gate=lowest_gate,
        )
        for seat in (1, 2, 3):
            assert abs(sum(deals.posteriors[seat]) - 1.0) < 1e-9
            shares.append(deals.posteriors[seat][LOWEST])
    return shares


@pytest.mark.parametrize("gate", [-0.1, 1.5])
def test_R30_a_lowest_gate_outside_0_to_1_is_refused_by_name(gate: float) -> None:
    with pytest.raises(ValueError, match="lowest_gate must be between 0 and 1"):
        HardBot(playouts=10, lowest_gate=gate)


def test_R30_the_lowest_gate_keeps_the_lowest_play_only_where_the_evidence_is_clear() -> None:
    """Below the gate the lowest play's share is dropped (the rest renormalised): normal seats
    lose it, seats that always played lowest keep it."""
    ungated = _lowest_shares(NormalBot, 0.0)
    gated = _lowest_shares(NormalBot, 0.6)
    assert len(gated) >= 12
    assert sum(share > 0.0 for share in ungated) == len(ungated)  # some share, ungated
    assert sum(share == 0.0 for share in gated) >= len(gated) * 3 // 4, gated
    assert all(share == 0.0 or share >= 0.6 for share in gated)
    easy = _lowest_shares(EasyBot, 0.6)
    assert sum(share >= 0.6 for share in easy) >= len(easy) // 2, easy


def test_R30_a_seat_no_model_explains_is_sampled_uniformly() -> None:
    """A seat whose best model misses most of its actions is weighed by no model."""
    rules = Rules.make("cardverse")
    game = Game(rules, seed=5)
    bots: list[Bot] = [NormalBot() for _ in range(4)]
    view = _view_after(game, bots, 16, 0)
    assert view is not None
    knowledge = Knowledge.of(view)
    strict = PlausibleDeals(
        view, knowledge, random.Random(2), pool=40, surprise=0.2, seat_models=True, unexplained=0.0
    )
    lax = PlausibleDeals(
        view, knowledge, random.Random(2), pool=40, surprise=0.2, seat_models=True, unexplained=1.0
    )
    assert all(lax.explained)
    # With no miss allowed, some seat whose best model missed any action is left unweighed.
    assert not all(strict.explained[s] for s in knowledge.others())


def _phase(game: Game) -> Phase:
    return game.phase


def _round_two_view(seed: int) -> tuple[Game, PlayerView] | None:
    """The view of a seat early in round 2 (after the exchange: pins and caps)."""
    rules = Rules.make("cardverse", rounds=2)
    game = Game(rules, seed=seed)
    bots: list[Bot] = [NormalBot() for _ in range(4)]
    while game.phase is not Phase.ROUND_OVER:
        seat = game.turn
        assert seat is not None
        game.apply(bots[seat].choose(player_view(game, seat)), seat)
    game.start_next_round()
    for _ in range(8):
        if _phase(game) not in (Phase.PLAY, Phase.EXCHANGE):
            return None
        seat = game.turn
        assert seat is not None
        game.apply(bots[seat].choose(player_view(game, seat)), seat)
    if _phase(game) is not Phase.PLAY:
        return None
    seat = game.turn
    assert seat is not None
    return game, player_view(game, seat)


@pytest.mark.parametrize("chains, thin", [(1, 1), (3, 1), (2, 3)])
def test_R30_sampled_deals_respect_sizes_pins_and_caps(chains: int, thin: int) -> None:
    checked = 0
    for seed in range(6):
        found = _round_two_view(seed)
        if found is None:
            continue
        view = found[1]
        knowledge = Knowledge.of(view)
        deals = PlausibleDeals(
            view,
            knowledge,
            random.Random(seed),
            pool=30,
            surprise=0.2,
            burn_in=20,
            seat_models=True,
            chains=chains,
            thin=thin,
        )
        assert len(deals.deals) == 30
        for deal in deals.deals:
            assert deal[view.seat] == view.hand
            union = 0
            for seat in range(4):
                assert deal[seat].bit_count() == view.hand_counts[seat]
                assert deal[seat] & union == 0
                union |= deal[seat]
                if seat != view.seat:
                    assert knowledge.pinned[seat] & ~deal[seat] == 0
                    free = deal[seat] & ~knowledge.pinned[seat]
                    assert all(
                        card_height(c) <= knowledge.caps[seat] for c in range(54) if free >> c & 1
                    )
            assert union == knowledge.unseen | view.hand
        checked += 1
        if any(knowledge.pinned) or any(c < 13 for c in knowledge.caps):
            checked += 10
    assert checked > 10  # at least one view had exchange facts to keep


def test_R30_thinning_makes_consecutive_deals_differ_more() -> None:
    rules = Rules.make("cardverse")
    game = Game(rules, seed=3)
    bots: list[Bot] = [NormalBot() for _ in range(4)]
    view = _view_after(game, bots, 12, 0)
    assert view is not None
    knowledge = Knowledge.of(view)
    one = PlausibleDeals(view, knowledge, random.Random(4), pool=60, surprise=0.2)
    four = PlausibleDeals(view, knowledge, random.Random(4), pool=60, surprise=0.2, thin=4)
    assert 0.0 <= one.consecutive_change() < four.consecutive_change() <= 1.0


def test_R28_models_lowest_and_highest_plays() -> None:
    hand = cards("3S 3H 9D KC")
    legal = [cards("3S"), cards("3H"), cards("3S 3H"), cards("9D"), cards("KC")]
    assert lowest_play(legal, False) in (cards("3S"), cards("3H"))
    assert highest_play(legal, False) == cards("KC")
    assert highest_play(legal, True) == cards("3S 3H")  # a revolution: 3s are the strongest
    assert lowest_play([PASS], False) == PASS
    assert hand  # the hand the plays come from


def _plays_needed_by_rank(hand: int, straights: bool) -> int:
    """plays_needed spelt out rank by rank and suit by suit (the reference it is checked on)."""
    ranks = [(hand >> (rank * 4)) & 15 for rank in range(13)]
    plays = sum(1 for nibble in ranks if nibble)
    if straights:
        for suit in range(4):
            run = 0
            for nibble in [*ranks, 0]:  # a sentinel rank ends the last run
                if nibble == 1 << suit:
                    run += 1
                    continue
                if run >= 3:
                    plays -= run - 1
                run = 0
    if not plays:
        return 1 if hand >> 52 else 0
    return plays


def test_R30_structure_plays_needed_matches_a_rank_by_rank_count() -> None:
    rng = random.Random(14)
    for _ in range(3000):
        hand = sum(1 << card for card in rng.sample(range(54), rng.randint(0, 20)))
        for straights in (False, True):
            assert plays_needed(hand, straights) == _plays_needed_by_rank(hand, straights), hex(
                hand
            )
    # A run of single cards of one suit is one play; a pair in the run breaks it.
    assert plays_needed(cards("3C 4C 5C 6C 9S"), True) == 2
    assert plays_needed(cards("3C 4C 4D 5C 6C"), True) == 4


def test_R30_structure_model_plays_as_the_structure_baseline() -> None:
    rules = Rules.make("cardverse")
    for seed in range(3):
        game = Game(rules, seed=seed)
        bot = StructureBot()
        bots: list[Bot] = [bot, NormalBot(), NormalBot(), NormalBot()]
        while game.phase is Phase.PLAY:
            seat = game.turn
            assert seat is not None
            view = player_view(game, seat)
            if seat == 0 and len(view.legal_moves) > 1:
                round_ = round_of_view(view)
                round_.hands = list(game.hands)
                assert model_move(round_, STRUCTURE) == bot.choose(view)
            game.apply(bots[seat].choose(view), seat)


def test_R30_playouts_play_each_seat_by_its_model() -> None:
    rules = Rules.make("cardverse", players=3)
    round_ = Round(rules, [cards("4D 5H"), cards("6S KS"), cards("7D 9H")], 0)
    round_.apply(cards("4D"))
    style = Style.of(rules)
    assert next_move(round_, style, (SENSIBLE, HIGHEST, SENSIBLE)) == cards("KS")
    assert next_move(round_, style, (SENSIBLE, LOWEST, SENSIBLE)) == cards("6S")
    template = Round(rules, [0, 0, 0], 0)
    hands = [cards("4D 5H QC"), cards("6S KS 8C"), cards("7D 9H JC")]
    for models in [(SENSIBLE, LOWEST, HIGHEST), (SENSIBLE, STRUCTURE, LOWEST), None]:
        points = play_out(template, hands, cards("4D"), 0, style, True, models)
        assert 1 <= points <= 3


def test_R30_hard_with_opponent_models_plays_legal_whole_games() -> None:
    rules = Rules.make("cardverse")
    variants: list[dict[str, Any]] = [
        {"playout_models": "best", "decisive": 0.7},
        {"playout_models": "sample", "chains": 2, "thin": 2},
        {"seat_models": False, "playout_models": "none"},  # the search before opponent models
        {"models": ["sensible", "lowest", "highest", "structure"]},
    ]
    for seed, options in enumerate(variants):
        game = Game(rules, seed=seed)
        bots: list[Bot] = [HardBot(seed=seed, playouts=60, strict=True, **options)] + [
            NormalBot() for _ in range(3)
        ]
        for seat, view in turns(game):
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            game.apply(move, seat)


def test_R30_hard_by_default_models_each_seat_as_the_policy_or_the_structure_keeper() -> None:
    bot = HardBot(playouts=10)
    assert bot.seat_models and bot.playout_models == "sample"
    assert bot.model_set == (True, False, False, True)  # sensible and structure, by model id
    old = HardBot(playouts=10, seat_models=False, playout_models="none")
    assert not old.seat_models


def test_R30_hard_refuses_unknown_model_options() -> None:
    with pytest.raises(ValueError, match="playout_models must be one of none, best, sample"):
        HardBot(playout_models="everyone")
    with pytest.raises(ValueError, match="chains and thin"):
        HardBot(chains=0)
    with pytest.raises(ValueError, match="playout_block is none, me or all"):
        HardBot(playout_block="others")
    with pytest.raises(ValueError, match="exchange_candidates at least 1"):
        HardBot(exchange_candidates=0)
    with pytest.raises(ValueError, match="exchange_budget must be positive"):
        HardBot(exchange_budget=-1.0)


def test_R30_hard_search_options_play_legal_whole_games() -> None:
    """The root search's options (candidates, exploration, the final pick, the policy's margin,
    deals whose playouts block, every other seat played by one model) keep every move legal."""
    rules = Rules.make("cardverse")
    variants: list[dict[str, Any]] = [
        {"max_candidates": 3, "final": "lcb", "block_share": 0.5},
        {"final": "visits", "prior_margin": 0.05, "exploration": 1.0},
        {"others_model": "structure", "tree": False},
        {"others_model": "structure", "others_share": 0.5},
        {"seat_models": True, "playout_models": "sample", "models": ["sensible", "structure"]},
    ]
    for seed, options in enumerate(variants):
        game = Game(rules, seed=seed)
        bots: list[Bot] = [HardBot(seed=seed, playouts=60, strict=True, **options)] + [
            NormalBot() for _ in range(3)
        ]
        for seat, view in turns(game):
            move = bots[seat].choose(view)
            assert move in view.legal_moves
            game.apply(move, seat)


def test_R30_hard_final_pick_and_margin() -> None:
    """The move played after the search: the best mean, the most visits or the best lower bound;
    a margin keeps the policy's own choice (arm 0) unless another beats it by that much."""
    from cardverse.bots.hard import _pick

    visits = [10, 40, 2]
    totals = [6.0, 26.0, 1.6]  # means 0.6, 0.65, 0.8
    squares = [4.0, 18.0, 1.3]
    assert _pick(visits, totals, squares, "mean", 0.0) == 2
    assert _pick(visits, totals, squares, "visits", 0.0) == 1
    assert _pick(visits, totals, squares, "lcb", 0.0) == 1  # 2 visits: too few to trust
    assert _pick(visits, totals, squares, "mean", 0.25) == 0  # 0.8 is not 0.25 above 0.6
    assert _pick(visits, totals, squares, "mean", 0.1) == 2
    assert _pick([5, 5], [2.5, 2.5], [1.5, 1.5], "mean", 0.0) == 0  # a tie: the policy's order


def test_R30_hard_refuses_bad_search_options() -> None:
    with pytest.raises(ValueError, match="max_candidates must be at least 1, not 0"):
        HardBot(max_candidates=0)
    with pytest.raises(ValueError, match="exploration must not be negative"):
        HardBot(exploration=-0.1)
    with pytest.raises(ValueError, match=r"block_share must be between 0 and 1, not 1\.5"):
        HardBot(block_share=1.5)
    with pytest.raises(ValueError, match="others_model must be one of sensible, lowest"):
        HardBot(others_model="psychic")
    with pytest.raises(ValueError, match="final must be one of mean, visits, lcb, not 'max'"):
        HardBot(final="max")
    with pytest.raises(ValueError, match="prior_margin must not be negative"):
        HardBot(prior_margin=-1.0)
    with pytest.raises(ValueError, match="surprise must be between 0 and 1, not 2"):
        HardBot(surprise=2)
    with pytest.raises(ValueError, match=r"others_share must be between 0 and 1, not -0\.5"):
        HardBot(others_share=-0.5)
    with pytest.raises(ValueError, match="models are some of sensible, lowest, highest, structure"):
        HardBot(models=["sensible", "random"])
    with pytest.raises(ValueError, match="not none"):
        HardBot(models=[])
