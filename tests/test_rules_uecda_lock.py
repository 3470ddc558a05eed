"""The suit lock with jokers (R44) of the ``uecda`` preset, and how it meets R31, R33 and R45.

Small rounds (partial deals) check the rule through the public engine: the legal moves (every
suit a set's joker may name, each once), the single-action check and its refusals, the lock the
trick reports. Random games check that the legal moves and the check agree, in the pure and the
compiled engine alike, and a hypothesis property plays every suit_lock value with the other
options to the end. The notation writes a set joker as the card it stands for (``{"RJ": "7H"}``).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from engine_testkit import card_strings, do, expect, legal, make_round, play
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_compiled import _require_build, _run
from test_engine_properties import check_record, play_random_game

from cardverse.engine import (
    Action,
    ActionFormatError,
    Game,
    Round,
    Rules,
    from_move,
    mask_names,
    to_move,
)
from cardverse.engine.cards import BLACK_JOKER, RED_JOKER
from cardverse.engine.plays import (
    CARDS_MASK,
    PlayShapeError,
    analyse,
    declare_suit,
    declared_suit,
    set_joker_suits,
)
from cardverse.engine.words import SheetLine
from cardverse.moves import Move
from cardverse.notation import position_to_json, read_position, record_to_json, replay_record

CLUBS, DIAMONDS, HEARTS, SPADES = 1, 2, 4, 8


def uecda(hands: list[list[str]], leader: int = 0, **options: Any) -> Round:
    """A round under the ``uecda`` preset (suit_lock with_jokers, spade_three over_lock)."""
    options.setdefault("players", max(3, len(hands)))
    round_ = make_round(hands, leader, preset="uecda", **options)
    round_.log = []
    return round_


def lock(round_: Round) -> int:
    """The suits the trick is locked to, as the round's report says (R39)."""
    return int(round_.ruleset.report(round_.marks)["lock"])


def refusal_of(round_: Round, seat: int, move: int) -> tuple[str, str] | None:
    refusal = round_.check(seat, move)
    return None if refusal is None else (refusal.code, refusal.rule)


# -- the move: a set's joker names the card it stands for ---------------------------------------


def test_R44_a_set_joker_declares_a_suit_in_its_nibble_and_reads_back() -> None:
    move = play("7C", "RJ", RJ="7H")
    assert declared_suit(move, RED_JOKER) == 2 and declared_suit(move, BLACK_JOKER) is None
    assert set_joker_suits(move) == HEARTS
    assert analyse(move).rank == analyse(play("7C", "RJ")).rank  # still a pair of 7s
    assert from_move(move).to_json() == {
        "action": "play",
        "cards": ["7C", "RJ"],
        "jokers": {"RJ": "7H"},
    }
    both = play("7C", "RJ", "BJ", RJ="7S", BJ="7D")
    assert set_joker_suits(both) == SPADES | DIAMONDS


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (declare_suit(play("7C", "RJ"), RED_JOKER, 0), "joker_suit_taken"),  # the set holds 7C
        (
            declare_suit(declare_suit(play("7C", "RJ", "BJ"), RED_JOKER, 2), BLACK_JOKER, 2),
            "joker_suit_twice",
        ),
        (declare_suit(play("RJ", "BJ"), RED_JOKER, 1), "joker_suit_all_jokers"),
        (declare_suit(play("RJ"), RED_JOKER, 3), "joker_suit_all_jokers"),
        (declare_suit(play("7C", "RJ"), RED_JOKER, 6), "joker_suit_unknown"),  # nibble 7
        (declare_suit(play("7C", "RJ"), BLACK_JOKER, 2), "joker_not_played"),
    ],
)
def test_R44_malformed_suit_declarations_are_no_play(move: int, code: str) -> None:
    with pytest.raises(PlayShapeError) as caught:
        analyse(move)
    assert (caught.value.code, caught.value.rule) == (code, "R44")
    assert caught.value.message
    round_ = uecda([["7C", "7D", "RJ", "BJ", "9S"], ["8H"]], jokers=2)
    refusal = round_.check(0, move)
    assert refusal is not None and (refusal.code, refusal.rule) == (code, "R44")


