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
from cardverse.web.pages import PRESET_PAGES
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
    "A-2-3 is no straight at all. A straight has no upper length, and the longer it is, the harder "
    "it is to follow. Four cards of a straight never count as a four of a kind.",
    # R10: a higher top, in any suit; equal with equal plays
    "To beat a straight, play a straight of the same length with a higher top card, in any suit: "
    "the 6, 7 and 8 of clubs beat the 5, 6 and 7 of hearts. With equal plays, the same top card "
    "is enough.",
    # R14: a straight ending in a 2 does not clear
    "A straight never clears the pile because of its top card: even a straight that ends in a 2 "
    "leaves the trick open, and the next player may cover it.",
    # R10 during a revolution: a lower bottom, or an equal one with equal plays
    "During a revolution it goes the other way: a straight is beaten by one of the same length "
    "with a lower bottom card, in any suit, and with equal plays the same bottom card is enough.",
    # R11-R13, R20 unchanged
    "Passing, winning a trick and going out work as in the standard game.",
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
        "During a revolution a straight is beaten by one with a lower bottom card, or the same "
        "bottom card with equal plays; a straight of four cards starts no revolution",
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
    assert _rows(page)[: len(expected)] == expected
    assert _rows(page)[-1][0] == _said("Other options", lang)  # R4: the other options


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
    "made only of jokers stays the highest play of its size. With straights, during a revolution "
    "a straight is beaten by one with a lower bottom card, or the same bottom card where equal "
    "plays allow it, and straights never start a revolution.",
    "Other options",
    "Revolution works with all of them.",
    # R10 during a revolution
    "While a revolution lasts, every play must be lower than the one it covers, by the normal "
    "order, or of the same rank where equal plays allow it.",
    # R14 (its player leads next) and during a revolution, R19 for the exchange
    "A set of 2s clears the pile, and its player leads the next trick",
    "A set of 2s; during a revolution a set of 3s instead, and a set of 2s is the lowest set",
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
    "straight-cover": "With the value “All cards higher”, a straight covers a straight only when "
    "every one of its cards is higher than every card it covers.",
    "straight-revolution": "With this option, a long straight starts a revolution, like a set of "
    "four.",
    "five-card-sets": "With this option, the four cards of a rank and a joker make a set of five.",
    "lead-every-round": "With this option, every round is led like the first, not by the Scum of "
    "the round before.",
    "uecda": "The standard rules of UECda, the computer Dai Fugō tournament.",
}


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("slug", list(VARIANTS))
def test_variant_pages_have_a_kicker_a_lead_and_a_caption(
    client: TestClient, slug: str, lang: str
) -> None:
    page = _page(client, f"/rules/{slug}", lang)
    kicker = "President preset" if slug in PRESET_PAGES else "President variant"
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
        "R36",  # min(k, cards held)
        lambda r: r.seven_pass,
        "After a play holding 7s, its player gives one card of their choice for each 7 to the next "
        "player still holding cards, or all their cards if they hold fewer. Only the two of them "
        "see which cards; everyone sees how many. Then the trick goes on.",
    ),
    (
        "R40",  # the receiver may have passed
        lambda r: r.seven_pass,
        "The receiver may be a player who has passed in this trick; receiving does not bring them "
        "back into it.",
    ),
    ("R36", lambda r: r.seven_pass, "Whoever gives away their last card goes out."),
    (
        "R40",  # natural 7s only
        lambda r: r.seven_pass and r.jokers > 0,
        "A joker standing for a 7 does not count as a 7.",
    ),
    ("R39", lambda r: r.seven_pass, "Everyone sees who owes a give and how many cards."),
    (
        "R37",
        lambda r: r.ten_discard,
        "After a play holding 10s, its player discards one card of their choice for each 10, or "
        "all their cards if they hold fewer, face up: everyone sees them, and they leave the "
        "round.",
    ),
    ("R37", lambda r: r.ten_discard, "Whoever discards their last card goes out."),
    (
        "R40",  # natural 10s only
        lambda r: r.ten_discard and r.jokers > 0,
        "A joker standing for a 10 does not count as a 10.",
    ),
    (
        "R37",  # the give first, then the discard counts what is left (R40)
        lambda r: r.ten_discard and r.seven_pass and r.straights,
        "When one play holds both 7s and 10s, the give comes first, and the discard counts the "
        "cards left after it.",
    ),
    ("R39", lambda r: r.ten_discard, "Everyone sees who owes a discard and how many cards."),
    (
        "R31",  # both plays without jokers
        lambda r: r.suit_lock and r.jokers > 0,
        "A lock needs two plays without jokers: a play holding a joker never starts one, and "
        "neither does a play on a play holding a joker. Under a lock, a joker may stand in for a "
        "card of a missing suit.",
    ),
    (
        "R40",  # a lock binds a 3 of spades on a joker
        lambda r: r.suit_lock and r.spade_three,
        "A lock binds the 3 of spades played on a joker too.",
    ),
    ("R39", lambda r: r.suit_lock, "Everyone sees whether a lock is in force, and on which suits."),
    (
        "R32",  # judged by the order before it; a second jack changes nothing more
        lambda r: r.jack_back,
        "The play of jacks itself is judged by the order before it. A second play holding a jack "
        "in the same trick changes nothing more.",
    ),
    (
        "R40",  # natural jacks only
        lambda r: r.jack_back and r.jokers > 0,
        "A joker standing for a jack does not count as a jack.",
    ),
    (
        "R32",  # revolution and jack back together: the normal order, so the 2s clear
        lambda r: r.jack_back and r.revolution,
        "During a revolution a jack back gives the normal order back until the trick ends, and "
        "then a set of 2s clears the pile.",
    ),
    ("R39", lambda r: r.jack_back, "Everyone sees whether a jack back is in force."),
    (
        "R39",
        lambda r: r.forbidden_finish,
        "Everyone sees which places were taken by a forbidden finish.",
    ),
    ("R39", lambda r: r.downfall, "Everyone sees which places were taken by a downfall."),
    (
        "R40",  # a downfall by a give or a discard
        lambda r: r.downfall and (r.seven_pass or r.ten_discard),
        "This holds too when first place is taken by giving or discarding cards.",
    ),
    ("R39", lambda r: r.revolution, "Everyone sees whether a revolution is in force."),
    (
        "R1",  # the goal, both halves
        lambda r: True,
        "Be the first to play every card in your hand, and avoid being the last. The order in "
        "which players go out gives each a title and points.",
    ),
    (
        "R3",  # the normal order written out as well as drawn
        lambda r: True,
        "Suits do not matter. From the lowest to the highest, the ranks are: %(ranks)s.",
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
        "R10",  # one joker: nothing can cover it (R33: but the 3 of spades)
        lambda r: r.jokers == 1 and not r.spade_three,
        "The joker played alone beats every single card, and nothing can cover it.",
    ),
    (
        "R33",
        lambda r: r.jokers == 1 and r.spade_three,
        "The joker played alone beats every other single card; only the 3 of spades played alone "
        "can cover it.",
    ),
    (
        "R10",  # two jokers and equal plays: the other joker covers a lone one
        lambda r: r.jokers == 2 and r.equal_plays and not r.spade_three,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size. A joker alone can be covered only by the other joker; nothing can cover the "
        "pair of jokers.",
    ),
    (
        "R33",  # R10 and R33 together: the other joker or the 3 of spades
        lambda r: r.jokers == 2 and r.equal_plays and r.spade_three,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size. A joker alone can be covered only by the other joker or by the 3 of spades "
        "played alone; nothing can cover the pair of jokers.",
    ),
    (
        "R10",
        lambda r: r.jokers == 2 and not r.equal_plays and not r.spade_three,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size, and nothing can cover it.",
    ),
    (
        "R33",
        lambda r: r.jokers == 2 and not r.equal_plays and r.spade_three,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size. Only the 3 of spades played alone can cover a joker alone; nothing can cover "
        "the pair of jokers.",
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
        lambda r: r.revolution and r.straights and not r.straight_revolution,
        "Straights never start a revolution, whatever their length: four cards of a straight are "
        "no set of four.",
    ),
    (
        "R10",  # straights during a revolution (R41: with straight_cover top)
        lambda r: r.revolution and r.straights and r.equal_plays and r.straight_cover == "top",
        "During a revolution, to beat a straight play one with a lower bottom card or the same "
        "bottom card, in any suit.",
    ),
    (
        "R10",
        lambda r: r.revolution and r.straights and not r.equal_plays and r.straight_cover == "top",
        "During a revolution, to beat a straight play one with a lower bottom card, in any suit.",
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
        lambda r: not (r.forbidden_finish or r.downfall),
        "Whoever plays their last card goes out and takes the next free place. When only one "
        "player still holds cards, the round ends and that player is last.",
    ),
    (
        "R40",  # the last holder takes the one place left, not always the last
        lambda r: r.forbidden_finish or r.downfall,
        "Whoever plays their last card goes out and takes the next free place. When only one "
        "player still holds cards, the round ends and that player takes the one place left, which "
        "is not the last place when places were taken from the bottom.",
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
        "You see your own hand, how many cards every other player holds, every card played this "
        "round and by whom, every pass, who has gone out and their places, the points so far, "
        "whose turn it is, and your own legal moves.",
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
# every house rule of section 10 at once (spade_three needs a joker)
HOUSE_RULES: dict[str, Any] = {
    "suit_lock": True,
    "jack_back": True,
    "spade_three": True,
    "forbidden_finish": True,
    "downfall": True,
    "seven_pass": True,
    "ten_discard": True,
}
TOGETHER: list[dict[str, Any]] = [
    {**ALL_ON, **HOUSE_RULES},
    {**ALL_ON, **HOUSE_RULES, "equal_plays": False},
    {**HOUSE_RULES, "jokers": 1},
    {**HOUSE_RULES, "jokers": 2, "revolution": True},
    {"jokers": 2, "spade_three": True},
    {"jokers": 2, "spade_three": True, "equal_plays": False},
    {"jokers": 1, "spade_three": True, "suit_lock": True},
    {"forbidden_finish": True, "downfall": True},
    {"revolution": True, "jack_back": True, "jokers": 1},
    {"seven_pass": True, "ten_discard": True, "straights": True, "jokers": 1, "downfall": True},
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
        options=_joined([t.gettext(name) for name in ("Equal plays", "Straights", "Jokers")], lang),
    )
    text = text.replace(locks, "")
    for option, words in OFF_WORDS.items():
        if not getattr(rules, option):
            assert words[lang].lower() not in text.lower(), f"{option} is off but mentioned"


def _joined(items: list[str], lang: str, last: bool = True) -> str:
    """A list as the language writes it (its separator, and its "and" before the last item)."""
    t = translator(lang)
    separator = t.pgettext("list separator", ", ")
    if not last or len(items) < 2:
        return separator.join(items)
    return (
        separator.join(items[:-1]) + t.pgettext("list, before its last item", " and ") + items[-1]
    )


def _rank_letters(ranks: list[str], lang: str) -> list[str]:
    t = translator(lang)
    return [t.pgettext("rank letter", rank) if rank in "JQKA" else rank for rank in ranks]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R3_sheet_writes_the_reversed_order_out(client: TestClient, lang: str) -> None:
    _, text = _sheet_parts(client, {**BASE, "revolution": True}, lang)
    t = translator(lang)
    ranks = _joined(
        _rank_letters(["2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"], lang),
        lang,
        last=False,
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
    "/rules/straight-cover": [
        # R41: all higher, in the normal order and during a revolution; no equal plays
        "With “All cards higher”, every card of the new straight must be higher than every card "
        "of the straight it covers, in any suit: its lowest card must be above the top card of "
        "the covered straight. On 5-6-7, the straights 8-9-10 and above may be played, but 6-7-8 "
        "and 7-8-9 may not.",
        "During a revolution it goes the other way: every card must be lower than every card it "
        "covers, so the top card of the new straight must be below the lowest card of the covered "
        "one, both read in the normal order. Equal plays have no effect on straights with “All "
        "cards higher”. A joker counts as the rank it stands for. Sets are covered as before.",
        "Higher top",  # the option's values, by their names at the table
        "All cards higher",
    ],
    "/rules/straight-revolution": [
        # R42 (a length of 5 to 13), R15-R17 for such a straight, R18 for shorter ones
        "Without this option only a set of four starts a revolution: straights never do, "
        "whatever their length. With it, the table sets a length from 5 to 13 cards, and a "
        "straight of that many cards or more starts a revolution too. The next one, a set of four "
        "or another such straight, turns the order back. A shorter straight starts nothing.",
        "Such a straight works like a set of four: it is judged by the order in force before it, "
        "and the reversed order applies from the very next play. If it also clears the pile, the "
        "trick ends and the next trick is played in the new order. The option needs the "
        "revolution, and it matters only when straights are played.",
    ],
    "/rules/five-card-sets": [
        # R43: four naturals and a joker, only sets of five cover it, it starts a revolution
        "A set holds at most four cards. With this option, the four cards of one rank and a joker "
        "together make a set of five, such as four 9s and a joker. A set of five is followed only "
        "by a set of five, and only a set of five that beats it may cover it.",
        "A set of five always holds exactly one joker: three cards of a rank with both jokers are "
        "no set of five. With the revolution, a set of five starts a revolution, or turns one "
        "back, like a set of four. The option needs at least one joker.",
    ],
    "/rules/lead-every-round": [
        # R46 (with R24's lead of the first round)
        "In the standard game the holder of the 3 of clubs leads the first round, and every later "
        "round is led by the Scum of the round before. With this option every round is led like "
        "the first: by whoever holds the card the first lead names, the 3 of clubs or the 3 of "
        "diamonds, once the card exchange is over. When the first lead is the first seat, the "
        "player in the first seat leads every round.",
    ],
    "/rules/suit-lock": [
        # R44: jokers name a suit, any play may start or keep a lock, a lone joker has no suit
        "The option has two values. “Natural cards” is the rule above. With “Jokers too”, a "
        "joker in a set or a straight stands for a card of a suit as well as a rank: its player "
        "names both. The suits of a play are then the suits of all its cards, jokers included, "
        "and any play may start or keep a lock: a lock starts whenever a play has exactly the "
        "suits of the play it covers.",
        "A joker played alone has no suit: it neither starts a lock nor breaks one.",
        "Natural cards",
        "Jokers too",
    ],
    "/rules/spade-three": [
        # R45 (over_lock) against R40 (on: the lock binds the 3 of spades)
        "With the suit lock, a lock binds the 3 of spades like any other play: when the value is "
        "“On” and the trick is locked to suits without spades, the 3 of spades cannot be played on "
        "the joker. With the value “Also over a lock”, the 3 of spades played alone covers a lone "
        "joker whatever lock is in force, and clears the pile as before.",
        "Also over a lock",
    ],
    "/rules/uecda": [
        # section 11: the preset's settings, R41-R46, R47 (the gift's suit order), R48
        "UECda is the computer Dai Fugō tournament held every year by the University of "
        "Electro-Communications, where programs play against each other by one fixed set of "
        "rules. This preset starts from those rules: five players and five rounds, with the "
        "revolution, straights, one joker and eights that clear the pile, but no equal plays. The "
        "holder of the 3 of diamonds leads every round, once the card exchange is over.",
        "A straight covers a straight only when all its cards are higher. A straight of five "
        "cards or more starts a revolution, like a set of four. The four cards of a rank and the "
        "joker make a set of five. The suit lock counts the suits of jokers too: a joker in a set "
        "or a straight takes a suit its player names. The 3 of spades played alone beats the lone "
        "joker, even under a lock.",
        "The card exchange moves the same cards as in the standard game; among cards of one rank "
        "the automatic gift takes the spade first, then the heart, the diamond and the club. "
        "Points are those of the standard game: 5, 4, 3, 2 and 1 with five players.",
        "The preset locks nothing: a table may seat 3 to 8 players and change any option, "
        "although the tournament itself is always played by five.",
        "All cards higher",  # the preset's values in its table of options
        "Also over a lock",
    ],
}


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("path", list(OTHER_PAGE_FACTS))
def test_every_rules_page_says_its_facts(client: TestClient, path: str, lang: str) -> None:
    page = _page(client, path, lang)
    assert not _missing(_text(page), OTHER_PAGE_FACTS[path], lang)
    if lang == "en":
        assert "in either order" not in page  # "either order" read as "any order" (issue 8)


# --- the sheet: its top lines, the normal order as text, and no contradiction of R33/R40 ---


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R3_sheet_writes_the_normal_order_out_and_draws_it(client: TestClient, lang: str) -> None:
    page = _page(client, f"/rules/sheet?{_query(BASE)}", lang)
    t = translator(lang)
    ranks = _joined(
        _rank_letters(["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"], lang),
        lang,
        last=False,
    )
    sentence = t.gettext(
        "Suits do not matter. From the lowest to the highest, the ranks are: %(ranks)s.",
        ranks=ranks,
    )
    assert sentence in _text(page)
    # the same order drawn as cards right after the sentence
    drawn = page.split(html.escape(sentence, quote=False), 1)[1].split("</figure>", 1)[0]
    assert drawn.count("<svg") == 13


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("options", [{"preset": "cardverse", "players": 4}, {**BASE, **ALL_ON}])
def test_sheet_starts_with_the_game_a_summary_and_ends_with_version_and_commit(
    client: TestClient, options: dict[str, Any], lang: str
) -> None:
    from cardverse import __version__
    from cardverse.web.site import source_commit

    rules = Rules.make(**options)
    page = _page(client, f"/rules/sheet?{_query(options)}", lang)
    t = translator(lang)
    sheet = page.split('<div class="rules-sheet">', 1)[1]
    title = re.search(r'<p class="sheet-title">(.*?)</p>', sheet, re.S)
    assert title and _text(title.group(1)) == t.pgettext("the game", "President")
    summary = re.search(r'<p class="sheet-summary">(.*?)</p>', sheet, re.S)
    assert summary
    preset = {"cardverse": "CardVerse", "standard": "Standard"}[rules.preset]
    on_off = {True: t.gettext("On"), False: t.gettext("Off")}
    expected = " · ".join(
        [
            t.gettext("%(preset)s preset", preset=t.gettext(preset)),
            t.gettext(
                "%(option)s: %(value)s",
                option=t.gettext("Revolution"),
                value=on_off[rules.revolution],
            ),
            t.gettext(
                "%(option)s: %(value)s",
                option=t.gettext("Equal plays"),
                value=on_off[rules.equal_plays],
            ),
            t.gettext("Version %(version)s", version=__version__),
        ]
    )
    assert _text(summary.group(1)) == expected
    assert sheet.index("sheet-summary") < sheet.index('id="sheet-options"')  # at the top
    version = t.gettext(
        "These are the rules of CardVerse %(version)s, commit %(commit)s.",
        version=__version__,
        commit=source_commit(),
    )
    assert html.escape(version, quote=False) in sheet.split('<p class="sheet-version">', 1)[1]


# The sentences the sheet said before issue 27 that contradict the rule book when an option is
# on: (the rule they break, when it is broken, the msgid).
CONTRADICTIONS: list[Fact] = [
    (
        "R33",  # the 3 of spades alone covers a lone joker
        lambda r: bool(r.spade_three) and r.jokers == 1,
        "The joker played alone beats every single card, and nothing can cover it.",
    ),
    (
        "R33",
        lambda r: bool(r.spade_three) and r.jokers == 2,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size. A joker alone can be covered only by the other joker; nothing can cover the "
        "pair of jokers.",
    ),
    (
        "R33",
        lambda r: bool(r.spade_three) and r.jokers == 2,
        "A set made only of jokers (a joker alone, or both jokers as a pair) beats every other set "
        "of its size, and nothing can cover it.",
    ),
    (
        "R40",  # the last holder takes the one place left
        lambda r: r.forbidden_finish or r.downfall,
        "Whoever plays their last card goes out and takes the next free place. When only one "
        "player still holds cards, the round ends and that player is last.",
    ),
]
CONTRADICTION_TABLES: list[dict[str, Any]] = [
    {**BASE, "jokers": 1, "spade_three": True},
    {**BASE, "jokers": 2, "spade_three": True},
    {**BASE, "jokers": 2, "spade_three": True, "equal_plays": False},
    {**BASE, "forbidden_finish": True},
    {**BASE, "downfall": True, "rounds": 3},
    {**BASE, **ALL_ON, **HOUSE_RULES},
    {**BASE, **ALL_ON, **HOUSE_RULES, "jokers": 1, "equal_plays": False},
    {"preset": "daifugo", "players": 5},
]


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("options", CONTRADICTION_TABLES, ids=_name)
def test_R33_R40_sheet_never_contradicts_the_rule_book(
    client: TestClient, options: dict[str, Any], lang: str
) -> None:
    rules = Rules.make(**options)
    _, text = _sheet_parts(client, options, lang)
    broken = [msgid for rule, when, msgid in CONTRADICTIONS if when(rules)]
    assert broken  # every table here has an option on that one of them contradicts
    for msgid in broken:
        assert _said(msgid, lang) not in text, msgid
    # and what the sheet says instead names the 3 of spades / the place left
    if rules.spade_three:
        three = translator(lang).gettext(
            "The 3 of spades played alone beats a lone joker, in either order, and clears the pile."
        )
        assert three in text
    if rules.forbidden_finish or rules.downfall:
        assert _said(SHEET_FACTS_BY_RULE_R40_PLACE, lang) in text


SHEET_FACTS_BY_RULE_R40_PLACE = (
    "Whoever plays their last card goes out and takes the next free place. When only one player "
    "still holds cards, the round ends and that player takes the one place left, which is not the "
    "last place when places were taken from the bottom."
)


# --- lists are joined the way each language writes them ---------------------------------

LIST_PAGES: list[tuple[str, Callable[[str], list[str]], bool]] = [
    # (page, the list's items in a language, whether the list ends with "and")
    (
        "/rules/sheet?preset=cardverse&players=4",
        lambda lang: [
            translator(lang).gettext(name) for name in ("Equal plays", "Straights", "Jokers")
        ],
        True,
    ),
    (
        "/rules/sheet?preset=standard&players=4&revolution=on",
        lambda lang: _rank_letters(
            ["2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"], lang
        ),
        False,
    ),
    (
        "/rules/straights",
        lambda lang: [
            translator(lang).gettext(name)
            for name in ("Number of rounds", "Equal plays", "Revolution")
        ],
        False,  # the first three items of the "Other options" list
    ),
    (
        "/rules/revolution",
        lambda lang: _rank_letters(["2", "A", "K", "Q"], lang),
        False,  # the first items of the reversed order under the cards
    ),
]


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("path, items, last", LIST_PAGES)
def test_lists_are_joined_with_the_pages_own_language_separator(
    client: TestClient, path: str, items: Callable[[str], list[str]], last: bool, lang: str
) -> None:
    text = _text(_page(client, path, lang))
    words = items(lang)
    assert _joined(words, lang, last) in text
    for other in LANGUAGES:
        foreign = _joined(words, other, last)
        if foreign != _joined(words, lang, last):
            assert foreign not in text, f"{lang} page joins a list the {other} way"
    if lang == "ja":
        assert "、".join(words[:2]) in text
    else:
        assert "、" not in text
