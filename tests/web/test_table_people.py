"""People at the table in a real browser (issue 10): the host moves a guest, hands the host role
over by leaving, and a person leaves a game and comes back to the seat. Screenshots at phone and
desktop sizes go to test-artifacts/web/."""

from __future__ import annotations

from typing import Any

from .test_table import APP, check_page, contexts, create_table, wait_for  # noqa: F401

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
    host.focus("#leave-button")
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
