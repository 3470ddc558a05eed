"""People at the table in a real browser (issue 10): the host moves a guest, hands the host role
over by leaving, and a person leaves a game and comes back to the seat. Screenshots at phone and
desktop sizes go to test-artifacts/web/."""

from __future__ import annotations

from typing import Any

from .test_table import (  # noqa: F401
    APP,
    check_page,
    contexts,
    create_table,
    focus_shown,
    wait_for,
)

SEATED = f"document.querySelector('{APP}').dataset.seated === 'true'"
NOT_SEATED = f"document.querySelector('{APP}').dataset.seated === 'false'"


def test_the_host_moves_a_guest_hands_over_by_leaving_and_a_guest_leaves_and_comes_back(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    host = contexts("desktop")
    guest = contexts("phone", reduced_motion="reduce")
    link = create_table(host, server_url, "en", "Ada")
    guest.goto(link)
    guest.fill("#sit-name", "Bo")
    guest.keyboard.press("Enter")
    wait_for(guest, SEATED)
    wait_for(host, "document.querySelectorAll('#seat-list .seat-human').length === 2")

    # The host moves Bo from seat 2 to seat 4 with the seat's own select (a labelled control).
    assert host.get_by_label("Move Bo to another seat").is_visible()
    assert host.get_by_role("button", name="Remove Bo from the table").is_visible()
    host.get_by_label("Move Bo to another seat").select_option("3")
    wait_for(guest, "window.cardverseTable.state.seat === 3")
    assert "seat 4" in guest.inner_text("#people-note")
    host.screenshot(path=str(artifacts / "people-lobby-host-desktop.png"), full_page=True)
    check_page(host, "the host's lobby")

    # The host leaves by keyboard: Bo is the host now, and is told so.
    focus_shown(host, "#leave-button")
    host.keyboard.press("Enter")
    wait_for(host, NOT_SEATED)
    wait_for(
        guest, "document.querySelector('#people-note').textContent.includes('You are the host now')"
    )
    wait_for(guest, "!document.querySelector('#start-button').hidden")
    assert not host.is_visible("#start-button")
    guest.screenshot(path=str(artifacts / "people-new-host-phone.png"), full_page=True)
    check_page(guest, "the new host's lobby")

    # Ada sits down again (a guest now), Bo fills the table and starts.
    host.fill("#sit-name", "Ada")
    host.click("#sit-form button[type=submit]")
    wait_for(host, SEATED)
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-human').length === 2")
    guest.click("#fill-button")
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-empty').length === 0")
    guest.click("#start-button")
    wait_for(host, "!document.querySelector('#game').hidden")

    # Ada leaves the game: a computer player takes over; Bo, the host, sees her away.
    host.click("#game-leave-button")
    wait_for(host, "document.querySelector('#leave-dialog').open")  # asked first (issue 26)
    host.click("#leave-confirm")
    wait_for(host, NOT_SEATED)
    wait_for(host, "!document.querySelector('#come-back').hidden")
    wait_for(guest, "!document.querySelector('#host-absent').hidden")
    assert guest.get_by_role("button", name="Give Ada's seat to a computer player").is_visible()
    guest.screenshot(path=str(artifacts / "people-host-absent-phone.png"), full_page=True)
    host.screenshot(path=str(artifacts / "people-left-desktop.png"), full_page=True)
    check_page(guest, "the host sees someone away")

    # And comes back to the same seat with her hand.
    host.get_by_role("button", name="Back to my seat").click()
    wait_for(host, SEATED)
    wait_for(host, "!document.querySelector('#game').hidden")
    wait_for(guest, "document.querySelector('#host-absent').hidden")
    assert not host.js_errors and not guest.js_errors


def test_a_spectator_watches_a_whole_game_and_never_sees_a_hand(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    from .test_table import play_to_the_end

    host = contexts("desktop", reduced_motion="reduce")
    viewer = contexts("phone", reduced_motion="reduce")
    link = create_table(host, server_url, "en", "Ada")
    host.click("#fill-button")
    wait_for(host, "document.querySelectorAll('#seat-list .seat-empty').length === 0")
    host.click("#start-button")
    wait_for(host, "!document.querySelector('#game').hidden")

    # Someone opens the watch link during the game: they watch, and everyone sees "1 watching".
    watch_link = host.input_value("#watch-link")
    assert "/w/" in watch_link and link.rsplit("/", 1)[1] not in watch_link
    viewer.goto(watch_link)
    wait_for(viewer, f"document.querySelector('{APP}').dataset.spectator === 'true'")
    wait_for(viewer, "!document.querySelector('#game').hidden")
    assert not viewer.is_visible("#hand-area") and not viewer.is_visible("#sit-form")
    wait_for(host, "document.querySelector('#watch-count').textContent === '1 watching'")
    assert viewer.locator("#players .player").count() == 4
    counts = viewer.evaluate("window.cardverseTable.state.view.hand_counts")
    assert sum(counts) > 0 and viewer.evaluate("window.cardverseTable.state.view.hand") == []

    shots = {"taken": False}

    def midway(turns: int) -> None:
        if turns == 3 and not shots["taken"]:
            shots["taken"] = True
            viewer.screenshot(path=str(artifacts / "people-spectator-phone.png"), full_page=True)

    play_to_the_end([(host, False)], on_turn=midway)
    wait_for(viewer, f"document.querySelector('{APP}').dataset.game === 'game_over'")
    wait_for(viewer, "!document.querySelector('#results').hidden")
    log = viewer.inner_text("#log")
    assert "Ada" in log and ("plays" in log or "passes" in log)
    assert "Winner" in viewer.inner_text("#winner")
    viewer.set_viewport_size({"width": 1280, "height": 800})
    viewer.screenshot(path=str(artifacts / "people-spectator-results-desktop.png"), full_page=True)
    check_page(viewer, "the spectator at the end")
    assert not viewer.js_errors
