"""Computer players (R26–R30): legality everywhere, determinism, budgets, and what they may see."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest

from cardverse import _native
from cardverse.arena import turns
from cardverse.bots import BOT_LEVELS, Bot, NotAViewError, make_bot
from cardverse.bots.easy import EasyBot, lowest_key
from cardverse.bots.endgame import solve_duel, sure_win
from cardverse.bots.hard import HardBot
from cardverse.bots.knowledge import (
    Evidence,
    Knowledge,
    PlausibleDeals,
    _lowest_follow,
    _lowest_lead,
)
from cardverse.bots.normal import NormalBot
from cardverse.bots.policy import (
    Style,
    fast_follow,
    fast_lead,
    follow_play,
    lead_play,
)
from cardverse.bots.policy import (
    choose as policy_choose,
)
from cardverse.engine import GIVE, PASS, Game, Phase, PlayerView, Round, Rules, player_view
from cardverse.engine.cards import JOKER_MASK, parse_cards
from cardverse.engine.exchange import card_height

# -- helpers ------------------------------------------------------------------------------------


def cards(text: str) -> int:
    return parse_cards(text.split())


def move_of(text: str) -> int:
    return cards(text)


def view_after(
    rules: Rules, hands: list[str], actions: tuple[str, ...] | list[str] = ()
) -> PlayerView:
    """The view of the seat on turn after ``actions`` ("pass" or cards) from a dealt position."""
    game = Game(rules, hands=[cards(h) for h in hands])
    for action in actions:
        game.apply(PASS if action == "pass" else move_of(action))
    assert game.turn is not None
    return player_view(game, game.turn)


def random_rules(rng: random.Random) -> Rules:
    """Any option combination the rules allow (R4)."""
    if rng.random() < 0.3:
        return Rules.make(
            "cardverse",
            players=rng.randint(3, 6),
            rounds=rng.randint(1, 3),
            revolution=rng.random() < 0.7,
            eight_stop=rng.random() < 0.5,
            exchange=rng.random() < 0.8,
            first_lead=rng.choice(["first_seat", "three_of_clubs"]),
        )
    return Rules.make(
        "standard",
        players=rng.randint(3, 8),
        rounds=rng.randint(1, 3),
        equal_plays=rng.random() < 0.5,
        revolution=rng.random() < 0.5,
        straights=rng.random() < 0.5,
        jokers=rng.choice([0, 1, 2]),
        eight_stop=rng.random() < 0.5,
        exchange=rng.random() < 0.8,
        first_lead=rng.choice(["first_seat", "three_of_clubs"]),
    )


def play_out(game: Game, bots: list[Bot]) -> list[int]:
    """Play a game to its end with one bot per seat; every action is checked legal."""
    moves: list[int] = []
    for seat, view in turns(game):
        move = bots[seat].choose(view)
        assert move in view.legal_moves
        game.apply(move, seat)
        moves.append(move)
    return moves


# -- the interface ------------------------------------------------------------------------------


def test_make_bot_builds_every_level() -> None:
    for level in BOT_LEVELS:
        bot = make_bot(level, seed=1, playouts=10)
        assert isinstance(bot, Bot)
        assert bot.level == level
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("expert")


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_R27_bot_refuses_a_game(level: str) -> None:
    """A bot decides from a PlayerView only: handing it the full state is refused."""
    game = Game(Rules.make("cardverse"), seed=3)
    bot = make_bot(level, seed=1, playouts=5)
    with pytest.raises(NotAViewError):
        bot.choose(game)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bot.choose(player_view(game, 0).to_json())  # type: ignore[arg-type]

    class Sneaky(PlayerView):
        pass

    view = player_view(game, game.turn or 0)
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(PlayerView)}
    try:
        sneaky = Sneaky(**fields)
    except TypeError:
        # The compiled engine (mypyc) makes no instance of an interpreted class inheriting from
        # its classes: a look-alike view cannot even be built.
        assert _native.running_compiled()
        return
    with pytest.raises(NotAViewError):
        bot.choose(sneaky)


def test_R27_view_type_has_no_room_for_other_hands() -> None:
    """The view's fields: public counts and history, own hand, own exchange and gives (R26)."""
    from cardverse.engine import PublicView, SeatView

    assert {f.name for f in dataclasses.fields(PlayerView)} == {"public", "own"}
    assert {f.name for f in dataclasses.fields(SeatView)} == {
        "seat",
        "hand",
        "exchange",
        "gives",
        "legal_moves",
    }
    public = {f.name for f in dataclasses.fields(PublicView)}
    assert not public & {"hand", "hands", "deals", "rng", "out_of_play_cards"}
    assert {"hand_counts", "trick", "history", "marks", "owed"} <= public
    for part in (PlayerView, PublicView, SeatView):
        assert part.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_R27_decision_ignores_hidden_cards(level: str) -> None:
    """Shuffling the unseen cards among the other seats changes neither the view nor the move."""
    rng = random.Random(11)
    rules = Rules.make("cardverse", players=4)
    checked = 0
    for seed in range(12):
        game = Game(rules, seed=seed)
        history: list[int] = []
        steps = rng.randint(0, 25)
        while len(history) < steps and not game.over:
            move = rng.choice(game.legal_moves())
            game.apply(move)
            history.append(move)
        if game.over:
            continue
        me = game.turn
        assert me is not None
        # Another deal with the same public story: the hidden cards move between the others.
        played = [0] * 4
        assert game.round is not None
        for _, seat, move in game.round.history:
            if move != PASS:
                played[seat] |= move & ((1 << 54) - 1)
        hidden = [c for s in range(4) if s != me for c in range(54) if game.hands[s] >> c & 1]
        rng.shuffle(hidden)
        other_hands = list(game.hands)
        position = 0
        for seat in range(4):
            if seat == me:
                continue
            count = game.hands[seat].bit_count()
            other_hands[seat] = sum(1 << c for c in hidden[position : position + count])
            position += count
        twin = Game(rules, hands=[other_hands[s] | played[s] for s in range(4)])
        for move in history:
            twin.apply(move)
        view, twin_view = player_view(game, me), player_view(twin, me)
        assert view == twin_view
        first = make_bot(level, seed=5, playouts=30).choose(view)
        second = make_bot(level, seed=5, playouts=30).choose(twin_view)
        assert first == second
        checked += 1
    assert checked >= 8


