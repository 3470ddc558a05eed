"""The table in a real browser against the real server, over time (issue 9): the log kept by
the server, a won trick shown a moment, motion and reduced motion, a whole game by taps on a
touch phone, the turn timer after a network stall, the heartbeat at both ends, and what the
computer did while a person was away.

Time is never waited for: the page's clock is Playwright's (``page.clock``), moved on by the
test, and the network is held or cut by routing the page's WebSocket (``route_web_socket``).
"""

from __future__ import annotations

import json
import re
import socket
import time
from typing import Any
from urllib.parse import urlparse

import httpx

from cardverse.tabletalk.story import final_titles

from .conftest import LONG_WAIT, WAIT
from .table_support import open_table
from .test_table import APP, changed_or_over, data, highlighted, take_turn, wait_for

LOG = "els => els.map(e => e.textContent)"
MY_TURN = f"document.querySelector('{APP}').dataset.myTurn === 'true'"

# Counts every animation the page starts: Web Animations, CSS transitions and CSS animations.
COUNT_ANIMATIONS = """
window.__animations = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__animations += 1;
  return animate.apply(this, args);
};
for (const kind of ["transitionrun", "animationstart"]) {
  document.addEventListener(kind, () => { window.__animations += 1; }, true);
}
"""


def new_page(browser: Any, width: int = 1280, height: int = 800, **options: Any) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors  # type: ignore[attr-defined]
    return page


def start_game(page: Any) -> None:
    page.click("#start-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'playing'")
    wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")


def my_turn(page: Any, timeout: int = WAIT) -> None:
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", timeout)


class Pipe:
    """The page's WebSockets routed through the test: frames from the server can be held (a
    stall), and the network can be cut (connections closed, new ones refused)."""

    def __init__(self, page: Any) -> None:
        self.links: list[dict[str, Any]] = []
        self.cut = False
        self.states: list[str] = []  # the full states
        self.timers: list[str] = []  # every state and change (each tells the timer)
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        if self.cut:
            ws.close()
            return
        server = ws.connect_to_server()
        link = {"ws": ws, "server": server, "held": False}
        self.links.append(link)

        def to_page(message: Any) -> None:
            text = str(message)
            if text.startswith('{"type":"state"'):
                self.states.append(text)
            if text.startswith(('{"type":"state"', '{"type":"change"')):
                self.timers.append(text)
            if not link["held"]:
                ws.send(message)

        server.on_message(to_page)
        ws.on_message(lambda message: None if link["held"] else server.send(message))
        ws.on_close(lambda code, reason: server.close())
        server.on_close(lambda code, reason: ws.close())

    def hold(self) -> None:
        """The connections open now stop carrying anything (a stalled network)."""
        for link in self.links:
            link["held"] = True

    def cut_off(self) -> None:
        """Close every connection and refuse new ones."""
        self.cut = True
        for link in self.links:
            link["held"] = True
            link["ws"].close()
            link["server"].close()

    def restore(self) -> None:
        self.cut = False


def test_the_log_after_a_reload_equals_the_log_before(server_url: str, browser: Any) -> None:
    page = new_page(browser, 390, 844)
    try:
        open_table(page, server_url, 4, {})
        start_game(page)
        for _ in range(40):
            my_turn(page)
            if page.locator("#log li").count() >= 8:
                break
            take_turn(page, keys=False)
        my_turn(page)
        # the tab says whose turn it is: its title and its icon
        wait_for(page, "document.title.startsWith('Your turn')")
        icon = page.get_attribute("link[rel~='icon']", "href")
        assert icon == "/static/img/your-turn.svg"
        assert page.request.get(f"{server_url}{icon}").status == 200
        assert page.is_visible("#your-turn")
        before = page.eval_on_selector_all("#log li", LOG)
        assert len(before) >= 3, before
        page.reload()
        my_turn(page)
        wait_for(page, f"document.querySelectorAll('#log li').length === {len(before)}")
        assert page.eval_on_selector_all("#log li", LOG) == before
        # the whole log opens from the bar too
        page.set_viewport_size({"width": 360, "height": 640})
        page.click("#log-button")
        assert page.eval_on_selector_all("#log-full li", LOG) == before
        page.keyboard.press("Escape")
        # and the score sheet
        page.click("#score-button")
        assert page.is_visible("#score-dialog")
        assert page.locator("#score-body").inner_text().strip()
        page.keyboard.press("Escape")
        # the sound switch is remembered
        assert page.get_attribute("#sound-button", "aria-pressed") == "true"
        page.click("#sound-button")
        assert page.get_attribute("#sound-button", "aria-pressed") == "false"
        page.reload()
        my_turn(page)
        assert page.get_attribute("#sound-button", "aria-pressed") == "false"
        assert not page.js_errors
    finally:
        page.context.close()


