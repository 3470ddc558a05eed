"""Words that code picks at run time, marked for the catalogs, and how to show them.

Rank, suit, card, title, level, preset and option names, and the engine's refusal codes
(``Refusal.code`` / ``OptionsError.code`` with their ``params``) turned into a sentence in the
reader's language. Every code the engine can give has an entry: tests/web checks it against the
engine's source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..engine.cards import JOKER_NAMES, RANK_NAMES, SUIT_NAMES
from ..engine.options import FIRST_SEAT, SPECS, THREE_OF_CLUBS_LEADS, THREE_OF_DIAMONDS_LEADS
from ..engine.parts import PARTS
from .i18n import N_, NC_, NP_, Translator

# The letter or number in a card's corner (J, Q, K, A change with the language).
RANK_SHORT: dict[str, tuple[str, str]] = {
    "J": NC_("rank letter", "J"),
    "Q": NC_("rank letter", "Q"),
    "K": NC_("rank letter", "K"),
    "A": NC_("rank letter", "A"),
}

# A rank said in words, as part of a card's name.
RANK_WORDS: dict[str, tuple[str, str]] = {
    "3": NC_("rank", "three"),
    "4": NC_("rank", "four"),
    "5": NC_("rank", "five"),
    "6": NC_("rank", "six"),
    "7": NC_("rank", "seven"),
    "8": NC_("rank", "eight"),
    "9": NC_("rank", "nine"),
    "10": NC_("rank", "ten"),
    "J": NC_("rank", "jack"),
    "Q": NC_("rank", "queen"),
    "K": NC_("rank", "king"),
    "A": NC_("rank", "ace"),
    "2": NC_("rank", "two"),
}

# How a list is written in each language: ", " in English, "、" in Japanese (the rules
# pages join their lists with the same entries, in rules/_macros.html).
LIST_SEPARATOR = NC_("list separator", ", ")


def join_list(items: list[str], t: Translator) -> str:
    """Items as a list in the reader's language (no "and": a list of suits, of ranks)."""
    return t.ctx(LIST_SEPARATOR).join(items)


SUIT_KEYS = ("clubs", "diamonds", "hearts", "spades")
SUIT_LETTER_TO_KEY = dict(zip(SUIT_NAMES, SUIT_KEYS, strict=True))

SUIT_NAMES_L10N: dict[str, str] = {
    "clubs": N_("Clubs"),
    "diamonds": N_("Diamonds"),
    "hearts": N_("Hearts"),
    "spades": N_("Spades"),
}
# A short mark printed on every card so that suits differ by more than colour and shape.
SUIT_LETTERS: dict[str, tuple[str, str]] = {
    "clubs": NC_("suit letter", "C"),
    "diamonds": NC_("suit letter", "D"),
    "hearts": NC_("suit letter", "H"),
    "spades": NC_("suit letter", "S"),
}
# The name of a natural card; %(rank)s is a rank in words.
CARD_NAMES: dict[str, str] = {
    "clubs": N_("%(rank)s of clubs"),
    "diamonds": N_("%(rank)s of diamonds"),
    "hearts": N_("%(rank)s of hearts"),
    "spades": N_("%(rank)s of spades"),
}
JOKER_LABELS: dict[str, str] = {
    "RJ": N_("Red joker"),
    "BJ": N_("Black joker"),
}
JOKER_WORD = NC_("printed on the card", "Joker")

TITLES: dict[str, str] = {
    "president": N_("President"),
    "vice_president": N_("Vice-President"),
    "citizen": N_("Citizen"),
    "vice_scum": N_("Vice-Scum"),
    "scum": N_("Scum"),
}

# The quick reactions of the table (cardverse.server.reactions.REACTIONS): a picture (or none)
# and the words, which are what a screen reader says and what the log shows.
REACTION_TEXTS: dict[str, tuple[str, str]] = {
    "thumbs_up": ("👍", N_("Thumbs up")),
    "wow": ("😮", N_("Wow")),
    "phew": ("😅", N_("Phew")),
    "clap": ("👏", N_("Applause")),
    "well_played": ("", N_("Well played")),
    "hurry_up": ("", N_("Hurry up")),
    "good_game": ("", N_("Good game")),
}

BOT_LEVELS: dict[str, str] = {
    "easy": N_("Easy"),
    "normal": N_("Normal"),
    "hard": N_("Hard"),
}
BOT_LEVEL_TEXTS: dict[str, str] = {
    "easy": N_("Plays the lowest play it can."),
    "normal": N_(
        "Keeps its 2s, its fours of a kind and its jokers to win back the lead, and does not "
        "break up pairs and triples when it need not."
    ),
    "hard": N_(
        "Counts which cards can still be in other hands, from what it has seen, tells from each "
        "opponent's plays how that opponent plays, and plans how to empty its own hand first."
    ),
}