# -- legality across random positions and options ------------------------------------------


def test_every_action_of_every_bot_is_legal_across_random_positions() -> None:
    """Thousands of positions under random options: each level's answer is a legal action."""
    rng = random.Random(2024)
    easy, normal = EasyBot(), NormalBot(seed=1)
    hard = HardBot(seed=1, playouts=12)
    asked = {"easy": 0, "normal": 0, "hard": 0, "give": 0}
    for index in range(70):
        rules = random_rules(rng)
        game = Game(rules, seed=index)
        for seat, view in turns(game):
            legal = view.legal_moves
            for bot in (easy, normal):
                assert bot.choose(view) in legal
                asked[bot.level] += 1
            if legal[0] & GIVE:
                asked["give"] += 1
            if rng.random() < 0.15 or legal[0] & GIVE:
                assert hard.choose(view) in legal
                asked["hard"] += 1
            # Drive the game on with a mix of random and bot moves, to reach odd positions.
            move = rng.choice(legal) if rng.random() < 0.5 else normal.choose(view)
            game.apply(move, seat)
    assert asked["easy"] > 3000
    assert asked["hard"] > 400
    assert asked["give"] > 20


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_whole_games_between_bots_are_legal(level: str) -> None:
    rng = random.Random(hash(level) & 0xFFFF)
    for index in range(6):
        rules = random_rules(rng)
        bots: list[Bot] = [
            make_bot(level if seat == 0 else rng.choice(BOT_LEVELS), seed=seat, playouts=10)
            for seat in range(rules.players)
        ]
        play_out(Game(rules, seed=index), bots)


# -- determinism and budget --------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["cardverse", "standard"])
def test_bots_are_deterministic_for_a_seed_and_playout_budget(preset: str) -> None:
    options = {"rounds": 2} if preset == "cardverse" else {"jokers": 2, "straights": True}
    rules = Rules.make(preset, **options)

    def run() -> list[int]:
        bots: list[Bot] = [
            make_bot(level, seed=7 + seat, playouts=40)
            for seat, level in enumerate(["hard", "normal", "easy", "hard"])
        ]
        return play_out(Game(rules, seed=99), bots)

    assert run() == run()