def test_a_won_trick_shows_a_moment_and_motion_runs(server_url: str, browser: Any) -> None:
    """A won trick is on the table 1 s after the winning play and gone after 3 s."""
    page = new_page(browser, 360, 640)
    try:
        # The page's clock stands still unless the test moves it on.
        now = time.time()
        page.clock.install(time=now)
        page.clock.pause_at(now + 5)
        page.add_init_script(COUNT_ANIMATIONS)
        open_table(page, server_url, 3, {})
        start_game(page)
        checked = False
        for _ in range(60):
            my_turn(page)
            taken = page.evaluate(
                "(() => { const t = window.cardverseTable.state.taken;"
                " return t ? {left: t.until - performance.now(), seat: t.seat} : null; })()"
            )
            if taken and taken["left"] > 600:
                # 1 s after the winning play (the trick is shown for 1.5 s), then 3 s after it
                page.clock.run_for(int(taken["left"] - 500))
                assert page.is_visible("#taken"), "the won trick is gone before 1 s"
                words = page.inner_text("#taken")
                assert re.search(r"takes? the trick|clears? the pile", words), words
                page.clock.run_for(2000)
                wait_for(page, "document.querySelector('#taken').hidden")
                checked = True
                break
            take_turn(page, keys=False)
        assert checked, "no trick was won"
        assert page.evaluate("window.__animations") > 0, "nothing moved"
        assert not page.js_errors
    finally:
        page.context.close()


def test_reduced_motion_runs_no_animation(server_url: str, browser: Any) -> None:
    page = new_page(browser, 360, 640, reduced_motion="reduce")
    try:
        page.add_init_script(COUNT_ANIMATIONS)
        open_table(page, server_url, 3, {})
        start_game(page)
        turns = 0
        while turns < 12:
            # my turn, or the game over (this seat may go out within its first twelve turns)
            wait_for(
                page,
                f"document.querySelector('{APP}').dataset.myTurn === 'true'"
                f" || document.querySelector('{APP}').dataset.game === 'game_over'",
            )
            if page.evaluate(f"document.querySelector('{APP}').dataset.game") == "game_over":
                break
            take_turn(page, keys=False)
            turns += 1
        assert turns >= 3, "too few turns to see any motion"
        transition = page.evaluate(
            "getComputedStyle(document.querySelector('.hand-card')).transitionDuration"
        )
        assert transition in ("0s", "")
        assert page.evaluate("window.__animations") == 0
        assert not page.js_errors
    finally:
        page.context.close()


def tap_turn(page: Any) -> bool:
    """On my turn: tap the lowest highlighted cards until they make a play, then Play (or
    Pass, or Give back); taps land on the visible corner of each card."""
    if data(page, "my-turn") != "true":
        return False
    v = data(page, "v")
    for _ in range(8):
        if data(page, "selection") == "ready":
            break
        cards = highlighted(page)
        if not cards:
            break
        page.locator(f'#hand .hand-card[data-card="{cards[0]}"]').tap(position={"x": 12, "y": 12})
    if data(page, "selection") == "ready":
        page.tap("#play-button")
        if page.is_visible("#choices"):
            page.tap("#choice-list button")
    else:
        page.tap("#pass-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.v !== '{v}'")
    return True


