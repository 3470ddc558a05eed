"""CardVerse: President (Dai Fugō): rules engine, notation, bots, environment, server, client.

The library's names (docs/library.md) are reachable from here and load on first use, so that
``import cardverse`` stays cheap: ``cardverse.Game``, ``cardverse.Rules``, ``cardverse.Move``.
Whether the compiled engine runs is :data:`cardverse._native.COMPILED` (and why not,
``cardverse._native.REASON``).
"""

from __future__ import annotations

from typing import Any

from . import _native as _native  # compiled engine, or its pure-Python source

__version__ = "0.1.0"

#: name → the module that defines it
_LAZY = {"Game": "cardverse.engine", "Rules": "cardverse.engine", "Move": "cardverse.moves"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cardverse' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