def test_hard_respects_its_time_budget() -> None:
    """A generous check (not a benchmark): a 0.2 s budget is kept well under 1 s."""
    rules = Rules.make("standard", jokers=2, straights=True, revolution=True, eight_stop=True)
    game = Game(rules, seed=4)
    bot = HardBot(seed=1, time_limit=0.2)
    seat = game.turn
    assert seat is not None
    started = time.perf_counter()
    move = bot.choose(player_view(game, seat))
    elapsed = time.perf_counter() - started
    assert move in game.legal_moves()
    assert elapsed < 1.0
    assert bot.last_playouts > 0


def test_hard_default_budget_is_one_second_and_playouts_make_it_untimed() -> None:
    assert HardBot().time_limit == 1.0
    assert HardBot(playouts=50).time_limit is None
    assert HardBot(playouts=50, time_limit=0.5).time_limit == 0.5
    with pytest.raises(ValueError):
        HardBot(playouts=0)


def test_hard_spends_its_playout_budget() -> None:
    rules = Rules.make("cardverse")
    bot = HardBot(seed=3, playouts=120)
    game = Game(rules, seed=8)
    while True:
        view = player_view(game, game.turn or 0)
        if len(view.legal_moves) > 2:
            break
        game.apply(game.legal_moves()[0])
    bot.choose(view)
    if bot.last_reason == "search":
        assert bot.last_playouts == 120


# -- easy (R28) ---------------------------------------------------------------------------------

CV = Rules.make("cardverse", players=3)
STD = Rules.make("standard", players=3, first_lead="first_seat")


def test_R28_easy_leads_its_lowest_single() -> None:
    view = view_after(CV, ["5C 5D 9H 2S", "4C 6D", "7C 8D"])
    assert EasyBot().choose(view) == move_of("5C")


def test_R28_easy_covers_with_its_lowest_play() -> None:
    view = view_after(CV, ["4C 9D", "6C 6D KH AS", "7C 8D"], ["4C"])
    assert EasyBot().choose(view) == move_of("6C")


def test_R28_easy_follows_lowest_during_revolution() -> None:
    view = view_after(
        CV, ["4C 4D 4H 4S 9D 8C", "6C QD KH 3S", "7C 8D"], ["4C 4D 4H 4S", "pass", "pass", "9D"]
    )
    assert view.revolution and view.seat == 1
    assert EasyBot().choose(view) == move_of("6C")


def test_R28_easy_passes_only_without_a_play() -> None:
    view = view_after(CV, ["KC 9D", "6C 5D", "7C 8D"], ["KC"])
    assert view.legal_moves == (PASS,)
    assert EasyBot().choose(view) == PASS
    view = view_after(CV, ["5C 9D", "AC 5D", "7C 8D"], ["5C"])
    assert EasyBot().choose(view) == move_of("AC")


def test_R28_easy_gives_back_its_lowest_cards() -> None:
    rules = Rules.make("cardverse", players=3, rounds=2)
    game = Game(rules, seed=5)
    bots: list[Bot] = [EasyBot(), EasyBot(), EasyBot()]
    for seat, view in turns(game):
        if game.phase is Phase.EXCHANGE:
            break
        game.apply(bots[seat].choose(view))
    seat = game.turn
    assert seat is not None
    view = player_view(game, seat)
    move = EasyBot().choose(view)
    assert move & GIVE
    given = [c for c in range(54) if move >> c & 1]
    kept = [c for c in range(54) if (view.hand & ~move) >> c & 1]
    assert max(card_height(c) for c in given) <= min(card_height(c) for c in kept)


# -- normal (R29) -------------------------------------------------------------------------------


def test_R29_normal_does_not_break_a_pair_when_it_need_not() -> None:
    view = view_after(CV, ["4C 9D", "5C 5D 9H KS", "7C 8D"], ["4C"])
    assert NormalBot().choose(view) == move_of("9H")


def test_R29_normal_keeps_its_2s_to_take_back_the_lead() -> None:
    view = view_after(CV, ["AC 9D", "2C 4D 6H 8S 10S", "7C 8D"], ["AC"])
    assert NormalBot().choose(view) == PASS
    # With one weak card left after it, the 2 takes the lead back and wins.
    view = view_after(CV, ["AC 9D", "2C 4D", "7C 8D"], ["AC"])
    assert NormalBot().choose(view) == move_of("2C")


def test_R29_normal_keeps_its_four_and_breaks_only_when_it_must() -> None:
    view = view_after(
        Rules.make("standard", players=3, first_lead="first_seat", revolution=True),
        ["4C 9D", "7C 7D 7H 7S 5D KH", "8C 8D"],
        ["4C"],
    )
    assert NormalBot().choose(view) == move_of("5D")


