"""What the rules pages and the rules sheets say, checked against rules.md in every language.

Each fact is named by the catalog entry it comes from: the test looks for that entry's
translation in the page, so a fact left out of one language (or a page that stops showing it)
fails here, not in front of a reader.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from itertools import product
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from cardverse.engine import Rules
from cardverse.web import error_handlers, web_routes
from cardverse.web.i18n import LANGUAGES, translator
from cardverse.web.site import VARIANTS


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(Starlette(routes=web_routes(), exception_handlers=error_handlers()))


def _text(markup: str) -> str:
    """The words of a piece of HTML (no scripts, no card images), whitespace made single."""
    markup = re.sub(r"<(script|style|svg)[^>]*>.*?</\1>", " ", markup, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def _said(msgid: str, lang: str) -> str:
    return re.sub(r"\s+", " ", translator(lang).gettext(msgid)).strip()


def _page(client: TestClient, path: str, lang: str) -> str:
    # a fresh cookie jar each time: the language comes from ?lang= alone
    client.cookies.clear()
    sep = "&" if "?" in path else "?"
    response = client.get(f"{path}{sep}lang={lang}")
    assert response.status_code == 200, (path, lang)
    return response.text


def _missing(page_text: str, msgids: list[str], lang: str) -> list[str]:
    return [msgid for msgid in msgids if _said(msgid, lang) not in page_text]


# --- /rules/straights --------------------------------------------------------------------

STRAIGHTS_FACTS = [
    # R6: one suit, consecutive, 3 or more
    "A straight is three or more cards of one suit with ranks that follow one another, such as "
    "the 5, 6 and 7 of hearts. With this option you may lead a straight instead of a set, and "
    "only a straight of the same length can follow it.",
    # R6, R7: no wrapping, no upper length, four of a straight are no four of a kind
    "Ranks run from 3 up to 2 and do not wrap around: K-A-2 is the highest straight of three, and "
    "A-2-3 is no straight at all. A straight has no upper length. Four cards of a straight never "
    "count as a four of a kind.",
    # R10: a higher top, in any suit; equal with equal plays
    "To beat a straight, play a straight of the same length with a higher top card, in any suit: "
    "the 6, 7 and 8 of clubs beat the 5, 6 and 7 of hearts. With equal plays, the same top card "
    "is enough.",
    # R14: a straight ending in a 2 does not clear
    "A straight never clears the pile because of its top card: even a straight that ends in a 2 "
    "leaves the trick open, and the next player may cover it.",
]
STRAIGHTS_ROWS = [
    ("What you may play", "A set", "A set or a straight"),
    (
        "Length of a play",
        "1 to 4 cards of one rank",
        "A set of 1 to 4 cards, or a straight of 3 or more cards with no upper length",
    ),
    (
        "Beating a straight",
        "Not played",
        "A straight of the same length with a higher top card, in any suit; the same top card is "
        "enough with equal plays",
    ),
    (
        "Sets and straights in one trick",
        "Only sets",
        "Never mixed: a set follows only a set of its size, a straight only a straight of its "
        "length",
    ),
    (
        "Clearing the pile",
        "A set of 2s",
        "A set of 2s; a straight never clears, not even one that ends in a 2",
    ),
    (
        "With jokers",
        "A joker stands in for any card of a set",
        "A joker also fills any place of a straight; you say which rank it stands for",
    ),
    (
        "With revolution",
        "Every set of four starts a revolution",
        "During a revolution a straight is beaten by one with a lower bottom card; a straight of "
        "four cards starts no revolution",
    ),
    (
        "With eight clears the pile",
        "A set of 8s clears the pile",
        "A straight that holds an 8 clears the pile too",
    ),
]


def _rows(page: str) -> list[tuple[str, ...]]:
    found = re.findall(
        r'<tr><th scope="row">(.*?)</th><td>(.*?)</td><td>(.*?)</td></tr>', page, re.S
    )
    return [tuple(_text(cell) for cell in row) for row in found]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R6_R7_R10_R14_straights_page_says_every_fact(client: TestClient, lang: str) -> None:
    page = _page(client, "/rules/straights", lang)
    assert not _missing(_text(page), STRAIGHTS_FACTS, lang)
    expected = [tuple(_said(cell, lang) for cell in row) for row in STRAIGHTS_ROWS]
    assert _rows(page) == expected


# --- /rules/revolution -------------------------------------------------------------------

REVOLUTION_FACTS = [
    # R15: every four reverses, the next one turns it back
    "A revolution turns the order of the cards upside down. Whoever plays a set of four starts "
    "one: from that moment the 2 is the lowest card and the 3 the highest. The next set of four "
    "starts a counter-revolution and puts the order back.",
    # R16 (an equal four with equal plays), R19 (every round starts in the normal order)
    "A set of four is judged by the order before it is played: it may be led, or played on a set "
    "of four that it beats, or that it equals when equal plays are on. It does not end the "
    "trick. The reversed order applies from the very next play, and every round starts in the "
    "normal order again.",
    # R17
    "A set of four that clears the pile, such as four 2s in the normal order, is judged as a "
    "clearing play by the order before it: the trick ends, and the next trick is played in the "
    "reversed order.",
    # R5, R15, R18 with the other options
    "With jokers, a set of three and a joker is a set of four and starts a revolution, and a set "
    "made only of jokers stays the highest play of its size. With straights, a straight is "
    "beaten by one with a lower bottom card during a revolution, and straights never start one.",
    "Other options",
    # R14 during a revolution, R19 for the exchange
    "A set of 2s; during a revolution a set of 3s",
    "Still the normal order",
    "A higher set of four, or an equal one with equal plays",
    "The same, judged by the order in force before the new four",
]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R15_to_R19_revolution_page_says_every_fact(client: TestClient, lang: str) -> None:
    page = _page(client, "/rules/revolution", lang)
    assert not _missing(_text(page), REVOLUTION_FACTS, lang)
    assert len(_rows(page)) == 7
    if lang == "en":
        assert "must still beat" not in page  # R16: an equal four may cover one with equal plays


# --- every variant page: the line above the title, a lead and a caption -------------------

LEADS = {
    "revolution": "With this option a set of four turns the order of the cards upside down, so "
    "that a hand of low cards can win.",
    "straights": "With this option you may also play runs of one suit, such as the 5, 6 and 7 of "
    "hearts.",
    "jokers": "With this option one or two wild cards join the deck.",
    "eight-stop": "With this option a set of 8s ends the trick at once, like a set of 2s.",
    "equal-plays": "The standard game lets a play equal the one it covers; this page shows the "
    "game without it.",
    "exchange": "Between rounds the winners of the last round get the best cards of the losers.",
    "cardverse": "Our suggested rules for quick games.",
    "suit-lock": "With this option, a play in exactly the suits of the play it covers locks the "
    "trick to those suits.",
    "jack-back": "With this option, a play holding a jack reverses the order of the ranks until "
    "the trick ends.",
    "spade-three": "With this option, the 3 of spades played alone beats a lone joker.",
    "forbidden-finish": "With this option, a player who goes out on a strong card takes the "
    "lowest free place.",
    "downfall": "With this option, a President who loses first place drops straight to the "
    "lowest free place.",
    "seven-pass": "With this option, whoever plays sevens gives as many cards to the next player.",
    "ten-discard": "With this option, whoever plays tens discards as many cards.",
    "daifugo": "The Japanese game with its house rules, every one of them on.",
}


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("slug", list(VARIANTS))
def test_variant_pages_have_a_kicker_a_lead_and_a_caption(
    client: TestClient, slug: str, lang: str
) -> None:
    page = _page(client, f"/rules/{slug}", lang)
    kicker = "President preset" if slug in ("cardverse", "daifugo") else "President variant"
    match = re.search(
        r'<p class="kicker">(.*?)</p>\s*<h1>(.*?)</h1>\s*<p class="lead">(.*?)</p>', page
    )
    assert match, slug
    assert match.group(1) == html.escape(_said(kicker, lang), quote=False)
    assert _text(match.group(3)) == _said(LEADS[slug], lang)
    caption = re.search(r"<caption>(.*?)</caption>", page, re.S)
    assert caption and _text(caption.group(1)), slug


# --- the rules sheets over many option combinations ---------------------------------------

Fact = tuple[str, Callable[[Rules], bool], str]

# (rule, when it is in force, the sentence that says it): written from rules.md, not from
# the sheet's code, so that the sheet and this list check each other.
SHEET_FACTS: list[Fact] = [
    (
        "R31",
        lambda r: r.suit_lock,
        "When a play covers a play in exactly the same suits, the trick is locked: until it ends, "
        "play only cards of those suits.",
    ),
    (
        "R32",
        lambda r: r.jack_back,
        "A play holding a jack reverses the order until the trick ends. While the order is "
        "reversed, a set of 3s clears the pile.",
    ),
    (
        "R33",
        lambda r: r.spade_three,
        "The 3 of spades played alone beats a lone joker, in either order, and clears the pile.",
    ),
    (
        "R34",
        lambda r: r.forbidden_finish and bool(r.jokers),
        "Going out on a play that holds a joker is a forbidden finish too.",
    ),
    (
        "R35",
        lambda r: r.downfall,
        "From round 2, when someone other than the previous President goes out first while the "
        "previous President still holds cards, the previous President takes the lowest free "
        "place at once; their cards leave the round unseen.",
    ),
    (
        "R36",
        lambda r: r.seven_pass,
        "After a play holding 7s, its player gives as many cards of their choice to the next "
        "player still holding cards; only the two of them see which. Then the trick goes on.",
    ),
    (
        "R37",
        lambda r: r.ten_discard,
        "After a play holding 10s, its player discards as many cards of their choice, face up; "
        "they leave the round.",
    ),
    (
        "R24",
        lambda r: r.first_lead == "three_of_diamonds",
        "The holder of the 3 of diamonds leads the first round, with any play.",
    ),
    (
        "R8",
        lambda r: not r.straights,
        "The player on lead puts down any set: 1 to 4 cards of one rank.",
    ),
    (
        "R8",
        lambda r: r.straights,
        "The player on lead puts down any set (1 to 4 cards of one rank) or any straight (3 or "
        "more cards of one suit in a row).",
    ),
    ("R9", lambda r: not r.straights, "A set is followed only by a set of the same size."),
    (
        "R9",
        lambda r: r.straights,
        "Sets and straights never mix in one trick: a set is followed only by a set of the same "
        "size, a straight only by a straight of the same length.",
    ),
    ("R10", lambda r: r.equal_plays, "To beat a set, play a higher rank or the same rank."),
    (
        "R10",
        lambda r: not r.equal_plays,
        "To beat a set, play a higher rank: the same rank is not enough.",
    ),
    (
        "R10",
        lambda r: r.straights and r.equal_plays,
        "To beat a straight, play one with a higher top card or the same top card, in any suit.",
    ),
    (
        "R10",
        lambda r: r.straights and not r.equal_plays,
        "To beat a straight, play one with a higher top card, in any suit.",
    ),
    (
        "R6",
        lambda r: r.straights,
        "Ranks in a straight go from 3 up to 2 without wrapping: K-A-2 is the highest straight of "
        "three, and A-2-3 is no straight. A straight has no upper length.",
    ),
    (
        "R5",
        lambda r: r.jokers > 0,
        "A joker stands in for any card of a set: 7-7-7-joker is four 7s.",
    ),
    (
        "R10",  # one joker: nothing can cover it
        lambda r: r.jokers == 1,
        "The joker played alone beats every single card, and nothing can cover it.",
    ),
    (
        "R10",  # two jokers and equal plays: the other joker covers a lone one
        lambda r: r.jokers == 2 and r.equal_plays,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size. A joker alone can be covered only by the other joker; nothing can cover the "
        "pair of jokers.",
    ),
    (
        "R10",
        lambda r: r.jokers == 2 and not r.equal_plays,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size, and nothing can cover it.",
    ),
    (
        "R6",
        lambda r: r.jokers > 0 and r.straights,
        "In a straight a joker may fill any place; you say which rank it stands for. A straight "
        "holds at least one card that is not a joker, and that card's suit is the straight's suit.",
    ),
    (
        "R14",
        lambda r: True,
        "A set of 2s clears the pile at once, and the same player leads the next trick.",
    ),
    ("R14", lambda r: r.revolution, "During a revolution a set of 3s clears the pile instead."),
    (
        "R14",
        lambda r: r.eight_stop and r.revolution,
        "A set of 8s clears the pile too, in the normal order and during a revolution.",
    ),
    ("R14", lambda r: r.eight_stop and not r.revolution, "A set of 8s clears the pile too."),
    (
        "R14",  # a set counts by its natural cards
        lambda r: r.jokers > 0,
        "A set counts by its cards that are not jokers: a 2 with a joker is a set of 2s and "
        "clears the pile, but a set made only of jokers never clears it.",
    ),
    (
        "R14",  # a straight ending in a 2 is no clearing play
        lambda r: r.straights and not r.eight_stop,
        "A straight never clears the pile, not even one that ends in a 2.",
    ),
    (
        "R14",
        lambda r: r.straights and r.eight_stop and r.jokers > 0,
        "So does a straight that holds an 8, even when a joker stands for the 8. No other "
        "straight clears the pile, not even one that ends in a 2.",
    ),
    (
        "R14",
        lambda r: r.straights and r.eight_stop and not r.jokers,
        "So does a straight that holds an 8. No other straight clears the pile, not even one that "
        "ends in a 2.",
    ),
    (
        "R15",
        lambda r: r.revolution,
        "Every set of four starts a revolution: at once the order is reversed, the 2 is the lowest "
        "and the 3 the highest. The next set of four turns it back.",
    ),
    (
        "R3",
        lambda r: r.revolution,
        "During a revolution, from the lowest to the highest, the ranks are: %(ranks)s.",
    ),
    (
        "R15",
        lambda r: r.revolution and r.jokers > 0,
        "A set of four made with a joker, such as 7-7-7-joker, starts a revolution too. A set made "
        "only of jokers stays the highest set of its size during a revolution.",
    ),
    (
        "R16",
        lambda r: r.revolution and r.equal_plays,
        "A set of four does not end the trick. It is judged by the order in force before it: you "
        "may lead it, or play it on a set of four that it beats or equals. The next play is judged "
        "by the new order.",
    ),
    (
        "R16",
        lambda r: r.revolution and not r.equal_plays,
        "A set of four does not end the trick. It is judged by the order in force before it: you "
        "may lead it, or play it on a set of four that it beats. The next play is judged by the "
        "new order.",
    ),
    (
        "R17",
        lambda r: r.revolution,
        "A set of four that clears the pile, such as four 2s in the normal order, still reverses "
        "the order: the trick ends, and the next trick is played in the new order.",
    ),
    ("R19", lambda r: r.revolution, "Every round starts in the normal order."),
    (
        "R18",
        lambda r: r.revolution and r.straights and r.equal_plays,
        "Straights never start a revolution, whatever their length: four cards of a straight are "
        "no set of four. During a revolution, to beat a straight play one with a lower bottom card "
        "or the same bottom card, in any suit.",
    ),
    (
        "R18",
        lambda r: r.revolution and r.straights and not r.equal_plays,
        "Straights never start a revolution, whatever their length: four cards of a straight are "
        "no set of four. During a revolution, to beat a straight play one with a lower bottom "
        "card, in any suit.",
    ),
    (
        "R24",
        lambda r: r.first_lead == "first_seat",
        "The player in the first seat leads the first round, with any play.",
    ),
    (
        "R24",
        lambda r: r.first_lead == "three_of_clubs",
        "The holder of the 3 of clubs leads the first round, with any play.",
    ),
    ("R24", lambda r: r.rounds > 1, "Every later round is led by the Scum of the round before."),
    (
        "R25",
        lambda r: r.rounds > 1 and r.exchange,
        "In every round after the first, once the cards are dealt and before the first play, the "
        "Scum gives the President their two highest cards, and the President gives back any two "
        "cards.",
    ),
    (
        "R25",
        lambda r: r.rounds > 1 and r.exchange and r.players >= 4,
        "The Vice-Scum gives the Vice-President their highest card and gets back any one card.",
    ),
    (
        "R25",  # the gifts are automatic
        lambda r: r.rounds > 1 and r.exchange and r.players >= 4,
        "The highest cards are given automatically; the President and the Vice-President choose "
        "the cards they give back.",
    ),
    (
        "R25",
        lambda r: r.rounds > 1 and r.exchange and r.players == 3,
        "The highest cards are given automatically; the President chooses the cards they give "
        "back.",
    ),
    (
        "R25",
        lambda r: r.rounds > 1 and r.exchange and r.jokers > 0,
        "Jokers count as the highest cards.",
    ),
    (
        "R19",
        lambda r: r.rounds > 1 and r.exchange and r.revolution,
        "The exchange always uses the normal order, even after a revolution.",
    ),
    (
        "R26",
        lambda r: r.rounds > 1 and r.exchange,
        "Only the two players of each pair see the cards that pass between them.",
    ),
    ("R25", lambda r: r.rounds == 1 and r.exchange, "A game of one round has no card exchange."),
    ("R25", lambda r: not r.exchange, "No cards are exchanged between rounds."),
    (
        "R20",
        lambda r: True,
        "Whoever plays their last card goes out and takes the next free place. When only one "
        "player still holds cards, the round ends and that player is last.",
    ),
    (
        "R22",  # the results show the last round's places and the totals
        lambda r: True,
        "At the end, the results show the places of the last round and the totals.",
    ),
    (
        "R13",
        lambda r: True,
        "If the player who should lead next has gone out, the next player in seat order who still "
        "holds cards leads.",
    ),
    (
        "R26",
        lambda r: True,
        "You see your own hand, how many cards every other player holds, and every card played "
        "this round.",
    ),
    (
        "R27",  # computer players see only what a person in their seat would see
        lambda r: True,
        "Empty seats can be filled with computer players. They see only what a person in their "
        "seat would see.",
    ),
]

# Words that name an option's rules, per language: none may show when the option is off.
OFF_WORDS: dict[str, dict[str, str]] = {
    "straights": {"en": "straight", "fi": "suor", "pl": "sekwens", "lt": "laipt", "ja": "階段"},
    "jokers": {"en": "joker", "fi": "jokeri", "pl": "joker", "lt": "džoker", "ja": "ジョーカー"},
    "revolution": {
        "en": "revolution",
        "fi": "vallankumou",
        "pl": "rewolucj",
        "lt": "revoliucij",
        "ja": "革命",
    },
    "eight_stop": {"en": "8s", "fi": "kasi", "pl": "ósem", "lt": "aštuonak", "ja": "8の"},
}

BASE: dict[str, Any] = {"preset": "standard", "players": 4, "rounds": 1}
ALONE: list[dict[str, Any]] = [
    {},
    {"equal_plays": False},
    {"revolution": True},
    {"straights": True},
    {"jokers": 1},
    {"jokers": 2},
    {"eight_stop": True},
    {"exchange": False},
    {"first_lead": "first_seat"},
    {"first_lead": "three_of_diamonds"},
    {"suit_lock": True},
    {"jack_back": True},
    {"jokers": 1, "spade_three": True},
    {"forbidden_finish": True},
    {"downfall": True},
    {"seven_pass": True},
    {"ten_discard": True},
]
ALL_ON: dict[str, Any] = {"revolution": True, "straights": True, "jokers": 2, "eight_stop": True}
TOGETHER: list[dict[str, Any]] = [
    ALL_ON,
    {**ALL_ON, "equal_plays": False, "jokers": 1, "first_lead": "first_seat"},
    {"straights": True, "eight_stop": True},
    {"straights": True, "jokers": 1},
    {"revolution": True, "jokers": 1},
    {"revolution": True, "straights": True, "equal_plays": False},
    {"preset": "daifugo"},
    {"preset": "daifugo", "jokers": 0, "revolution": False, "eight_stop": False},
]
COMBINATIONS: list[dict[str, Any]] = [
    {**BASE, **options, "players": players, "rounds": rounds}
    for options, players, rounds in product(ALONE + TOGETHER, (3, 4, 8), (1, 5))
] + [
    {"preset": "cardverse", "players": 3, "rounds": 1},
    {"preset": "cardverse", "players": 6, "rounds": 5},
    {"preset": "cardverse", "players": 5, "rounds": 3, "eight_stop": True},
]


def _query(options: dict[str, Any]) -> str:
    def value(item: Any) -> str:
        return ("on" if item else "off") if isinstance(item, bool) else str(item)

    return "&".join(f"{key}={value(item)}" for key, item in options.items())


def _sheet_parts(client: TestClient, options: dict[str, Any], lang: str) -> tuple[str, str]:
    """The whole sheet's text, and its rules text alone (without the table of options)."""
    page = _page(client, f"/rules/sheet?{_query(options)}", lang)
    sheet = page.split('<div class="rules-sheet">', 1)[1].split('<p class="sheet-version">')[0]
    rules_part = sheet.split("</table>", 1)[1]
    return _text(sheet), _text(rules_part)


