"""The shape of one option (rules.md section 2, R4) and the presets' names: a leaf module.

:class:`OptionSpec` is one row of the options table; every rule part declares its own
(:mod:`cardverse.engine.parts`) and :mod:`cardverse.engine.options` builds the table, the presets
and :class:`~cardverse.engine.options.Rules` from them. This module imports nothing from the
engine, so a part, the options and the referee can all read it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

BOOL: Final = "bool"
INT: Final = "int"
CHOICE: Final = "choice"
#: off (``False``), on (``True``), or one of the named further ways of being on (``choices``)
SWITCH: Final = "switch"

PRESET_NAMES: tuple[str, ...] = ("standard", "cardverse", "daifugo", "uecda")
#: the preset's player range (a limit of the preset, section 2)
PLAYER_RANGES: dict[str, tuple[int, int]] = {
    "standard": (3, 8),
    "cardverse": (3, 6),
    "daifugo": (3, 8),
    "uecda": (3, 8),  # a UECda match is five players; a web table may seat 3 to 8 (R41)
}


@dataclass(frozen=True)
class OptionSpec:
    """One row of the options table (rules.md section 2).

    ``default`` is the ``standard`` preset's value; ``presets`` gives other presets' values and
    ``locked`` the presets that lock the option (R4). ``requires`` names an option that must be
    at least a value for this one to be on (the spade three needs a joker). ``page`` is the slug
    of the option's rules page, when it has one.

    A :data:`SWITCH` option is ``False`` (off), ``True`` (on) or one of ``choices`` (a further
    way of being on); ``aliases`` are other words a rules object may use for those values
    ("off", "on", "natural"). A whole-number option with ``allows_off`` also takes 0 (off)
    besides ``low`` to ``high``.
    """

    name: str
    kind: str
    default: Any
    rule: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    presets: Mapping[str, Any] = field(default_factory=dict)
    locked: frozenset[str] = frozenset()
    requires: tuple[str, int] | None = None
    page: str | None = None
    aliases: Mapping[str, Any] = field(default_factory=dict)
    allows_off: bool = False

    @property
    def off(self) -> Any:
        """The option's value when it is off (what a preset's option falls back to when the
        option it requires is missing)."""
        return 0 if self.kind == INT else False

    def value_in(self, preset: str) -> Any:
        return self.presets.get(preset, self.default)

    def to_json(self) -> dict[str, Any]:
        """The description the table form and the page's script read."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "rule": self.rule,
            "presets": {name: self.value_in(name) for name in PRESET_NAMES},
            "locked": sorted(self.locked),
        }
        if self.kind == INT:
            out["low"], out["high"] = self.low, self.high
        if self.kind == INT and self.allows_off:
            out["off"] = 0
        if self.kind in (CHOICE, SWITCH):
            out["choices"] = list(self.choices)
        if self.requires:
            out["requires"] = {"option": self.requires[0], "at_least": self.requires[1]}
        if self.page:
            out["page"] = self.page
        return out


__all__ = [
    "BOOL",
    "CHOICE",
    "INT",
    "SWITCH",
    "OptionSpec",
]