def test_R29_normal_starts_a_revolution_with_a_weak_hand() -> None:
    view = view_after(CV, ["QC QD QH QS 3C 4D 5H 6S", "AC KD", "2C 2D"])
    assert NormalBot().choose(view) == move_of("QC QD QH QS")
    view = view_after(CV, ["4C 4D 4H 4S KC AD 2H", "3C 6D", "5C 7D"])
    assert NormalBot().choose(view) != move_of("4C 4D 4H 4S")


def test_R29_normal_leads_whole_groups_and_a_straight_of_singles() -> None:
    view = view_after(CV, ["6C 6D 9H KS", "3C 4D", "5C 7D"])
    assert NormalBot().choose(view) == move_of("6C 6D")
    rules = Rules.make("standard", players=3, straights=True, first_lead="first_seat")
    view = view_after(rules, ["3C 4C 5C 9H 9S KD", "6D 7D", "8C 10D"])
    move = NormalBot().choose(view)
    assert move & cards("3C 4C 5C") == cards("3C 4C 5C")


def test_policy_fast_path_matches_the_general_one() -> None:
    """Two paths to the same answer: rank counts versus the legal move list (sets only).

    Both for the heuristic policy and for the lowest-play model the hard bot infers with.
    """
    rng = random.Random(5)
    compared = 0
    for index in range(250):
        rules = Rules.make(
            "standard",
            players=rng.randint(3, 8),
            revolution=rng.random() < 0.5,
            eight_stop=rng.random() < 0.5,
            equal_plays=rng.random() < 0.5,
            jokers=rng.choice([0, 0, 1, 2]),
        )
        style = Style.of(rules)
        round_ = Game(rules, seed=index).round
        assert round_ is not None
        while round_.turn >= 0:
            hand = round_.hands[round_.turn]
            legal = round_.legal_moves()
            if not hand & JOKER_MASK:
                fewest = min(
                    h.bit_count() for s, h in enumerate(round_.hands) if s != round_.turn and h
                )
                if round_.last_move is None:
                    general = lead_play(hand, legal, round_.revolution, style, fewest)
                    fast = fast_lead(hand, round_.revolution, style, fewest)
                else:
                    count = round_.hands[round_.last_seat].bit_count()
                    general = follow_play(hand, legal, round_.revolution, style, count)
                    fast = fast_follow(hand, round_.last_move, round_.revolution, style, count)
                assert fast == general
                low = (
                    _lowest_lead(hand, round_.revolution)
                    if round_.last_move is None
                    else _lowest_follow(
                        hand, round_.last_move, round_.revolution, rules.equal_plays
                    )
                )
                plays = [m for m in legal if m != PASS]
                expected = (
                    min(plays, key=lambda m: lowest_key(m, round_.revolution)) if plays else PASS
                )
                assert low == expected
                compared += 1
            round_.apply_unchecked(rng.choice(legal))
    assert compared > 10000


# -- hard (R30) ---------------------------------------------------------------------------------


def test_R30_knowledge_counts_unseen_cards_and_samples_consistent_deals() -> None:
    rng = random.Random(3)
    for index in range(40):
        rules = random_rules(rng)
        game = Game(rules, seed=index)
        bots: list[Bot] = [NormalBot() for _ in range(rules.players)]
        steps = rng.randint(0, 60)
        for seat, view in turns(game):
            if not steps:
                break
            game.apply(bots[seat].choose(view))
            steps -= 1
        if game.phase is not Phase.PLAY:
            continue
        me = game.turn
        assert me is not None
        view = player_view(game, me)
        knowledge = Knowledge.of(view)
        truth = game.hands
        hidden = 0
        for seat in range(rules.players):
            if seat != me:
                hidden |= truth[seat]
                assert knowledge.pinned[seat] & ~truth[seat] == 0
                assert all(
                    card_height(c) <= knowledge.caps[seat]
                    for c in range(54)
                    if (truth[seat] & ~knowledge.pinned[seat]) >> c & 1
                    and not any(e.giver == me and e.receiver == seat for e in view.exchange)
                )
        assert knowledge.unseen == hidden
        for _ in range(5):
            deal = knowledge.sample(rng)
            assert deal[me] == view.hand
            union = 0
            for seat in range(rules.players):
                assert deal[seat].bit_count() == view.hand_counts[seat]
                assert deal[seat] & union == 0
                union |= deal[seat]
                assert knowledge.pinned[seat] & ~deal[seat] == 0 or seat == me
            assert union == hidden | view.hand


