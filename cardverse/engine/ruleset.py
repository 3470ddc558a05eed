"""The parts of one table's options, composed: which hooks the referee calls (R4).

:func:`ruleset_for` builds (once per :class:`Rules`) the tuple of active parts for every hook, and
two declarations the fast paths read: ``fast_tables`` (legal plays come straight from the set
tables and straights, no generic filter) and ``fast_playouts`` (the bots' rank-count shortcut
gives only legal moves). The bots see the rules through this object too.
"""

from __future__ import annotations

from .options import Rules
from .parts import PARTS, Part


def _hooked(parts: tuple[Part, ...], name: str) -> tuple[Part, ...]:
    default = getattr(Part, name)
    return tuple(p for p in parts if getattr(type(p), name) is not default)


class Ruleset:
    """The active parts of ``rules``, grouped by the hook they use."""

    __slots__ = (
        "after",
        "clearers",
        "coverers",
        "extras",
        "fast_playouts",
        "fast_tables",
        "filters",
        "finishers",
        "follows_play",
        "generic",
        "house_rules",
        "owers",
        "parts",
        "placers",
        "refusers",
        "reports",
        "rules",
    )

    def __init__(self, rules: Rules) -> None:
        active = tuple(p for p in PARTS if p.active(rules))
        self.rules = rules
        self.parts = active
        self.extras = _hooked(active, "extra_plays")
        self.filters = _hooked(active, "filter_plays")
        self.refusers = _hooked(active, "refuse")
        self.coverers = _hooked(active, "covers")
        self.clearers = _hooked(active, "clears")
        self.after = _hooked(active, "after_play")
        self.owers = _hooked(active, "owes")
        self.finishers = _hooked(active, "finish_from_bottom")
        self.placers = _hooked(active, "after_place")
        #: some part acts on plays (clears, changes the trick, owes, places from the bottom)
        self.follows_play = bool(self.clearers or self.after or self.owers or self.finishers)
        self.fast_tables = all(p.fast_tables for p in active)
        #: the parts that may need the generic path, each saying when (``generic_now``)
        self.generic = tuple(p for p in active if not p.fast_tables)
        self.fast_playouts = all(p.fast_playouts for p in active)
        self.house_rules = tuple(p for p in active if p.house_rule)
        self.reports = tuple(key for p in active for key in p.reports)

    def names(self) -> list[str]:
        return [p.spec.name for p in self.parts]


_CACHE: dict[Rules, Ruleset] = {}


def ruleset_for(rules: Rules) -> Ruleset:
    """The (cached) composed parts of ``rules``."""
    last = _LAST[0]
    if last is not None and last.rules is rules:  # the same object again (search): no hashing
        return last
    found = _CACHE.get(rules)
    if found is None:
        found = _CACHE[rules] = Ruleset(rules)
    _LAST[0] = found
    return found


_LAST: list[Ruleset | None] = [None]  # the last answer of ruleset_for
