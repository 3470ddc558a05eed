"""The shape of a rule part: its option's description and the hooks the referee calls.

Every hook has a do-nothing default; :class:`~cardverse.engine.ruleset.Ruleset` calls only the
hooks a part overrides, so an option that is off (or a rule that needs no hook) costs nothing.
Hooks receive the :class:`~cardverse.engine.rounds.Round` they judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..plays import PlayInfo
from ..refusals import Refusal

if TYPE_CHECKING:
    from ..options import Rules
    from ..rounds import Round

BOOL = "bool"
INT = "int"
CHOICE = "choice"


@dataclass(frozen=True)
class OptionSpec:
    """One row of the options table (rules.md section 2).

    ``default`` is the ``standard`` preset's value; ``presets`` gives other presets' values and
    ``locked`` the presets that lock the option (R4). ``requires`` names an option that must be
    at least a value for this one to be on (the spade three needs a joker).
    """

    name: str
    kind: str
    default: Any
    rule: str
    summary: str  # one English sentence, a msgid of the catalogs
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    presets: Mapping[str, Any] = field(default_factory=dict)
    locked: frozenset[str] = frozenset()
    requires: tuple[str, int] | None = None
    page: str | None = None  # the slug of its rules page, when it has one
    codes: tuple[str, ...] = ()  # the refusal codes it owns

    def value_in(self, preset: str) -> Any:
        return self.presets.get(preset, self.default)

    def to_json(self) -> dict[str, Any]:
        """The description the table form and the page's script read."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "rule": self.rule,
            "presets": {name: self.value_in(name) for name in _preset_names()},
            "locked": sorted(self.locked),
        }
        if self.kind == INT:
            out["low"], out["high"] = self.low, self.high
        if self.kind == CHOICE:
            out["choices"] = list(self.choices)
        if self.requires:
            out["requires"] = {"option": self.requires[0], "at_least": self.requires[1]}
        if self.page:
            out["page"] = self.page
        return out


def _preset_names() -> tuple[str, ...]:
    from ..options import PRESET_NAMES

    return PRESET_NAMES


class Part:
    """A rule: its option and the hooks it needs (defaults do nothing)."""

    spec: OptionSpec
    #: the table-driven set generator stays exact under this rule (no generic filter needed)
    fast_tables: bool = True
    #: the bots' rank-count playout shortcut (sets only, suits ignored) stays legal
    fast_playouts: bool = True
    #: a house rule of rules.md section 10 (the classic search models of tricks do not hold)
    house_rule: bool = False
    #: trick-state keys that positions and ``check`` show while the option is on
    reports: tuple[str, ...] = ()

    def active(self, rules: Rules) -> bool:
        return bool(getattr(rules, self.spec.name))

    # -- plays --------------------------------------------------------------------------------

    def extra_plays(self, round_: Round, hand: int, old: PlayInfo | None) -> list[int]:
        """Plays this rule adds to the sets of R5–R10 (straights, a 3♠ on a joker)."""
        return []

    def generic_now(self, round_: Round) -> bool:
        """Whether, in this state, the rule needs the generic path (its extra plays or filter);
        rules with ``fast_tables`` off say when, so the table path serves every other state."""
        return True

    def filter_plays(self, round_: Round, plays: list[int]) -> list[int]:
        """The plays this rule lets be made now (the generic filter over generated plays)."""
        return plays

    def refuse(self, round_: Round, seat: int, move: int, info: PlayInfo) -> Refusal | None:
        """Why this rule forbids ``move`` now (the single-action check's twin of :meth:`allows`)."""
        return None

    def covers(self, round_: Round, move: int, info: PlayInfo, old: PlayInfo) -> bool:
        """Whether this rule lets ``move`` cover ``old`` although R10 alone would not."""
        return False

    def clears(self, round_: Round, move: int, info: PlayInfo, reversed_before: bool) -> bool:
        """Whether this rule makes ``move`` a clearing play (R14), by the order before it."""
        return False

    # -- what follows a play -----------------------------------------------------------------

    def after_play(self, round_: Round, seat: int, move: int, info: PlayInfo) -> None:
        """Change the trick's state after ``move`` (the top of the trick is still the old one)."""

    def owes(self, round_: Round, seat: int, move: int) -> tuple[str, int] | None:
        """An owed give or discard after ``move``: (kind, natural cards counted)."""
        return None

    def finish_from_bottom(
        self, round_: Round, seat: int, move: int, info: PlayInfo, reversed_before: bool
    ) -> bool:
        """Whether going out with ``move`` takes the lowest free place instead (R34)."""
        return False

    def after_place(self, round_: Round, seat: int, place: int) -> None:
        """React to ``seat`` taking ``place`` (R35)."""