def test_R44_notation_and_text_moves_round_trip_a_set_jokers_card() -> None:
    for text in ("7C RJ=7H", "7C 7D RJ=7H BJ=7S", "5H 6H BJ=7", "9H RJ", "RJ BJ"):
        move = Move.parse(text)
        assert str(move) == text and Move.parse(str(move)) == move
        action = from_move(int(move))
        assert to_move(Action(action.kind, action.cards, action.jokers)) == int(move)
    assert Move.parse("7c rj=7h").jokers == {"RJ": "7H"}
    assert Move.parse("5H 6H BJ=7").jokers == {"BJ": "7"}  # a straight's joker: a rank alone
    assert Move.parse("9H RJ=9").jokers == {}  # the set's own rank, as before: no suit named
    for bad, says in (
        ("5H 6H RJ=7H", "only in a set"),  # a straight's joker takes the straight's suit
        ("7C RJ=8H", "not of the set's rank"),
        ("7C RJ BJ=7H BJ=7D", "listed twice"),
        ("7C RJ=7Q", "write a rank"),
        ("7C RJ=7H BJ=7", "both jokers name the card"),
        ("7C 8C RJ=7H", "only in a set"),
    ):
        with pytest.raises(ActionFormatError, match=says):
            Move.parse(bad)
    with pytest.raises(ActionFormatError, match="a joker"):
        Move.parse("7C RJ=BJ")
    # A set naming one joker's card and not the other's is a move; the rules refuse it (R44).
    partial = Move.parse("7C RJ=7H BJ")
    round_ = uecda([["7C", "RJ", "BJ", "4D"], ["8H"]], jokers=2)
    assert refusal_of(round_, 0, int(partial)) == ("joker_suit_missing", "R44")


# -- legal moves: every declaration once --------------------------------------------------------


def test_R44_every_suit_a_set_joker_may_name_is_listed_exactly_once() -> None:
    round_ = uecda([["7C", "7D", "RJ"], ["8H"], ["9H"]], jokers=1)
    assert legal(round_) == expect(
        "7C",
        "7D",
        "7C 7D",
        "RJ",
        ("7C RJ", {"RJ": "7D"}),
        ("7C RJ", {"RJ": "7H"}),
        ("7C RJ", {"RJ": "7S"}),
        ("7D RJ", {"RJ": "7C"}),
        ("7D RJ", {"RJ": "7H"}),
        ("7D RJ", {"RJ": "7S"}),
        ("7C 7D RJ", {"RJ": "7H"}),
        ("7C 7D RJ", {"RJ": "7S"}),
    )
    assert len(round_.legal_moves()) == 12


def test_R44_two_jokers_in_a_set_name_two_missing_suits_in_either_order() -> None:
    round_ = uecda([["7C", "RJ", "BJ"], ["8H"], ["9H"]], jokers=2)
    pairs = {
        text
        for text in legal(round_)
        if '"RJ"' in text and '"BJ"' in text and any(f'"{c}"}}' in text for c in ("7D", "7H", "7S"))
    }
    missing = ("7D", "7H", "7S")
    assert pairs == expect(
        *[
            ("7C RJ BJ", {"RJ": red, "BJ": black})
            for red in missing
            for black in missing
            if red != black
        ]
    )
    assert len(pairs) == 6
    assert expect("RJ BJ", "RJ", "BJ") <= legal(round_)  # jokers alone name no suit


def test_R44_a_set_of_five_names_no_suit_and_is_listed_once() -> None:
    round_ = uecda([["9C", "9D", "9H", "9S", "RJ"], ["8H"], ["2H"]], jokers=1)
    assert expect("9C 9D 9H 9S RJ") <= legal(round_)
    fives = [m for m in round_.legal_moves() if (m & CARDS_MASK).bit_count() == 5]
    assert fives == [play("9C", "9D", "9H", "9S", "RJ")]


def test_R44_an_undeclared_set_joker_is_refused_and_outside_R44_a_declared_one_is() -> None:
    round_ = uecda([["7C", "RJ", "4D"], ["8H"], ["9H"]], jokers=1)
    refusal = round_.check(0, play("7C", "RJ"))
    assert refusal is not None and (refusal.code, refusal.rule) == ("joker_suit_missing", "R44")
    assert "RJ" in refusal.message and refusal.params["suits"] == ["D", "H", "S"]
    for value in (False, True):
        natural = make_round([["7C", "RJ", "4D"], ["8H"], ["9H"]], suit_lock=value, jokers=1)
        assert natural.check(0, play("7C", "RJ")) is None
        declared = play("7C", "RJ", RJ="7H")
        assert refusal_of(natural, 0, declared) == ("joker_suit_not_named_here", "R5")
        assert declared not in natural.legal_moves()


# -- the lock with jokers ------------------------------------------------------------------------


