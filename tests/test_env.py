"""The PettingZoo environment ``president_v0`` (issue 32, docs/env.md): PettingZoo's own API and
seed tests, the fixed action index, the seat's view only (R26), the rewards (R22), rendering,
the raw observation and legal actions, and the normal bot playing through it."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardverse.bots import make_bot
from cardverse.engine import Game, Rules, player_view
from cardverse.engine.parts import REPORTS
from cardverse.env import action_table, president_v0
from cardverse.env.president import CARDS, HAND, OBSERVATION_SIZE, PresidentEnv
from cardverse.moves import Move

CONFIGS: list[dict[str, Any]] = [
    {"preset": "cardverse", "players": 4},
    {"preset": "standard", "players": 3, "rounds": 2},
    {"preset": "daifugo", "players": 5, "rounds": 2, "jokers": 2},
    {"preset": "uecda", "players": 5, "rounds": 2},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['preset']}-{c['players']}")
def test_pettingzoo_api_test(config: dict[str, Any]) -> None:
    api_test(president_v0.env(**config), num_cycles=400)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda **kw: president_v0.env(preset="daifugo", players=4, rounds=2, **kw), 500)


def _play(env: PresidentEnv, rng: np.random.Generator) -> dict[str, float]:
    """A whole game of random legal actions; the rewards each agent collected."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
    return totals


def test_R22_rewards_are_the_points_and_win_loss_is_an_option() -> None:
    env = president_v0.raw_env(preset="daifugo", players=4, rounds=3)
    env.reset(seed=8)
    totals = _play(env, np.random.default_rng(8))
    assert env.game is not None and env.game.is_terminal
    assert [totals[a] for a in env.possible_agents] == env.game.returns()
    assert sum(totals.values()) == 3 * (4 + 3 + 2 + 1)

    env = president_v0.raw_env(preset="daifugo", players=4, rounds=3, reward="win_loss")
    env.reset(seed=8)
    totals = _play(env, np.random.default_rng(8))
    assert env.game is not None
    places = env.game.final_places()
    winners = {a for a, seat in env.agent_name_mapping.items() if places[seat] == 0}
    assert winners and all(totals[a] == (1.0 if a in winners else -1.0) for a in totals)


def test_R23_reset_with_a_seed_repeats_the_game() -> None:
    runs = []
    for _ in range(2):
        env = president_v0.raw_env(preset="cardverse", players=4, rounds=2)
        env.reset(seed=21)
        first = env.observe(env.agent_selection)["observation"].copy()
        _play(env, np.random.default_rng(3))
        assert env.game is not None
        runs.append((first, env.game.returns(), env.game.deals))
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1:] == runs[1][1:]
    env.reset(seed=22)
    assert env.game is not None and env.game.deals[0] != runs[0][2][0]


def test_R25_R36_R37_gives_and_discards_are_picked_card_by_card() -> None:
    """Exchange give-backs, seven passes and ten discards all happen through picks."""
    env = president_v0.raw_env(preset="daifugo", players=4, rounds=3, jokers=2)
    picks = 0
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            picking = legal.min() >= action_table.FIRST_PICK
            assert picking == (legal.max() >= action_table.FIRST_PICK)  # never mixed with plays
            picks += picking
            env.step(int(rng.choice(legal)))
    assert picks > 20


def test_every_legal_move_has_its_indices_and_the_indices_make_it() -> None:
    """raw_legal_actions → action_indices → step makes exactly that move (the bot's path)."""
    env = president_v0.raw_env(preset="daifugo", players=4, rounds=2, jokers=2, straights=True)
    rng = random.Random(4)
    made = 0
    for seed in range(4):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            assert env.game is not None
            moves = env.raw_legal_actions(agent)
            mask = env.observe(agent)["action_mask"]
            for move in moves:
                assert mask[env.action_indices(move)[0]] == 1
            chosen = rng.choice(moves)
            before = len(env.game.deals), env.game.hands
            for index in env.action_indices(chosen):
                env.step(index)
            if len(env.game.deals) == before[0] and not env.game.is_terminal:
                assert env.game.hands != before[1] or chosen.kind == "pass"
            made += 1
    assert made > 100


def test_R26_the_observation_holds_the_seats_view_only() -> None:
    """Two deals that differ only in cards of seats 1 and 2 give seat 0 (and seat 3) the same
    observations for the same actions; the raw observation is the engine's player view."""
    rules = Rules.make("cardverse", players=4)
    deal = Game(rules, seed=2).deals[0]
    one, two = deal[1] & -deal[1], deal[2] & -deal[2]
    swapped = list(deal)
    swapped[1] = deal[1] ^ one | two
    swapped[2] = deal[2] ^ two | one
    envs = []
    for hands in (deal, swapped):
        env = president_v0.raw_env(preset="cardverse", players=4)
        env.reset(seed=0)
        env.game = Game(rules, hands=hands)
        env._advance()
        envs.append(env)
    rng = random.Random(1)
    compared = 0
    while all(e.game is not None and not e.game.is_terminal for e in envs):
        a, b = envs
        for agent in ("player_0", "player_3"):
            seen_a, seen_b = a.observe(agent), b.observe(agent)
            assert np.array_equal(seen_a["observation"], seen_b["observation"])
            assert np.array_equal(seen_a["action_mask"], seen_b["action_mask"])
            compared += 1
        assert a.agent_selection == b.agent_selection
        mask_a = a.observe(a.agent_selection)["action_mask"]
        mask_b = b.observe(b.agent_selection)["action_mask"]
        legal = sorted(set(np.flatnonzero(mask_a)) & set(np.flatnonzero(mask_b)))
        if not legal:
            break
        index = rng.choice(legal)
        a.step(index)
        b.step(index)
    assert compared > 10
    env = envs[0]
    assert env.game is not None
    view = env.raw_observation("player_1")
    assert view == player_view(env.game, 1)
    hand = env.observe("player_1")["observation"][HAND]
    assert int(sum(1 << c for c in range(CARDS) if hand[c])) == env.game.hand(1)


