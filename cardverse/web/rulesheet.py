"""The rules sheet of a table: its exact options turned into a short rule book.

:func:`rules_sheet_context` gives the template ``rules/_sheet.html`` everything it shows, as
msgids (marked for the catalogs) with their parameters; the template translates them. The
table page reuses the same function and template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from ..engine.options import (
    OPTION_NAMES,
    PRESETS,
    Rules,
)
from ..engine.parts import PARTS, Part
from ..engine.ruleset import ruleset_for
from ..engine.scoring import title_for_place
from ..engine.words import (
    BEAT,
    CLEARING,
    EXCHANGE,
    FOLLOW,
    HOUSE,
    JOKERS,
    LEAD,
    LONE_JOKER,
    MAY,
    REVOLUTION,
    REVOLUTION_STARTS,
)
from .i18n import N_, NC_, NP_
from .messages import (
    BOT_LEVEL_TEXTS,
    BOT_LEVELS,
    HOUSE_RULES_HEADING,
    NORMAL_BOT_WITHOUT_JOKERS,
    OPTION_LABELS,
    PRESET_NAMES,
    TITLES,
)

ORDER = ["3C", "4D", "5H", "6S", "7C", "8D", "9H", "10S", "JC", "QD", "KH", "AS", "2C"]
REVERSED_ORDER = list(reversed(ORDER))


@dataclass
class Line:
    """One sentence of the sheet: a msgid (or a plural pair with its count) and parameters."""

    msg: str | tuple[str, str]
    params: dict[str, Any] = field(default_factory=dict)
    count: int | None = None
    cards: list[str] = field(default_factory=list)
    # parameters that are msgids themselves (a list is translated item by item and joined)
    words: dict[str, str | list[str]] = field(default_factory=dict)
    # parameters that are lists of ranks, written as printed on the cards ("2, A, K … 3")
    ranks: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Section:
    key: str
    heading: str
    lines: list[Line]


def _line(msg: str, **params: Any) -> Line:
    return Line(msg, params)


def _plural(pair: tuple[str, str], count: int, **params: Any) -> Line:
    return Line(pair, params, count)


def _setup(rules: Rules) -> list[Line]:
    """R1–R3, R23, R26: the players, the deck, the deal, the order of the ranks, what one sees."""
    players, deck = rules.players, rules.deck_size
    low, high = deck // players, -(-deck // players)
    return [
        _plural(NP_("This table has %(num)s player.", "This table has %(num)s players."), players),
        _line(N_("The deck has 52 cards."))
        if rules.jokers == 0
        else _plural(
            NP_(
                "The deck has 52 cards and %(num)s joker.",
                "The deck has 52 cards and %(num)s jokers.",
            ),
            rules.jokers,
        ),
        _plural(
            NP_(
                "The cards are shuffled and dealt one at a time: everyone gets %(num)s card.",
                "The cards are shuffled and dealt one at a time: everyone gets %(num)s cards.",
            ),
            low,
        )
        if low == high
        else _plural(
            NP_(
                "The cards are shuffled and dealt one at a time: everyone gets %(low)s or "
                "%(num)s card.",
                "The cards are shuffled and dealt one at a time: everyone gets %(low)s or "
                "%(num)s cards.",
            ),
            high,
            low=low,
        ),
        Line(
            N_("Suits do not matter. From the lowest to the highest, the ranks are: %(ranks)s."),
            ranks={"ranks": [code[:-1] for code in ORDER]},
            cards=ORDER,
        ),
        _line(
            N_(
                "You see your own hand, how many cards every other player holds, every card "
                "played this round and by whom, every pass, who has gone out and their places, "
                "the points so far, whose turn it is, and your own legal moves."
            )
        ),
    ]


def _turn(rules: Rules) -> list[Line]:
    """R8, R11–R13: how a trick goes (a set of five where a part allows one, R43)."""
    five = ruleset_for(rules).largest_set > 4
    if five:
        lead = (
            _line(
                N_(
                    "The player on lead puts down any set (1 to 4 cards of one rank, or four and "
                    "a joker) or any straight (3 or more cards of one suit in a row)."
                )
            )
            if rules.straights
            else _line(
                N_(
                    "The player on lead puts down any set: 1 to 4 cards of one rank, or four and "
                    "a joker."
                )
            )
        )
    elif rules.straights:
        lead = _line(
            N_(
                "The player on lead puts down any set (1 to 4 cards of one rank) or any straight "
                "(3 or more cards of one suit in a row)."
            )
        )
    else:
        lead = _line(N_("The player on lead puts down any set: 1 to 4 cards of one rank."))
    return [
        lead,
        _line(
            N_(
                "Then, seat after seat, each player either plays something that beats the last "
                "play, or passes."
            )
        ),
        _line(N_("Whoever passes takes no further part in this trick.")),
        _line(
            N_(
                "When everyone else has passed, the last player to play wins the trick, clears "
                "the pile and leads the next trick."
            )
        ),
    ]


def _may(rules: Rules) -> list[Line]:
    """R5–R10: what may be played, and what beats what in the normal order."""
    may = [_line(N_("On lead you must play: you may not pass. Otherwise you may always pass."))]
    may += _part_lines(rules, FOLLOW)  # sets, and straights where they are played (R9)
    may += _part_lines(rules, BEAT)  # higher, or also equal (R10)
    may += _part_lines(rules, MAY)  # the straights' ranks, what beats one (R41), sets of five
    may += _part_lines(rules, LONE_JOKER)  # a joker in a set, jokers alone (R5, R10, R33)
    may += _part_lines(rules, JOKERS)  # a joker in a straight (R6)
    return may


def _clearing(rules: Rules) -> list[Line]:
    """R14: the plays that end the trick at once."""
    clearing = [
        _line(N_("A set of 2s clears the pile at once, and the same player leads the next trick.")),
    ]
    # the 3s in a revolution, that no straight clears where none does, the jokers' count, the
    # eight stop (R14), the spade three (R33)
    return clearing + _part_lines(rules, CLEARING, ruleset_for(rules).parts)


def _revolution(rules: Rules) -> list[Line]:
    """R15–R19 (revolution option only): how one starts, the reversed order, then the rest."""
    if not rules.revolution:
        return []
    reversed_order = Line(
        N_("During a revolution, from the lowest to the highest, the ranks are: %(ranks)s."),
        ranks={"ranks": [code[:-1] for code in REVERSED_ORDER]},
        cards=REVERSED_ORDER,
    )
    # the revolution's lines, then the straights' (R18, R42) and their cover's (R41)
    return [
        *_part_lines(rules, REVOLUTION_STARTS),
        reversed_order,
        *_part_lines(rules, REVOLUTION),
    ]


def _lead(rules: Rules) -> list[Line]:
    """R24: who leads the first round and the later ones (R46), as the parts say."""
    return _part_lines(rules, LEAD)


def _exchange(rules: Rules) -> list[Line]:
    """R25 (and R19: the exchange uses the normal order), as the exchange part says."""
    return _part_lines(rules, EXCHANGE)


def _house_rules(rules: Rules) -> list[Line]:
    """R31–R40: the lines of every house rule in force (a line may need another option on)."""
    return _part_lines(rules, HOUSE, ruleset_for(rules).house_rules)


def _part_lines(rules: Rules, section: str, parts: tuple[Part, ...] | None = None) -> list[Line]:
    """The lines the ``parts`` (by default every option's part) add to ``section`` where their
    conditions hold (:class:`~cardverse.engine.words.SheetLine`): a part may speak here while it
    is off too, as the straight cover does for its default value, the line naming its option."""
    options = {**rules.to_dict(), **ruleset_for(rules).facts()}
    return [
        Line(line.msg, {name: options[name] for name in line.params})
        for part in (PARTS if parts is None else parts)
        for line in part.words.sheet
        if line.section == section and line.shows(options)
    ]


def _special(rules: Rules) -> list[Line]:
    """R13 (who leads after going out) and R4 (the preset's player range and locks)."""
    preset = PRESETS[rules.preset]
    special = [
        _line(
            N_(
                "If the player who should lead next has gone out, the next player in seat order "
                "who still holds cards leads."
            )
        ),
        Line(
            N_("The %(preset)s preset is for %(low)s to %(high)s players."),
            {"low": preset.min_players, "high": preset.max_players},
            words={"preset": PRESET_NAMES[preset.name]},
        ),
    ]
    if preset.locked:
        special.append(
            Line(
                N_("The %(preset)s preset locks these options: %(options)s."),
                words={
                    "preset": PRESET_NAMES[preset.name],
                    "options": [
                        OPTION_LABELS[name] for name in OPTION_NAMES if name in preset.locked
                    ],
                },
            )
        )
    else:
        special.append(
            Line(
                N_("No option is locked in the %(preset)s preset."),
                words={"preset": PRESET_NAMES[preset.name]},
            )
        )
    return special


def _bot_text(level: str, rules: Rules) -> str:
    """R28–R30, in words that mention jokers only when the table plays with them."""
    if level == "normal" and not rules.jokers:
        return NORMAL_BOT_WITHOUT_JOKERS
    return BOT_LEVEL_TEXTS[level]


HINTS_ON = N_(
    "Hints are on at this table: Suggest shows the play the normal computer player would make "
    "from what you can see (your own hand and what is public), never from other hands."
)
HINTS_OFF = N_("Hints are off at this table: the host turned Suggest off.")
AUTO_PASS_LINE = N_(
    "Anyone may switch on passing automatically: the table then passes for you whenever you "
    "cannot play."
)


def _at_this_table(hints: bool) -> list[Line]:
    """What the table (not the rules) allows: hints (the host's choice) and the auto-pass."""
    return [_line(HINTS_ON if hints else HINTS_OFF), _line(AUTO_PASS_LINE)]


GAME_NAME = NC_("the game", "President")
SUMMARY_OPTIONS = ("revolution", "equal_plays")


def _summary(rules: Rules) -> list[dict[str, Any]]:
    """The summary line at the top of a sheet: the preset, then the options it names."""
    return [
        {"name": name, "label": OPTION_LABELS[name], "value": getattr(rules, name)}
        for name in SUMMARY_OPTIONS
    ]


def rules_sheet_context(rules: Rules, hints: bool | None = None) -> dict[str, Any]:
    """What the rules sheet of a table with these rules shows (see ``rules/_sheet.html``).

    Every rule in force is explained and no rule of an option that is off is mentioned.
    ``hints``: the sheet of a real table says whether hints are on there (None: not said).
    """
    preset = PRESETS[rules.preset]
    players = rules.players
    options = [
        {
            "name": name,
            "label": OPTION_LABELS[name],
            "value": getattr(rules, name),
            "locked": name in preset.locked,
        }
        for name in OPTION_NAMES
    ]
    places = [
        {
            "place": place + 1,
            "title": TITLES[title_for_place(place, players)],
            "points": players - place,
        }
        for place in range(players)
    ]
    points = [
        _line(
            N_(
                "Whoever plays their last card goes out and takes the next free place. When only "
                "one player still holds cards, the round ends and that player takes the one "
                "place left, which is not the last place when places were taken from the bottom."
            )
        )
        if ruleset_for(rules).places_from_bottom
        else _line(
            N_(
                "Whoever plays their last card goes out and takes the next free place. When only "
                "one player still holds cards, the round ends and that player is last."
            )
        ),
        _line(N_("Each place gives a title and points:")),
    ]
    end = [
        _plural(
            NP_("The game lasts %(num)s round.", "The game lasts %(num)s rounds."), rules.rounds
        ),
        _line(
            N_("Points add up over the rounds. The highest total wins; equal totals share a place.")
        ),
        _line(N_("At the end, the results show the places of the last round and the totals.")),
    ]
    goal = _line(
        N_(
            "Be the first to play every card in your hand, and avoid being the last. The order "
            "in which players go out gives each a title and points."
        )
    )
    sections = [
        Section("goal", N_("Goal"), [goal]),
        Section("setup", N_("Setup"), _setup(rules)),
        Section("turn", N_("A turn"), _turn(rules)),
        Section("may", N_("What you may and must do"), _may(rules)),
        Section("clearing", N_("Clearing the pile"), _clearing(rules)),
    ]
    revolution = _revolution(rules)
    if revolution:
        sections.append(Section("revolution", N_("Revolution"), revolution))
    house = _house_rules(rules)
    if house:
        sections.append(Section("house", HOUSE_RULES_HEADING, house))
    sections += [
        Section("lead", N_("Who leads"), _lead(rules)),
        Section("exchange", N_("Card exchange"), _exchange(rules)),
        Section("points", N_("Going out, titles and points"), points),
        Section("end", N_("End of the game"), end),
        Section("special", N_("Special cases and locked options"), _special(rules)),
    ]
    if hints is not None:
        sections.append(Section("table", N_("Hints at this table"), _at_this_table(hints)))
    return {
        "rules": rules,
        "game": GAME_NAME,
        "summary": _summary(rules),
        "preset_name": PRESET_NAMES[preset.name],
        "options": options,
        "sections": sections,
        "places": places,
        "bots": [(BOT_LEVELS[level], _bot_text(level, rules)) for level in BOT_LEVELS],
        "version": __version__,
        "hints": hints,
    }


def hints_from_query(query: Any) -> bool | None:
    """The ``hints`` query parameter of a table's sheet (1/0, on/off); None when absent."""
    raw = (query.get("hints") or "").strip().lower()
    if raw in ("1", "on", "true", "yes"):
        return True
    if raw in ("0", "off", "false", "no"):
        return False
    return None


def rules_from_query(query: Any) -> Rules:
    """Rules from query parameters (``preset``, ``players``, options as 1/0, on/off, true/false,
    or a named value).

    Raises :class:`~cardverse.engine.options.OptionsError` for values the rules do not allow.
    """
    from ..engine.options import SPECS, rules_from_dict
    from ..engine.specs import BOOL, INT, SWITCH

    data: dict[str, Any] = {}
    for key in ("preset", *OPTION_NAMES):
        raw = query.get(key)
        if raw is None or raw == "":
            continue
        if key in SPECS and SPECS[key].kind in (BOOL, SWITCH):
            # on/off in any of its spellings; a switch's named values (R44, R45) pass as written
            lowered = raw.strip().lower()
            if lowered in ("1", "on", "true", "yes"):
                data[key] = True
            elif lowered in ("0", "off", "false", "no"):
                data[key] = False
            else:
                data[key] = raw
        elif key in SPECS and SPECS[key].kind == INT:
            try:
                data[key] = int(raw)
            except ValueError:
                data[key] = raw
        else:
            data[key] = raw
    return rules_from_dict(data)
