"""Hints in a real browser (issue 10): Suggest highlights a legal play (the cards are chosen,
Play plays them), the auto-pass switch passes by itself when nothing can be played, and a host
who turns hints off hides Suggest; the rules sheet says which. Screenshots at phone and desktop
sizes go to test-artifacts/web/."""

from __future__ import annotations

import time
from typing import Any

from .conftest import LONG_WAIT, WAIT
from .test_table import (  # noqa: F401
    APP,
    changed_or_over,
    check_page,
    contexts,
    create_table,
    data,
    focus_shown,
    wait_for,
)


def _legal(page: Any) -> list[dict[str, Any]]:
    return list(page.evaluate("window.cardverseTable.state.view.legal_moves"))


def _chosen(page: Any) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "#hand .hand-card[aria-pressed=true]", "els => els.map(e => e.dataset.card)"
        )
    )


def _suggested(page: Any) -> set[str]:
    return set(
        page.eval_on_selector_all(
            "#hand .hand-card.is-suggested", "els => els.map(e => e.dataset.card)"
        )
    )


def _start_with_computers(page: Any) -> None:
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-empty').length === 0")
    page.click("#start-button")
    wait_for(page, "!document.querySelector('#game').hidden")


def _suggest_and_follow(page: Any, *, keys: bool) -> str:
    """On this page's turn: ask for a suggestion, check it, and play it. Returns its action."""
    v = data(page, "v")
    legal = _legal(page)
    if keys:
        focus_shown(page, "#suggest-button")
        page.keyboard.press("Enter")
    else:
        page.click("#suggest-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.suggested !== ''")
    action = page.evaluate("window.cardverseTable.state.suggestion.action")
    assert action in legal, (action, legal)
    note = page.inner_text("#note")
    assert note.startswith("Suggestion:"), note
    announced = page.inner_text("#announcer")
    assert "Suggestion:" in announced, announced
    if action["action"] == "pass":
        assert page.evaluate(
            "document.querySelector('#pass-button').classList.contains('is-suggested')"
        )
        page.click("#pass-button")
    else:
        cards = set(action["cards"])
        assert _chosen(page) == cards and _suggested(page) == cards
        assert data(page, "selection") == "ready"
        page.click("#play-button")
        if page.is_visible("#choices"):
            page.click("#choice-list button")
    wait_for(page, f"document.querySelector('{APP}').dataset.v !== '{v}'")
    return str(action["action"])


def test_suggest_highlights_a_legal_play_and_the_auto_pass_passes_alone(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    page = contexts("desktop", reduced_motion="reduce")
    create_table(page, server_url, "en", "Ada")
    _start_with_computers(page)
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", LONG_WAIT)
    assert page.get_by_role("button", name="Suggest").is_visible()
    suggested = _suggest_and_follow(page, keys=True)
    # Once more, for the screenshots: the suggested play stands highlighted.
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", LONG_WAIT)
    page.click("#suggest-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.suggested !== ''")
    page.screenshot(path=str(artifacts / "hints-suggestion-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "hints-suggestion-phone.png"), full_page=True)
    check_page(page, "a suggestion on a phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    # The auto-pass switch: from now on this page never passes by itself; the switch must.
    switch = page.get_by_role("button", name="Pass automatically when I cannot play")
    switch.click()
    assert switch.get_attribute("aria-pressed") == "true"
    chosen_passes = suggested == "pass"
    games = 1
    deadline = time.monotonic() + LONG_WAIT / 1000 * 3
    while True:
        assert time.monotonic() < deadline, "the games did not end in time"
        if data(page, "game") == "game_over":
            # A deal may leave nothing to pass on: then play another game (rarely needed).
            if page.evaluate("window.cardverseTable.state.autoPasses || 0") or games == 4:
                break
            v = data(page, "v")
            page.click("#rematch-button")
            wait_for(page, f"document.querySelector('{APP}').dataset.v !== '{v}'")
            games += 1
            continue
        v = data(page, "v")
        if data(page, "my-turn") != "true":
            wait_for(page, changed_or_over(page, v))  # another player's move, or the end
            continue
        if all(move["action"] == "pass" for move in _legal(page)):
            # the switch passes for the page: it must not wait for a click
            wait_for(page, changed_or_over(page, v))
            continue
        chosen_passes += _suggest_and_follow(page, keys=False) == "pass"
    auto_passes = page.evaluate("window.cardverseTable.state.autoPasses || 0")
    assert auto_passes > 0, "the page never had to pass"
    # The records agree: every pass of seat 1 was either a suggested pass or an automatic one.
    passes = 0
    for number in range(1, games + 1):
        url = page.evaluate("document.querySelector('#record-link').href").rsplit("/", 1)[0]
        record = page.request.get(f"{url}/{number}").json()
        passes += sum(
            1
            for round_ in record["rounds"]
            for action in round_["actions"]
            if action["seat"] == 0 and action["action"] == "pass"
        )
    assert passes == auto_passes + chosen_passes
    assert not page.js_errors


def test_the_host_turns_hints_off_and_suggest_is_gone(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    page = contexts("phone", reduced_motion="reduce")
    create_table(page, server_url, "en", "Ada")
    page.click("#options-details summary")
    hints = page.get_by_label("Hints (the Suggest button)")
    assert hints.is_checked()
    hints.uncheck()
    wait_for(page, "window.cardverseTable.state.table.hints === false")
    assert "hints=0" in str(page.get_attribute("#sheet-link", "href"))
    _start_with_computers(page)
    assert not page.is_visible("#suggest-button")
    assert page.get_by_role("button", name="Pass automatically when I cannot play").is_visible()
    page.click("#game-rules-button")
    wait_for(page, "document.querySelector('#rules-body').textContent.includes('Hints are off')")
    page.locator("#sheet-table").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "hints-off-rules-phone.png"), full_page=True)
    page.click("#rules-close")
    check_page(page, "hints off")


def test_the_rules_sheet_says_whether_hints_are_on_in_every_language(server_url: str) -> None:
    import html

    import httpx

    from cardverse.web.i18n import LANGUAGES, translator
    from cardverse.web.rulesheet import HINTS_OFF, HINTS_ON

    for lang in LANGUAGES:
        t = translator(lang)
        on, off = t.gettext(HINTS_ON), t.gettext(HINTS_OFF)
        if lang != "en":
            assert on != HINTS_ON and off != HINTS_OFF, lang
        for query, present, absent in (("&hints=1", on, off), ("&hints=0", off, on)):
            url = f"{server_url}/rules/sheet/part?preset=standard&players=4{query}&lang={lang}"
            text = html.unescape(httpx.get(url, timeout=WAIT / 1000).text)
            assert present in text and absent not in text, (lang, query)
        plain = httpx.get(
            f"{server_url}/rules/sheet?preset=standard&lang={lang}", timeout=WAIT / 1000
        )
        assert on not in html.unescape(plain.text) and off not in html.unescape(plain.text)
