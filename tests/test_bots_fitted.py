"""The fitted playout policy of the hard bot (R30, issue 14): its features, its weights file, its
legality in the playouts, and the options that switch it on."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

import pytest

from cardverse.bots import fitted, playout
from cardverse.bots.hard import HardBot
from cardverse.bots.normal import NormalBot
from cardverse.bots.policy import Style
from cardverse.engine import PASS, Game, Round, Rules, rules_from_dict
from cardverse.engine.cards import parse_cards

ALL = {"preset": "standard", "revolution": True, "straights": True, "jokers": 2, "eight_stop": True}


def cards(text: str) -> int:
    return parse_cards(text.split())


def named(round_: Round, move: int, rules_move: int | None = None) -> dict[str, float]:
    """The features of ``move`` for the seat on turn, by name (the rules' choice: ``rules_move``,
    by default the playout's rules of thumb)."""
    style = Style.of(round_.rules)
    if rules_move is None:
        rules_move = playout._rules_move(round_, style, style.fast_playouts, False)
    others, widest, fewest, top_count = fitted.position(round_)
    values = fitted.features(
        move,
        round_.hands[round_.turn],
        round_.last_move,
        top_count,
        round_.reversed_now,
        style,
        others,
        widest,
        fewest,
        rules_move,
    )
    return dict(zip(fitted.FEATURES, values, strict=True))


def test_R30_fitted_features_of_a_lead() -> None:
    """On lead with 3 3 7 K 2 (the others hold 4 5 6 8 9 J and an ace): the pair of threes is
    the rules' weakest whole group; a single three breaks it; the 2 spends a control card that
    clears; the king can be covered by the ace, a lone 2 cannot be covered."""
    rules = Rules.make("cardverse", players=3)
    hand = cards("3D 3H 7C KS 2S")
    round_ = Round(rules, [hand, cards("4D 5H 6C 8C 9S"), cards("JD AH QC")], 0)
    pair = named(round_, cards("3D 3H"))
    assert pair["rules"] == 1.0 and pair["pass"] == 0.0
    assert pair["lead_weakest"] == 1.0 and pair["breaks"] == 0.0
    assert pair["cards"] == pytest.approx(2 / 5) and pair["set_size"] == pytest.approx(0.5)
    assert pair["strength"] == 0.0 and pair["lead_strength"] == 0.0
    assert pair["control"] == 0.0 and pair["clears"] == 0.0 and pair["out"] == 0.0
    assert pair["groups_after"] == pytest.approx(3 / 5)  # 7, K, 2
    assert pair["weak_after"] == pytest.approx(2 / 5)  # 7 and K (the 2 is a control card)
    assert pair["low_after"] == pytest.approx(4 / 13)  # the 7
    assert pair["safe_after"] == pytest.approx(1 / 5)  # only the 2 cannot be covered
    assert pair["small_rules"] == 1.0 and pair["small_strength"] == 0.0  # five cards: small
    single = named(round_, cards("3D"))
    assert single["breaks"] == 1.0 and single["rules"] == 0.0 and single["lead_weakest"] == 1.0
    two = named(round_, cards("2S"))
    assert two["control"] == 1.0 and two["clears"] == 1.0 and two["unbeatable"] == 1.0
    assert two["strength"] == pytest.approx(12 / 13) and two["small_control"] == 1.0
    assert two["lead_weakest"] == 0.0
    king = named(round_, cards("KS"))
    assert king["unbeatable"] == 0.0 and king["control"] == 0.0


def test_R30_fitted_features_of_a_pass_and_a_last_play() -> None:
    """Following a king played by a seat left with one card: the pass reads the play on top and
    its player's hand; covering with the last cards is going out."""
    rules = Rules.make("cardverse", players=3)
    round_ = Round(rules, [cards("KS 4C"), cards("AD AH"), cards("5D 6H 7C")], 0)
    round_.apply(cards("KS"))  # seat 0 keeps one card, seat 1 is on turn
    assert round_.turn == 1
    passing = named(round_, PASS)
    assert passing["pass"] == 1.0 and passing["pass_top_one"] == 1.0
    assert passing["pass_top_two"] == 0.0
    assert passing["pass_top_size"] == pytest.approx(0.25)
    assert passing["pass_top_strength"] == pytest.approx(10 / 13)  # the king
    assert passing["groups_after"] == pytest.approx(1 / 5)  # the pair of aces stays
    ace = named(round_, cards("AD"))
    assert ace["breaks"] == 1.0 and ace["out"] == 0.0
    # Seat 1 following a single with a pair it may not play: on a pair, the pair goes out.
    duel = Round(rules, [cards("QS QC 4C"), cards("AD AH"), cards("5D 6H 7C")], 0)
    duel.apply(cards("QS QC"))
    out = named(duel, cards("AD AH"))
    assert out["out"] == 1.0 and out["groups_after"] == 0.0 and out["low_after"] == 1.0
    assert out["unbeatable"] == 1.0  # no one else holds a pair above the aces


def test_R30_fitted_features_see_an_opponent_with_one_card() -> None:
    """With an opponent on one card, a single that can be covered and a set are told apart."""
    rules = Rules.make("cardverse", players=3)
    round_ = Round(rules, [cards("4D 4H 9C"), cards("KD"), cards("5D 6H 7C QS")], 0)
    single = named(round_, cards("9C"))
    assert single["single_vs_one"] == 1.0 and single["set_vs_one"] == 0.0
    pair = named(round_, cards("4D 4H"))
    assert pair["set_vs_one"] == 1.0 and pair["single_vs_one"] == 0.0


def _positions(rules: Rules, seed: int, count: int) -> list[Round]:
    """``count`` rounds at random points of games played by random legal moves."""
    rng = random.Random(seed)
    found: list[Round] = []
    number = 0
    while len(found) < count:
        round_ = Game(rules, seed=seed * 1000 + number).round
        number += 1
        assert round_ is not None
        while round_.turn >= 0 and len(found) < count:
            if rng.random() < 0.3 and round_.owed is None:
                found.append(round_.clone())
            round_.apply(rng.choice(round_.legal_moves()))
    return found


OPTION_SETS = [
    {"preset": "cardverse", "players": 4},
    {**ALL, "players": 4},
    {"preset": "standard", "players": 5, "jokers": 1, "equal_plays": True},
    {"preset": "daifugo", "players": 4, "rounds": 1},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: o["preset"] + str(len(o)))
@pytest.mark.parametrize("sample", [False, True])
def test_R30_the_fitted_policy_always_plays_a_legal_move(options: dict, sample: bool) -> None:
    """In many random positions (straights and jokers among the options) the fitted policy's
    move is legal, and playouts with it for every seat finish the round with every simulated
    action checked by the referee (strict)."""
    rules = rules_from_dict(options)
    weights = fitted.shipped_weights()
    style = Style.of(rules)._replace(fitted_seat=-2, fitted_hand=99, fitted_sample=sample)
    for index, round_ in enumerate(_positions(rules, 3, 60)):
        rules_move = playout._rules_move(round_, style, style.fast_playouts, False)
        move = fitted.choose(round_, style, rules_move, weights)
        assert move in round_.legal_moves()
        me = (round_.turn + index) % rules.players
        if not round_.hands[me]:
            continue
        template = round_.clone()
        points = playout.play_out(template, list(round_.hands), move, round_.turn, style, True)
        assert 1 <= points <= rules.players


def test_R30_fitted_weights_on_the_rules_feature_alone_play_the_rules_of_thumb() -> None:
    """Weights that score only "the rules chose it" play the rules of thumb's own move."""
    rules = rules_from_dict({**ALL, "players": 4})
    weights = fitted.FittedWeights([1.0] + [0.0] * (fitted.COUNT - 1))
    style = Style.of(rules)._replace(fitted_seat=-2, fitted_hand=99)
    for round_ in _positions(rules, 5, 80):
        rules_move = playout._rules_move(round_, style, style.fast_playouts, False)
        assert fitted.choose(round_, style, rules_move, weights) == rules_move


def test_R30_the_fitted_seat_and_hand_size_options_choose_who_plays_fitted() -> None:
    """Only the named seat, and only at or below the hand size, is played by the fitted policy;
    the default style plays the rules of thumb (and a finishing line stays first)."""
    rules = Rules.make("cardverse", players=3)
    round_ = Round(rules, [cards("4D 4H 9C"), cards("KD"), cards("5D 5H 7C QS")], 0)
    style = Style.of(rules)
    assert style.fitted_seat == -1
    # Weights that prefer the strongest play: the rules lead the pair of fours.
    weights = [0.0] * fitted.COUNT
    weights[fitted.FEATURES.index("strength")] = 10.0
    fitted._SHIPPED.insert(0, fitted.FittedWeights(weights))
    try:
        rules_move = playout.next_move(round_, style)
        assert rules_move == cards("4D 4H")
        assert playout.next_move(round_, style._replace(fitted_seat=0, fitted_hand=3)) == cards(
            "9C"
        )
        assert playout.next_move(round_, style._replace(fitted_seat=0, fitted_hand=2)) == rules_move
        assert playout.next_move(round_, style._replace(fitted_seat=1, fitted_hand=9)) == rules_move
        assert playout.next_move(round_, style._replace(fitted_seat=-2, fitted_hand=9)) == cards(
            "9C"
        )
        # With no pair among the others, the fours then the nine is a finishing line: it stays.
        line = Round(rules, [cards("4D 4H 9C"), cards("KD"), cards("5D 6H 7C QS")], 0)
        assert playout.next_move(line, style._replace(fitted_seat=0, fitted_hand=9)) == cards(
            "4D 4H"
        )
    finally:
        fitted._SHIPPED.pop(0)


def test_R30_the_shipped_weights_file_loads() -> None:
    path = Path(str(resources.files("cardverse.bots").joinpath(fitted.WEIGHTS_FILE)))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == fitted.VERSION and tuple(data["features"]) == fitted.FEATURES
    assert "bench.fit_policy" in data["command"]
    weights = fitted.load_weights(str(path))
    assert len(weights.weights) == fitted.COUNT and weights.temperature > 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "a JSON object is needed"),
        ('{"version": 99}', "version 99"),
        ('{"version": 1, "features": ["rules"], "weights": [1]}', "are not this code's"),
        ("WRONG_LENGTH", "must be a list of"),
        ("NOT_A_NUMBER", "is not a number"),
    ],
)
def test_R30_a_malformed_weights_file_raises_a_clear_error(
    tmp_path: Path, text: str, message: str
) -> None:
    good = {"version": fitted.VERSION, "features": list(fitted.FEATURES)}
    if text == "WRONG_LENGTH":
        text = json.dumps({**good, "weights": [0.0] * (fitted.COUNT - 1)})
    elif text == "NOT_A_NUMBER":
        text = json.dumps({**good, "weights": ["big"] + [0.0] * (fitted.COUNT - 1)})
    path = tmp_path / "weights.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(fitted.WeightsError, match=message):
        fitted.load_weights(str(path))
    with pytest.raises(ValueError, match="cannot read"):
        fitted.load_weights(str(tmp_path / "missing.json"))


