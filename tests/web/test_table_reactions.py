"""Quick reactions in a real browser (issue 10): a seated person reacts by keyboard, everyone
(a spectator on the watch link too) sees it beside the sender's seat and in the log and hears
it announced; a person muted by someone is not shown to them; a burst is refused with a clear
note. Screenshots at phone and desktop sizes go to test-artifacts/web/."""

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


def _bubble(seat: int) -> str:
    return f"#reaction-layer .reaction-bubble[data-seat='{seat}']"


# What a shown bubble covers: any seat's name or card count, the sender's chip, or the hand.
COVERED = """(seat) => {
  const bubble = document.querySelector(`#reaction-layer .reaction-bubble[data-seat="${seat}"]`);
  const b = bubble.getBoundingClientRect();
  const hit = (n) => {
    const r = n.getBoundingClientRect();
    const apart = b.right <= r.left || r.right <= b.left || b.bottom <= r.top || r.bottom <= b.top;
    return r.width > 0 && !apart;
  };
  const names = [...document.querySelectorAll('#players .player-name, #players .player-count')];
  const covered = names.filter(hit).map((n) => n.textContent);
  const chip = document.querySelector(`#players .player[data-seat="${seat}"]`);
  if (hit(chip)) covered.push('the chip of seat ' + seat);
  const hand = document.querySelector('#hand-area');
  if (!hand.hidden && hit(hand)) covered.push('the hand');
  const inside = document.querySelector('#board').getBoundingClientRect();
  if (b.top < inside.top || b.bottom > inside.bottom) covered.push('outside the board');
  return covered;
}"""


# A bubble is shown for four seconds from the moment a page hears the reaction, which a loaded
# machine can outlast between two steps of a test. So each page notes what it showed, the moment
# it showed it: the watched bubble's text and, beside a seat, what it covered.
WATCH_BUBBLE = (
    """([selector, expected, seat]) => {
  const covered = """
    + COVERED
    + """;
  window.seenBubble = null;
  const look = () => {
    const bubble = document.querySelector(selector);
    if (window.seenBubble || !bubble || bubble.innerText !== expected) return;
    window.seenBubble = { text: bubble.innerText, covered: seat === null ? [] : covered(seat) };
    observer.disconnect();
  };
  const observer = new MutationObserver(look);
  observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  look();
}"""
)


def _watch_bubble(page: Any, selector: str, expected: str, seat: int | None) -> None:
    page.evaluate(WATCH_BUBBLE, [selector, expected, seat])


def _seen_bubble(page: Any) -> dict[str, Any]:
    wait_for(page, "window.seenBubble !== null")
    return dict(page.evaluate("window.seenBubble"))


def _heard(page: Any) -> int:
    return int(page.evaluate("window.cardverseTable.state.reactionsHeard || 0"))


# The action buttons a popover beside the hand covers: those not on top at their centre.
ACTIONS_ON_TOP = """() => ['play-button', 'pass-button'].filter((id) => {
  const button = document.getElementById(id);
  const r = button.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return r.width === 0 || !button.contains(top);
})"""

# The cards of the hand that the open reaction picker covers (it is compact, placed clear
# of the hand where there is room).
PICKER_OVER_HAND = """() => {
  const panel = document.getElementById('reaction-buttons').getBoundingClientRect();
  return [...document.querySelectorAll('#hand .hand-card')].filter((card) => {
    const r = card.getBoundingClientRect();
    return r.left < panel.right && panel.left < r.right
      && r.top < panel.bottom && panel.top < r.bottom;
  }).map((card) => card.getAttribute('aria-label'));
}"""


