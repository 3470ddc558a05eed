"""Invites in a real browser (issue 10): the lobby shows the table code and the QR code of the
link; the QR code decodes (zxing-cpp, from the rendered page) to the share link; a friend types
the code on the home page and arrives at the table; a wrong code gets a clear error; the watch
link's page shows neither. Screenshots at phone and desktop sizes go to test-artifacts/web/."""

from __future__ import annotations

import io
from typing import Any

import zxingcpp
from PIL import Image

from cardverse.tabletalk.invites import invite_code_for, show_code

from .test_table import (  # noqa: F401
    APP,
    check_page,
    contexts,
    create_table,
    focus_shown,
    wait_for,
)


def _decode_qr(page: Any) -> list[str]:
    png = page.locator("#qr-code").screenshot()
    image = Image.open(io.BytesIO(png)).convert("L")
    return [result.text for result in zxingcpp.read_barcodes(image)]


def test_the_code_and_the_qr_code_bring_a_friend_to_the_table(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    host = contexts("desktop", reduced_motion="reduce")
    link = create_table(host, server_url, "en", "Ada")
    table_id = link.rsplit("/", 1)[1]
    code = show_code(invite_code_for(table_id))
    assert host.inner_text("#invite-code") == code
    assert host.get_by_role("button", name="Copy link").is_visible()

    # The QR code, opened by keyboard, decodes to the share link.
    focus_shown(host, "#qr-details summary")
    host.keyboard.press("Enter")
    wait_for(host, "document.querySelector('#qr-details').open")
    wait_for(host, "document.querySelector('#qr-code').complete")
    alt = host.get_attribute("#qr-code", "alt")
    assert alt == "QR code of the link to this table"
    assert _decode_qr(host) == [link]
    host.screenshot(path=str(artifacts / "invite-lobby-desktop.png"), full_page=True)
    check_page(host, "the lobby with its QR code")

    # A friend types the code on the home page, in lower case and without its hyphen.
    friend = contexts("phone", reduced_motion="reduce")
    friend.goto(f"{server_url}/?lang=en")
    friend.fill("#join-code", "abcd-2345")
    friend.click("#join-form button[type=submit]")
    wait_for(friend, "document.querySelector('#join-error') !== null")
    assert "No table has that code" in friend.inner_text("#join-error")
    assert friend.get_attribute("#join-code", "aria-invalid") == "true"
    friend.screenshot(path=str(artifacts / "invite-wrong-code-phone.png"), full_page=True)
    friend.fill("#join-code", code.replace("-", "").lower())
    friend.click("#join-form button[type=submit]")
    friend.wait_for_url(link)
    wait_for(friend, "!document.querySelector('#sit-form').hidden")
    friend.fill("#sit-name", "Bo")
    friend.keyboard.press("Enter")
    wait_for(friend, f"document.querySelector('{APP}').dataset.seated === 'true'")
    assert friend.inner_text("#invite-code") == code
    friend.click("#qr-details summary")
    wait_for(friend, "document.querySelector('#qr-code').complete")
    assert _decode_qr(friend) == [link]
    friend.screenshot(path=str(artifacts / "invite-lobby-phone.png"), full_page=True)
    check_page(friend, "the friend's lobby")

    # Where the browser has the system share sheet (Web Share API), a Share button uses it.
    sharer = contexts("phone")
    sharer.add_init_script(
        "navigator.share = (data) => { window.sharedData = data; return Promise.resolve(); };"
    )
    sharer.goto(link)
    wait_for(sharer, "!document.querySelector('#share-button').hidden")
    sharer.get_by_role("button", name="Share").click()
    wait_for(sharer, "window.sharedData !== undefined")
    assert sharer.evaluate("window.sharedData.url") == link
    assert not host.is_visible("#share-button")  # no share sheet here: the copy button only

    # The watch link's page offers no way in.
    watcher = contexts("phone")
    watcher.goto(host.input_value("#watch-link"))
    wait_for(watcher, f"document.querySelector('{APP}').dataset.spectator !== undefined")
    assert watcher.locator("#invite-code").count() == 0
    assert watcher.locator("#qr-code").count() == 0
    assert code not in watcher.content() and table_id not in watcher.content()
    assert not host.js_errors and not friend.js_errors and not watcher.js_errors
    assert not sharer.js_errors