def test_R30_plausible_deals_explain_the_play_and_stay_consistent() -> None:
    rules = Rules.make("cardverse")
    game = Game(rules, seed=12)
    bots: list[Bot] = [NormalBot() for _ in range(4)]
    for _ in range(20):
        seat = game.turn
        assert seat is not None
        game.apply(bots[seat].choose(player_view(game, seat)))
    me = game.turn
    assert me is not None
    view = player_view(game, me)
    knowledge = Knowledge.of(view)
    evidence = Evidence(view, knowledge)
    for seat in knowledge.others():
        assert evidence.misses(seat, game.hands[seat])[0] == 0  # the truth explains it all
    rng = random.Random(1)
    deals = PlausibleDeals(view, knowledge, rng, pool=40, surprise=0.1)
    assert deals.deals
    for deal in deals.deals:
        assert [h.bit_count() for h in deal] == list(view.hand_counts)
        assert deal[me] == view.hand
    uniform = [knowledge.sample(rng) for _ in range(40)]
    misses = sum(evidence.misses(s, d[s])[0] for d in deals.deals for s in knowledge.others())
    misses_uniform = sum(evidence.misses(s, d[s])[0] for d in uniform for s in knowledge.others())
    assert misses < misses_uniform


def test_R30_the_tree_search_reaches_the_bots_later_decisions() -> None:
    """Below the root, a node per decision of the bot that looks the same to it (its hand and
    every action since); its visits add up to the playouts through it."""
    rules = Rules.make("cardverse")
    game = Game(rules, seed=8)
    while True:
        view = player_view(game, game.turn or 0)
        if len(view.legal_moves) > 2 and view.hand.bit_count() > 8:
            break
        game.apply(game.legal_moves()[0])
    bot = HardBot(seed=3, playouts=400, tree=True, strict=True)
    move = bot.choose(view)
    assert move in view.legal_moves
    assert bot.last_reason == "search" and bot.last_playouts == 400
    root = bot.last_tree
    assert root is not None and root.children
    for (arm, own_hand, _), node in root.children.items():
        assert 0 <= arm < len(root.moves)
        assert own_hand == view.hand & ~root.moves[arm]  # no seven pass: its cards, less the move
        assert node.moves and sum(node.visits) == node.n
        assert node.n <= 400


def test_R30_progressive_widening_tries_the_policys_choice_first() -> None:
    from cardverse.bots.tree_search import Node

    node = Node([11, 22, 33, 44])
    assert node.select(0.5, 1.0) == 0  # no visit yet: only the first (the policy's) arm
    node.update(0, 0.2)
    assert node.select(0.5, 1.0) == 1  # 1 + sqrt(1) = 2 arms: the untried second one
    node.update(1, 0.9)
    node.update(0, 0.2)
    node.update(1, 0.9)
    assert node.n == 4 and node.select(0.5, 1.0) == 2  # 3 arms now, the third untried
    assert Node([1, 2, 3]).select(0.5, 0.0) == 0  # no widening: every arm, first untried first


def test_R30_a_clear_winner_stops_a_timed_search() -> None:
    from cardverse.bots.hard import _clear_winner

    # 2,000 playouts each: a mean of 0.9 against 0.3 is clear, 0.52 against 0.50 is not.
    assert _clear_winner([2000, 2000], [1800.0, 600.0], [1700.0, 400.0])
    assert not _clear_winner([2000, 2000], [1040.0, 1000.0], [700.0, 650.0])
    assert not _clear_winner([1, 2000], [1.0, 600.0], [1.0, 400.0])  # too few to tell


def _exchange_views(rules: Rules, seeds: range) -> list[tuple[Game, PlayerView]]:
    """Games of normal bots played up to a give-back of the exchange (R25), and its view."""
    found = []
    for seed in seeds:
        game = Game(rules, seed=seed)
        bots = [NormalBot(seed=s) for s in range(rules.players)]
        for seat, view in turns(game):
            if game.phase is Phase.EXCHANGE:
                found.append((game, view))
                break
            game.apply(bots[seat].choose(view), seat)
    return found


