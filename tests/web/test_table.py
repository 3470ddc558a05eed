"""The table page in a real browser: people create a table, sit down, play whole games.

Every game action goes through clicks (the host) or keys (the guest). To decide what to do, the
helpers read only what the page shows: the highlighted playable cards of the hand, and whether
the chosen cards make a play (``data-selection``). Screenshots of the lobby, the table mid-game
and the results, at phone and desktop sizes, go to test-artifacts/web/.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from starlette.applications import Starlette
from starlette.testclient import TestClient

from cardverse.web import web_routes
from cardverse.web.i18n import LANGUAGES

from .conftest import LONG_WAIT, WAIT
from .test_browser import CONTRAST, ENGLISH_WORDS, SIZES, VISIBLE_TEXT, _english_strings

APP = "#table-app"
# WAIT: the longest any single step may take (ms, the browser's default, see conftest.py)


@pytest.fixture
def contexts(browser: Any) -> Any:
    made: list[Any] = []

    def make(size: str, **options: Any) -> Any:
        width, height = SIZES[size]
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        made.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in made:
        context.close()


# -- reading the page ---------------------------------------------------------------------


def data(page: Any, key: str) -> str:
    return str(page.get_attribute(APP, f"data-{key}"))


def hand(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all("#hand .hand-card", "els => els.map(e => e.dataset.card)")
    )


def highlighted(page: Any) -> list[str]:
    """The cards the page highlights as playable with what is already chosen."""
    return list(
        page.eval_on_selector_all(
            "#hand .hand-card.is-playable[aria-pressed=false]",
            "els => els.map(e => e.dataset.card)",
        )
    )


def focused_card(page: Any) -> str | None:
    return page.evaluate("document.activeElement?.dataset?.card ?? null")  # type: ignore[no-any-return]


def wait_for(page: Any, condition: str, timeout: int = WAIT) -> None:
    # A function, not an expression: the page's Content-Security-Policy forbids eval.
    page.wait_for_function(f"() => ({condition})", timeout=timeout)


def focus_shown(page: Any, selector: str) -> None:
    """Put the keyboard focus on an element once the page shows it (a hidden one takes no
    focus, and the keys typed next would go nowhere)."""
    page.locator(selector).wait_for(state="visible")
    page.focus(selector)


def visible_text(page: Any) -> str:
    return str(page.evaluate(VISIBLE_TEXT))


# -- acting through clicks and keys --------------------------------------------------------


def key_to(page: Any, code: str) -> None:
    """Move the keyboard focus to a card of the hand with the arrow keys."""
    order = hand(page)
    if focused_card(page) not in order:
        page.keyboard.press("h")  # focus the hand
    current = focused_card(page)
    assert current in order
    step = order.index(code) - order.index(current)
    for _ in range(abs(step)):
        page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
    assert focused_card(page) == code


def choose(page: Any, code: str, keys: bool) -> None:
    if keys:
        key_to(page, code)
        page.keyboard.press("Space")
    else:
        page.click(f'#hand .hand-card[data-card="{code}"]')


def take_turn(page: Any, keys: bool) -> bool:
    """If it is this page's turn, play the lowest highlighted play (or pass, or give back)."""
    if data(page, "my-turn") != "true":
        return False
    v = data(page, "v")
    for _ in range(8):
        if data(page, "selection") == "ready":
            break
        cards = highlighted(page)
        if not cards:
            break
        choose(page, cards[0], keys)
    if data(page, "selection") == "ready":
        if keys:
            page.keyboard.press("Enter")
        else:
            page.click("#play-button")
        if page.is_visible("#choices"):  # a joker or a straight that can mean several plays
            if keys:
                page.keyboard.press("Enter")  # the first choice has the focus
            else:
                page.click("#choice-list button")
    elif keys:
        page.keyboard.press("p")
    else:
        page.click("#pass-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.v !== '{v}'")
    return True


