"""Game options and the three presets, with their locks (rules section 2, R4).

The options table is read from the rule parts (:mod:`cardverse.engine.parts`): each part's
:class:`~cardverse.engine.specs.OptionSpec` gives its kind, range or choices, default and
per-preset values and locks. Validation here, the table form, the page's script and the rules
sheet all read that one table (:func:`options_table`). A :class:`Rules` value is a complete,
validated set of options, built from a preset name plus the options a table changes; its fields
are the specs' names, its defaults their values (a test holds the two together).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .parts import PARTS
from .parts.first_lead import (
    FIRST_LEAD_VALUES,
    FIRST_SEAT,
    THREE_OF_CLUBS_LEADS,
    THREE_OF_DIAMONDS_LEADS,
)
from .pickling import by_constructor
from .specs import BOOL, CHOICE, PLAYER_RANGES, PRESET_NAMES, SWITCH, OptionSpec

SPECS: dict[str, OptionSpec] = {part.spec.name: part.spec for part in PARTS}
OPTION_NAMES: tuple[str, ...] = tuple(SPECS)
BOOLEAN_OPTIONS: tuple[str, ...] = tuple(n for n, s in SPECS.items() if s.kind == BOOL)
_DEFAULT: dict[str, Any] = {name: spec.default for name, spec in SPECS.items()}

__all__ = [
    "BOOLEAN_OPTIONS",
    "FIRST_LEAD_VALUES",
    "FIRST_SEAT",
    "OPTION_NAMES",
    "PRESETS",
    "PRESET_NAMES",
    "SPECS",
    "THREE_OF_CLUBS_LEADS",
    "THREE_OF_DIAMONDS_LEADS",
    "OptionsError",
    "Preset",
    "Rules",
    "options_table",
    "rules_from_dict",
]


class OptionsError(ValueError):
    """An option set that the rules do not allow; ``code`` and ``params`` are for translation."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.rule = "R4"
        self.params = params
        self.message = message


@dataclass(frozen=True)
class Preset:
    """A named starting point: default values, locked options and the player range."""

    name: str
    defaults: Mapping[str, Any]
    locked: frozenset[str]
    min_players: int
    max_players: int

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor


PRESETS: dict[str, Preset] = {
    name: Preset(
        name=name,
        defaults={option: spec.value_in(name) for option, spec in SPECS.items()},
        locked=frozenset(option for option, spec in SPECS.items() if name in spec.locked),
        min_players=PLAYER_RANGES[name][0],
        max_players=PLAYER_RANGES[name][1],
    )
    for name in PRESET_NAMES
}


def options_table() -> dict[str, Any]:
    """The options and presets as one JSON-ready table (form, script, sheet, docs)."""
    return {
        "options": [spec.to_json() for spec in SPECS.values()],
        "presets": [
            {
                "name": p.name,
                "players": [p.min_players, p.max_players],
                "defaults": dict(p.defaults),
                "locked": sorted(p.locked),
            }
            for p in PRESETS.values()
        ],
    }


@dataclass(frozen=True)
class Rules:
    """A complete, valid option set. Build one with :meth:`Rules.make`."""

    preset: str = "standard"
    players: int = _DEFAULT["players"]
    rounds: int = _DEFAULT["rounds"]
    equal_plays: bool = _DEFAULT["equal_plays"]
    revolution: bool = _DEFAULT["revolution"]
    straights: bool = _DEFAULT["straights"]
    jokers: int = _DEFAULT["jokers"]
    eight_stop: bool = _DEFAULT["eight_stop"]
    exchange: bool = _DEFAULT["exchange"]
    first_lead: str = _DEFAULT["first_lead"]
    suit_lock: bool | str = _DEFAULT["suit_lock"]
    jack_back: bool = _DEFAULT["jack_back"]
    spade_three: bool | str = _DEFAULT["spade_three"]
    forbidden_finish: bool = _DEFAULT["forbidden_finish"]
    downfall: bool = _DEFAULT["downfall"]
    seven_pass: bool = _DEFAULT["seven_pass"]
    ten_discard: bool = _DEFAULT["ten_discard"]
    straight_cover: str = _DEFAULT["straight_cover"]
    straight_revolution: int = _DEFAULT["straight_revolution"]
    five_card_sets: bool = _DEFAULT["five_card_sets"]
    lead_every_round: bool = _DEFAULT["lead_every_round"]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    @staticmethod
    def make(preset: str = "standard", **options: Any) -> Rules:
        """The preset's values with ``options`` changed, checked against R4 and the table above."""
        return rules_from_dict({"preset": preset, **options})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def changed_options(self) -> dict[str, Any]:
        """Options that differ from the preset's values (the short form of a rules object)."""
        defaults = PRESETS[self.preset].defaults
        out: dict[str, Any] = {"preset": self.preset}
        for name in OPTION_NAMES:
            value = getattr(self, name)
            if name == "players" or value != defaults[name]:
                out[name] = value
        return out

    @property
    def deck_size(self) -> int:
        return 52 + self.jokers


