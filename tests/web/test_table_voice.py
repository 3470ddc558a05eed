"""One voice on the table page (issue 26, item 8): at every phase the status line, the note and
the action button say the same thing, and no sentence shows twice on the screen: a seven pass
or a ten discard owed (R36, R37), each role in the card exchange (R20), the lead after a
cleared pile, and the list of what the computer did while a person was away. The phases are
drawn from states given to the page as the server would send them; the expected words come from
the catalogs, so that the same checks hold in another language."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from cardverse.web.i18n import Translator
from cardverse.web.messages import card_short

from .table_support import GIVEN_HAND, given_messages, given_view, inject
from .test_accessibility import axe_violations
from .test_table import APP, contexts, wait_for

__all__ = ["contexts"]

# the text of an element if a person can see it: shown, inside the viewport, not covered
ON_SCREEN = """(selector) => {
  const node = document.querySelector(selector);
  if (!node || !node.checkVisibility()) return "";
  const r = node.getBoundingClientRect();
  if (r.width === 0 || r.bottom <= 0 || r.top >= innerHeight) return "";
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit && node.contains(hit) ? node.textContent : "";
}"""
HAND = GIVEN_HAND


class Table:
    """A page at a table whose states the test gives it (as the server would send them)."""

    def __init__(self, page: Any, server_url: str, lang: str, clock: bool = False) -> None:
        self.page = page
        self.clocked = clock
        if clock:
            page.clock.install()  # the page's timers run on the test's clock from the start
        self.t = Translator(lang)
        created = page.request.post(
            f"{server_url}/api/tables", data={"name": "Ada", "rules": {"preset": "daifugo"}}
        )
        self.table_id = created.json()["table_id"]
        page.goto(f"{server_url}/t/{self.table_id}?lang={lang}")
        wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'lobby'")
        self.rules = page.request.get(f"{server_url}/api/tables/{self.table_id}").json()["rules"]
        self.v = 0

    def show(self, view: dict[str, Any], events: list[Any] | None = None, **extra: Any) -> None:
        """Seat 0 at the table during a game, then this state."""
        self.v += 1
        for message in given_messages(self.table_id, self.rules, self.v, view, events, **extra):
            inject(self.page, message)
        wait_for(self.page, f"document.querySelector('{APP}').dataset.v === '{self.v}'")

    def choose(self, code: str) -> None:
        self.page.click(f'#hand .hand-card[data-card="{code}"]')

    def short(self, *codes: str) -> str:
        return " ".join(card_short(code, self.t) for code in codes)

    def status(self) -> str:
        return str(self.page.inner_text("#game-status")).strip()

    def note(self) -> str:
        return str(self.page.inner_text("#note")).strip()

    def button(self) -> str | None:
        """The action button's words, None when it is not shown."""
        shown = self.page.is_visible("#play-button")
        return str(self.page.inner_text("#play-button")).strip() if shown else None

    def sentences(self) -> list[str]:
        """The sentences the game area shows now (hidden parts left out), and the page's
        status line above it if that is on screen and not covered."""
        text = str(self.page.inner_text("#game"))
        text += "\n" + str(self.page.evaluate(ON_SCREEN, "#status-line"))
        parts = re.split(r"(?<=[.!?。！])\s*|\n", text)
        return [p.strip() for p in parts if re.search(r"[.!?。！]$", p.strip())]

    def no_sentence_twice(self) -> None:
        """No sentence shows twice; and axe-core finds nothing wrong at this phase either."""
        seen = self.sentences()
        twice = sorted({s for s in seen if seen.count(s) > 1})
        assert not twice, (twice, seen)
        if not self.clocked:  # axe-core waits on timers, which a paused test clock holds
            assert axe_violations(self.page, self.status()) == []


@pytest.fixture
def table(server_url: str, contexts: Any) -> Any:
    def open_at(lang: str = "en", clock: bool = False) -> Table:
        return Table(contexts("phone"), server_url, lang, clock)

    return open_at