def changed_or_over(page: Any, v: str) -> str:
    """The page's condition for "the game moved on from state v" (or is over)."""
    return (
        f"document.querySelector('{APP}').dataset.v !== '{v}'"
        f" || document.querySelector('{APP}').dataset.game === 'game_over'"
    )


def play_to_the_end(
    pages: list[tuple[Any, bool]], limit: float = LONG_WAIT / 1000 * 3, on_turn: Any = None
) -> int:
    """Everyone plays until every page shows the game is over; returns the turns taken."""
    deadline = time.monotonic() + limit
    turns = 0
    while not all(data(page, "game") == "game_over" for page, _ in pages):
        assert time.monotonic() < deadline, "the game did not end in time"
        shown = [(page, data(page, "v")) for page, _ in pages]
        acted = False
        for page, keys in pages:
            if take_turn(page, keys):
                acted = True
                turns += 1
                if on_turn is not None:
                    on_turn(turns)
        if not acted:
            # nobody here was on turn when asked: a computer player moves, the next round
            # comes, or a page had not yet been told it is its turn (a busy machine)
            wait_for_any(shown)
    return turns


def wait_for_any(shown: list[tuple[Any, str]], timeout: int = WAIT) -> None:
    """Wait until one of the pages moved on from the state it showed (or is on turn, or the
    game is over). One page is waited on directly; several are asked in turn, each for a short
    while, until one has moved on or ``timeout`` (ms) has passed for all of them."""
    on_turn = f"document.querySelector('{APP}').dataset.myTurn === 'true'"
    conditions = [(page, f"{changed_or_over(page, v)} || {on_turn}") for page, v in shown]
    if len(conditions) == 1:
        wait_for(*conditions[0], timeout=timeout)
        return
    deadline = time.monotonic() + timeout / 1000
    while True:
        for page, condition in conditions:
            try:
                wait_for(page, condition, timeout=200)
                return
            except PlaywrightTimeout:
                pass
        assert time.monotonic() < deadline, "no page moved on: " + ", ".join(v for _, v in shown)