# The normal level in a rules sheet without jokers (a sheet mentions no option that is off).
NORMAL_BOT_WITHOUT_JOKERS = N_(
    "Keeps its 2s and its fours of a kind to win back the lead, and does not break up pairs "
    "and triples when it need not."
)

PRESET_NAMES: dict[str, str] = {
    "standard": N_("Standard"),
    "cardverse": N_("CardVerse"),
    "daifugo": N_("Dai Fugō"),
    "uecda": N_("UECda"),
}

# An option's label and help are its part's words (cardverse.engine.parts), msgids that the
# catalog extraction finds in the parts; so are the rules-sheet lines a part adds.
OPTION_LABELS: dict[str, str] = {part.spec.name: part.words.label for part in PARTS}
OPTION_HELP: dict[str, str] = {part.spec.name: part.words.help for part in PARTS}
_VALUE_WORDS = {part.spec.name: part.words for part in PARTS}
HOUSE_RULES_HEADING = N_("House rules")
ON = N_("On")
OFF = N_("Off")
LOCKED = N_("locked")
FIRST_LEAD_VALUES: dict[str, str] = {
    FIRST_SEAT: N_("The player in the first seat"),
    THREE_OF_CLUBS_LEADS: N_("The holder of the 3 of clubs"),
    THREE_OF_DIAMONDS_LEADS: N_("The holder of the 3 of diamonds"),
}
JOKER_COUNTS = NP_("%(num)s joker", "%(num)s jokers")
NO_JOKERS = N_("No jokers")

KIND_WORDS: dict[str, str] = {"set": N_("set"), "straight": N_("straight")}
ALL_JOKERS_WORD = N_("jokers alone")

