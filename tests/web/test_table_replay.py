"""The replay viewer in a real browser (issue 10): a finished game opens at
/t/{id}/replay/{game}; stepping forward and back, jumping to a round and a trick, the hands
shown match the record at every step; the same record opened from disk shows the same; a bad
file gets a clear error; a game in progress has no replay (no hand leaks). Screenshots at
phone and desktop sizes go to test-artifacts/web/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_replay import expected_hands
from .test_table import APP, check_page, contexts, create_table, play_to_the_end, wait_for  # noqa: F401

SHOWN = "document.querySelector('#replay').dataset.state === 'shown'"


def _shown_hands(page: Any) -> list[set[str]]:
    cards = page.eval_on_selector_all(
        "#replay-seats .replay-seat", "els => els.map(e => e.dataset.cards)"
    )
    return [set(text.split()) if text else set() for text in cards]


def _at(page: Any) -> int:
    return int(page.get_attribute("#replay", "data-step"))


def _table_with_computers(page: Any, server_url: str, rounds: int) -> str:
    link = create_table(page, server_url, "en", "Ada")
    page.click("#options-details summary")
    page.select_option("#option-rounds", str(rounds))
    wait_for(page, f"window.cardverseTable.state.table.rules.rounds === {rounds}")
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-empty').length === 0")
    page.click("#start-button")
    wait_for(page, "!document.querySelector('#game').hidden")
    return link


def test_a_game_in_progress_has_no_replay_and_shows_no_hand(
    server_url: str,
    contexts: Any,  # noqa: F811
) -> None:
    host = contexts("desktop", reduced_motion="reduce")
    link = _table_with_computers(host, server_url, 1)
    other = contexts("phone")
    response = other.goto(f"{link}/replay/1")
    assert response is not None and response.status == 404
    assert other.is_visible("#replay-wait")
    assert other.locator("#replay-seats .replay-seat").count() == 0
    assert other.locator("#replay-view").is_hidden()
    html = other.content()
    hand = host.evaluate("window.cardverseTable.state.view.hand")
    assert hand and not any(f'data-cards="{code}' in html for code in hand)
    record = other.request.get(f"{server_url}/api/tables/{link.rsplit('/', 1)[1]}/records/1")
    assert record.status == 404
    assert not other.js_errors


def test_the_replay_steps_through_a_finished_game_and_its_hands_match_the_record(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
    tmp_path: Path,
) -> None:
    host = contexts("desktop", reduced_motion="reduce")
    link = _table_with_computers(host, server_url, 2)
    play_to_the_end([(host, False)])
    wait_for(host, "!document.querySelector('#replay-link').hidden")
    record_url = host.evaluate("document.querySelector('#record-link').href")
    record = host.request.get(record_url).json()
    expected = expected_hands(record)

    host.click("#replay-link")
    host.wait_for_url(f"{link}/replay/1")
    wait_for(host, SHOWN, 20000)
    assert int(host.get_attribute("#replay", "data-steps")) == len(expected)
    assert _at(host) == 0 and _shown_hands(host) == expected[0]
    assert "Round 1: the deal" in host.inner_text("#replay-where")
    # Forward through every step with the button and the keyboard, the hands as the record's.
    host.click("#next-step")
    for index in range(1, len(expected)):
        if index > 1:
            host.keyboard.press("ArrowRight")
        wait_for(host, f"document.querySelector('#replay').dataset.step === '{index}'")
        assert _shown_hands(host) == expected[index], index
    assert host.is_disabled("#next-step")
    assert "round" in host.inner_text("#replay-now").lower()  # the last round's results
    host.screenshot(path=str(artifacts / "replay-end-desktop.png"), full_page=True)
    # Back a step, to the start, to the end.
    host.click("#prev-step")
    assert _at(host) == len(expected) - 2
    host.keyboard.press("Home")
    assert _at(host) == 0
    host.keyboard.press("End")
    assert _at(host) == len(expected) - 1
    # Jump to round 2, then to its third trick.
    host.select_option("#round-select", "2")
    step = _at(host)
    assert "Round 2" in host.inner_text("#replay-where")
    assert _shown_hands(host) == expected[step]
    host.select_option("#trick-select", index=3)
    assert "Round 2, trick 3" in host.inner_text("#replay-where")
    assert _shown_hands(host) == expected[_at(host)]
    assert "Round 2, trick 3" in host.inner_text("#announcer")
    # A step of the log is a button: it jumps there.
    host.locator("#replay-log li button").nth(4).click()
    assert _at(host) == 4
    assert host.locator("#replay-log li.is-current").count() == 1
    # The score sheet is the game's.
    sheet = host.inner_text("#score-body")
    assert "Ada" in sheet and "Total" in sheet
    host.set_viewport_size({"width": 390, "height": 844})
    host.screenshot(path=str(artifacts / "replay-step-phone.png"), full_page=True)
    check_page(host, "the replay on a phone")

    # From the watch link too, by its own id (the page learns nothing of the share link).
    host.goto(link)
    wait_for(host, "document.querySelector('#watch-link').value.includes('/w/')")
    watch_link = host.input_value("#watch-link")
    audience = contexts("desktop", reduced_motion="reduce")
    audience.goto(f"{watch_link}/replay/1")
    wait_for(audience, SHOWN, 20000)
    assert int(audience.get_attribute("#replay", "data-steps")) == len(expected)
    audience.keyboard.press("End")
    assert _shown_hands(audience) == expected[-1]
    assert link.rsplit("/", 1)[1] not in audience.content()
    watch_id = watch_link.rsplit("/", 1)[1]
    assert audience.get_attribute("#back-to-table", "href") == f"/w/{watch_id}"

    # The same record from disk: the same steps. A bad file: a clear error.
    viewer = contexts("phone", reduced_motion="reduce")
    viewer.goto(f"{server_url}/replay")
    saved = tmp_path / "game.json"
    saved.write_text(json.dumps(record), encoding="utf-8")
    viewer.set_input_files("#record-file", str(saved))
    wait_for(viewer, SHOWN, 20000)
    assert int(viewer.get_attribute("#replay", "data-steps")) == len(expected)
    viewer.keyboard.press("End")
    assert _shown_hands(viewer) == expected[-1]
    assert "game.json" in viewer.inner_text("#replay-heading")
    broken = tmp_path / "broken.json"
    record["rounds"][0]["actions"][0]["cards"] = ["XX"]
    broken.write_text(json.dumps(record), encoding="utf-8")
    viewer.set_input_files("#record-file", str(broken))
    wait_for(viewer, "document.querySelector('#replay').dataset.state === 'refused'")
    assert "not a game record" in viewer.inner_text("#open-error")
    assert viewer.inner_text("#replay-heading") == "Replay a game record"
    assert viewer.locator("#replay-view").is_hidden()
    viewer.screenshot(path=str(artifacts / "replay-bad-file-phone.png"), full_page=True)
    check_page(viewer, "a bad record file")
    assert not host.js_errors and not viewer.js_errors