def create_table(page: Any, server_url: str, lang: str, name: str) -> str:
    page.goto(f"{server_url}/?lang={lang}")
    page.fill("#create-name", name)
    page.click("#create-form button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    wait_for(page, f"document.querySelector('{APP}').dataset.seated === 'true'")
    return str(page.input_value("#share-link"))


def check_page(page: Any, where: str) -> None:
    width = page.viewport_size["width"]
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= width, f"{where}: the page is {overflow}px wide at {width}px"
    failures = page.evaluate(CONTRAST)
    assert not failures, f"{where}: low contrast {failures[:5]}"
    assert not page.js_errors, f"{where}: {page.js_errors}"


# -- the tests ------------------------------------------------------------------------------


def test_two_people_and_two_computers_play_a_whole_game(
    server_url: str, contexts: Any, artifacts: Any
) -> None:
    host = contexts("desktop")
    guest = contexts("phone", reduced_motion="reduce")

    # The host creates a table and picks the CardVerse preset: its locked options show locked.
    link = create_table(host, server_url, "en", "Ada")
    host.click("#options-details summary")  # the options fold away under their summary
    host.check("input[name=preset][value=cardverse]")
    wait_for(host, "document.querySelector('#option-equal_plays').disabled")
    assert host.is_visible('[data-option="equal_plays"] .locked-badge')
    assert not host.is_visible('[data-option="revolution"] .locked-badge')
    host.select_option("#option-rounds", "2")
    wait_for(host, "document.querySelector('#option-rounds').value === '2'")

    # A friend opens the link in another browser and sits down, with the keyboard only.
    guest.goto(link)
    focus_shown(guest, "#sit-name")  # shown once the table's seats have come
    guest.keyboard.type("Bo")
    guest.keyboard.press("Enter")
    wait_for(guest, f"document.querySelector('{APP}').dataset.seated === 'true'")
    wait_for(host, "document.querySelectorAll('#seat-list .seat-human').length === 2")
    guest.click("#options-details summary")
    guest_options = guest.inner_text("#options-list")
    assert "Equal plays" in guest_options and "locked" in guest_options
    assert "Number of rounds\n2" in guest_options

    # Two computer players: one in a chosen seat, then the rest at once.
    host.select_option("#bot-level", "easy")
    host.click('#seat-list button[data-seat="2"]')
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-bot').length === 1")
    assert "Level: Easy" in guest.inner_text("#seat-list")
    host.get_by_role("button", name="Remove the computer player from seat 3").click()
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-bot').length === 0")
    host.click('#seat-list button[data-seat="2"]')
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-bot').length === 1")
    host.click("#fill-button")
    wait_for(host, "document.querySelectorAll('#seat-list .seat-bot').length === 2")
    wait_for(guest, "document.querySelectorAll('#seat-list .seat-bot').length === 2")
    host.screenshot(path=str(artifacts / "table-lobby-desktop.png"), full_page=True)
    guest.screenshot(path=str(artifacts / "table-lobby-phone.png"), full_page=True)
    check_page(host, "lobby desktop")
    check_page(guest, "lobby phone")
    assert not guest.is_visible("#start-button")

    host.click("#start-button")
    for page in (host, guest):
        wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'playing'")
        wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")
    transition = guest.evaluate(
        "getComputedStyle(document.querySelector('.hand-card')).transitionDuration"
    )
    assert transition in ("0s", "")

    seen: dict[str, Any] = {}

    def midway(turns: int) -> None:
        if turns == 6 and "shots" not in seen:
            seen["shots"] = True
            host.screenshot(path=str(artifacts / "table-play-desktop.png"), full_page=True)
            guest.screenshot(path=str(artifacts / "table-play-phone.png"), full_page=True)
            check_page(host, "play desktop")
            check_page(guest, "play phone")
            seen["announced"] = host.inner_text("#announcer")
        if turns >= 8 and "reload" not in seen and data(guest, "game") == "play":
            seen["reload"] = True
            reload_returns_to_seat(guest)
            a_dropped_connection_comes_back(guest)
        if not seen.get("why"):
            seen["why"] = why_a_card_cannot_be_played(host)

    turns = play_to_the_end([(host, False), (guest, True)], on_turn=midway)
    assert turns > 10
    assert seen.get("announced"), "nothing was announced to screen readers"
    assert seen.get("reload"), "the reload was not tried"
    assert seen.get("why"), "no card was ever refused"

    for page in (host, guest):
        assert page.is_visible("#results")
        assert page.locator("#final-body tr").count() == 4
        assert page.is_visible("#final-body tr.is-me")
        assert "The game is over" in page.inner_text("#announcer") + page.inner_text("#log")
    assert host.is_visible("#rematch-button") and not guest.is_visible("#rematch-button")
    assert guest.is_visible("#rematch-wait")
    host.screenshot(path=str(artifacts / "table-results-desktop.png"), full_page=True)
    guest.screenshot(path=str(artifacts / "table-results-phone.png"), full_page=True)
    check_page(host, "results desktop")
    check_page(guest, "results phone")

    # A rematch starts a new game for everyone at once.
    host.click("#rematch-button")
    for page in (host, guest):
        wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'playing'")
        wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")


def reload_returns_to_seat(page: Any) -> None:
    """A reload puts the person back in the same seat with the same cards."""
    before = hand(page)
    seat = page.evaluate("window.cardverseTable.state.seat")
    page.reload()
    wait_for(page, f"document.querySelector('{APP}').dataset.seated === 'true'")
    wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")
    assert page.evaluate("window.cardverseTable.state.seat") == seat
    assert hand(page) == before or data(page, "game") != "play"


def a_dropped_connection_comes_back(page: Any) -> None:
    """A lost connection shows "reconnecting", then the seat is back with the same view. On
    connect the server sends a watcher's state first, then the seat's once the stored token has
    taken the seat back: the hand must stay shown all along, never blank in between."""
    before = hand(page)
    page.evaluate(
        """() => {
            const hand = document.querySelector('#hand');
            window.blankHand = false;
            window.handWatch = new MutationObserver(() => {
                const app = document.querySelector('#table-app');
                if (app.dataset.game === 'play' && !hand.querySelector('.hand-card')) {
                    window.blankHand = true;
                }
            });
            window.handWatch.observe(hand, { childList: true });
            // what the page shows at each change of the connection (a busy machine may
            // reconnect before the test looks)
            const app = document.querySelector('#table-app');
            const banner = document.querySelector('#connection');
            window.connectionSeen = [];
            window.connectionWatch = new MutationObserver(() => {
                window.connectionSeen.push({
                    status: app.dataset.connection,
                    banner: banner.checkVisibility() ? banner.textContent : null,
                });
            });
            window.connectionWatch.observe(app, { attributeFilter: ['data-connection'] });
        }"""
    )
    page.evaluate("window.cardverseTable.drop()")
    wait_for(page, f"document.querySelector('{APP}').dataset.connection === 'open'")
    seen = page.evaluate("window.connectionSeen")
    page.evaluate("window.connectionWatch.disconnect()")
    assert seen and seen[0]["status"] == "reconnecting", seen
    assert "Reconnecting" in (seen[0]["banner"] or ""), seen
    wait_for(page, "!document.querySelector('#connection').checkVisibility()")
    wait_for(page, "!window.cardverseTable.rejoining()")
    page.evaluate("window.handWatch.disconnect()")
    assert not page.evaluate("window.blankHand"), "the hand went blank while reconnecting"
    assert hand(page) == before or data(page, "game") != "play"


def why_a_card_cannot_be_played(page: Any) -> str | None:
    """Choosing a card that cannot be played says why, in words from the engine."""
    if data(page, "my-turn") != "true" or data(page, "game") != "play":
        return None
    dim = page.eval_on_selector_all(
        "#hand .hand-card.is-dim", "els => els.map(e => e.dataset.card)"
    )
    if not dim:
        return None
    page.click(f'#hand .hand-card[data-card="{dim[0]}"]')
    assert data(page, "selection") == "invalid"
    wait_for(page, "document.querySelector('#note').textContent.trim() !== ''")
    reason = str(page.inner_text("#note"))
    assert "does not beat" in reason or "takes a set of" in reason, reason
    page.click("#play-button")  # playing it anyway says the same, out loud
    wait_for(page, "document.querySelector('#alerts').textContent.trim() !== ''")
    page.keyboard.press("Escape")
    assert data(page, "selection") == "none"
    return reason


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_table_speaks_each_language(
    lang: str, server_url: str, contexts: Any, artifacts: Any
) -> None:
    english = _english_strings(lang)
    page = contexts("phone")

    def no_english(where: str) -> None:
        assert page.evaluate("document.documentElement.lang") == lang
        text = visible_text(page)
        left = [s for s in english if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)]
        assert not left, f"{lang} {where}: English left over: {left[:5]} in {text!r}"
        words = ENGLISH_WORDS.findall(text)
        assert not words, f"{lang} {where}: English words {words[:5]} in {text[:300]!r}"

    create_table(page, server_url, lang, "Ada")
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 3")
    no_english("lobby")
    page.click("#start-button")
    wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")
    wait_for(page, "document.querySelector('#log').children.length > 0")
    no_english("play")
    check_page(page, f"play {lang}")

    page.click("#game-rules-button")
    wait_for(page, "document.querySelector('#rules-body .rules-sheet') !== null")
    assert page.is_visible("#rules-dialog")
    no_english("rules sheet")
    page.keyboard.press("Escape")
    assert not page.is_visible("#rules-dialog")

    play_to_the_end([(page, False)])
    assert page.is_visible("#results")
    # (before reading the text: the reading clones the page, and a cloned radio button
    # unchecks the page's own one of the same group)
    page.screenshot(path=str(artifacts / f"table-results-{lang}-phone.png"), full_page=True)
    no_english("results")