def test_R36_an_owed_give_is_said_once_by_status_note_and_button(table: Any) -> None:
    at = table()
    t = at.t
    owed = {"seat": 0, "kind": "give", "count": 1, "receiver": 1}
    moves = [{"action": "give", "cards": [code]} for code in HAND]
    at.show(given_view(at.rules, owed=owed, legal_moves=moves))
    assert at.status() == "Your turn: give 1 card to Bo."
    assert at.note() == ""
    assert at.button() == "Give" and at.page.is_hidden("#pass-button")
    at.no_sentence_twice()
    at.choose("3C")
    assert at.note() == f"Give {at.short('3C')} to Bo: press Give."
    assert at.status() == "Your turn: give 1 card to Bo."
    at.no_sentence_twice()
    at.page.keyboard.press("Escape")  # the choice put back
    # Bo's turn to give me a card: said from my side, and I have nothing to press
    owed = {"seat": 1, "kind": "give", "count": 2, "receiver": 0}
    at.show(given_view(at.rules, owed=owed, turn=1, legal_moves=[]))
    assert at.status() == t.ngettext(
        "%(name)s chooses %(num)s card to give to you.",
        "%(name)s chooses %(num)s cards to give to you.",
        2,
        name="Bo",
    )
    assert at.status() == "Bo chooses 2 cards to give to you."
    assert at.note() == ""
    assert at.page.get_attribute("#play-button", "aria-disabled") == "true"
    at.no_sentence_twice()
    assert not at.page.js_errors


def test_R37_an_owed_discard_is_said_once_by_status_note_and_button(table: Any) -> None:
    at = table()
    owed = {"seat": 0, "kind": "discard", "count": 2, "receiver": None}
    moves = [{"action": "discard", "cards": pair} for pair in (HAND[:2], HAND[::2], HAND[1:])]
    trick = [{"seat": 0, "action": "play", "cards": ["10C", "10D"]}]
    at.show(given_view(at.rules, owed=owed, legal_moves=moves, trick=trick))
    assert at.status() == "Your turn: discard 2 cards."
    assert at.note() == "" and at.button() == "Discard"
    at.choose("3C")
    assert at.note() == f"Chosen: {at.short('3C')}"
    at.choose("KH")
    assert at.note() == f"Discard {at.short('3C', 'KH')} face up: press Discard."
    assert at.status() == "Your turn: discard 2 cards."
    at.no_sentence_twice()
    # Cy's discard: Cy's to choose, not mine
    owed = {"seat": 2, "kind": "discard", "count": 1, "receiver": None}
    at.show(given_view(at.rules, owed=owed, turn=2, trick=trick))
    assert at.status() == "Cy chooses 1 card to discard."
    at.no_sentence_twice()
    assert not at.page.js_errors


def test_R20_each_exchange_role_is_told_one_way(table: Any) -> None:
    at = table()
    exchange = {"phase": "exchange", "trick": [], "history": []}
    # I give back: to Cy, who gave me their highest card
    pairs = [{"giver": 2, "receiver": 0, "count": 1}]
    given = [{"giver": 2, "receiver": 0, "cards": ["2S"], "automatic": True}]
    moves = [{"action": "give", "cards": [code]} for code in HAND]
    view = given_view(at.rules, **exchange, exchange_pairs=pairs, exchange=given, legal_moves=moves)
    at.show(view)
    assert at.status() == "Card exchange: give back 1 card of your choice to Cy."
    assert at.note() == "" and at.button() == "Give back"
    assert at.page.is_hidden("#pass-button")
    at.choose("9D")
    assert at.note() == f"Give back {at.short('9D')}: press Give back."
    at.no_sentence_twice()
    at.page.keyboard.press("Escape")  # the choice put back
    # Nothing to do: Bo gives back to Cy; no grey Give back for me, the status names Bo
    pairs = [{"giver": 2, "receiver": 1, "count": 1}]
    at.show(given_view(at.rules, **exchange, exchange_pairs=pairs, turn=1))
    assert at.status() == "Card exchange: Bo chooses cards to give back."
    assert at.button() is None and at.page.is_hidden("#actions")
    assert at.note() == ""
    at.no_sentence_twice()
    assert not at.page.js_errors