def test_reactions_reach_everyone_and_can_be_muted(
    server_url: str,
    contexts: Any,  # noqa: F811
    artifacts: Any,
) -> None:
    host = contexts("desktop", reduced_motion="reduce")
    guest = contexts("phone", reduced_motion="reduce")
    link = create_table(host, server_url, "en", "Ada")
    guest.goto(link)
    guest.fill("#sit-name", "Bo")
    guest.keyboard.press("Enter")
    wait_for(guest, SEATED)
    host.click("#fill-button")
    wait_for(host, "document.querySelectorAll('#seat-list .seat-empty').length === 0")
    watcher = contexts("phone", reduced_motion="reduce")
    watcher.goto(host.input_value("#watch-link"))
    host.click("#start-button")
    for page in (host, guest, watcher):
        wait_for(page, "!document.querySelector('#game').hidden")
    assert not watcher.is_visible("#reaction-bar")  # spectators watch, they do not react
    assert "with a watch link" in watcher.inner_text("#spectator-bar")
    assert "take a seat" not in watcher.inner_text("#spectator-bar")

    # Bo reacts by keyboard: open the picker, choose "Well played".
    for page in (host, watcher):
        _watch_bubble(page, _bubble(1), "Well played", 1)
    _watch_bubble(guest, ".me-bar .reaction-bubble", "Well played", None)
    focus_shown(guest, "#reaction-bar summary")
    guest.keyboard.press("Enter")
    well_played = guest.get_by_role("button", name="Well played")
    well_played.focus()
    guest.keyboard.press("Enter")
    # The bubble sits beside Bo's chip, over no name, card count or hand (desktop and phone).
    for page in (host, watcher):
        assert _seen_bubble(page)["covered"] == [], page.viewport_size
        wait_for(
            page, "document.querySelector('#log').textContent.includes('Bo reacts: Well played')"
        )
    assert "Bo reacts: Well played" in host.inner_text("#announcer")
    _seen_bubble(guest)  # beside "You"
    wait_for(guest, "window.cardverseTable.state.reactionLog.length === 1")
    host.screenshot(path=str(artifacts / "reaction-desktop.png"), full_page=True)
    watcher.screenshot(path=str(artifacts / "reaction-spectator-phone.png"), full_page=True)
    check_page(host, "a reaction on the desktop")
    check_page(watcher, "a reaction seen by a spectator")

    # Ada mutes Bo: his thumbs up reaches the spectator, not her.
    host.click("#hint-tools [data-mutes] summary")
    host.get_by_role("checkbox", name="Mute Bo").check()
    wait_for(host, f'document.querySelector("{_bubble(1)}") === null')
    before_host = _heard(host)
    _watch_bubble(watcher, _bubble(1), "👍", 1)
    guest.click("#reaction-bar summary")
    guest.get_by_role("button", name="Thumbs up").click()
    assert _seen_bubble(watcher)["text"] == "👍"
    wait_for(host, f"window.cardverseTable.state.reactionsHeard > {before_host}")
    assert host.locator(_bubble(1)).count() == 0
    assert "Thumbs up" not in host.inner_text("#log")
    # Unmuted, he is heard again; the choice survives a reload (kept in the browser).
    host.reload()
    wait_for(host, "!document.querySelector('#game').hidden")
    host.click("#hint-tools [data-mutes] summary")
    assert host.get_by_role("checkbox", name="Mute Bo").is_checked()
    host.get_by_role("checkbox", name="Mute Bo").uncheck()

    # A burst is refused with a clear note. The server allows three in a row and then one every
    # four seconds, so the last four go out at once: clicks paced by a loaded machine could
    # otherwise earn their tokens back.
    for _ in range(2):
        guest.click("#reaction-bar summary")  # the picker closes after each reaction
        guest.get_by_role("button", name="Good game").click()
        assert guest.evaluate(
            "document.activeElement === document.querySelector('#reaction-bar summary')"
        )
    guest.evaluate(
        """() => {
          const button = document.querySelector('#reaction-buttons [aria-label="Good game"]');
          for (let i = 0; i < 4; i += 1) button.click();
        }"""
    )
    wait_for(
        guest,
        "document.querySelector('#reaction-note').textContent.includes('a lot of reactions')",
    )
    assert "a lot of reactions" in guest.inner_text("#alerts")
    wait_for(host, "document.querySelector('#log').textContent.includes('Bo reacts: Good game')")
    guest.click("#reaction-bar summary")
    guest.screenshot(path=str(artifacts / "reaction-picker-phone.png"), full_page=True)
    check_page(guest, "the reaction picker on a phone")
    # The open picker leaves Play and Pass in sight and tappable (on a phone and a desktop).
    host.click("#reaction-bar summary")
    for page in (guest, host):
        assert page.is_visible("#reaction-buttons")
        assert page.evaluate(ACTIONS_ON_TOP) == [], page.viewport_size
        assert page.evaluate(PICKER_OVER_HAND) == [], page.viewport_size
    host.screenshot(path=str(artifacts / "reaction-picker-desktop.png"))
    # An outside tap closes it; so does Escape, which gives the focus back to its button.
    host.mouse.click(5, 5)
    wait_for(host, "!document.querySelector('#reaction-bar').open")
    guest.keyboard.press("Escape")
    wait_for(guest, "!document.querySelector('#reaction-bar').open")
    assert guest.evaluate(
        "document.activeElement === document.querySelector('#reaction-bar summary')"
    )
    # The mute list beside the hand keeps clear of them too.
    guest.click("#hint-tools [data-mutes] summary")
    assert guest.is_visible("#hint-tools .mute-list")
    assert guest.evaluate(ACTIONS_ON_TOP) == []
    guest.keyboard.press("Escape")
    wait_for(guest, "!document.querySelector('#hint-tools [data-mutes]').open")
    assert not host.js_errors and not guest.js_errors and not watcher.js_errors