def test_unknown_table_and_why_http() -> None:
    client = TestClient(Starlette(routes=web_routes()))
    assert client.get("/t/no").status_code == 404
    page = client.get("/t/AbCdEf123456?lang=pl")
    assert page.status_code == 200 and 'id="table-config"' in page.text
    position = {
        "rules": {"preset": "standard", "players": 3},
        "hands": [["3C", "7D", "7S"], {"count": 3}, {"count": 2}],
        "trick": [{"seat": 2, "action": "play", "cards": ["6C", "6D"]}],
        "turn": 0,
    }
    why = client.post(
        "/i18n/refusal?lang=en",
        json={"position": position, "action": {"action": "play", "cards": ["3C"]}},
    ).json()
    assert why["legal"] is False and why["code"] == "wrong_size" and why["rule"] == "R9"
    assert why["text"] == "This trick takes a set of 2 cards, not 1."
    low = {"action": "play", "cards": ["7D", "7S"]}
    assert client.post("/i18n/refusal", json={"position": position, "action": low}).json()["legal"]
    assert client.post("/i18n/refusal", content=b"nonsense").json()["legal"] is None
    named = client.get(
        "/i18n/error",
        params={
            "lang": "en",
            "code": "not_your_turn",
            "params": '{"turn": 1}',
            "names": '["Ada", "Bo"]',
        },
    ).json()
    assert named["text"] == "Not your turn: Bo plays now."


