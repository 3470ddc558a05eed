"""Refused actions: which rule refused them and why, as a translatable code plus English text.

A user interface translates ``code`` with ``params``; ``message`` is the readable English form used
by the command line and logs. ``rule`` is the rule's number in rules.md (``"R10"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .pickling import by_constructor


@dataclass(frozen=True)
class Refusal:
    """Why an action was not accepted."""

    code: str
    rule: str
    message: str
    params: dict[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "rule": self.rule,
            "message": self.message,
            "params": dict(self.params),
        }


class IllegalAction(ValueError):
    """Raised by ``apply`` when an action is refused; carries the :class:`Refusal`."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


def refuse(code: str, rule: str, message: str, **params: Any) -> Refusal:
    return Refusal(code=code, rule=rule, message=message, params=params)