def _checked(spec: OptionSpec, value: Any) -> Any:
    """``value`` for option ``spec`` in its one stored form, or :class:`OptionsError`."""
    name = spec.name
    if spec.kind == BOOL:
        if not isinstance(value, bool):
            raise OptionsError(
                "option_not_boolean",
                f"option {name} must be true or false, not {value!r}",
                option=name,
                value=repr(value),
            )
        return value
    if spec.kind == SWITCH:
        if isinstance(value, bool) or value in spec.choices:
            return value
        if isinstance(value, str) and value in spec.aliases:
            return spec.aliases[value]
        raise OptionsError(
            "option_bad_choice",
            f"option {name} must be true, false or one of {', '.join(spec.choices)}, not {value!r}",
            option=name,
            value=repr(value),
        )
    if spec.kind == CHOICE:
        if not isinstance(value, str) or value not in spec.choices:
            raise OptionsError(
                "option_bad_choice",
                f"option {name} must be one of {', '.join(spec.choices)}, not {value!r}",
                option=name,
                value=repr(value),
            )
        return value
    low, high = spec.low, spec.high
    if isinstance(value, bool) or not isinstance(value, int):
        ok = False
    else:
        ok = low <= value <= high or (spec.allows_off and value == 0)
    if not ok:
        off = " (or 0 for off)" if spec.allows_off else ""
        raise OptionsError(
            "option_out_of_range",
            f"option {name} must be a whole number from {low} to {high}{off}, not {value!r}",
            option=name,
            value=repr(value),
            low=low,
            high=high,
        )
    return value


def rules_from_dict(data: Mapping[str, Any]) -> Rules:
    """Build rules from a rules object (notation.md): a preset plus changed options."""
    if not isinstance(data, Mapping):
        raise OptionsError("rules_not_object", "rules must be a JSON object")
    preset_name = data.get("preset", "standard")
    if not isinstance(preset_name, str) or preset_name not in PRESETS:
        shown = repr(preset_name)[:40] if isinstance(preset_name, str) else "a non-text value"
        raise OptionsError(
            "unknown_preset",
            f"unknown preset {shown}: choose one of {', '.join(PRESETS)}",
            preset=shown,
        )
    preset = PRESETS[preset_name]
    unknown = sorted(set(data) - set(OPTION_NAMES) - {"preset"})
    if unknown:
        raise OptionsError(
            "unknown_option",
            f"unknown option {unknown[0]!r}: the options are {', '.join(OPTION_NAMES)}",
            option=unknown[0],
        )
    values = dict(preset.defaults)
    for name in OPTION_NAMES:
        if name not in data:
            continue
        value = _checked(SPECS[name], data[name])
        if name in preset.locked and value != preset.defaults[name]:
            raise OptionsError(
                "option_locked",
                f"option {name} is locked to {preset.defaults[name]!r} by the {preset.name} preset",
                option=name,
                preset=preset.name,
                value=preset.defaults[name],
            )
        values[name] = value
    for name, spec in SPECS.items():
        if spec.requires is None or not values[name]:
            continue
        needed, at_least = spec.requires
        if values[needed] >= at_least:
            continue
        if name in data:
            raise OptionsError(
                "option_needs",
                f"option {name} needs {needed} to be at least {at_least}",
                option=name,
                needs=needed,
                value=at_least,
            )
        values[name] = spec.off  # only the preset turned it on: it quietly stays off
    players = values["players"]
    if not preset.min_players <= players <= preset.max_players:
        raise OptionsError(
            "players_out_of_preset_range",
            f"the {preset.name} preset is for {preset.min_players} to {preset.max_players} "
            f"players, not {players}",
            preset=preset.name,
            low=preset.min_players,
            high=preset.max_players,
            value=players,
        )
    return Rules(preset=preset.name, **values)