# Refusals: code -> sentence. Where the sentence depends on a parameter, a dict keyed by it.
# Parameters: seat/turn are players' names, need/got ranks, cards card lists, size/count numbers.
REFUSALS: dict[str, Any] = {
    # rounds.py
    "round_over": N_("The round is over."),
    "no_such_seat": N_("There is no such seat at this table."),
    "gone_out": N_("%(seat)s has gone out and plays no more this round."),
    "passed_this_trick": N_("%(seat)s passed and takes no further part in this trick."),
    "not_your_turn": N_("Not your turn: %(turn)s plays now."),
    "pass_on_lead": N_("You are on lead: play any set; you may not pass."),
    "not_exchange": N_("Cards are given only during the card exchange before a round."),
    "card_not_in_hand": N_("Not in the hand: %(cards)s."),
    "mixed_ranks": N_("Cards of different ranks are no set: a set is 1 to 4 cards of one rank."),
    "straights_off": N_("Straights are not played at this table."),
    "set_on_straight": NP_(
        "A straight of %(num)s was led: only a straight of %(num)s may follow.",
        "A straight of %(num)s was led: only a straight of %(num)s may follow.",
    ),
    "straight_on_set": NP_(
        "A single card was led: only a single card may follow.",
        "A set of %(num)s was led: only a set of %(num)s may follow.",
    ),
    "wrong_size": {
        "set": NP_(
            "This trick takes a set of %(num)s card, not %(played)s.",
            "This trick takes a set of %(num)s cards, not %(played)s.",
        ),
        "straight": NP_(
            "This trick takes a straight of %(num)s card, not %(played)s.",
            "This trick takes a straight of %(num)s cards, not %(played)s.",
        ),
    },
    "beat_jokers": N_("A set made only of jokers can be covered only by jokers."),
    "beat_jokers_equal_off": N_(
        "A set made only of jokers cannot be covered when equal plays are off."
    ),
    "straight_too_high": {
        True: N_(
            "During a revolution the lowest card of your straight must be lower than "
            "%(need)s, or the same; yours is %(got)s."
        ),
        False: N_(
            "During a revolution the lowest card of your straight must be lower than "
            "%(need)s; yours is %(got)s."
        ),
    },
    "straight_too_low": {
        True: N_(
            "The highest card of your straight must be higher than %(need)s, or the same; "
            "yours is %(got)s."
        ),
        False: N_(
            "The highest card of your straight must be higher than %(need)s; yours is %(got)s."
        ),
    },
    "equal_not_allowed": N_("Equal plays are off: %(got)s does not beat %(need)s."),
    "set_too_low": {
        True: N_("%(got)s does not beat %(need)s: play a higher rank or the same rank."),
        False: N_("%(got)s does not beat %(need)s: play a higher rank."),
    },
    "set_too_high": {
        True: N_(
            "%(got)s does not beat %(need)s: "
            "during a revolution play a lower rank or the same rank."
        ),
        False: N_("%(got)s does not beat %(need)s: during a revolution play a lower rank."),
    },
    # plays.py
    "empty_play": N_("A play needs at least one card."),
    "set_too_large": N_("A set holds at most %(largest)s cards here."),
    "straight_without_natural": N_("A straight holds at least one card that is not a joker."),
    "straight_mixed_suits": N_("The cards of a straight must all be of one suit."),
    "joker_rank_missing": N_("Say which rank the joker stands for in the straight."),
    "joker_not_played": N_("A rank or a card was given for a joker that is not played."),
    "joker_suit_taken": N_(
        "%(joker)s cannot stand for a card of %(suit)s: the set already holds that card."
    ),
    "joker_suit_twice": N_("The two jokers must stand for cards of two different suits."),
    "joker_suit_all_jokers": N_("A set made only of jokers stands for no suit."),
    "joker_suit_unknown": N_("The card given for a joker is of no suit."),
    "joker_suit_missing": N_(
        "Say which card %(joker)s stands for in the set: one of a suit the set does not hold "
        "(%(suits)s)."
    ),
    "joker_suit_not_named_here": N_(
        "At this table a joker in a set stands for the set's rank only: it names no suit."
    ),
    "straight_too_short": N_("A straight needs at least 3 cards."),
    "straight_not_consecutive": N_(
        "The ranks of a straight must follow one another, from 3 up to 2, without wrapping."
    ),
    # game.py
    "no_next_round": N_("The game has no further round to start now."),
    "gift_not_highest": NP_(
        "%(seat)s must give their highest card.",
        "%(seat)s must give their %(num)s highest cards.",
    ),
    "game_over": N_("The game is over."),
    "between_rounds": N_("The round is over; the next one has not been dealt yet."),
    "exchange_in_progress": N_("The card exchange is not finished: wait until it is."),
    "not_your_give": N_("%(turn)s gives back cards now, not you."),
    "give_count": NP_("Give back exactly %(num)s card.", "Give back exactly %(num)s cards."),
    # options.py
    "option_not_boolean": N_("%(option)s must be on or off."),
    "option_bad_choice": N_("%(option)s has no such choice."),
    "option_out_of_range": N_("%(option)s must be a whole number from %(low)s to %(high)s."),
    "rules_not_object": N_("These rules cannot be read."),
    "unknown_preset": N_("There is no such preset."),
    "unknown_option": N_("There is no option of that name."),
    "option_locked": N_("%(option)s is locked to %(value)s by the %(preset)s preset."),
    "outside_lock": N_(
        "The trick is locked to %(suits)s: play only cards of those suits (a joker may stand "
        "in for one)."
    ),
    "fallen": N_("%(seat)s lost first place to a new President and plays no more this round."),
    "give_owed": NP_(
        "%(seat)s must first give %(num)s card to the next player.",
        "%(seat)s must first give %(num)s cards to the next player.",
    ),
    "discard_owed": NP_(
        "%(seat)s must first discard %(num)s card.",
        "%(seat)s must first discard %(num)s cards.",
    ),
    "give_not_owed": N_("No cards are owed now: cards are given after a play of 7s."),
    "discard_not_owed": N_("No discard is owed now: cards are discarded after a play of 10s."),
    "owed_count": NP_("Choose exactly %(num)s card.", "Choose exactly %(num)s cards."),
    "option_needs": N_("%(option)s needs %(needs)s."),
    "players_out_of_preset_range": N_(
        "The %(preset)s preset is for %(low)s to %(high)s players, not %(value)s."
    ),
}
# The texts of the refusals a rule part gives are its own words (cardverse.engine.words).
REFUSALS.update({code: text for part in PARTS for code, text in part.words.refusals})
UNKNOWN_REFUSAL = N_("This is not allowed here.")

