"""Game options and the two presets, with their locks (rules section 2, R4).

A :class:`Rules` value is a complete, validated set of options. It is built from a preset name
plus the options a table changes; a locked option may only keep its preset's value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

FIRST_SEAT = "first_seat"
THREE_OF_CLUBS_LEADS = "three_of_clubs"
FIRST_LEAD_VALUES = (FIRST_SEAT, THREE_OF_CLUBS_LEADS)

OPTION_NAMES: tuple[str, ...] = (
    "players",
    "rounds",
    "equal_plays",
    "revolution",
    "straights",
    "jokers",
    "eight_stop",
    "exchange",
    "first_lead",
)
BOOLEAN_OPTIONS = ("equal_plays", "revolution", "straights", "eight_stop", "exchange")


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


_COMMON_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "rounds": 1,
    "equal_plays": True,
    "revolution": False,
    "straights": False,
    "jokers": 0,
    "eight_stop": False,
    "exchange": True,
    "first_lead": THREE_OF_CLUBS_LEADS,
}

PRESETS: dict[str, Preset] = {
    "standard": Preset(
        name="standard",
        defaults=dict(_COMMON_DEFAULTS),
        locked=frozenset(),
        min_players=3,
        max_players=8,
    ),
    "cardverse": Preset(
        name="cardverse",
        defaults={
            **_COMMON_DEFAULTS,
            "equal_plays": False,
            "revolution": True,
            "first_lead": FIRST_SEAT,
        },
        locked=frozenset({"equal_plays", "straights", "jokers"}),
        min_players=3,
        max_players=6,
    ),
}


@dataclass(frozen=True)
class Rules:
    """A complete, valid option set. Build one with :meth:`Rules.make`."""

    preset: str = "standard"
    players: int = 4
    rounds: int = 1
    equal_plays: bool = True
    revolution: bool = False
    straights: bool = False
    jokers: int = 0
    eight_stop: bool = False
    exchange: bool = True
    first_lead: str = THREE_OF_CLUBS_LEADS

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


def _check_type(name: str, value: Any) -> None:
    if name in BOOLEAN_OPTIONS:
        if not isinstance(value, bool):
            raise OptionsError(
                "option_not_boolean",
                f"option {name} must be true or false, not {value!r}",
                option=name,
                value=repr(value),
            )
        return
    if name == "first_lead":
        if value not in FIRST_LEAD_VALUES:
            raise OptionsError(
                "option_bad_choice",
                f"option first_lead must be one of {', '.join(FIRST_LEAD_VALUES)}, not {value!r}",
                option=name,
                value=repr(value),
            )
        return
    low, high = {"players": (3, 8), "rounds": (1, 20), "jokers": (0, 2)}[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionsError(
            "option_out_of_range",
            f"option {name} must be a whole number from {low} to {high}, not {value!r}",
            option=name,
            value=repr(value),
            low=low,
            high=high,
        )


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
        value = data[name]
        _check_type(name, value)
        if name in preset.locked and value != preset.defaults[name]:
            raise OptionsError(
                "option_locked",
                f"option {name} is locked to {preset.defaults[name]!r} by the {preset.name} preset",
                option=name,
                preset=preset.name,
                value=preset.defaults[name],
            )
        values[name] = value
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