def _name(options: dict[str, Any]) -> str:
    return ",".join(f"{key}={value}" for key, value in options.items())


def _fact_said(msgid: str, lang: str) -> str:
    text = _said(msgid, lang)
    return text.split("%(")[0]  # a sentence with a parameter: the part before it


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("options", COMBINATIONS, ids=_name)
def test_sheet_explains_every_rule_in_force_and_none_that_is_off(
    client: TestClient, options: dict[str, Any], lang: str
) -> None:
    rules = Rules.make(**options)
    _, text = _sheet_parts(client, options, lang)
    for rule, in_force, msgid in SHEET_FACTS:
        shown = _fact_said(msgid, lang) in text
        assert shown == in_force(rules), (
            f"{rule} {'missing' if in_force(rules) else 'shown'}: {msgid}"
        )
    # no option that is off is mentioned (the preset's list of locked options aside)
    t = translator(lang)
    locks = t.gettext(
        "The %(preset)s preset locks these options: %(options)s.",
        preset=t.gettext("CardVerse"),
        options=", ".join(t.gettext(name) for name in ("Equal plays", "Straights", "Jokers")),
    )
    text = text.replace(locks, "")
    for option, words in OFF_WORDS.items():
        if not getattr(rules, option):
            assert words[lang].lower() not in text.lower(), f"{option} is off but mentioned"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R3_sheet_writes_the_reversed_order_out(client: TestClient, lang: str) -> None:
    _, text = _sheet_parts(client, {**BASE, "revolution": True}, lang)
    t = translator(lang)
    ranks = ", ".join(
        t.pgettext("rank letter", rank) if rank in "JQKA" else rank
        for rank in ["2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]
    )
    sentence = t.gettext(
        "During a revolution, from the lowest to the highest, the ranks are: %(ranks)s.",
        ranks=ranks,
    )
    assert sentence in text


# --- the other rules pages: their key facts, in every language ----------------------------

OTHER_PAGE_FACTS: dict[str, list[str]] = {
    "/rules": [
        # R1, R3
        "One deck of 52 cards. Suits never matter: only the rank does. From the lowest to the "
        "highest:",
        # R10 (equal plays in the standard game)
        "A set beats another one with a higher rank. The standard game also allows the same rank: "
        "this is called an equal play.",
        # R14
        "A set of 2s clears the pile at once, and the same player leads again.",
        # R13
        "If the player who should lead next has gone out, the next player in seat order who "
        "still holds cards leads.",
        # R21, R22
        "The first out is the President and the second the Vice-President; the second to last is "
        "the Vice-Scum and the last the Scum. Everyone else is a Citizen. With 3 players there are "
        "only a President, a Citizen and a Scum.",
        "The first place gets as many points as there are players, each next place one point "
        "fewer, and the last place 1 point.",
        # R27
        "Empty seats can be filled with computer players. They see only what a person in their "
        "seat would see.",
    ],
    "/rules/jokers": [
        # R2, R5, R14 (a set counts by its natural cards)
        "A joker is a wild card. With this option one or two jokers, a red and a black one, are "
        "shuffled into the deck.",
        "A joker stands in for any card of a set: three 7s and a joker make four 7s. A joker "
        "played alone, or both jokers as a pair, beat every set of their size, even during a "
        "revolution. A set counts by its other cards: a 2 and a joker are a pair of 2s and clear "
        "the pile, but jokers alone never clear it.",
        # R10: only the other joker covers a lone joker, and only with equal plays
        "Beat every set of their size; only the other joker covers a lone joker, and only with "
        "equal plays",
        "Jokers count as the highest cards",  # R25
    ],
    "/rules/eight-stop": [
        # R14 with eight_stop
        "With this option the 8 clears the pile like a 2: a set of 8s ends the trick at once, and "
        "its player leads the next one.",
        "The 8 keeps its place in the order: you can play it only where an 8 would beat the last "
        "play. With straights, any straight that holds an 8 clears the pile, even when a joker "
        "stands for the 8.",
        "Also any set of 8s, even during a revolution",
    ],
    "/rules/equal-plays": [
        "An equal play covers the last play with a set of the same rank, such as a 9 on a 9. The "
        "standard game allows it. When equal plays are switched off, every play must be strictly "
        "higher, so tricks end sooner.",
        "Only a lone joker, by the other joker",  # R10
    ],
    "/rules/exchange": [
        # R25, R19
        "The highest cards are given automatically; the President and the Vice-President choose "
        "what to give back. The exchange always uses the normal order, even after a revolution. "
        "The standard game has the exchange; this page shows what changes without it.",
        "One card each way, with 4 or more players",
    ],
    "/rules/cardverse": [
        "The CardVerse preset is the set of rules we suggest for quick games: revolution on, no "
        "equal plays, no straights and no jokers, for 3 to 6 players. Locked options cannot be "
        "changed while this preset is chosen; the others can.",
    ],
}


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("path", list(OTHER_PAGE_FACTS))
def test_every_rules_page_says_its_facts(client: TestClient, path: str, lang: str) -> None:
    page = _page(client, path, lang)
    assert not _missing(_text(page), OTHER_PAGE_FACTS[path], lang)
    if lang == "en":
        assert "in either order" not in page  # "either order" read as "any order" (issue 8)
