"""The table's size and length: players (3–8, a preset may narrow it) and rounds (R20–R22)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import INT, N_, OptionSpec, Part, Words


class _Always(Part):
    """An option with no hook: it shapes the table, not a play."""

    def __init__(self, spec: OptionSpec, words: Words) -> None:
        self.spec = spec
        self.words = words

    def active(self, options: Mapping[str, Any]) -> bool:
        return False


PLAYERS = _Always(
    OptionSpec(
        name="players",
        kind=INT,
        default=4,
        rule="R4",
        presets={"uecda": 5},
        low=3,
        high=8,
    ),
    Words(label=N_("Players"), help=N_("How many seats the table has.")),
)
ROUNDS = _Always(
    OptionSpec(
        name="rounds",
        kind=INT,
        default=1,
        rule="R22",
        low=1,
        high=20,
        presets={"daifugo": 3, "uecda": 5},
    ),
    Words(label=N_("Number of rounds"), help=N_("How many rounds make a game.")),
)
