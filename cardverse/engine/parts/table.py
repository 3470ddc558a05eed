"""The table's size and length: players (3–8, a preset may narrow it) and rounds (R20–R22)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import INT, OptionSpec, Part


class _Always(Part):
    """An option with no hook: it shapes the table, not a play."""

    def __init__(self, spec: OptionSpec) -> None:
        self.spec = spec

    def active(self, options: Mapping[str, Any]) -> bool:
        return False


PLAYERS = _Always(
    OptionSpec(
        name="players",
        kind=INT,
        default=4,
        rule="R4",
        low=3,
        high=8,
    )
)
ROUNDS = _Always(
    OptionSpec(
        name="rounds",
        kind=INT,
        default=1,
        rule="R22",
        low=1,
        high=20,
        presets={"daifugo": 3},
    )
)