def test_R44_plays_holding_jokers_start_a_lock_by_their_named_suits() -> None:
    round_ = uecda([["7H", "RJ", "4C"], ["9H", "9S", "3D"], ["JH", "JD", "QH", "QS"]], jokers=1)
    do(round_, 0, "7H", "RJ", RJ="7S")
    do(round_, 1, "9H", "9S")
    assert lock(round_) == HEARTS | SPADES
    assert refusal_of(round_, 2, play("JH", "JD")) == ("outside_lock", "R44")
    assert legal(round_) == expect("QH QS", "pass")
    # The same plays do not lock under R31: the first holds a joker.
    natural = make_round(
        [["7H", "RJ", "4C"], ["9H", "9S", "3D"], ["JH", "JD"]], suit_lock=True, jokers=1
    )
    do(natural, 0, "7H", "RJ")
    do(natural, 1, "9H", "9S")
    assert int(natural.ruleset.report(natural.marks)["lock"]) == 0


def test_R44_a_joker_naming_the_covered_suits_starts_a_lock_and_one_naming_others_not() -> None:
    hands = [["5D", "5S", "4C"], ["9D", "BJ", "3C"], ["JD", "JS"]]  # no 8s: they clear
    round_ = uecda(hands, jokers=2)
    do(round_, 0, "5D", "5S")
    do(round_, 1, "9D", "BJ", BJ="9S")
    assert lock(round_) == DIAMONDS | SPADES
    other = uecda(hands, jokers=2)
    do(other, 0, "5D", "5S")
    do(other, 1, "9D", "BJ", BJ="9H")
    assert lock(other) == 0


def test_R44_under_a_lock_a_set_joker_must_name_a_locked_suit() -> None:
    round_ = uecda([["5H", "5S", "4C"], ["9H", "9S", "3C"], ["JH", "RJ", "JD"]], jokers=1)
    do(round_, 0, "5H", "5S")
    do(round_, 1, "9H", "9S")
    assert lock(round_) == HEARTS | SPADES
    assert legal(round_) == expect(("JH RJ", {"RJ": "JS"}), "pass")
    assert refusal_of(round_, 2, play("JH", "RJ", RJ="JD")) == ("outside_lock", "R44")
    assert refusal_of(round_, 2, play("JH", "RJ", RJ="JC")) == ("outside_lock", "R44")
    do(round_, 2, "JH", "RJ", RJ="JS")
    assert lock(round_) == HEARTS | SPADES


def test_R44_a_straight_joker_takes_the_straights_suit_for_the_lock() -> None:
    round_ = uecda(
        [["3H", "4H", "5H", "KC"], ["9H", "10H", "RJ", "2C"], ["QH", "KH", "AH", "QS"]], jokers=1
    )
    do(round_, 0, "3H", "4H", "5H")
    do(round_, 1, "9H", "10H", "RJ", RJ="J")
    assert lock(round_) == HEARTS
    assert expect("QH KH AH") <= legal(round_)


def test_R44_a_lone_joker_has_no_suit_it_neither_starts_nor_breaks_a_lock() -> None:
    # Under a lock on hearts a lone joker may be played, and the lock stays.
    round_ = uecda([["5H", "KC"], ["6H", "QC"], ["RJ", "4D"], ["2C", "4S"]], jokers=1)
    do(round_, 0, "5H")
    do(round_, 1, "6H")
    assert lock(round_) == HEARTS
    assert expect("RJ") <= legal(round_)
    do(round_, 2, "RJ")
    assert lock(round_) == HEARTS
    # A lone joker on a single: no lock (the joker has no suit).
    free = uecda([["5H", "KC"], ["RJ", "4D"], ["3H", "2C"]], jokers=1, spade_three=False)
    do(free, 0, "5H")
    do(free, 1, "RJ")
    assert lock(free) == 0


def test_R44_both_jokers_as_a_pair_are_suitless_under_a_lock() -> None:
    round_ = uecda([["5H", "5S", "KC"], ["9H", "9S", "QC"], ["RJ", "BJ", "4D"]], jokers=2)
    do(round_, 0, "5H", "5S")
    do(round_, 1, "9H", "9S")
    assert expect("RJ BJ") <= legal(round_)
    do(round_, 2, "RJ", "BJ")
    assert lock(round_) == HEARTS | SPADES


def test_R45_over_lock_the_spade_three_covers_a_lone_joker_whatever_the_lock() -> None:
    hands = [["5H", "KC"], ["6H", "QC"], ["RJ", "4D"], ["3S", "2C"]]
    over = uecda(hands, jokers=1)  # spade_three over_lock in the preset
    for seat, card in ((0, "5H"), (1, "6H"), (2, "RJ")):
        do(over, seat, card)
    assert lock(over) == HEARTS
    assert legal(over) == expect("3S", "pass")
    bound = uecda(hands, jokers=1, spade_three=True)  # R40's reading: the lock binds it
    for seat, card in ((0, "5H"), (1, "6H"), (2, "RJ")):
        do(bound, seat, card)
    assert legal(bound) == expect("pass")
    assert refusal_of(bound, 3, play("3S")) == ("outside_lock", "R44")