@pytest.mark.parametrize("preset", ["cardverse", "daifugo"])
def test_R25_R30_hard_searches_its_exchange_give_back(preset: str) -> None:
    """The give-back is chosen by playouts of the next round: a legal give
    of the owed count, the same for a seed (and in strict mode, every simulated action checked),
    and blind to the cards it cannot see (R27)."""
    rules = Rules.make(preset, players=4, rounds=2)
    searched = 0
    for game, view in _exchange_views(rules, range(4)):
        move = HardBot(seed=3, playouts=80, exchange_search=True).choose(view)
        assert move in view.legal_moves and move & GIVE
        again = HardBot(seed=3, playouts=80, exchange_search=True, strict=True)
        assert again.choose(view) == move
        if again.last_reason == "exchange":
            searched += 1
            assert 0 < again.last_playouts <= 80 * again.exchange_budget  # its own budget
        # Another deal with the same view: the cards the seat cannot see moved between others.
        me = view.seat
        hands = game.hands
        giver = next(g for g, r, _ in view.exchange_pairs if r == me)
        free = [s for s in range(4) if s not in (me, giver)]
        pooled = [c for s in free for c in range(54) if hands[s] >> c & 1]
        random.Random(me).shuffle(pooled)
        twin_hands = list(hands)
        position = 0
        for seat in free:
            count = hands[seat].bit_count()
            twin_hands[seat] = sum(1 << c for c in pooled[position : position + count])
            position += count
        twin = game.clone()
        twin.exchange_hands = twin_hands
        twin_view = player_view(twin, me)
        assert twin_view == view
        assert HardBot(seed=3, playouts=80, exchange_search=True).choose(twin_view) == move
        off = HardBot(seed=3, playouts=80, exchange_search=False)
        assert off.choose(view) == NormalBot().choose(view)  # off: the policy's give-back
        assert off.last_reason == "policy"
    assert searched >= 3


def test_R30_hard_plays_a_sure_win_at_once() -> None:
    # Seat 0 leads holding a 2 (clears, R14) and a 9: 2 then 9 goes out whatever the others hold.
    view = view_after(CV, ["2C 9D", "3C 4D 5H", "6C 7D 8H"])
    bot = HardBot(seed=1, playouts=50)
    assert bot.choose(view) == move_of("2C")
    assert bot.last_reason == "sure"
    assert bot.last_playouts == 0


def test_R30_sure_win_needs_every_play_unbeatable() -> None:
    unseen = cards("3C 4D AH")
    legal = (move_of("KC"), move_of("9D"))
    assert sure_win(CV, cards("KC 9D"), legal, None, False, unseen) is None
    unseen = cards("3C 4D QH")
    assert sure_win(CV, cards("KC 9D"), legal, None, False, unseen) == move_of("KC")


def test_R30_two_player_endgame_is_solved_exactly() -> None:
    rules = Rules.make("cardverse", players=3)
    # Seat 0: 9 9 A; seat 1: K 5. Leading the pair of 9s first wins; leading the ace...
    round_ = Round(rules, [cards("9C 9D AS"), cards("KC 5D"), 0], 0, finished=[2])
    solved = solve_duel(round_, 0)
    assert solved is not None
    move, wins = solved
    assert wins
    child = round_.clone()
    child.apply_unchecked(move)
    assert move in round_.legal_moves()


def test_R30_hard_beats_easy_in_a_short_match() -> None:
    """A sanity check of strength (the measured targets live in the arena, not in tests)."""
    rules = Rules.make("cardverse")
    points = 0
    games = 0
    for deal in range(6):
        for rotation in range(4):
            lineup = ["easy"] * 4
            lineup[rotation] = "hard"
            bots: list[Bot] = [
                make_bot(level, seed=deal * 10 + seat, playouts=60)
                for seat, level in enumerate(lineup)
            ]
            game = Game(rules, seed=deal)
            play_out(game, bots)
            points += game.points[rotation]
            games += 1
    assert points / games > 2.5


# -- issue 14: finishing lines, proofs, baselines -------------------------------------------