def test_a_whole_game_with_the_exchange_by_taps_on_a_phone(
    server_url: str, browser: Any, artifacts: Any
) -> None:
    page = new_page(browser, 360, 640, has_touch=True, is_mobile=True)
    try:
        open_table(page, server_url, 4, {"rounds": 2})
        start_game(page)
        deadline = time.monotonic() + LONG_WAIT / 1000 * 3
        exchange_seen = False
        turns = 0
        while data(page, "game") != "game_over":
            assert time.monotonic() < deadline, "the game did not end in time"
            if data(page, "game") == "exchange":
                exchange_seen = True
            if data(page, "my-turn") == "true":
                # one screen: nothing scrolls, the hand and the buttons are on it (measured once
                # the cards have moved into their places)
                wait_for(page, "document.getAnimations().every(a => a.playState !== 'running')")
                fits = page.evaluate(
                    "(() => { const g = document.querySelector('#game');"
                    " const b = document.querySelector('#play-button').getBoundingClientRect();"
                    " const h = document.querySelector('#hand').getBoundingClientRect();"
                    " return {scroll: g.scrollHeight, client: g.clientHeight, play: b.bottom,"
                    " top: b.top, hand: [h.top, h.bottom], height: innerHeight}; })()"
                )
                assert (
                    fits["scroll"] <= fits["client"]
                    and fits["play"] <= fits["height"]
                    and fits["hand"][1] <= fits["top"]
                    and fits["hand"][0] >= 0
                ), f"the game does not fit the phone's screen: {fits}"
                if turns == 3:
                    page.screenshot(path=str(artifacts / "table-touch-play-360x640.png"))
                tap_turn(page)
                turns += 1
            else:
                # another player's move, the next round, or the end (or my turn came
                # between the two reads)
                v = data(page, "v")
                wait_for(page, f"{changed_or_over(page, v)} || {MY_TURN}")
        log = " ".join(page.eval_on_selector_all("#log li", LOG))
        assert exchange_seen or "give" in log, "no card exchange was seen"
        assert page.is_visible("#results")
        page.screenshot(path=str(artifacts / "table-touch-results-360x640.png"))
        # the final standings: places and titles by the totals (R21, R22), ties shared
        totals = page.evaluate("window.cardverseTable.state.view.points")
        places, titles = final_titles(totals)
        rows = page.eval_on_selector_all(
            "#final-body tr",
            "rows => rows.map(r => [r.cells[0].textContent,"
            " r.querySelector('.title-badge')?.className.split('title-').pop() ?? null])",
        )
        order = sorted(range(len(totals)), key=lambda seat: (places[seat], seat))
        assert rows == [[str(places[seat] + 1), titles[str(seat)]] for seat in order], rows
        assert turns > 5
        assert not page.js_errors
    finally:
        page.context.close()