def test_the_lead_after_a_cleared_pile_is_said_once(table: Any) -> None:
    at = table(clock=True)
    trick = [{"seat": 2, "action": "play", "cards": ["5S"]}]
    at.show(given_view(at.rules, trick=trick, turn=0, legal_moves=[{"action": "pass"}]))
    at.page.clock.pause_at(time.time() * 1000 + 1000)  # the won trick stays until moved on
    plays = [{"action": "play", "cards": [code]} for code in ("3C", "9D")]
    events = [
        {"event": "played", "seat": 0, "cards": ["8S"]},
        {"event": "trick_ended", "seat": 0, "leader": 0, "cleared": True},
    ]
    history = [{"trick": 0, "seat": 2, "action": "play", "cards": ["5S"]}]
    history.append({"trick": 0, "seat": 0, "action": "play", "cards": ["8S"]})
    view = given_view(at.rules, trick=[], history=history, hand=["3C", "9D"], legal_moves=plays)
    view["hand_counts"] = [2, 10, 9]
    at.show(view, events)
    for shown in (True, False):  # while the won trick is shown, and once it is swept away
        assert at.page.is_visible("#taken") == shown
        assert at.status() == "Your turn: you lead, so play any set you like."
        text = str(at.page.inner_text("#game"))
        assert text.count("You clear the pile.") == 1, text
        assert "you lead." not in text
        assert "The table is empty." in str(at.page.inner_text("#trick-plays"))
        at.no_sentence_twice()
        at.page.clock.run_for(2000)
        wait_for(at.page, "document.querySelector('#taken').hidden")
    assert not at.page.js_errors


def test_the_away_list_says_every_move_the_same_way(table: Any) -> None:
    at = table()
    away = [
        {"round": 1, "action": "play", "count": 1},
        {"round": 1, "action": "pass"},
        {"round": 2, "action": "play", "count": 1, "cards": ["4D"]},
        {"round": 2, "action": "pass"},
    ]
    at.show(given_view(at.rules, round=2, turn=1), away=away)
    wait_for(at.page, "!document.querySelector('#away').hidden")
    lines = at.page.eval_on_selector_all("#away-list li", "els => els.map(e => e.textContent)")
    assert lines == [
        "Round 1: played 1 card, passed",
        f"Round 2: played {at.short('4D')}, passed",
    ]
    assert not at.page.js_errors


def test_one_voice_in_japanese(table: Any) -> None:
    at = table("ja")
    t = at.t
    owed = {"seat": 0, "kind": "give", "count": 1, "receiver": 1}
    moves = [{"action": "give", "cards": [code]} for code in HAND]
    at.show(given_view(at.rules, owed=owed, legal_moves=moves))
    status = t.ngettext(
        "Your turn: give %(num)s card to %(name)s.",
        "Your turn: give %(num)s cards to %(name)s.",
        1,
        name="Bo",
    )
    assert status != "Your turn: give 1 card to Bo."  # translated
    assert at.status() == status
    assert at.button() == t.gettext("Give") and at.note() == ""
    at.choose("KH")
    assert at.note() == t.gettext(
        "Give %(cards)s to %(name)s: press Give.", cards=at.short("KH"), name="Bo"
    )
    at.no_sentence_twice()
    # the exchange with nothing to do, in Japanese too
    pairs = [{"giver": 2, "receiver": 1, "count": 1}]
    at.show(given_view(at.rules, phase="exchange", trick=[], exchange_pairs=pairs, turn=1))
    assert at.status() == t.gettext(
        "Card exchange: %(name)s chooses cards to give back.", name="Bo"
    )
    assert at.button() is None
    assert not at.page.js_errors


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_R24_the_lead_of_a_new_round_names_you_as_you(table: Any, lang: str) -> None:
    """A new round (or the end of the exchange) led by the person at this page says "you
    lead", as every other line does, not their own name (seen in a Japanese screenshot)."""
    at = table(lang)
    t = at.t
    plays = [{"action": "play", "cards": [code]} for code in HAND]
    started = [{"event": "round_started", "round": 2, "leader": 0, "exchange": False}]
    at.show(given_view(at.rules, round=2, trick=[], turn=0, legal_moves=plays), started)
    wait_for(at.page, "document.querySelector('#game').textContent.length > 0")
    text = str(at.page.inner_text("#game"))
    assert t.gettext("Round %(round)s begins: you lead.", round=2) in text, text
    assert "Ada" not in text
    done = [{"event": "exchange_done", "leader": 0}]
    at.show(given_view(at.rules, round=2, trick=[], turn=0, legal_moves=plays), done)
    text = str(at.page.inner_text("#game"))
    assert t.gettext("The card exchange is over: you lead.") in text, text
    assert "Ada" not in text
    at.no_sentence_twice()
    assert not at.page.js_errors