@pytest.mark.parametrize(
    ("options", "named_value"),
    [
        ({"playout_policy": "neural"}, "playout_policy must be one of rules, fitted, not 'neural'"),
        ({"fitted_seats": "mine"}, "fitted_seats must be one of me, all, not 'mine'"),
        ({"fitted_choice": "best"}, "fitted_choice must be one of greedy, sample, not 'best'"),
        ({"fitted_hand": 0}, "fitted_hand must be .* not 0"),
        ({"fitted_hand": -3}, "fitted_hand must be .* not -3"),
    ],
)
def test_R30_hard_refuses_bad_playout_policy_options(options: dict, named_value: str) -> None:
    with pytest.raises(ValueError, match=named_value):
        HardBot(seed=0, playouts=10, **options)


@pytest.mark.parametrize(
    "variant",
    [
        {"playout_policy": "fitted"},
        {"playout_policy": "fitted", "fitted_seats": "all", "fitted_choice": "sample"},
        {"playout_policy": "fitted", "fitted_seats": "all", "fitted_hand": 6, "tree": False},
    ],
)
@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[1]], ids=["cardverse", "all"])
def test_R30_hard_with_the_fitted_playout_policy_plays_legal_whole_rounds(
    variant: dict, options: dict
) -> None:
    """Strict: every simulated action of the search goes through the referee's check."""
    from cardverse.arena import turns

    rules = rules_from_dict({**options, "rounds": 1})
    game = Game(rules, seed=11)
    bots = [
        HardBot(seed=1, playouts=40, strict=True, **variant),
        NormalBot(),
        HardBot(seed=2, playouts=40, strict=True, **variant),
        NormalBot(),
    ]
    for seat, view in turns(game):
        move = bots[seat].decide(view)
        assert move in view.legal_moves
        game.apply(move, seat)
    assert game.over


def test_R30_hard_reads_a_named_weights_file_and_refuses_a_bad_one(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    weights = [0.0] * fitted.COUNT
    weights[0] = 2.0
    good.write_text(
        json.dumps(
            {"version": fitted.VERSION, "features": list(fitted.FEATURES), "weights": weights}
        ),
        encoding="utf-8",
    )
    bot = HardBot(seed=0, playouts=10, playout_policy="fitted", fitted_weights=str(good))
    assert fitted.weights_at(bot._fitted_index).weights == weights
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "features": [], "weights": []}', encoding="utf-8")
    with pytest.raises(ValueError, match="are not this code's"):
        HardBot(seed=0, playouts=10, playout_policy="fitted", fitted_weights=str(bad))
