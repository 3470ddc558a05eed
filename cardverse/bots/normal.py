"""The ``normal`` bot (R29). Placeholder: plays like ``easy`` until the real one lands."""

from __future__ import annotations

from .easy import EasyBot


class NormalBot(EasyBot):
    level = "normal"

    def __init__(self, *, seed: int | None = None) -> None:
        self.seed = seed