def test_the_observation_space_and_the_fixed_index() -> None:
    env = president_v0.raw_env(preset="cardverse", players=6)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (OBSERVATION_SIZE,)
    assert space["action_mask"].shape == (action_table.NUM_ACTIONS,) == (16402,)
    assert env.action_space("player_5").n == 16402
    assert (action_table.FIRST_STRAIGHT, action_table.FIRST_PICK) == (693, 15125)
    with pytest.raises(ValueError, match="reward"):
        president_v0.raw_env(reward="money")


def test_an_illegal_action_is_refused_clearly() -> None:
    env = president_v0.raw_env(preset="standard", players=4)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    wrapped = president_v0.env(preset="standard", players=4)
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.step(illegal)  # PettingZoo's wrapper: the game ends, -1 for the agent
    assert wrapped.terminations[agent] and wrapped.rewards[agent] == -1


def test_render_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    env = president_v0.raw_env(preset="cardverse", players=4, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert text is not None and "player_3" in text and "to act" in text
    human = president_v0.raw_env(preset="cardverse", players=4, render_mode="human")
    human.reset(seed=3)
    human.step(int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0]))
    assert "round 1/1" in capsys.readouterr().out


def test_the_normal_bot_plays_through_the_environment() -> None:
    env = president_v0.raw_env(preset="cardverse", players=4, rounds=2)
    env.reset(seed=5)
    bots = {agent: make_bot("normal", seed=i) for i, agent in enumerate(env.possible_agents)}
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        move = Move(bots[agent].choose(env.raw_observation(agent)))
        for index in env.action_indices(move):
            env.step(index)
    assert env.game is not None and env.game.is_terminal
    assert sum(env.game.returns()) == 2 * 10


def _example(name: str, *args: str) -> str:
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "examples" / name
    result = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return result.stdout


def test_the_example_normal_bot_beats_random_agents() -> None:
    lines = _example("random_and_normal.py", "--games", "20").splitlines()
    points = [float(line.split(":")[1].split()[0]) for line in lines]
    assert len(points) == 4 and points[0] > max(points[1:])


def test_the_example_learner_beats_its_untrained_self() -> None:
    first = _example("selfplay_linear.py", "--train", "400", "--evaluate", "150").splitlines()[0]
    untrained, trained = (float(word) for word in first.split(":")[1].split()[0:3:2])
    assert trained > untrained + 0.3


@pytest.mark.parametrize(
    "config",
    [
        {"preset": "daifugo", "players": 5, "rounds": 2, "jokers": 2},
        {"preset": "daifugo", "players": 4, "rounds": 3, "eight_stop": True},
        {"preset": "standard", "players": 4, "rounds": 2, "straights": True, "jokers": 2},
        {"preset": "cardverse", "players": 6, "rounds": 2},
    ],
    ids=lambda c: f"{c['preset']}-{c['players']}",
)
def test_R26_the_observation_agrees_with_the_engines_public_view(config: dict[str, Any]) -> None:
    """The environment follows the round's public state through its events; at every step it
    must say what the engine's public view says (R31 locks, R36/R37 owed actions included)."""
    from cardverse.engine import PASS, public_view
    from cardverse.env.president import FLAGS, PICKED, PLAYED, POINTS, SEAT_FIELDS, SEATS, TO_BEAT

    def cards(part: np.ndarray) -> int:
        return sum(1 << c for c in range(CARDS) if part[c])

    env = president_v0.raw_env(**config)
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            game = env.game
            assert game is not None
            seat = env.agent_name_mapping[agent]
            seen = observation["observation"]
            view = public_view(game)
            plays = [move for _, move in view.trick if move != PASS]
            assert cards(seen[PLAYED]) == view.played
            assert cards(seen[TO_BEAT]) == (plays[-1] & ((1 << 54) - 1) if plays else 0)
            assert cards(seen[PICKED]) == env._picked
            players = len(view.hand_counts)
            for offset in range(players):
                other = (seat + offset) % players
                base = SEATS + offset * SEAT_FIELDS
                assert seen[base] == np.float32(min(view.hand_counts[other] / 20.0, 1.0))
                assert seen[base + 1] == (other in view.passed)
                assert seen[base + 2] == (other in view.finished)
                scale = players * env.rules.rounds
                assert seen[POINTS + offset] == np.float32(view.points[other] / scale)
            owed = view.owed
            expected = [
                view.revolution,
                *(
                    bool(report.read(view.marks) >> bit & 1)
                    for report in sorted(REPORTS, key=lambda report: report.shift)
                    for bit in range(1 if report.kind == "flag" else 4)
                ),
                view.phase == "play" and owed is None,
                view.phase == "exchange",
                owed is not None and owed.owed == "give",
                owed is not None and owed.owed == "discard",
                view.phase == "play" and not plays,
            ]
            assert seen[FLAGS : FLAGS + len(expected)].tolist() == [float(f) for f in expected]
            checked += 1
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert checked > 300
