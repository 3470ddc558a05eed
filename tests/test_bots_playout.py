"""The hard bot's playouts (R30): every seat finishes a sure line first, as the normal bot does."""

from __future__ import annotations

import random

import pytest

from cardverse.bots import playout, policy
from cardverse.bots.endgame import sure_win
from cardverse.bots.hard import HardBot
from cardverse.bots.policy import Style, fast_finish
from cardverse.engine import PASS, Game, Round, Rules
from cardverse.engine.cards import JOKER_MASK, parse_cards
from cardverse.engine.movegen import legal_plays
from cardverse.engine.plays import play_info
from cardverse.engine.ruleset import ruleset_for


def cards(text: str) -> int:
    return parse_cards(text.split())


def _finish_cases(
    seed: int, count: int
) -> list[tuple[Rules, int, int | None, bool, int, list[int]]]:
    """(rules, hand, play on top, order reversed, others' cards, others' hand sizes) taken from
    random games under the options the fast path covers (sets only, no house rule)."""
    rng = random.Random(seed)
    cases = []
    index = 0
    while len(cases) < count:
        rules = Rules.make(
            "standard",
            players=rng.randint(3, 6),
            revolution=rng.random() < 0.6,
            eight_stop=rng.random() < 0.4,
            equal_plays=rng.random() < 0.5,
            jokers=rng.choice([0, 0, 1, 2]),
        )
        round_ = Game(rules, seed=1000 + index).round
        index += 1
        assert round_ is not None
        while round_.turn >= 0:
            seat = round_.turn
            hand = round_.hands[seat]
            if hand.bit_count() <= 8 and not hand & JOKER_MASK:
                others = 0
                sizes = []
                for other, held in enumerate(round_.hands):
                    if other != seat and held:
                        others |= held
                        sizes.append(held.bit_count())
                cases.append((rules, hand, round_.last_move, round_.revolution, others, sizes))
            round_.apply_unchecked(rng.choice(round_.legal_moves()))
    return cases


def test_R30_playout_finishing_lines_are_the_sure_wins_of_the_exact_search() -> None:
    """The rank-count check finds a line exactly when :func:`sure_win` (which lists the plays)
    does, given what the seat knows: the others' cards together and their hand sizes."""
    found = 0
    cases = _finish_cases(7, 2500)
    for rules, hand, last, revolution, others, sizes in cases:
        style = Style.of(rules)
        move = fast_finish(hand, last, revolution, style, others, max(sizes))
        plays = legal_plays(hand, last, revolution, rules.equal_plays, False)
        if last is not None:
            plays.append(PASS)
        holders = [(others, 0, size) for size in sizes]
        exact = sure_win(rules, hand, plays, last, revolution, others, 100000, holders)
        assert (move >= 0) == (exact is not None), (rules.to_dict(), hex(hand), last, revolution)
        if move >= 0:
            found += 1
            assert move in plays
    assert found > 100  # the positions hold lines to find, not only hands without one


def test_R30_playout_seat_clears_with_a_2_then_goes_out() -> None:
    """On an 8, the rules of thumb would cover with the queen; the line is the 2, then the queen."""
    rules = Rules.make("cardverse", players=3)
    round_ = Round(rules, [cards("4D 4H KC 8C"), cards("QS 2S"), cards("6D 7H")], 0)
    round_.apply(cards("8C"))
    assert playout.next_move(round_, Style.of(rules)) == cards("2S")


def _holds_by_scan(
    rank: int, size: int, revolution: bool, eight: bool, equal: bool, others: int, widest: int
) -> bool:
    """The definition of a set that keeps the lead, rank by rank: it clears (R14), or no other
    hand is wide enough, or no rank that covers it has enough of the others' cards (R5, R10)."""
    if rank == (0 if revolution else 12) or (eight and rank == 5):
        return True
    if widest < size:
        return True
    jokers = (others & JOKER_MASK).bit_count()
    if jokers >= size:
        return False
    for other in range(13):
        beats = other < rank if revolution else other > rank
        if beats or (equal and other == rank):
            count = ((others >> (other * 4)) & 15).bit_count()
            if count and count + jokers >= size:
                return False
    return True


def test_R30_playout_lead_keeping_check_matches_the_rank_by_rank_definition() -> None:
    """The playouts judge a set by the others' rank counts taken all at once
    (:func:`policy.rank_nibble_counts`); the answer is the rank-by-rank one for every set."""
    rng = random.Random(3)
    for _ in range(3000):
        others = 0
        for card in rng.sample(range(54), rng.randint(0, 30)):
            others |= 1 << card
        counts = policy.rank_nibble_counts(others)
        jokers = (others & JOKER_MASK).bit_count()
        widest = rng.randint(1, 12)
        for rank in range(13):
            for size in range(1, 5):
                revolution = rng.random() < 0.5
                eight = rng.random() < 0.5
                equal = rng.random() < 0.5
                expected = _holds_by_scan(rank, size, revolution, eight, equal, others, widest)
                rulebook = ruleset_for(Rules.make("standard", eight_stop=eight))
                got = policy._keeps(rank, size, revolution, rulebook, equal, counts, jokers, widest)
                assert got == expected, (hex(others), rank, size, revolution, eight, equal)


def test_R30_playout_reads_a_set_played_as_the_engine_does() -> None:
    """:func:`policy.set_shape` gives the rank and size the engine's analysis of the play gives
    (R5: a joker stands for the set's rank; a set of jokers only has none)."""
    rng = random.Random(4)
    for _ in range(2000):
        rank = rng.randrange(13)
        naturals = rng.sample(range(rank * 4, rank * 4 + 4), rng.randint(0, 4))
        jokers = rng.sample([52, 53], rng.randint(0 if naturals else 1, min(2, 4 - len(naturals))))
        move = 0
        for card in naturals + jokers:
            move |= 1 << card
        info = play_info(move)
        expected = (-1 if info.all_jokers else info.rank, info.size)
        assert policy.set_shape(move) == expected, hex(move)


def test_R30_playout_option_block_spends_a_control_on_a_player_with_one_card() -> None:
    """``HardBot(playout_block=...)``: in playouts the chosen seats, following a player left with
    one card, spend their cheapest control (here the 2, R14) where the rules of thumb pass."""
    rules = Rules.make("cardverse", players=4)
    style = Style.of(rules)
    hand = cards("4D 6H 9C 2S")
    top = cards("KC")
    assert policy.fast_follow(hand, top, False, style, 1) == PASS
    assert policy.fast_follow(hand, top, False, style, 1, block=True) == cards("2S")
    assert policy.fast_follow(hand, top, False, style, 2, block=True) == PASS
    legal = [*legal_plays(hand, top, False, rules.equal_plays, False), PASS]
    assert policy.follow_play(hand, legal, False, style, 1, top) == PASS
    assert policy.follow_play(hand, legal, False, style, 1, top, block=True) == cards("2S")
    round_ = Round(rules, [cards("KC 3C"), hand, cards("5C 5D"), cards("7S 8S")], 0)
    round_.apply(top)
    assert playout.next_move(round_, style) == PASS
    assert playout.next_move(round_, style._replace(block_seat=1)) == cards("2S")
    assert playout.next_move(round_, style._replace(block_seat=-2)) == cards("2S")
    assert playout.next_move(round_, style._replace(block_seat=2)) == PASS
    with pytest.raises(ValueError, match="playout_block"):
        HardBot(playout_block="sometimes")
