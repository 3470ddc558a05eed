"""Environment steps per CPU-second with random legal actions (issue 32), ``president_v0`` beside
PettingZoo's own classic environments measured in the same run.

Every environment runs the same loop: the AEC ``agent_iter`` / ``last`` / ``step`` cycle through
the environment as ``env()`` returns it (with its PettingZoo wrappers), the observation built by
``last`` each step and its vector taken as an agent would, a uniformly random legal action from
the observation's ``action_mask`` (read as booleans), ``None`` for a finished agent, ``reset`` at
the end of each game. A step is one ``step`` call with an action (not the finished
agents' ``None`` steps); the figure is steps per CPU-second of this process (``process_time``),
the median of ``--runs`` runs of ``--steps`` steps each. A PettingZoo environment whose packages
are missing (``leduc_holdem_v4`` and ``texas_holdem_v4`` need rlcard, ``connect_four_v3`` and
``tictactoe_v3`` pygame: the ``bench`` extra) is reported as skipped.

The runs go round the environments in turn (run 1 of each, then run 2 of each, …), so that a
change of load on a shared machine falls on all of them alike; each environment's figure is
also given as a ratio to ``tictactoe_v3`` and ``connect_four_v3`` of the same run. The wrappers
each ``env()`` applies are listed (PettingZoo's classic environments and ``president_v0`` apply
the same three: TerminateIllegalWrapper, AssertOutOfBoundsWrapper, OrderEnforcingWrapper), and
whether the compiled engine ran.

    python -m bench.env_bench --steps 50000 --runs 3
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cardverse import _native

TARGET = 20_000  # steps per CPU-second (issue 32)

#: name → (module, keyword arguments of its env())
ENVIRONMENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "president_v0 cardverse 4p": ("cardverse.env.president_v0", {"preset": "cardverse"}),
    "president_v0 daifugo 4p": (
        "cardverse.env.president_v0",
        {"preset": "daifugo", "players": 4, "jokers": 2},
    ),
    "leduc_holdem_v4": ("pettingzoo.classic.leduc_holdem_v4", {}),
    "texas_holdem_v4": ("pettingzoo.classic.texas_holdem_v4", {}),
    "connect_four_v3": ("pettingzoo.classic.connect_four_v3", {}),
    "tictactoe_v3": ("pettingzoo.classic.tictactoe_v3", {}),
}


def steps_per_cpu_second(make: Callable[[], Any], steps: int, seed: int) -> float:
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    started = time.process_time()
    while done < steps:
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            features = observation["observation"]  # what a policy would read, with the mask
            legal = observation["action_mask"].view(np.bool_).nonzero()[0]
            env.step(int(legal[rng.integers(len(legal))]))
            _ = features
            done += 1
            _ = agent
        env.reset()
    return done / (time.process_time() - started)


def wrappers_of(env: Any) -> list[str]:
    """The wrapper classes around an environment, outermost first."""
    from pettingzoo.utils.wrappers import BaseWrapper

    names = []
    while isinstance(env, BaseWrapper):
        names.append(type(env).__name__)
        env = env.env
    return names


def _maker(module: Any, kwargs: dict[str, Any]) -> Callable[[], Any]:
    return lambda: module.env(**kwargs)


REFERENCES = ("tictactoe_v3", "connect_four_v3")  # the ratios of the summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="steps per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per environment (median)")
    parser.add_argument("--out", default="bench/results/env.json")
    args = parser.parse_args(argv)
    print(f"engine: {'compiled' if _native.COMPILED else 'pure Python'} ({_native.REASON})")
    results: dict[str, Any] = {}
    makers: dict[str, Callable[[], Any]] = {}
    for name, (module_name, kwargs) in ENVIRONMENTS.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            results[name] = {"skipped": f"cannot import: {error}"}
            print(f"{name:28} skipped ({error})")
            continue
        makers[name] = _maker(module, kwargs)
    figures: dict[str, list[float]] = {name: [] for name in makers}
    for run in range(args.runs):  # round the environments in turn: load falls on all alike
        for name, make in makers.items():
            figures[name].append(steps_per_cpu_second(make, args.steps, run))
    for name, make in makers.items():
        median = statistics.median(figures[name])
        results[name] = {
            "steps_per_cpu_second": round(median),
            "runs": [round(f) for f in figures[name]],
            "wrappers": wrappers_of(make()),
        }
    for name in makers:
        figure = results[name]["steps_per_cpu_second"]
        ratios = {
            reference: round(figure / results[reference]["steps_per_cpu_second"], 3)
            for reference in REFERENCES
            if reference in makers
        }
        results[name]["ratio_to"] = ratios
        shown = "  ".join(f"{ratio:.2f}x {reference}" for reference, ratio in ratios.items())
        print(f"{name:28} {figure:>10,.0f} steps per CPU-second  {shown}")
    ours = min(r["steps_per_cpu_second"] for n, r in results.items() if n.startswith("president"))
    others = [
        r["steps_per_cpu_second"]
        for n, r in results.items()
        if not n.startswith("president") and "steps_per_cpu_second" in r
    ]
    summary = {
        "target": TARGET,
        "meets_target": ours >= TARGET,
        "ahead_of_every_classic_env": bool(others) and ours > max(others),
        "slowest_president_to_fastest_classic": round(ours / max(others), 3) if others else None,
        "compiled": _native.COMPILED,
        "python": platform.python_version(),
        "steps": args.steps,
        "runs": args.runs,
    }
    print(json.dumps(summary))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"results": results, **summary}, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
