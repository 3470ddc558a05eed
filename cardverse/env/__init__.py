"""President for reinforcement learning: a PettingZoo AEC environment (the ``env`` extra).

    from cardverse.env import president_v0
    env = president_v0.env(preset="cardverse", players=4)

docs/env.md describes the action index, the observation and the rewards. This package needs
``pip install 'cardverse[env]'`` (pettingzoo, gymnasium, numpy); the rest of CardVerse does not.
"""

from __future__ import annotations

from . import president_v0

__all__ = ["president_v0"]
