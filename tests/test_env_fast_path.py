"""The environment's fast path against a plain reference (issue 32, docs/env.md).

``president_v0`` builds its observation from ready-made float32 pieces and keeps parts of it
from step to step, builds its action mask straight from the table of plays, and skips the
reward bookkeeping of steps that reward nothing. These tests play many random seeded games of
every preset and compare, at every step, the observations (of the agent to act and of another
agent), the action mask and the rewards with a straightforward computation from the engine's
own state and public view (R26: the seat's hand and what every seat sees), written out from the
layout of docs/env.md, one number at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cardverse.engine import PASS, Phase, public_view, standings
from cardverse.engine.parts import REPORTS
from cardverse.engine.plays import CARDS_MASK, DISCARD, GIVE, HIDDEN
from cardverse.env import action_table, president_v0
from cardverse.env.president import (
    CARDS,
    MAX_SEATS,
    OBSERVATION_SIZE,
    PresidentEnv,
)

CONFIGS: list[dict[str, Any]] = [
    {"preset": "standard", "players": 4, "rounds": 3},
    {"preset": "standard", "players": 3, "rounds": 2, "straights": True, "jokers": 2},
    {"preset": "standard", "players": 7, "rounds": 2, "revolution": True},
    {"preset": "cardverse", "players": 4, "rounds": 3},
    {"preset": "cardverse", "players": 6, "rounds": 2},
    {"preset": "daifugo", "players": 4, "rounds": 3, "jokers": 2},
    {"preset": "daifugo", "players": 5, "rounds": 2},
    {"preset": "daifugo", "players": 8, "rounds": 2, "jokers": 2},
    {"preset": "uecda", "players": 5, "rounds": 2},
    {"preset": "uecda", "players": 4, "rounds": 2, "jokers": 2},
]


def reference_observation(env: PresidentEnv, seat: int) -> np.ndarray:
    """The seat's observation computed plainly from the game (docs/env.md, "Observation")."""
    game = env.game
    assert game is not None
    view = public_view(game)
    players = env.rules.players
    plays = [move for _, move in view.trick if move != PASS]
    to_beat = plays[-1] & CARDS_MASK if plays else 0
    picked = env._picked if game.current_player == seat else 0
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    for part, cards in enumerate((game.hand(seat), view.played, to_beat, picked)):
        for card in range(CARDS):
            out[part * CARDS + card] = cards >> card & 1
    at = 4 * CARDS
    for offset in range(MAX_SEATS):
        if offset < players:
            other = (seat + offset) % players
            out[at] = min(view.hand_counts[other] / 20.0, 1.0)
            out[at + 1] = other in view.passed
            out[at + 2] = other in view.finished
        at += 3
    flags: list[bool | int] = [view.revolution]
    for report in sorted(REPORTS, key=lambda report: report.shift):
        value = report.read(view.marks)
        flags += [value & 1] if report.kind == "flag" else [value >> bit & 1 for bit in range(4)]
    owed = view.owed
    flags += [
        view.phase == "play" and owed is None,
        view.phase == "exchange",
        owed is not None and owed.owed == "give",
        owed is not None and owed.owed == "discard",
        view.phase == "play" and not plays,
    ]
    for flag in flags:
        out[at] = flag
        at += 1
    for offset in range(MAX_SEATS):
        if offset < players:
            out[at + offset] = view.points[(seat + offset) % players] / (players * env.rules.rounds)
    return out


def reference_mask(env: PresidentEnv, seat: int) -> np.ndarray:
    """The seat's legal indices computed plainly: each legal play's index in the table, or the
    next card of each legal give or discard that goes on from the cards picked so far (picks in
    rising card order), and "done" when the cards picked already make one."""
    game = env.game
    assert game is not None
    mask = np.zeros(action_table.NUM_ACTIONS, np.int8)
    if game.is_terminal or game.current_player != seat:
        return mask
    picked = env._picked
    for move in game.legal_moves():
        if not move & (GIVE | DISCARD):
            mask[action_table.PLAY_MOVES.index(move)] = 1
            continue
        if move & HIDDEN:
            continue
        cards = move & CARDS_MASK
        rest = cards & ~picked
        if picked & ~cards or (rest and picked and min(_bits(rest)) < max(_bits(picked))):
            continue  # does not go on from the cards picked
        if rest:
            mask[action_table.FIRST_PICK + min(_bits(rest))] = 1
        elif picked:
            mask[action_table.DONE] = 1
    return mask


def _bits(cards: int) -> list[int]:
    return [card for card in range(CARDS) if cards >> card & 1]


@pytest.mark.parametrize("reward", ["points", "win_loss"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['preset']}-{c['players']}")
def test_the_fast_observation_mask_and_rewards_equal_the_reference(
    config: dict[str, Any], reward: str
) -> None:
    env = president_v0.raw_env(reward=reward, **config)
    players = env.rules.players
    steps = 0
    for seed in range(5):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        owed = dict.fromkeys(env.possible_agents, 0.0)  # rewarded since the agent last acted
        for agent in env.agent_iter():
            game = env.game
            assert game is not None
            seat = env.agent_name_mapping[agent]
            observation, cumulative, termination, truncation, _ = env.last()
            if termination or truncation:
                assert cumulative == owed[agent]
                owed[agent] = 0.0
                env.step(None)
                continue
            assert cumulative == owed[agent]
            owed[agent] = 0.0
            seen = observation["observation"]
            assert seen.dtype == np.float32 and seen.shape == (OBSERVATION_SIZE,)
            assert np.array_equal(seen, reference_observation(env, seat))
            assert np.array_equal(observation["action_mask"], reference_mask(env, seat))
            other = int(rng.integers(players))
            seen_other = env.observe(env.possible_agents[other])
            assert np.array_equal(seen_other["observation"], reference_observation(env, other))
            assert np.array_equal(seen_other["action_mask"], reference_mask(env, other))
            before = list(game.points)
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            # the step's rewards: the points of a round that ended in it (R22), or, at the
            # game's end, +1 for each seat first by total points and -1 for the others
            if reward == "points":
                pairs = zip(game.points, before, strict=True)
                expected = [float(after - ahead) for after, ahead in pairs]
            elif game.is_terminal:
                places = standings(game.points)
                expected = [1.0 if place == 0 else -1.0 for place in places]
            else:
                expected = [0.0] * players
            assert [env.rewards[a] for a in env.possible_agents] == expected
            for name, value in zip(env.possible_agents, expected, strict=True):
                owed[name] += value
        game = env.game
        assert game is not None and game.is_terminal and game.phase is Phase.GAME_OVER
    assert steps > 300


def test_observations_handed_out_are_not_changed_afterwards() -> None:
    """Each observation is a fresh writable array (the environment keeps parts of it between
    steps); a mask is read-only; earlier ones keep their values as the game goes on."""
    env = president_v0.raw_env(preset="daifugo", players=4, rounds=2, jokers=2)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seen, mask = observation["observation"], observation["action_mask"]
        assert seen.flags.writeable and not mask.flags.writeable
        kept.append((seen, seen.copy(), mask, mask.copy()))
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]))
        _ = agent
    assert len(kept) > 100
    for seen, copy, mask, mask_copy in kept:
        assert np.array_equal(seen, copy) and np.array_equal(mask, mask_copy)
    seen[0] = 0.5  # a writable array of its own: the next observation is unaffected
    env.reset(seed=4)
    assert np.array_equal(env.observe(env.agent_selection)["observation"], kept[0][1])