def test_the_timer_is_right_after_a_network_stall(server_url: str, browser: Any) -> None:
    """An 18 s stall (the page's clock moved on while the WebSocket carries nothing): the page
    finds the connection dead within 5 s, comes back, and shows the server's deadline."""
    page = new_page(browser, 360, 640)
    try:
        page.clock.install()
        pipe = Pipe(page)
        created = page.request.post(
            f"{server_url}/api/tables",
            data={"name": "Ada", "rules": {"preset": "standard", "players": 3}, "turn_timer": 60},
        ).json()
        page.goto(f"{server_url}/t/{created['table_id']}?lang=en")
        page.evaluate(
            "([id, token]) => localStorage.setItem('cardverse.seat.' + id,"
            " JSON.stringify({seat: 0, token}))",
            [created["table_id"], created["token"]],
        )
        page.reload()
        wait_for(page, f"document.querySelector('{APP}').dataset.seated === 'true'")
        page.click("#fill-button")
        wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 2")
        start_game(page)
        my_turn(page)
        wait_for(page, "document.querySelector('#my-timer[data-remaining]') !== null")

        page.evaluate(
            "window.__statuses = []; new MutationObserver(() => window.__statuses.push("
            "document.querySelector('#table-app').dataset.connection + ' '"
            " + !document.querySelector('#conn-near').hidden)).observe("
            "document.querySelector('#table-app'), {attributes: true})"
        )
        pipe.hold()
        page.clock.run_for(5000)
        statuses = page.evaluate("window.__statuses")
        assert "reconnecting true" in statuses, f"a dead connection went unnoticed: {statuses}"
        page.clock.run_for(13000)
        moved_on = page.evaluate("Date.now()")
        wait_for(page, f"document.querySelector('{APP}').dataset.connection === 'open'")
        my_turn(page)
        timer = json.loads(pipe.timers[-1])["timer"]  # the latest the server told
        deadline = timer["deadline"]
        wait_for(page, "document.querySelector('#my-timer[data-remaining]') !== null")
        # Only this page's clock moved on 18 s (the server's did not): the page goes by its
        # first clock sample taken after that (a sample taken while the test moved the clock
        # on, before the connection came back, is found out of date by it).
        wait_for(page, f"window.cardverseTable.clock().lastSample >= {moved_on}")
        drawn = page.get_attribute("#my-timer", "data-remaining")
        wait_for(page, f"document.querySelector('#my-timer').dataset.remaining !== '{drawn}'")
        shown = float(page.get_attribute("#my-timer", "data-remaining") or "nan")
        server_left = deadline - time.time() * 1000
        # a page that kept the stale ends_in would be 18 s off
        assert abs(shown - server_left) < 1000, (shown, server_left)
        text = page.inner_text("#my-timer")
        minutes, seconds = text.split(":")
        assert abs(int(minutes) * 60 + int(seconds) - server_left / 1000) <= 2.5, text
        # A state that arrives late says less time has passed than has (its ends_in is stale):
        # the page goes by the deadline, so the time shown does not change.
        late = json.loads(pipe.states[-1])
        late["v"] = json.loads(pipe.timers[-1])["v"]
        late["timer"] = {**timer, "ends_in": timer["ends_in"] + 18}
        inject = "message => window.cardverseTable.receive(message)"
        page.evaluate(inject, late)
        shown = float(page.get_attribute("#my-timer", "data-remaining") or "nan")
        assert abs(shown - (deadline - time.time() * 1000)) < 1000, shown
        # This page's clock jumps 30 s ahead (set by hand, or stepped by the system): the
        # next sample cannot be right together with the one the page goes by, so it wins.
        before = page.evaluate("window.cardverseTable.clock().lastSample")
        page.clock.fast_forward(30000)
        wait_for(page, f"window.cardverseTable.clock().lastSample > {before}")
        page.evaluate(inject, late)  # drawn again
        shown = float(page.get_attribute("#my-timer", "data-remaining") or "nan")
        assert abs(shown - (deadline - time.time() * 1000)) < 1000, shown
        assert not page.js_errors
    finally:
        page.context.close()


# The page's clock code (table-net.js) fed pongs by hand: what offset it goes by.
CLOCK_SAMPLES = """async () => {
  const { TableConnection } = await import('/static/js/table-net.js');
  const c = new TableConnection('clock-test', { onStatus() {}, onMessage() {} });
  c.sendRaw = () => true; // as if the connection were open
  // The page's clock stands still while the samples are fed (a loaded machine may let
  // milliseconds pass between two lines): every figure below is then exact.
  const realNow = Date.now;
  const frozen = realNow();
  Date.now = () => frozen;
  try {
  const pong = (rtt, offset) => {
    // a ping that left rtt ms ago, answered by a server whose clock is offset ms ahead
    const now = Date.now();
    c.pingSent = now - rtt;
    c.measure({ type: 'pong', server_time: now - rtt / 2 + offset });
    return { offset: c.offset, rtt: c.offsetRtt, pinging: c.pingSent !== null };
  };
  c.measure({ type: 'hello', server_time: Date.now() + 4000 });
  const steps = { hello: c.offset };
  steps.slow = pong(900, 5000);   // the first round trip is slow: ping again at once
  steps.fast = pong(20, 5000);    // a short one wins
  steps.near = pong(300, 5100);   // a longer one that agrees with it does not
  steps.jump = pong(40, -25000);  // this page's clock jumped 30 s: the new sample is right
  steps.after = pong(30, -25000);
  return steps;
  } finally {
    Date.now = realNow;
  }
}"""