def test_R44_the_lock_ends_with_the_trick() -> None:
    round_ = uecda([["5H", "RJ", "KC"], ["6H", "6S", "QC"], ["4D", "3C"]], jokers=1)
    do(round_, 0, "5H", "RJ", RJ="5S")
    do(round_, 1, "6H", "6S")
    assert lock(round_) == HEARTS | SPADES
    do(round_, 2)
    do(round_, 0)
    assert round_.last_move is None and lock(round_) == 0


# -- the rules sheet -------------------------------------------------------------------------


def test_R44_the_sheet_never_says_a_lock_needs_plays_without_jokers_under_with_jokers() -> None:
    from cardverse.engine.parts.suit_lock import PART

    def shown(value: object) -> list[str]:
        options = {**Rules.make("uecda").to_dict(), "suit_lock": value}
        return [line.msg for line in PART.words.sheet if line.shows(options)]

    with_jokers, natural = shown("with_jokers"), shown(True)
    assert not any("without jokers" in text for text in with_jokers)
    assert any("without jokers" in text for text in natural)
    assert any("named suit" in text for text in with_jokers)
    assert not any("named suit" in text for text in natural)
    assert SheetLine("x", "suit_lock=with_jokers").shows({"suit_lock": "with_jokers"})


# -- random games: the legal moves and the check agree ---------------------------------------


def random_declaration(rng: random.Random, hand_cards: list[str]) -> int | None:
    """A random set with jokers and random named cards (often malformed), or None."""
    jokers = [c for c in hand_cards if c in ("RJ", "BJ")]
    naturals = [c for c in hand_cards if c not in ("RJ", "BJ")]
    if not jokers:
        return None
    rank = rng.choice(naturals)[:-1] if naturals else rng.choice("3456789JQKA2")
    same = [c for c in naturals if c[:-1] == rank]
    cards = rng.sample(same, rng.randint(0, min(3, len(same)))) + rng.sample(
        jokers, rng.randint(1, len(jokers))
    )
    named = {
        j: rank + rng.choice("CDHS") for j in cards if j in ("RJ", "BJ") and rng.random() < 0.8
    }
    try:
        return to_move(Action("play", tuple(cards), named))
    except ActionFormatError:
        return None


def check_game(rules: Rules, seed: int) -> dict[str, int]:
    """Play a random game; every legal move passes the check, every move the check accepts is
    listed, and random set-joker declarations are refused unless listed."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    seen = {"declared": 0, "locks_with_jokers": 0, "refused": 0}
    while not game.over:
        if game.is_chance_node:
            game.start_next_round()
            continue
        moves = game.legal_moves()
        assert moves and len(moves) == len(set(moves))
        seat = game.turn
        assert seat is not None
        legal_set = set(moves)
        for move in moves:
            assert game.check(seat, move) is None, from_move(move)
        for _ in range(6):
            candidate = random_declaration(rng, mask_names(game.hand(seat)))
            if candidate is None:
                continue
            refusal = game.check(seat, candidate)
            assert (refusal is None) == (candidate in legal_set), from_move(candidate)
            if refusal is not None:
                seen["refused"] += 1
        move = rng.choice(moves)
        top = game.round.last_move if game.round is not None else None
        before = game.marks
        game.apply(move)
        seen["declared"] += bool(set_joker_suits(move))
        if game.round is not None and not before and game.marks and top is not None:
            seen["locks_with_jokers"] += bool((move | top) & (3 << RED_JOKER))
    return seen


def test_R44_legal_moves_and_the_check_agree_over_random_uecda_games() -> None:
    totals = {"declared": 0, "locks_with_jokers": 0, "refused": 0}
    for seed in range(40):
        rules = Rules.make("uecda", players=3 + seed % 4, jokers=1 + seed % 2, rounds=2)
        for key, value in check_game(rules, seed).items():
            totals[key] += value
    assert totals["declared"] > 20 and totals["refused"] > 20
    assert totals["locks_with_jokers"] > 0  # plays holding jokers did start locks


PROBE = r"""
import json, random, sys
from cardverse import _native
from cardverse.engine import Game, Phase, Rules, event_to_json
out = {"compiled": _native.running_compiled(), "games": []}
for number in range(int(sys.argv[1])):
    rules = Rules.make("uecda", players=3 + number % 3, jokers=1 + number % 2, rounds=2)
    rng = random.Random(number)
    game = Game(rules, seed=number)
    log = []
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            log.extend(event_to_json(e) for e in game.start_next_round())
            continue
        legal = game.legal_moves()
        for move in legal:
            assert game.check(game.turn, move) is None, hex(move)
        log.append([hex(m) for m in legal])
        wrong = rng.getrandbits(54) | rng.getrandbits(8) << 56
        refusal = game.check(game.turn, wrong)
        assert (refusal is None) == (wrong in legal)
        log.append(None if refusal is None else [refusal.code, refusal.rule])
        log.extend(event_to_json(e) for e in game.apply(rng.choice(legal)))
    out["games"].append(log)