# The server's error codes (cardverse.server.protocol.ERROR_CODES), from the player's side.
SERVER_ERRORS: dict[str, str] = {
    "bad_json": N_("The message could not be read."),
    "bad_message": N_("The message is missing something it needs."),
    "unknown_type": N_("The server does not know this kind of message."),
    "message_too_large": N_("The message is too long."),
    "rate_limited": N_("Too many messages at once: slow down a little."),
    "name_empty": N_("Type a name to sit down."),
    "name_too_long": N_("That name is too long."),
    "name_control_chars": N_("That name holds characters that cannot be shown."),
    "bad_token": N_("No seat at this table belongs to this browser."),
    "token_missing": N_("Sit down at the table first."),
    "already_seated": N_("You already have a seat at this table."),
    "table_full": N_("Every seat at this table is taken."),
    "seat_taken": N_("That seat is taken."),
    "no_such_seat": N_("There is no such seat at this table."),
    "not_host": N_("Only the host can do this."),
    "game_in_progress": N_("Not while a game is being played."),
    "no_game": N_("No game is being played."),
    "game_not_over": N_("The game is not over yet."),
    "seats_empty": N_("Every seat needs a player or a computer player first."),
    "seat_occupied": N_("A person sits in a seat that would be removed."),
    "not_a_bot": N_("That seat holds no computer player."),
    "not_auto": N_("No computer player is playing for you."),
    "hints_off": N_("The host turned hints off at this table."),
    "programs_closed": N_("The host has not opened this table to programs."),
    "programs_unavailable": N_(
        "Programs play at tables of five seats with the uecda preset's rules only."
    ),
    "watchers_cannot_react": N_("Only the people seated at the table can react."),
    "reaction_rate_limited": N_("That is a lot of reactions: wait a few seconds."),
    "unknown_invite_code": N_("No table has that code."),
    "too_many_lookups": N_(
        "Too many codes from here found no table. Wait a minute, then try again."
    ),
    "nothing_to_suggest": N_("A suggestion is for your own turn, and it is not yours now."),
    "suggestion_stale": N_("The game moved on before the suggestion was ready: ask again."),
    "watch_only": N_("A watch link only watches: it cannot take a seat."),
    "not_a_person": N_("No person sits in that seat."),
    "not_yourself": N_("The host cannot do that to their own seat."),
    "person_present": N_("That person is here and playing: only someone away can be replaced."),
    "bad_action": N_("Those cards could not be read."),
    "wrong_action": N_("You cannot do that now."),
    "no_such_table": N_("There is no table with this link or code."),
    "game_not_found": N_("That game was not found."),
    "seat_kept": N_(
        "You let your time run out too often: a computer player keeps your seat "
        "until the end of this round."
    ),
    "bad_origin": N_("Open the table from this site's own pages."),
    "bad_content_type": N_("The request could not be read."),
    "too_many_connections": N_("Too many connections from your address: close a few tabs."),
    "too_many_watchers": N_(
        "Too many people are watching this table: only its players can connect now."
    ),
    "too_many_tables": N_("You created many tables in a short time: try again in a few minutes."),
    "server_busy": N_("The server is full right now: try again later."),
    "internal": N_("Something went wrong on the server; nothing was changed."),
    "try_again": N_("Your move could not be saved just now; nothing was changed. Try again."),
}

# Which parameter drives the plural form of each plural refusal.
_PLURAL_PARAM = {
    "set_on_straight": "size",
    "straight_on_set": "size",
    "wrong_size": "size",
    "gift_not_highest": "count",
    "give_count": "count",
    "give_owed": "count",
    "discard_owed": "count",
    "owed_count": "count",
}


def rank_short(rank: str, t: Translator) -> str:
    """A rank as printed on a card: ``7``, ``10``, or J/Q/K/A in the reader's language."""
    if rank in RANK_SHORT:
        return t.ctx(RANK_SHORT[rank])
    return rank


def suit_letter(suit: str, t: Translator) -> str:
    return t.ctx(SUIT_LETTERS[suit])


def card_label(code: str, t: Translator) -> str:
    """The full name of a card from its text form (``QH`` → "queen of hearts")."""
    code = code.strip().upper()
    if code in JOKER_LABELS:
        return t.gettext(JOKER_LABELS[code])
    rank, suit = code[:-1], SUIT_LETTER_TO_KEY[code[-1]]
    return t.gettext(CARD_NAMES[suit], rank=t.ctx(RANK_WORDS[rank]))


def card_short(code: str, t: Translator) -> str:
    """A card's short printed form in the reader's language: ``W♥`` for a Polish jack of hearts."""
    code = code.strip().upper()
    if code in JOKER_NAMES.values():
        return t.gettext(JOKER_LABELS[code])
    symbol = "♣♦♥♠"[SUIT_NAMES.index(code[-1])]
    return rank_short(code[:-1], t) + symbol


