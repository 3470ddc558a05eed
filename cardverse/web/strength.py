"""The /bots page: what each computer player does and how strong it measured (issue 14).

The figures come from one arena run kept in the repository, ``cardverse/web/strength.json``
(written by ``python -m bench.strength``, see docs/bots.md): per pairing, one player against
three copies of another, with the mean points, their 95% interval, the games played and the
thinking budget. This module reads that file and turns it into rows for the template; the
words come from the catalogs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .i18n import N_, NP_, Translator
from .messages import BOT_LEVEL_TEXTS, BOT_LEVELS, PRESET_NAMES

STRENGTH_FILE = Path(__file__).with_name("strength.json")

#: the test opponents of the arena (not levels offered at the tables), by name and what they do
BASELINE_NAMES: dict[str, str] = {
    "montecarlo": N_("Flat Monte Carlo"),
    "structure": N_("Structure keeper"),
}
BASELINE_TEXTS: dict[str, str] = {
    "montecarlo": N_(
        "A test opponent, not offered at the tables: it tries every move on random deals of "
        "the hidden cards and finishes each simulated game by playing the lowest cards."
    ),
    "structure": N_(
        "A test opponent, not offered at the tables: it plays so as to empty its hand in as "
        "few plays as possible, leads its weakest set and keeps its 2s and jokers."
    ),
}
BUDGET = NP_("%(num)s simulated game per move", "%(num)s simulated games per move")
NO_SEARCH = N_("No search")
SEARCHING = ("hard", "montecarlo")  # the players whose strength depends on the budget


def load_strength(path: Path = STRENGTH_FILE) -> dict[str, Any]:
    """The arena run's result file."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def player_name(kind: str, t: Translator) -> str:
    return t.gettext(BOT_LEVELS[kind] if kind in BOT_LEVELS else BASELINE_NAMES[kind])


def _number(value: float, lang: str) -> str:
    text = f"{value:.2f}"
    return text.replace(".", ",") if lang in ("fi", "pl", "lt") else text


def strength_context(t: Translator, lang: str, path: Path = STRENGTH_FILE) -> dict[str, Any]:
    """What the page shows: the levels, the test opponents and one row per pairing."""
    data = load_strength(path)
    rows = []
    for pairing in data["pairings"]:
        result = pairing["player_result"]
        low, high = result["ci95"]
        searches = pairing["player"] in SEARCHING or pairing["opponent"] in SEARCHING
        budget = t.plural(BUDGET, pairing["playouts"]) if searches else t.gettext(NO_SEARCH)
        rows.append(
            {
                "player": player_name(pairing["player"], t),
                "opponent": player_name(pairing["opponent"], t),
                "mean": _number(result["mean_points"], lang),
                "interval": f"{_number(low, lang)} – {_number(high, lang)}",
                "games": pairing["games"],
                "deals": pairing["deals"],
                "budget": budget,
            }
        )
    return {
        "levels": [(t.gettext(BOT_LEVELS[k]), t.gettext(BOT_LEVEL_TEXTS[k])) for k in BOT_LEVELS],
        "baselines": [
            (t.gettext(BASELINE_NAMES[k]), t.gettext(BASELINE_TEXTS[k])) for k in BASELINE_NAMES
        ],
        "rows": rows,
        "date": data["date"],
        "run_version": data["version"],
        "players": data["players"],
        "fair_share": _number(data["fair_share"], lang),
        "preset": t.gettext(PRESET_NAMES.get(data["preset"], data["preset"])),
    }
