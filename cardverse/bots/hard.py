"""The ``hard`` bot (R30). Placeholder: plays like ``easy`` until the real one lands."""

from __future__ import annotations

from .easy import EasyBot


class HardBot(EasyBot):
    level = "hard"

    def __init__(
        self,
        *,
        seed: int | None = None,
        playouts: int | None = None,
        time_limit: float | None = None,
    ) -> None:
        self.seed = seed
        self.playouts = playouts
        self.time_limit = time_limit
