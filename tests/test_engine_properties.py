"""Property tests (hypothesis) over random games with random option combinations.

Invariants checked at every step: cards are conserved; the legal move list has no duplicates and
every listed move passes the single-action check; random candidate actions that the check accepts
are listed, and those it refuses name a rule; views never hold another seat's cards; the state
agrees with a small reference referee written from rules.md; every game ends; each round's points
sum to N(N+1)/2; records replay to the same summary. A second family compares the legal moves of
random small positions with a brute-force reference written independently from rules.md.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from typing import Any

from engine_testkit import RANK_ORDER, canon, card_strings, move_texts
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cardverse.engine import (
    GIVE,
    PASS,
    Action,
    ActionFormatError,
    Game,
    Phase,
    Rules,
    card_name,
    cards_of,
    from_move,
    mask_names,
    player_view,
    to_move,
)
from cardverse.engine.cards import deck_mask
from cardverse.engine.options import PRESETS
from cardverse.notation import NotationError, read_position, record_to_json, replay_record, summary

RULE_NUMBER = re.compile(r"R([1-9]|[1-4][0-9])")
HOUSE_RULES = (
    "suit_lock",
    "jack_back",
    "spade_three",
    "forbidden_finish",
    "downfall",
    "seven_pass",
    "ten_discard",
)
ALL_CARDS = mask_names(deck_mask(2))


@st.composite
def any_rules(draw: st.DrawFn, max_rounds: int = 3) -> Rules:
    """Any option combination the table allows (R4)."""
    preset = draw(st.sampled_from(["standard", "cardverse", "daifugo", "uecda"]))
    options: dict[str, Any] = {
        "rounds": draw(st.integers(1, max_rounds)),
        "revolution": draw(st.booleans()),
        "eight_stop": draw(st.booleans()),
        "exchange": draw(st.booleans()),
        "first_lead": draw(st.sampled_from(["first_seat", "three_of_clubs", "three_of_diamonds"])),
    }
    if preset != "cardverse":
        options["players"] = draw(st.integers(3, 8))
        options["equal_plays"] = draw(st.booleans())
        options["straights"] = draw(st.booleans())
        options["jokers"] = draw(st.integers(0, 2))
    else:
        options["players"] = draw(st.integers(3, 6))
    # The house rules of section 10, each on or off (the spade three needs a joker, R33), the
    # suit lock and the spade three in their ways of section 11 too (R44, R45).
    for name in HOUSE_RULES:
        options[name] = draw(st.booleans())
    options["suit_lock"] = draw(st.sampled_from([False, True, "with_jokers"]))
    options["spade_three"] = draw(st.sampled_from([False, True, "over_lock"]))
    # The options of section 11 (R41-R46), each with every other.
    options["straight_cover"] = draw(st.sampled_from(["top", "all_higher"]))
    options["five_card_sets"] = draw(st.booleans())
    options["lead_every_round"] = draw(st.booleans())
    options["straight_revolution"] = draw(st.sampled_from([0, 5, 6, 13]))
    jokers = options.get("jokers", PRESETS[preset].defaults["jokers"])
    if not jokers:
        options["spade_three"] = options["five_card_sets"] = False
    if not options["revolution"]:
        options["straight_revolution"] = 0
    return Rules.make(preset, **options)


# -- a reference referee for one round, written from rules.md -----------------------------------


def rank_of(name: str) -> int:
    return RANK_ORDER.index(name[:-1])


def shape(action: Action) -> tuple[str, int, int, int, bool] | None:
    """(kind, size, key, bottom, holds an 8) of a play; key is a set's rank or a straight's top.

    An all-joker set has the key 13. Returns None for no valid shape (R5, R6).
    """
    naturals = [c for c in action.cards if c not in ("RJ", "BJ")]
    jokers = [c for c in action.cards if c in ("RJ", "BJ")]
    ranks = {rank_of(c) for c in naturals}
    if not action.jokers and len(ranks) <= 1:
        if not 1 <= len(action.cards) <= 4:
            return None
        if not naturals:
            return ("set", len(action.cards), 13, 13, False)
        rank = ranks.pop()
        return ("set", len(action.cards), rank, rank, rank == 5)
    if not naturals or len({c[-1] for c in naturals}) != 1 or len(action.cards) < 3:
        return None
    if set(action.jokers) != set(jokers):
        return None
    all_ranks = sorted(
        [rank_of(c) for c in naturals] + [RANK_ORDER.index(r) for r in action.jokers.values()]
    )
    if len(set(all_ranks)) != len(all_ranks) or all_ranks[-1] - all_ranks[0] != len(all_ranks) - 1:
        return None
    return (
        "straight",
        len(all_ranks),
        all_ranks[-1],
        all_ranks[0],
        all_ranks[0] <= 5 <= all_ranks[-1],
    )


def ref_beats(new: tuple, old: tuple, revolution: bool, equal: bool) -> bool:
    """R9, R10."""
    if new[0] != old[0] or new[1] != old[1]:
        return False
    if new[0] == "set":
        if old[2] == 13:
            return new[2] == 13 and equal
        if new[2] == 13:
            return True
        if new[2] == old[2]:
            return equal
        return new[2] < old[2] if revolution else new[2] > old[2]
    if revolution:
        return new[3] < old[3] or (equal and new[3] == old[3])
    return new[2] > old[2] or (equal and new[2] == old[2])


class Referee:
    """The flow of one round by R8–R20, kept beside the engine and compared step by step."""

    def __init__(self, rules: Rules, hands: list[set[str]], leader: int) -> None:
        self.rules = rules
        self.hands = hands
        self.n = len(hands)
        self.turn = leader
        self.top: tuple | None = None
        self.last = -1
        self.passed: set[int] = set()
        self.revolution = False
        self.finished: list[int] = []
        self.over = False

    def next_holder(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            if self.hands[(seat + step) % self.n]:
                return (seat + step) % self.n
        raise AssertionError("nobody holds cards")

    def new_trick(self, winner: int) -> None:
        self.top, self.last, self.passed = None, -1, set()
        self.turn = winner if self.hands[winner] else self.next_holder(winner)

    def advance(self, seat: int) -> None:
        for step in range(1, self.n):
            other = (seat + step) % self.n
            if self.hands[other] and other not in self.passed and other != self.last:
                self.turn = other
                return
        self.new_trick(self.last)

    def act(self, action: Action) -> None:
        seat = self.turn
        if action.kind == "pass":
            assert self.top is not None, "R8: the leader may not pass"
            self.passed.add(seat)
            self.advance(seat)
            return
        play = shape(action)
        assert play is not None
        assert set(action.cards) <= self.hands[seat]
        assert self.top is None or ref_beats(
            play, self.top, self.revolution, self.rules.equal_plays
        )
        self.hands[seat] -= set(action.cards)
        if not self.hands[seat]:
            self.finished.append(seat)
            if len(self.finished) == self.n - 1:
                self.finished.append(self.next_holder(seat))
                self.over = True
                return
        clearing_rank = 0 if self.revolution else 12
        clears = (play[0] == "set" and play[2] == clearing_rank) or (
            self.rules.eight_stop and play[4] and play[2] != 13
        )
        if self.rules.revolution and play[0] == "set" and play[1] == 4:
            self.revolution = not self.revolution
        if clears:
            self.new_trick(seat)
            return
        self.top, self.last = play, seat
        self.advance(seat)


# -- helpers ------------------------------------------------------------------------------------


def played_this_round(game: Game) -> int:
    """Cards every seat has seen leave the hands: plays and ten discards (not seven passes)."""
    mask = 0
    if game.round is not None and game.phase is not Phase.EXCHANGE:
        for _, _, move in game.round.history:
            if move != PASS and not move & GIVE:
                mask |= move & ((1 << 54) - 1)
        mask |= game.round.discarded
    return mask


def out_of_play(game: Game) -> int:
    """Cards that left the round unseen by a downfall (R35)."""
    mask = 0
    if game.round is not None and game.phase is not Phase.EXCHANGE:
        for cards in game.round.out_of_play:
            mask |= cards
    return mask


def check_conservation(game: Game) -> None:
    seen = played_this_round(game)
    gone = out_of_play(game)
    assert not seen & gone, "a card is in two places"
    seen |= gone
    for h in game.hands:
        assert not seen & h, "a card is in two places"
        seen |= h
    dealt = 0
    for h in game.deals[-1]:
        dealt |= h
    assert seen == dealt, "cards were lost or made up"
    assert dealt & ~deck_mask(game.rules.jokers) == 0
    if game.phase is Phase.PLAY and game.round is not None:
        for seat, h in enumerate(game.hands):
            assert h or seat in game.round.finished, f"seat {seat} holds nothing yet plays on"


def check_views(game: Game, seats: list[int]) -> None:
    played = set(mask_names(played_this_round(game)))
    for seat in seats:
        allowed = set(mask_names(game.hands[seat])) | played
        for giver, receiver, cards in game.exchange_log:
            if seat in (giver, receiver):
                allowed |= set(mask_names(cards))
        if game.round is not None and game.phase is not Phase.EXCHANGE:
            history = game.round.history
            for index, receiver in game.round.give_receivers:  # R36: the two seats of a give
                _, giver, move = history[index]
                if seat in (giver, receiver):
                    allowed |= set(mask_names(move & ((1 << 54) - 1)))
        view = player_view(game, seat)
        data = json.loads(json.dumps(view.to_json()))
        leaked = card_strings(data) - allowed
        assert not leaked, f"seat {seat} sees {sorted(leaked)}"
        assert data["hand_counts"] == [h.bit_count() for h in game.hands]


def random_candidate(rng: random.Random, game: Game, seat: int) -> int | None:
    """A random action for ``seat``: a pass, a give, or cards (mostly its own) with joker ranks."""
    roll = rng.random()
    if roll < 0.1:
        return PASS
    hand = mask_names(game.hands[seat])
    pool = [*hand, rng.choice(ALL_CARDS)] if rng.random() < 0.15 else hand
    if not pool:
        return None
    size = rng.randint(1, min(5, len(pool)))
    cards = tuple(rng.sample(pool, size))
    jokers = {j: rng.choice(RANK_ORDER) for j in cards if j in ("RJ", "BJ") and rng.random() < 0.7}
    try:
        if roll < 0.2:
            return to_move(Action("give", cards))
        if roll < 0.3:
            return to_move(Action("discard", cards))
        return to_move(Action("play", cards, jokers))
    except ActionFormatError:
        return None


def check_step(rng: random.Random, game: Game) -> list[int]:
    moves = game.legal_moves()
    assert len(moves) == len(set(moves)), "a legal move is listed twice"
    texts = move_texts(moves)
    assert len(texts) == len(set(texts)), "two listed moves read the same"
    assert moves, "the seat to act has no legal move"
    turn = game.turn
    assert turn is not None
    for move in moves:
        assert game.check(turn, move) is None, from_move(move)
    for move in rng.sample(moves, min(4, len(moves))):
        other = game.clone()
        other.apply(move, turn)  # every listed move applies
        assert other.hands != game.hands or move == PASS
    legal = set(moves)
    for _ in range(12):
        seat = turn if rng.random() < 0.8 else rng.randrange(game.rules.players)
        move = random_candidate(rng, game, seat)
        if move is None:
            continue
        refusal = game.check(seat, move)
        if refusal is None:
            assert seat == turn and move in legal, from_move(move, seat)
        else:
            assert RULE_NUMBER.fullmatch(refusal.rule), refusal
            assert refusal.message
            assert move not in legal or seat != turn
    return moves


def partial_deal(rules: Rules, rng: random.Random) -> list[int]:
    """A deal of a few distinct cards per seat (allowed in records, notation.md)."""
    cards = list(range(52)) + [52, 53][: rules.jokers]
    rng.shuffle(cards)
    hands = []
    for _ in range(rules.players):
        size = rng.randint(1, 5)
        hands.append(sum(1 << c for c in cards[:size]))
        cards = cards[size:]
    return hands


def play_random_game(
    rules: Rules, rng: random.Random, record_check: bool = True, partial: bool = False
) -> Game:
    if partial:
        game = Game(rules, hands=partial_deal(rules, rng))
    else:
        game = Game(rules, rng=random.Random(rng.getrandbits(32)))
    referee: Referee | None = None
    steps = 0
    snapshot_at = rng.randrange(1, 200)
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round(partial_deal(rules, rng) if partial else None)
            referee = None
            continue
        plain = not any(getattr(rules, name) for name in HOUSE_RULES)
        if game.phase is Phase.PLAY and referee is None and plain:
            assert game.round is not None and not game.round.revolution  # R19
            referee = Referee(
                rules, [set(mask_names(h)) for h in game.round.hands], game.round.turn
            )
        check_conservation(game)
        moves = check_step(rng, game)
        if steps % 7 == 0:
            check_views(game, list(range(rules.players)))
        else:
            check_views(game, [rng.randrange(rules.players)])
        move = rng.choice(moves)
        game.apply(move)
        steps += 1
        assert steps < 3000 * rules.rounds, "the game does not end"
        if referee is not None and game.phase is not Phase.EXCHANGE and not move & GIVE:
            referee.act(from_move(move))
            round_ = game.round
            assert round_ is not None
            assert list(round_.finished) == referee.finished
            assert round_.over == referee.over
            if not referee.over:
                assert round_.turn == referee.turn
                assert round_.revolution == referee.revolution
                assert (round_.last_move is None) == (referee.top is None)
        if record_check and steps == snapshot_at:
            check_record(game)
    check_conservation(game)
    check_views(game, list(range(rules.players)))
    return game


def check_record(game: Game) -> None:
    data = json.loads(json.dumps(record_to_json(game)))
    assert summary(replay_record(data).game) == summary(game)


# -- properties of whole games --------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(rules: Rules, seed: int) -> None:
    game = play_random_game(rules, random.Random(seed))
    n = rules.players
    assert len(game.places) == rules.rounds
    for order in game.places:
        assert sorted(order) == list(range(n))  # R20: everyone gets exactly one place
    per_round = n * (n + 1) // 2
    assert sum(game.points) == per_round * rules.rounds  # R22
    assert game.turn is None and game.legal_moves() == []
    check_record(game)


@settings(max_examples=60, deadline=None)
@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1))
def test_random_games_from_partial_deals_keep_every_invariant(rules: Rules, seed: int) -> None:
    game = play_random_game(rules, random.Random(seed), partial=True)
    n = rules.players
    for order in game.places:
        assert sorted(order) == list(range(n))
    assert sum(game.points) == n * (n + 1) // 2 * rules.rounds
    check_record(game)


@settings(max_examples=100, deadline=None)
@given(rules=any_rules(max_rounds=2), seed=st.integers(0, 2**32 - 1))
def test_each_round_points_sum_to_n_n_plus_1_over_2(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(rules, rng=random.Random(rng.getrandbits(32)))
    totals = [0] * rules.players
    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        before = len(game.places)
        game.apply(rng.choice(game.legal_moves()))
        if len(game.places) > before:
            gained = [p - t for p, t in zip(game.points, totals, strict=True)]
            n = rules.players
            assert sum(gained) == n * (n + 1) // 2
            assert sorted(gained) == list(range(1, n + 1))
            assert gained[game.places[-1][0]] == n and gained[game.places[-1][-1]] == 1
            totals = list(game.points)


# -- legal moves of random small positions against a brute-force reference -----------------------


def candidate_actions(hand: list[str], rules: Rules) -> list[Action]:
    """Every subset of the hand, as a set and (straights on) with every joker declaration."""
    out: list[Action] = []
    for size in range(1, len(hand) + 1):
        for cards in itertools.combinations(hand, size):
            out.append(Action("play", cards))
            jokers = [c for c in cards if c in ("RJ", "BJ")]
            if rules.straights and jokers and size >= 3:
                for ranks in itertools.product(RANK_ORDER, repeat=len(jokers)):
                    out.append(Action("play", cards, dict(zip(jokers, ranks, strict=True))))
    return out


def reference_moves(
    hand: list[str], old: Action | None, rules: Rules, revolution: bool
) -> set[str]:
    """Every action a hand may make by R5–R10, found by trying every candidate."""
    out: set[str] = set()
    old_shape = shape(old) if old is not None else None
    for action in candidate_actions(hand, rules):
        play = shape(action)
        if play is None or (play[0] == "straight" and not rules.straights):
            continue
        if old_shape is None or ref_beats(play, old_shape, revolution, rules.equal_plays):
            out.add(canon(action.to_json()))
    if old is not None:
        out.add(canon({"action": "pass"}))
    return out


SUITS = "CDHS"


@st.composite
def table_play(draw: st.DrawFn, free: list[str], straights: bool) -> Action | None:
    """A valid play made of ``free`` cards: a set (jokers allowed) or a straight."""
    jokers = [j for j in ("RJ", "BJ") if j in free]
    if straights and draw(st.booleans()):
        suit = draw(st.sampled_from(SUITS))
        length = draw(st.integers(3, 5))
        bottom = draw(st.integers(0, 13 - length))
        cards: list[str] = []
        declared: dict[str, str] = {}
        spare = list(jokers)
        for rank in RANK_ORDER[bottom : bottom + length]:
            if rank + suit in free and not (spare and draw(st.integers(0, 5)) == 0):
                cards.append(rank + suit)
            elif spare:
                joker = spare.pop()
                cards.append(joker)
                declared[joker] = rank
            else:
                return None
        if len(declared) == length:
            return None
        return Action("play", tuple(cards), declared)
    rank = draw(st.sampled_from(RANK_ORDER))
    naturals = [rank + s for s in SUITS if rank + s in free]
    n = draw(st.integers(0, len(naturals)))
    j = draw(st.integers(0, len(jokers)))
    if n + j == 0 or n + j > 4 or (n == 0 and j > 2):
        return None
    return Action("play", tuple(naturals[:n] + jokers[:j]))


@st.composite
def small_positions(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], Action | None, Rules]:
    jokers = draw(st.integers(0, 2))
    straights = draw(st.booleans())
    rules = Rules.make(
        "standard",
        players=3,
        jokers=jokers,
        straights=straights,
        equal_plays=draw(st.booleans()),
        revolution=draw(st.booleans()),
    )
    deck = draw(st.permutations(mask_names(deck_mask(jokers))))
    size = draw(st.integers(1, 7))
    hand = list(deck[:size])
    free = list(deck[size:])
    old = draw(table_play(free, straights)) if draw(st.booleans()) else None
    if old is not None:
        free = [c for c in free if c not in old.cards]
    position: dict[str, Any] = {
        "rules": rules.changed_options(),
        "hands": [[free[0]], hand, [free[1]]],
        "trick": [] if old is None else [{"seat": 0, **old.to_json()}],
        "turn": 1,
        "revolution": rules.revolution and draw(st.booleans()),
    }
    return position, hand, old, rules


@settings(max_examples=400, deadline=None)
@given(small_positions())
def test_legal_moves_match_a_brute_force_reference(
    case: tuple[dict[str, Any], list[str], Action | None, Rules],
) -> None:
    position, hand, old, rules = case
    try:
        read = read_position(json.loads(json.dumps(position)))
    except NotationError as error:
        # A clearing play on the table would have ended the trick (R14): no such position.
        assert "clearing play" in str(error)
        assert old is not None and set(old.cards) & {"2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S"}
        assume(False)
    engine = move_texts(read.legal_moves())
    assert len(engine) == len(set(engine))
    expected = reference_moves(hand, old, rules, position["revolution"])
    assert set(engine) == expected
    # The single-action check agrees with the list on every candidate, and names a rule.
    for action in candidate_actions(hand, rules):
        try:
            move = to_move(action)
        except ActionFormatError:
            continue
        refusal = read.round.check(1, move)
        assert (refusal is None) == (canon(from_move(move).to_json()) in expected), action
        if refusal is not None:
            assert RULE_NUMBER.fullmatch(refusal.rule)


def test_reference_referee_agrees_on_known_shapes() -> None:
    # A guard for the reference itself, so that it cannot agree with the engine by being empty.
    assert shape(Action("play", ("7C", "7D", "7H", "RJ")))[:3] == ("set", 4, 4)
    assert shape(Action("play", ("KS", "AS", "2S"))) == ("straight", 3, 12, 10, False)
    assert shape(Action("play", ("AS", "2S", "RJ"), {"RJ": "3"})) is None
    assert shape(Action("play", ("6H", "7H", "RJ"), {"RJ": "8"}))[4] is True
    hand = ["5H", "RJ", "BJ"]
    rules = Rules.make("standard", players=3, jokers=2, straights=True)
    assert len(reference_moves(hand, None, rules, False)) == 13
    assert card_name(cards_of(deck_mask(2))[-1]) == "BJ"