print(json.dumps(out))
"""


def test_R44_compiled_and_pure_engine_agree_on_uecda_games() -> None:
    _require_build()
    compiled = _run(PROBE, "12", pure=False)
    pure = _run(PROBE, "12", pure=True)
    assert compiled.returncode == 0, compiled.stderr
    assert pure.returncode == 0, pure.stderr
    fast, slow = json.loads(compiled.stdout), json.loads(pure.stdout)
    assert fast.pop("compiled") is True and slow.pop("compiled") is False
    assert fast == slow


# -- every suit_lock value with the other options --------------------------------------------


@st.composite
def lock_rules(draw: st.DrawFn) -> Rules:
    """Any suit_lock value with any other options (R4), from any preset."""
    preset = draw(st.sampled_from(["standard", "daifugo", "uecda"]))
    jokers = draw(st.integers(0, 2))
    options: dict[str, Any] = {
        "players": draw(st.integers(3, 6)),
        "rounds": draw(st.integers(1, 2)),
        "jokers": jokers,
        "suit_lock": draw(st.sampled_from([False, True, "with_jokers"])),
        "straights": draw(st.booleans()),
        "equal_plays": draw(st.booleans()),
        "revolution": draw(st.booleans()),
        "eight_stop": draw(st.booleans()),
        "jack_back": draw(st.booleans()),
        "exchange": draw(st.booleans()),
        "spade_three": draw(st.sampled_from([False, True, "over_lock"])) if jokers else False,
        "five_card_sets": draw(st.booleans()) if jokers else False,
        "straight_cover": draw(st.sampled_from(["top", "all_higher"])),
        "seven_pass": draw(st.booleans()),
        "ten_discard": draw(st.booleans()),
    }
    return Rules.make(preset, **options)


@settings(max_examples=40, deadline=None)
@given(rules=lock_rules(), seed=st.integers(0, 2**32 - 1))
def test_R44_every_suit_lock_value_with_the_other_options_plays_legal_games_to_the_end(
    rules: Rules, seed: int
) -> None:
    game = play_random_game(rules, random.Random(seed))
    assert game.over and len(game.places) == rules.rounds
    for order in game.places:
        assert sorted(order) == list(range(rules.players))
    check_game(Rules.make(**{**rules.to_dict(), "rounds": 1}), seed % 1000)


# -- what players see ------------------------------------------------------------------------


def test_R44_a_declared_card_reveals_nothing_hidden() -> None:
    """The card a joker stands for is a declaration: another seat may hold that very card, and
    its view still shows only the declaration (the views hold no other hidden card)."""
    round_ = uecda([["7C", "RJ", "KC"], ["7H", "8C", "8D"], ["9S", "2C"]], jokers=1)
    do(round_, 0, "7C", "RJ", RJ="7H")  # seat 1 holds the real 7H
    rules = round_.rules
    position = position_to_json(round_, rules, own_seat=2)
    assert position["trick"][0]["jokers"] == {"RJ": "7H"}
    assert "7H" not in card_strings(position)  # a declaration, not a card shown
    again = read_position(position_to_json(round_, rules))
    assert again.round.last_move == round_.last_move
    assert again.round.legal_moves() == round_.legal_moves()


def test_R44_records_of_uecda_games_replay_with_declared_cards() -> None:
    named = 0
    for seed in range(6):
        game = Game(Rules.make("uecda", players=4, jokers=2, rounds=2), seed=seed)
        rng = random.Random(seed)
        while not game.over:
            if game.is_chance_node:
                game.start_next_round()
                continue
            game.apply(rng.choice(game.legal_moves()))
        check_record(game)
        record = json.loads(json.dumps(record_to_json(game)))
        assert replay_record(record).game.places == game.places
        text = json.dumps(record)
        named += text.count('"RJ": "') + text.count('"BJ": "')
    assert named > 0  # the records hold joker declarations, and they replay