def cards_short(codes: str, t: Translator) -> str:
    return " ".join(card_short(code, t) for code in codes.split())


def title_label(title: str, t: Translator) -> str:
    return t.gettext(TITLES[title])


def option_label(name: str, t: Translator) -> str:
    return t.gettext(OPTION_LABELS.get(name, UNKNOWN_REFUSAL))


def option_value(name: str, value: Any, t: Translator) -> str:
    """An option's value in words (On/Off, a count, who leads, a part's named value)."""
    named = _VALUE_WORDS[name].value_label(value) if name in _VALUE_WORDS else None
    if named is not None:
        return t.gettext(named)
    if isinstance(value, bool):
        return t.gettext(ON if value else OFF)
    if value == 0 and name in SPECS and SPECS[name].allows_off:
        return t.gettext(OFF)
    count = _VALUE_WORDS[name].count if name in _VALUE_WORDS else None
    if count is not None and isinstance(value, int):
        return t.plural(count, value)
    if name == "first_lead" and value in FIRST_LEAD_VALUES:
        return t.gettext(FIRST_LEAD_VALUES[value])
    if name == "jokers" and isinstance(value, int):
        return t.gettext(NO_JOKERS) if value == 0 else t.plural(JOKER_COUNTS, value)
    return str(value)


def _rank_param(value: Any, t: Translator) -> str:
    text = str(value)
    if text == "jokers":
        return t.gettext(ALL_JOKERS_WORD)
    return rank_short(text, t) if text in RANK_NAMES else text


def error_codes() -> set[str]:
    """Every code this module can put into words."""
    return set(REFUSALS) | set(SERVER_ERRORS)


def refusal_text(
    code: str,
    params: Mapping[str, Any] | None,
    t: Translator,
    seat_name: Callable[[int], str] | None = None,
) -> str:
    """A refusal or a server error (code and params) as a sentence in the reader's language.

    ``seat_name`` turns a seat number into the player's name; by default "Seat 1" for seat 0.
    """
    params = dict(params or {})
    entry = REFUSALS.get(code, SERVER_ERRORS.get(code))
    if entry is None:
        return t.gettext(UNKNOWN_REFUSAL)

    def seat(value: Any) -> str:
        if isinstance(value, int):
            return seat_name(value) if seat_name else t.gettext(SEAT_LABEL, number=value + 1)
        return str(value)

    values: dict[str, Any] = {}
    for key in ("seat", "turn"):
        if key in params:
            values[key] = seat(params[key])
    for key in ("need", "got"):
        if key in params:
            values[key] = _rank_param(params[key], t)
    if "cards" in params:
        values["cards"] = cards_short(str(params["cards"]), t)
    if "option" in params:
        values["option"] = option_label(str(params["option"]), t)
    if "needs" in params:
        values["needs"] = option_label(str(params["needs"]), t)
    if "suits" in params and isinstance(params["suits"], list):
        values["suits"] = join_list(
            [
                t.gettext(SUIT_NAMES_L10N[SUIT_LETTER_TO_KEY[s]])
                for s in params["suits"]
                if s in SUIT_LETTER_TO_KEY
            ],
            t,
        )
    if "suit" in params and params["suit"] in SUIT_LETTER_TO_KEY:
        values["suit"] = t.gettext(SUIT_NAMES_L10N[SUIT_LETTER_TO_KEY[params["suit"]]])
    if "joker" in params:
        values["joker"] = card_short(str(params["joker"]), t)
    if "preset" in params:
        preset = str(params["preset"]).strip("'\"")
        values["preset"] = t.gettext(PRESET_NAMES[preset]) if preset in PRESET_NAMES else preset
    for key in ("low", "high", "played", "largest"):
        if key in params:
            values[key] = params[key]
    if "value" in params:
        value = params["value"]
        values["value"] = (
            option_value(str(params.get("option", "")), value, t)
            if code == "option_locked"
            else value
        )
    if isinstance(entry, dict):
        selector = params.get("kind") if code == "wrong_size" else bool(params.get("equal_plays"))
        entry = entry.get(selector, next(iter(entry.values())))
    if isinstance(entry, tuple):
        raw_count = params.get(_PLURAL_PARAM.get(code, "count"), 1)
        count = raw_count if isinstance(raw_count, int) else 1
        return t.plural(entry, count, **values)
    try:
        return t.gettext(entry, **values)
    except KeyError:
        return t.gettext(UNKNOWN_REFUSAL)


SEAT_LABEL = N_("Seat %(number)s")
