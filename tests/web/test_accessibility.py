"""Accessible by machine check: axe-core (carried by axe-playwright-python, run offline in
Debian's Chromium under each page's own Content-Security-Policy) finds no violation on any page
(home, join, the rules pages and sheets, /bots, the replay viewer, the table's lobby) nor at any
table phase (my turn with a pile, the joker choice, the exchange, the round's results, the end of
the game, the reactions open, the dialogs open), and the hand's cards are named with what they
show in every language."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe

from cardverse.web.i18n import LANGUAGES
from cardverse.web.site import VARIANTS

from .table_support import inject, open_table
from .test_replay import played_record
from .test_table import APP, wait_for
from .test_table_screen import phase_states

AXE = Axe()
# axe-core's rules that are off by default but matter here: a control's visible text must be
# part of its accessible name (what a voice-control user says is what they see)
EXPERIMENTAL = ["label-content-name-mismatch"]
# the whole rule set of axe-core, best practices included (not only the WCAG tags)
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {rule: {"enabled": True} for rule in EXPERIMENTAL},
}
READY = "document.readyState === 'complete'"


def axe_violations(page: Any, where: str) -> list[str]:
    """What axe-core finds wrong on the page as it is now, a line per rule and element."""
    found = AXE.run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{where}: {rule['id']} ({rule['impact']}) at {node['target']}: {node['failureSummary']}"
        for rule in found
        for node in rule["nodes"]
    ]


@pytest.fixture
def page(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    yield page
    context.close()


def test_every_page_has_no_axe_violation(server_url: str, page: Any, tmp_path: Path) -> None:
    pages = [
        "/",
        "/join",
        "/rules",
        "/rules/sheet?preset=standard",
        "/rules/sheet?preset=daifugo&players=5",
        "/bots",
        "/replay",
        *(f"/rules/{slug}" for slug in sorted(VARIANTS)),
    ]
    found: list[str] = []
    for path in pages:
        page.goto(f"{server_url}{path}")
        wait_for(page, READY)
        found += axe_violations(page, path)
    # /bots in a phone's width too: its wide table scrolls in its own region
    page.set_viewport_size({"width": 360, "height": 640})
    page.goto(f"{server_url}/bots")
    wait_for(page, READY)
    found += axe_violations(page, "/bots at 360x640")
    page.set_viewport_size({"width": 1280, "height": 800})
    # the replay viewer with a record open from disk
    record = tmp_path / "game.json"
    record.write_text(json.dumps(played_record({"preset": "standard", "players": 4}, 3)))
    page.goto(f"{server_url}/replay")
    page.set_input_files("#record-file", str(record))
    wait_for(page, "document.querySelector('#replay').dataset.state === 'shown'")
    found += axe_violations(page, "/replay with a record")
    assert found == [], "\n".join(found)
    assert page.js_errors == []


def test_the_pages_in_the_other_languages_have_no_axe_violation(server_url: str, page: Any) -> None:
    found: list[str] = []
    for lang in sorted(set(LANGUAGES) - {"en"}):
        for path in ["/", "/join", "/rules", "/bots", "/replay", "/rules/sheet?preset=daifugo"]:
            page.goto(f"{server_url}{path}{'&' if '?' in path else '?'}lang={lang}")
            wait_for(page, READY)
            found += axe_violations(page, f"{path} ({lang})")
    assert found == [], "\n".join(found)
    assert page.js_errors == []


def _with_a_pile(state: dict[str, Any]) -> dict[str, Any]:
    """The same state with a single card of another seat on the pile, my turn to beat it."""
    out = copy.deepcopy(state)
    view = out["view"]
    card = next(c for c in ("2S", "2H", "AS", "AH", "KS") if c not in view["hand"])
    view["trick"] = [{"seat": 1, "action": "play", "cards": [card]}]
    view["turn"] = 0
    view["legal_moves"] = [{"action": "pass"}]
    out["v"] = state["v"] + 500
    out["events"] = []
    return out


def test_every_table_phase_has_no_axe_violation(server_url: str, page: Any) -> None:
    open_table(page, server_url, 4, {"jokers": 2, "straights": True}, fill=False)
    found = axe_violations(page, "lobby (host)")
    page.click("#options-details summary")
    found += axe_violations(page, "lobby with the options open")
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 3")
    page.click("#start-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
    state = page.evaluate("window.cardverseTable.state.state")
    table = page.evaluate("window.cardverseTable.state.table")
    variants = phase_states(state, table)

    inject(page, _with_a_pile(state))
    wait_for(page, "document.querySelectorAll('#trick-plays .trick-play').length === 1")
    found += axe_violations(page, "my turn with a pile")
    page.click("#hand .hand-card")
    found += axe_violations(page, "a card chosen")
    page.click("#reaction-bar summary")
    wait_for(page, "document.querySelector('#reaction-bar').open")
    found += axe_violations(page, "reactions open")
    page.keyboard.press("Escape")
    for button, dialog in [
        ("#log-button", "#log-dialog"),  # a phone's (a wide screen shows the log beside)
        ("#score-button", "#score-dialog"),
        ("#game-rules-button", "#rules-dialog"),
    ]:
        page.set_viewport_size({"width": 390, "height": 844})
        page.click(button)
        wait_for(page, f"document.querySelector('{dialog}').open")
        if dialog == "#rules-dialog":
            wait_for(page, "document.querySelector('#rules-body .rules-sheet') !== null")
        found += axe_violations(page, f"{dialog} open")
        page.keyboard.press("Escape")
        wait_for(page, f"!document.querySelector('{dialog}').open")
        page.set_viewport_size({"width": 1280, "height": 800})

    inject(page, variants["joker-choice"])
    page.click('#hand .hand-card[data-card="6H"]')
    page.click('#hand .hand-card[data-card="7H"]')
    page.click('#hand .hand-card[data-card="RJ"]')
    page.click("#play-button")
    wait_for(page, "!document.querySelector('#choices').hidden")
    found += axe_violations(page, "joker choice")
    page.click("#choice-cancel")

    inject(page, variants["exchange"])
    wait_for(page, "!document.querySelector('#exchange').hidden")
    found += axe_violations(page, "exchange")

    inject(page, variants["round-results"])
    wait_for(page, "!document.querySelector('#round-results').hidden")
    found += axe_violations(page, "round results")

    inject(page, variants["game-over-table"])
    inject(page, variants["game-over"])
    wait_for(page, "!document.querySelector('#results').hidden")
    found += axe_violations(page, "game over")
    assert found == [], "\n".join(found)
    assert page.js_errors == []


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_hand_names_its_cards_with_what_they_show(
    lang: str, server_url: str, page: Any
) -> None:
    """A voice-control user says what they see: each card's accessible name holds its text."""
    open_table(page, server_url, 3, {"jokers": 1}, lang, fill=False)
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 2")
    page.click("#start-button")
    wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")
    found = AXE.run(
        page, context="#hand", options={"runOnly": ["label-content-name-mismatch"]}
    ).response["violations"]
    assert found == [], lang
    assert axe_violations(page, f"the table in {lang}") == []
