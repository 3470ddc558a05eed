"""The table page at ``/t/{table_id}``: its server-rendered shell and what its ES modules need.

The page itself holds no game state: ``static/js/table.js`` opens the table's WebSocket
(docs/protocol.md) and draws the lobby, the play and the results from the server's messages,
with a module per idea (``table-state.js`` the one state object and the messages' effect on it,
``table-narration.js`` the log and announcements, ``table-board.js`` the opponents and the
pile, ``table-hand.js`` the hand and the choosing, ``table-lobby.js``, ``table-results.js``,
``table-motion.js``, ``table-signals.js``, ``table-hints.js`` Suggest and the auto-pass,
``table-net.js`` the connection).
The shell gives it, in the person's language, every word that the code picks at run time (card,
rank, title, level, option names and values: :func:`table_config`) and the SVG of every card.

``POST /i18n/refusal`` says in words why the rules refuse an action in a position that a seat
can see (its own view): the engine's own check names the rule (:func:`refusal_for`). It needs no
table and no token: the position comes from the client, so it tells nothing the client did not
already know.
"""

from __future__ import annotations

from typing import Any

from ..engine import ActionFormatError, action_from_json, to_move
from ..engine.cards import JOKER_NAMES, RANK_NAMES, SUIT_NAMES
from ..engine.options import PRESETS, SPECS
from ..engine.parts import PARTS
from ..engine.specs import BOOL, CHOICE, SWITCH
from ..notation import NotationError, read_position
from ..tabletalk.heartbeat import client_settings
from .cards import card_svg
from .i18n import Translator
from .messages import (
    BOT_LEVEL_TEXTS,
    BOT_LEVELS,
    LIST_SEPARATOR,
    OPTION_HELP,
    OPTION_LABELS,
    PRESET_NAMES,
    REACTION_TEXTS,
    SUIT_LETTER_TO_KEY,
    SUIT_NAMES_L10N,
    TITLES,
    UNKNOWN_REFUSAL,
    card_label,
    card_short,
    option_value,
    rank_short,
    refusal_text,
)

ALL_CARDS = [rank + suit for rank in RANK_NAMES for suit in SUIT_NAMES] + list(JOKER_NAMES.values())
# Turn timer choices offered to the host (seconds; None: no timer).
TIMER_CHOICES: list[int | None] = [None, 30, 60, 120, 300]


SMALL_RANGE = 3  # a whole-number option with at most this many values is offered as choices


def _option_entries(t: Translator) -> list[dict[str, Any]]:
    """The table form's options, read from the options table (no option is special here)."""
    entries = []
    for name, spec in SPECS.items():
        entry: dict[str, Any] = {
            "name": name,
            "label": t.gettext(OPTION_LABELS[name]),
            "help": t.gettext(OPTION_HELP[name]),
        }
        values: list[Any] | None = None
        if spec.kind == BOOL:
            entry["kind"] = "bool"
            values = [True, False]
        elif spec.kind == CHOICE:
            entry["kind"] = "choice"
            values = list(spec.choices)
        elif spec.kind == SWITCH:
            entry["kind"] = "choice"
            values = [False, True, *spec.choices]
        elif spec.allows_off:
            entry["kind"] = "choice"
            values = [0, *range(spec.low, spec.high + 1)]
        elif spec.high - spec.low < SMALL_RANGE:
            entry["kind"] = "choice"
            values = list(range(spec.low, spec.high + 1))
        else:
            entry["kind"] = "number"
            entry["min"], entry["max"] = spec.low, spec.high
        if values is not None:
            entry["values"] = [{"value": v, "label": option_value(name, v, t)} for v in values]
        if spec.requires is not None:
            entry["requires"] = {"option": spec.requires[0], "at_least": spec.requires[1]}
        entries.append(entry)
    return entries