def test_the_clock_offset_follows_the_best_sample_and_a_jump_of_the_pages_clock(
    server_url: str, browser: Any
) -> None:
    page = new_page(browser, 360, 640)
    try:
        page.goto(f"{server_url}/?lang=en")
        steps = page.evaluate(CLOCK_SAMPLES)

        def near(value: float, expected: float) -> bool:
            return abs(value - expected) <= 1  # ms: a round trip's half, rounded

        assert near(steps["hello"], 4000), steps
        assert near(steps["slow"]["offset"], 5000) and steps["slow"]["pinging"], steps
        assert near(steps["fast"]["offset"], 5000) and steps["fast"]["rtt"] == 20, steps
        assert not steps["fast"]["pinging"], steps  # good enough: no ping until the next beat
        assert near(steps["near"]["offset"], 5000) and steps["near"]["rtt"] == 20, steps
        assert near(steps["jump"]["offset"], -25000) and steps["jump"]["rtt"] == 40, steps
        assert near(steps["after"]["offset"], -25000) and steps["after"]["rtt"] == 30, steps
        assert not page.js_errors
    finally:
        page.context.close()


def test_the_server_closes_a_dead_connection_within_5_s(server_url: str) -> None:
    """A client that stops answering (no pong to the server's pings) is closed within 5 s."""
    url = urlparse(server_url)
    table = httpx.post(f"{server_url}/api/tables", json={"name": "Ada"}).json()["table_id"]
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(
            (
                f"GET /ws/{table} HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        started = time.monotonic()
        sock.settimeout(8)
        received = b""
        while True:
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                break
            if not chunk:
                break
            received += chunk
        assert b" 101 " in received.split(b"\r\n", 1)[0]
        assert time.monotonic() - started <= 6.0


def test_the_page_lists_what_the_computer_did_while_the_person_was_away(
    quick_grace_server: Any, browser: Any, artifacts: Any
) -> None:
    live = quick_grace_server
    page = new_page(browser, 360, 640)
    try:
        pipe = Pipe(page)
        table_id = open_table(page, live.url, 3, {"rounds": 1})
        start_game(page)
        my_turn(page)
        pipe.cut_off()
        wait_for(page, f"document.querySelector('{APP}').dataset.connection === 'reconnecting'")

        def auto_moves() -> list[dict[str, Any]]:
            events = live.service.store.events(table_id)
            return [
                e.data
                for e in events
                if e.kind == "move" and e.data.get("actor") == "auto" and e.data["seat"] == 0
            ]

        limit = time.monotonic() + LONG_WAIT / 1000
        while len(auto_moves()) < 3 and live.service.tables[table_id].phase == "playing":
            assert time.monotonic() < limit, "the computer did not stand in"
            time.sleep(0.05)
        pipe.restore()
        page.evaluate("window.dispatchEvent(new Event('online'))")
        wait_for(page, "!document.querySelector('#away').hidden")
        items = page.eval_on_selector_all("#away-list li", LOG)
        moves = auto_moves()
        # a line a round ("Round 1: played 3♣, passed, played 5♦ 5♠"), every move in
        # its order, each in the same form (its cards: all of them are of this round)
        assert items and all(re.match(r"Round \d+: ", item) for item in items), items
        rest = " ".join(items)
        for move in moves:
            kind = move["action"]["action"]
            expected = {"pass": "passed", "play": "played", "give": "gave back"}[kind]
            assert expected in rest, (items, move)
            rest = rest[rest.index(expected) + len(expected) :]
        assert " card" not in " ".join(items), items
        assert "While you were away" in page.inner_text("#away")
        page.screenshot(path=str(artifacts / "table-away-360x640.png"))
        page.click("#away-close")
        assert page.is_hidden("#away")
        assert not page.js_errors
    finally:
        page.context.close()