def _on_turn_with(
    page: Any, server_url: str, rules: dict[str, Any], hand: list[str], moves: list[Any]
) -> list[str]:
    """A table with ``rules`` where the page's seat (Ada, of three) is on lead holding ``hand``
    with these legal ``moves``, as the server would send it; returns the frames it sends."""
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    created = page.request.post(f"{server_url}/api/tables", data={"name": "Ada", "rules": rules})
    table_id = created.json()["table_id"]
    page.goto(f"{server_url}/t/{table_id}?lang=en")
    wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'lobby'")
    full_rules = page.request.get(f"{server_url}/api/tables/{table_id}").json()["rules"]
    seats = [
        {"seat": i, "kind": "human", "name": name, "level": None, "connected": True}
        | {"auto": None, "host": i == 0}
        for i, name in enumerate(["Ada", "Bo", "Cy"])
    ]
    view = {
        "seat": 0, "rules": full_rules, "round": 1, "phase": "play",
        "hand": hand, "hand_counts": [len(hand), 18, 18], "turn": 0, "leader": 0,
        "trick": [], "history": [], "passed": [], "finished": [], "revolution": False,
        "reversed_order": False, "points": [0, 0, 0], "places": [], "titles": {}, "exchange": [],
        "exchange_pairs": [],
        "legal_moves": moves,
    }  # fmt: skip
    table = {
        "type": "table", "table_id": table_id, "phase": "playing", "host": 0,
        "rules": full_rules, "turn_timer": None, "game": 1, "records": [], "seats": seats,
    }  # fmt: skip
    for message in (
        table,
        {"type": "welcome", "seat": 0, "name": "Ada", "host": True, "last_seq": 0, "resumed": True},
        {"type": "state", "v": 1, "at": {"game": 1, "round": 1, "step": 0}, "view": view}
        | {"timer": None, "events": []},
    ):
        page.evaluate("message => window.cardverseTable.receive(message)", message)
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
    return sent