def table_config(table_id: str, t: Translator) -> dict[str, Any]:
    """Everything the table's ES modules show that the code picks at run time, translated."""
    return {
        "tableId": table_id,
        "cards": {
            code: {"label": card_label(code, t), "short": card_short(code, t)} for code in ALL_CARDS
        },
        "ranks": {rank: rank_short(rank, t) for rank in RANK_NAMES},
        "listSeparator": t.ctx(LIST_SEPARATOR),
        "suits": {
            letter: t.gettext(SUIT_NAMES_L10N[SUIT_LETTER_TO_KEY[letter]]) for letter in SUIT_NAMES
        },
        "titles": {key: t.gettext(text) for key, text in TITLES.items()},
        "levels": {key: t.gettext(text) for key, text in BOT_LEVELS.items()},
        "levelTexts": {key: t.gettext(text) for key, text in BOT_LEVEL_TEXTS.items()},
        "presets": {
            key: {
                "name": t.gettext(PRESET_NAMES[key]),
                "defaults": dict(preset.defaults),
                "locked": sorted(preset.locked),
                "min": preset.min_players,
                "max": preset.max_players,
                # whole-number options whose range the preset narrows (section 2)
                "ranges": {"players": [preset.min_players, preset.max_players]},
            }
            for key, preset in PRESETS.items()
        },
        "options": _option_entries(t),
        "timers": TIMER_CHOICES,
        "reactions": [
            {"key": key, "emoji": emoji, "label": t.gettext(label)}
            for key, (emoji, label) in REACTION_TEXTS.items()
        ],
        "heartbeat": client_settings(),
        "reports": _report_entries(t),
        # how the log tells a seat going out a part's way (R34, R35), by the event's ``how``
        "finishes": {
            part.finish_how: {
                "mine": t.gettext(part.words.went_out[0]),
                "other": t.gettext(part.words.went_out[1]),
            }
            for part in PARTS
            if part.finish_how
        },
    }


def _report_entries(t: Translator) -> list[dict[str, Any]]:
    """The parts' trick state the page shows beside the pile, and gives back in a position it
    asks the engine about, and how its events are told (R39): read from the parts' reports, none
    named here. ``text`` (the badge), ``told`` and ``toldOff`` (the event's narration as it comes
    on and goes off) are translated; a set of suits fills their ``%(suits)s`` on the page."""
    return [
        {
            "name": report.name,
            "option": part.spec.name,
            "kind": report.kind,
            "id": report.name.replace("_", "-"),
            "symbol": report.symbol,
            "text": t.gettext(report.text),
            "told": t.gettext(report.told),
            "toldOff": t.gettext(report.told_off) if report.told_off else "",
            "turnsOrder": report.turns_order,
        }
        for part in PARTS
        for report in part.reports
    ]


def card_templates(t: Translator) -> list[tuple[str, str]]:
    """(code, SVG) of every card, for the page to clone."""
    return [(code, card_svg(code, t, css_class="card")) for code in ALL_CARDS]


def _seat_namer(names: Any, t: Translator) -> Any:
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return None

    def name(seat: int) -> str:
        if 0 <= seat < len(names) and names[seat]:
            return str(names[seat])[:40]
        from .messages import SEAT_LABEL

        return t.gettext(SEAT_LABEL, number=seat + 1)

    return name


def refusal_for(data: Any, t: Translator) -> dict[str, Any]:
    """Whether ``data["action"]`` is allowed in ``data["position"]`` (notation.md), and if not,
    why, in words: ``{"legal", "code", "rule", "text"}``; ``"error"`` too (and ``legal`` None)
    when the position or the action cannot be read. ``data["names"]`` may name the seats.
    """
    unknown = {"legal": None, "code": None, "rule": None, "text": t.gettext(UNKNOWN_REFUSAL)}
    if not isinstance(data, dict):
        return {**unknown, "error": "the body must be a JSON object"}
    try:
        position = read_position(data.get("position"))
        action = action_from_json(data.get("action"), need_seat=False)
        move = to_move(action)
    except (NotationError, ActionFormatError, TypeError, ValueError) as error:
        return {**unknown, "error": str(error)[:300]}
    seat = position.turn
    refusal = position.round.check(seat, move)
    if refusal is None:
        return {"legal": True, "code": None, "rule": None, "text": ""}
    namer = _seat_namer(data.get("names"), t)
    return {
        "legal": False,
        "code": refusal.code,
        "rule": refusal.rule,
        "text": refusal_text(refusal.code, refusal.params, t, namer),
    }
