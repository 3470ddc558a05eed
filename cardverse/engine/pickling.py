"""Pickling of the engine's value classes (views and rules go to the bots' worker processes).

Compiled by mypyc, a frozen dataclass cannot be rebuilt field by field the way ``pickle`` does
by default, so each value class pickles as a call of its constructor with its fields.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def by_constructor(value: Any) -> tuple[Any, tuple[Any, ...]]:
    """``__reduce__`` of a dataclass whose every field is a constructor argument."""
    return type(value), tuple(getattr(value, field.name) for field in fields(value))