def test_R29_normal_clears_with_a_2_then_goes_out() -> None:
    """The rules of thumb would cover the 8 with the queen (a king may take it, then a pair of 4s
    the seat cannot cover); the 2 clears the pile, and the queen is then the last card."""
    from cardverse.puzzles import puzzle_view

    position = {
        "rules": {"preset": "cardverse", "players": 3},
        "hands": [["4D", "4H", "KC"], ["QS", "2S"], ["6D", "7H"]],
        "trick": [{"seat": 0, "action": "play", "cards": ["8C"]}],
        "turn": 1,
    }
    view = puzzle_view(position)
    style = Style.of(view.rules)
    thumb = policy_choose(view.hand, view.legal_moves, cards("8C"), False, style, 2, 3)
    assert thumb == cards("QS")
    assert NormalBot().choose(view) == cards("2S")


def test_R30_sure_win_counts_the_cards_each_seat_holds() -> None:
    """Three seats with one card each cannot cover a pair: lead the pair, then the last card."""
    from cardverse.bots.endgame import holders_of

    hand = cards("5C 5D 3H")
    unseen = cards("9S 6H KD 6C 6D")  # a pair of 6s is unseen, but nobody can hold two cards
    legal = [cards("3H"), cards("5C"), cards("5D"), cards("5C 5D")]
    assert sure_win(CV, hand, legal, None, False, unseen) is None
    holders = holders_of(unseen, (3, 1, 1, 1), (0, 0, 0, 0), 0)
    assert sure_win(CV, hand, legal, None, False, unseen, holders=holders) == cards("5C 5D")


def test_baselines_are_arena_players_not_levels() -> None:
    from cardverse.arena import ARENA_KINDS, make_player
    from cardverse.bots.baselines import BASELINES, plays_needed

    assert set(BASELINES) <= set(ARENA_KINDS)
    for kind in BASELINES:
        assert kind not in BOT_LEVELS
        with pytest.raises(ValueError, match="unknown bot level"):
            make_bot(kind)
    assert plays_needed(cards("3C 3D 5H 9S 9D 9H"), False) == 3
    assert plays_needed(cards("3C 4C 5C 9S"), True) == 2
    rng = random.Random(14)
    for number in range(6):
        rules = random_rules(rng)
        game = Game(rules, seed=number)
        bots = [make_player(BASELINES[s % 2], seed=s, playouts=24) for s in range(rules.players)]
        play_out(game, bots)
        assert game.over


def test_R44_a_set_jokers_named_card_is_the_same_choice_to_the_inference() -> None:
    """With straights on (the uecda preset, where a set's joker must name its card, R44), a
    joker set is one choice whichever card its joker names: the inference must not count the
    naming as an action the true hand fails to explain."""
    from cardverse.engine.cards import cards_of
    from cardverse.engine.plays import CARDS_MASK, declare_suit, play_info

    rules = Rules.make("uecda")

    def played(seed: int, naming: str, stop: str) -> tuple[Game, int | None]:
        """Normal bots play up to the first joker set (``stop`` "before") or to the next
        seat's turn after it ("after"); the set is played as the bot chose it (``naming``
        "bot") or with the joker naming the set's highest missing card ("other")."""
        game = Game(rules, seed=seed)
        bots = [NormalBot(seed=seat) for seat in range(rules.players)]
        joker_set_by = None
        while game.turn is not None and game.phase is Phase.PLAY:
            seat = game.turn
            if joker_set_by is not None and seat != joker_set_by:
                break
            move = bots[seat].choose(player_view(game, seat))
            natural = move & CARDS_MASK & ~JOKER_MASK
            if move != PASS and move & JOKER_MASK and natural and not play_info(move).straight:
                joker_set_by = seat
                if stop == "before":
                    break
                if naming == "other":
                    free = set(range(4)) - {card & 3 for card in cards_of(natural)}
                    joker = cards_of(move & JOKER_MASK)[0]
                    named = declare_suit(move & CARDS_MASK, joker, max(free))
                    assert named != move and game.check(seat, named) is None
                    move = named
            game.apply(move)
        return game, joker_set_by

    seed = next(s for s in range(40) if played(s, "bot", "before")[1] is not None)
    before, seat = played(seed, "bot", "before")
    assert seat is not None
    viewer = (seat + 1) % rules.players
    view = player_view(before, viewer)
    sensible_before = Evidence(view, Knowledge.of(view)).misses(seat, before.hands[seat])[0]
    for naming in ("bot", "other"):
        after, _ = played(seed, naming, "after")
        view = player_view(after, viewer)
        sensible = Evidence(view, Knowledge.of(view)).misses(seat, after.hands[seat])[0]
        assert sensible == sensible_before, naming