def test_cards_that_make_several_plays_offer_a_choice(server_url: str, contexts: Any) -> None:
    """A joker with a natural card can make a set or straights: the person picks which."""
    page = contexts("desktop")
    rules = {"preset": "standard", "players": 3, "jokers": 2, "straights": True}
    moves = [
        {"action": "play", "cards": ["3C"]},
        {"action": "play", "cards": ["7H"]},
        {"action": "play", "cards": ["7H", "RJ", "BJ"]},
        {"action": "play", "cards": ["7H", "RJ", "BJ"], "jokers": {"RJ": "5", "BJ": "6"}},
        {"action": "play", "cards": ["7H", "RJ", "BJ"], "jokers": {"RJ": "8", "BJ": "9"}},
    ]
    sent = _on_turn_with(page, server_url, rules, ["3C", "7H", "RJ", "BJ"], moves)
    for code in ("7H", "RJ", "BJ"):
        page.click(f'#hand .hand-card[data-card="{code}"]')
    assert data(page, "selection") == "ready"
    page.click("#play-button")
    choices = page.locator("#choice-list button")
    assert choices.count() == 3
    texts = choices.all_inner_texts()
    assert texts[0] == "Set: 7♥ Red joker Black joker"
    assert "Straight: Red joker Black joker 7♥ (Red joker as 5, Black joker as 6)" in texts
    assert page.evaluate("document.activeElement.closest('#choice-list') !== null")
    page.click("#choice-list li:nth-child(3) button")
    wait_for(page, "document.querySelector('#choices').hidden")
    plays = [frame for frame in sent if '"type":"play"' in frame.replace(" ", "")]
    assert plays and '"jokers":{"RJ":"8","BJ":"9"}' in plays[-1].replace(" ", "")


def test_R44_a_set_joker_offers_each_suit_it_may_name(server_url: str, contexts: Any) -> None:
    """Under the suit lock with jokers a set's joker names a card (R44): the choice lists each
    card it may stand for, in words, and sends the chosen one."""
    page = contexts("desktop")
    moves = [
        {"action": "play", "cards": ["7H"]},
        {"action": "play", "cards": ["RJ"]},
        *[
            {"action": "play", "cards": ["7H", "RJ"], "jokers": {"RJ": card}}
            for card in ("7C", "7D", "7S")
        ],
    ]
    sent = _on_turn_with(page, server_url, {"preset": "uecda", "players": 3}, ["7H", "RJ"], moves)
    for code in ("7H", "RJ"):
        page.click(f'#hand .hand-card[data-card="{code}"]')
    page.click("#play-button")
    choices = page.locator("#choice-list button")
    assert choices.count() == 3
    assert choices.all_inner_texts() == [
        f"Set: 7♥ Red joker (Red joker as 7{suit})" for suit in "♣♦♠"
    ]
    page.click("#choice-list li:nth-child(3) button")
    wait_for(page, "document.querySelector('#choices').hidden")
    plays = [frame for frame in sent if '"type":"play"' in frame.replace(" ", "")]
    assert plays and '"jokers":{"RJ":"7S"}' in plays[-1].replace(" ", "")


def test_a_second_tab_takes_the_seat_and_the_first_can_take_it_back(
    server_url: str, contexts: Any
) -> None:
    first = contexts("phone")
    link = create_table(first, server_url, "en", "Ada")
    second = first.context.new_page()
    second.goto(link)
    wait_for(second, f"document.querySelector('{APP}').dataset.seated === 'true'")
    wait_for(first, f"document.querySelector('{APP}').dataset.connection === 'replaced'")
    assert "another tab" in first.inner_text("#connection")
    first.get_by_role("button", name="Play here").click()
    wait_for(first, f"document.querySelector('{APP}').dataset.seated === 'true'")
    wait_for(second, f"document.querySelector('{APP}').dataset.connection === 'replaced'")
    wait_for(first, f"document.querySelector('{APP}').dataset.connection === 'open'")
    assert first.is_visible("#start-button")  # still the host
