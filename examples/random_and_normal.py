"""Random agents and CardVerse's normal bot playing President through the PettingZoo
environment (docs/library.md, docs/env.md).

Seat 0 is the normal bot (it reads the seat's view with ``raw_observation`` and turns its move into
action indices with ``action_indices``); the other seats pick uniformly among the legal action
indices of the observation's mask. Over many games the bot's average points per round show how
far above random it plays (with 4 players a round gives 4, 3, 2 and 1 points: 2.5 on average).

    python examples/random_and_normal.py --games 200
"""

from __future__ import annotations

import argparse

import numpy as np

from cardverse.bots import make_bot
from cardverse.env import president_v0
from cardverse.moves import Move


def play(games: int, seed: int) -> dict[str, float]:
    env = president_v0.raw_env(preset="cardverse", players=4, rounds=3)
    bot = make_bot("normal", seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for game in range(games):
        env.reset(seed=seed * 100_000 + game)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            totals[agent] += reward
            if termination or truncation:
                env.step(None)
            elif agent == "player_0":
                move = Move(bot.choose(env.raw_observation(agent)))
                for index in env.action_indices(move):
                    env.step(index)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    rounds = games * env.rules.rounds
    return {agent: total / rounds for agent, total in totals.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for agent, points in play(args.games, args.seed).items():
        who = "normal bot" if agent == "player_0" else "random"
        print(f"{agent} ({who:10}): {points:.2f} points per round")


if __name__ == "__main__":
    main()
