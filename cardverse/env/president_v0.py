"""``president_v0``: the environment's versioned entry point, as PettingZoo's own environments.

``env(**kwargs)`` is :class:`~cardverse.env.president.PresidentEnv` inside PettingZoo's usual
wrappers (an illegal action ends the game with -1 for its agent, an index out of range is an
error, and the order of calls is checked); ``raw_env(**kwargs)`` is the bare environment.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECEnv

from .president import PresidentEnv


def raw_env(**kwargs: Any) -> PresidentEnv:
    """The environment without wrappers: ``raw_env(preset="cardverse", players=4, ...)``."""
    return PresidentEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[Any, Any, Any]:
    """The environment with PettingZoo's usual wrappers (see docs/env.md for the arguments)."""
    wrapped: AECEnv[Any, Any, Any] = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["env", "raw_env"]
