"""The phone table (issue 26): the felt is the screen, and nothing a player needs is clipped.

In a real browser against the real server, at 360x640, 390x844, 640x360 and 1280x800, for 3, 4,
6 and 8 players, in English and Japanese, at every phase: my turn with a pile (every badge on),
a won trick before it sweeps away, the exchange for each role, the joker choice, an owed give
and an owed discard, the away list open, the reactions open, the round's results and the game's
end (the whole cross product). Measured from bounding boxes and ``document.elementFromPoint``:

- the last play's every card is inside the viewport, uncovered and at least 40 px tall, with
  who played it; a won trick is whole and uncovered;
- every card of the hand is inside and uncovered with a hit width of at least 44 px (except
  under a sheet that rises over the hand by design: the joker choice and the away list);
- every control of the toolbar is inside, whatever badges are on;
- an open panel's content is visible without scrolling inside it, and its buttons are inside
  and uncovered; the game's end is a sheet that fits every size (the page never scrolls);
- the opponents, the felt, the status line, the hand, the note about the people at the table
  and the list of players who are away do not overlap; the felt keeps room; the note is
  uncovered;
- the words of every chip are whole (a long name ends in "…" with the whole name as its
  tooltip and its screen readers' text; the away badge and the second line are never cut);
- on a large screen the joker choice leaves the line that says what Play will do in sight;
- the page does not scroll.

The game is the server's own (a table of computer players started by the host); the phases
are drawn from its real state with the phase's fields changed (the page draws whatever state it
is given), so that every phase is reached at once rather than by playing long games. The won
trick is the exception: a real game is played until a trick is won, with the page's clock held
by the test so that the trick stays while it is measured; and, whatever the deal, the largest
won trick beside the largest play a table allows is built and measured at every size. One
browser serves the whole module. Screenshots of every screen go to test-artifacts/web/phone/
(ignored by git).

The drop of item 1 is a test of its own: two browser contexts, the guest's closed mid-game;
the host keeps the felt, and the list of players who are away is a line of the board.
"""

from __future__ import annotations

import copy
import itertools
import time
from typing import Any

import pytest

from .conftest import WAIT
from .table_support import (
    CHIP_TEXT,
    HIT_AREAS,
    MIN_HIT,
    SIZES,
    exchange_fields,
    inject,
    inside,
    open_table,
    overlaps,
    settle,
    titles_for,
)
from .test_accessibility import axe_violations
from .test_table import APP, create_table, take_turn, wait_for

MIN_PILE_CARD = 40
MIN_PILE_SEEN = 12  # px: overlapping cards of the play each show their corner (rank, suit)
MIN_FELT = 90  # px: the felt never shrinks to nothing
TAKEN_MS = 1500  # ms: how long a won trick stays (TAKEN_MS of table-state.js)

# Everything about one screen, measured in the page.
MEASURE = """() => {
  const shown = (n) => n && n.checkVisibility() && n.getBoundingClientRect().width > 0;
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  // whether the point's topmost element belongs to the node (sampled at the centre and inset
  // corners: a node partly covered shows it at one of them)
  // (and what covers it where it is covered: for the failure's message)
  const coveredBy = (n, r = n.getBoundingClientRect()) => {
    const dx = Math.min(6, r.width / 4), dy = Math.min(6, r.height / 4);
    const points = [[(r.left + r.right) / 2, (r.top + r.bottom) / 2], [r.left + dx, r.top + dy],
      [r.right - dx, r.top + dy], [r.left + dx, r.bottom - dy], [r.right - dx, r.bottom - dy]];
    for (const [x, y] of points) {
      const hit = document.elementFromPoint(x, y);
      if (hit && (n === hit || n.contains(hit))) continue;
      return hit ? `${hit.tagName}#${hit.id}.${hit.getAttribute('class')} at ${x},${y}` : 'nothing';
    }
    return null;
  };
  const uncovered = (n, r) => coveredBy(n, r) === null;
  const out = {width: innerWidth, height: innerHeight,
    scroll: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
    oval: getComputedStyle(document.querySelector('#felt')).borderTopLeftRadius === '50%',
    parts: {}, pile: [], who: null, taken: [], tools: [], panels: []};
  const named = {felt: '#felt', status: '#game-status', hand: '#hand',
    people: '#board > #people-note', absent: '#host-absent'};
  for (const [name, sel] of Object.entries(named)) {
    const n = document.querySelector(sel);
    if (shown(n)) out.parts[name] = box(n);
  }
  const people = document.querySelector('#people-note');
  out.people = shown(people) ? {inGame: people.parentElement.id === 'board', box: box(people),
    free: uncovered(people), text: people.textContent} : null;
  const note = document.querySelector('#note');
  out.note = shown(note) && note.textContent ? {box: box(note), free: uncovered(note)} : null;
  for (const chip of document.querySelectorAll('#players .player')) {
    if (shown(chip)) out.parts['opponent' + chip.dataset.seat] = box(chip);
  }
  // the cards of a row, each with whether its own part (all of it, or the part left of the next
  // card where they overlap like a hand held open) is uncovered, and that part's width; a
  // joker's mark of the rank it stands for is part of the card
  const cards = (row) => {
    const svgs = [...row.querySelectorAll('svg')];
    return svgs.map((c, i) => {
      const r = c.getBoundingClientRect();
      const next = svgs[i + 1] && svgs[i + 1].getBoundingClientRect();
      const right = next && next.left < r.right ? next.left : r.right;
      const own = new DOMRect(r.left, r.top, right - r.left, r.height);
      const by = coveredBy(c.closest('.joker-in-place') || c, own);
      return {box: box(c), free: by === null, by, seen: right - r.left};
    });
  };
  const top = document.querySelector('#trick-plays .is-top');
  if (shown(top)) {
    out.pile = cards(top);
    const who = top.querySelector('.trick-who');
    out.who = {text: who.textContent, box: box(who), free: uncovered(who)};
  }
  const taken = document.querySelector('#taken');
  if (shown(taken)) {
    const words = taken.querySelector('.taken-words');
    out.taken = [{box: box(words), free: uncovered(words)}, ...cards(taken)];
  }
  const row = '.actions > button, .hint-tools > button, .hint-tools > details > summary';
  out.actionRow = [...document.querySelectorAll(row)].filter(shown).map(box);
  for (const b of document.querySelectorAll('.game-bar button')) {
    if (shown(b)) out.tools.push({id: b.id, box: box(b)});
  }
  const panels = ['#exchange', '#choices', '#round-results', '#away', '#host-absent', '#results',
    '#reaction-buttons', '#leave-dialog'];
  for (const sel of panels) {
    const n = document.querySelector(sel);
    if (!shown(n)) continue;
    // what scrolls inside the panel (a visually hidden text of 1 px is not content)
    const inner = [n, ...n.querySelectorAll('*')]
      .filter(e => shown(e) && getComputedStyle(e).overflowY !== 'visible')
      .filter(e => e.clientHeight > 2 && e.scrollHeight > e.clientHeight + 1)
      .map(e => e.id || e.className);
    const buttons = [...n.querySelectorAll('button, summary, a')].filter(shown)
      .map(b => ({text: b.textContent.trim(), box: box(b), free: uncovered(b)}));
    out.panels.push({id: sel, box: box(n), scrolls: inner, buttons});
  }
  return out;
}"""


def measured(page: Any) -> dict[str, Any]:
    """MEASURE, taken in the same task as the check that the screen is settled: no animation
    runs (a card flying to the pile, a won trick sweeping away, a hand card moving to its new
    place would lie over the play for a moment) and the connection is open (a banner about it
    takes the hand's room for a moment). Nothing can start between the check and the measure;
    the page is asked again until both hold."""
    settled = (
        "document.getAnimations().every(a => a.playState !== 'running')"
        f" && document.querySelector('{APP}').dataset.connection === 'open'"
    )
    handle = page.wait_for_function(f"() => ({settled}) && ({MEASURE})()", timeout=WAIT)
    found: dict[str, Any] = handle.json_value()
    return found


def touches_oval(rect: list[float], oval: list[float]) -> bool:
    """Whether a rectangle overlaps the ellipse inscribed in ``oval`` (scaled to a unit circle,
    the rectangle's nearest point to the centre tells)."""
    cx, cy = (oval[0] + oval[2]) / 2, (oval[1] + oval[3]) / 2
    a, b = (oval[2] - oval[0]) / 2, (oval[3] - oval[1]) / 2
    x = (min(max(cx, rect[0] + 0.5), rect[2] - 0.5) - cx) / a
    y = (min(max(cy, rect[1] + 0.5), rect[3] - 0.5) - cy) / b
    return x * x + y * y < 1


def check_screen(
    page: Any, where: str, phase: str, players: int, covered_hand: bool = False
) -> None:
    """Everything of the module's docstring, for one screen."""
    found = measured(page)
    width, height = found["width"], found["height"]
    scroll_w, scroll_h = found["scroll"]
    assert scroll_w <= width and scroll_h <= height, f"{where}: the page scrolls {found['scroll']}"
    if phase != "game-over":  # the game's end is a sheet over the page (checked as a panel)
        parts = found["parts"]
        wanted = ["felt", *(f"opponent{seat}" for seat in range(1, players))]
        if not covered_hand and phase != "round-results":  # no cards between rounds
            wanted.append("hand")
        for name in wanted:
            assert name in parts, f"{where}: the {name} is not shown"
        names = list(parts)
        for i, first in enumerate(names):
            assert inside(parts[first], width, height), (
                f"{where}: {first} {parts[first]} is off the screen"
            )
            for second in names[i + 1 :]:
                pair = {first, second}
                if found["oval"] and "felt" in pair and any(n != "felt" for n in pair):
                    chip = parts[(pair - {"felt"}).pop()]
                    assert not touches_oval(chip, parts["felt"]), f"{where}: {pair} overlap"
                    continue
                assert not overlaps(parts[first], parts[second]), (
                    f"{where}: {first} {parts[first]} overlaps {second} {parts[second]}"
                )
        felt = parts["felt"]
        assert felt[3] - felt[1] >= MIN_FELT, (
            f"{where}: the felt is {felt[3] - felt[1]:.0f} px tall"
        )
        assert found["tools"], f"{where}: no toolbar"
        for tool in found["tools"]:
            assert inside(tool["box"], width, height), f"{where}: toolbar {tool} is off the screen"
    for card in found["pile"]:
        assert inside(card["box"], width, height), (
            f"{where}: a card of the last play is off the screen"
        )
        assert card["box"][3] - card["box"][1] >= MIN_PILE_CARD, (
            f"{where}: a pile card is small {card}"
        )
        assert card["free"], f"{where}: a card of the last play is covered {card}"
        assert card["seen"] >= MIN_PILE_SEEN, f"{where}: a card of the last play is hidden {card}"
    if found["pile"]:
        assert found["who"]["free"] and inside(found["who"]["box"], width, height), (
            f"{where}: who played the last play is not seen {found['who']}"
        )
    for part in found["taken"]:
        assert part["free"] and inside(part["box"], width, height), f"{where}: the won trick {part}"
    for panel in found["panels"]:
        assert not panel["scrolls"], f"{where}: {panel['id']} scrolls inside: {panel['scrolls']}"
        assert inside(panel["box"], width, height), (
            f"{where}: {panel['id']} {panel['box']} is clipped"
        )
        for button in panel["buttons"]:
            if phase == "reactions" and panel["id"] == "#host-absent":
                button["free"] = True  # the picker may lie over the board's lines a moment
            assert inside(button["box"], width, height) and button["free"], (
                f"{where}: {panel['id']}: the button {button} is off the screen or covered"
            )
    # the note about the people at the table is a line of the board, seen whole (item 3)
    people = found["people"]
    if people and people["inGame"] and phase != "reactions":  # the picker may lie over it
        assert people["free"] and inside(people["box"], width, height), (
            f"{where}: the people note is covered or off the screen {people}"
        )
    # where the joker choice takes the hand's place (a large screen), the line that says what
    # Play will do stays in sight (item 4)
    # (on a phone the choice rises over the hand, its note and its buttons, by design)
    if phase == "joker-choice" and found["oval"]:
        note = found["note"]
        assert note and note["free"] and inside(note["box"], width, height), (
            f"{where}: what Play will do is not seen {note}"
        )
    if phase != "game-over":
        chips = page.evaluate(CHIP_TEXT)
        assert not chips, f"{where}: words cut in the chips: {chips}"
    if phase not in ("game-over", "round-results") and not covered_hand:
        # Play, Pass and the icons beside them: one line from 360 px on, on the screen (a
        # choice to clear took a second line from the felt at 360 px)
        row = found["actionRow"]
        assert row, f"{where}: no Play, Pass and icons"
        assert width < 360 or max(b[1] for b in row) - min(b[1] for b in row) < 4, (
            f"{where}: Play, Pass and the icons take two lines {row}"
        )
        assert all(inside(b, width, height) for b in row), f"{where}: a control is off {row}"
        areas = page.evaluate(HIT_AREAS)
        assert areas, f"{where}: no hand"
        for area in areas:
            assert area["w"] >= MIN_HIT and area["h"] >= MIN_HIT, f"{where}: hit area {area}"
        off = page.evaluate(
            "() => [...document.querySelectorAll('#hand .hand-card')].filter(c => { const r ="
            " c.getBoundingClientRect(); return r.left < 0 || r.top < 0 || r.right > innerWidth"
            " || r.bottom > innerHeight; }).map(c => c.dataset.card)"
        )
        assert not off, f"{where}: hand cards off the screen {off}"


# -- the positions ----------------------------------------------------------------------------


def positions(state: dict[str, Any], table: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Messages that bring the page to each phase, from the real state of my turn."""
    players = len(state["view"]["hand_counts"])
    hand = state["view"]["hand"]
    counter = [state["v"] + 1000]

    def make(events: list[Any] | None = None, **changes: Any) -> dict[str, Any]:
        message = copy.deepcopy(state)
        message["view"].update(copy.deepcopy(changes))
        message["events"] = events or []
        counter[0] += 10
        message["v"] = counter[0]
        return message

    pile = [
        {"seat": players - 1, "action": "play", "cards": ["9C", "9D"]},
        {"seat": 1, "action": "pass"},
        {"seat": 1 if players > 3 else 2, "action": "play", "cards": ["QH", "QS"]},
    ][-2 if players == 3 else 0 :]
    badges = {"revolution": True, "jack_back": True, "lock": ["H"]}
    turn = {"turn": 0, "passed": [], "phase": "play"}
    out: dict[str, list[dict[str, Any]]] = {}
    out["turn-pile"] = [make(trick=pile, **badges, **turn)]
    titles = titles_for(players)
    for role in dict.fromkeys(t for t in titles if t != "citizen"):
        seat_titles = [role, *[t for t in titles if t != role]] if role in titles else titles
        partner = {
            "president": "scum",
            "vice_president": "vice_scum",
            "scum": "president",
            "vice_scum": "vice_president",
        }[role]
        other = seat_titles.index(partner)
        count = 2 if role in ("president", "scum") else 1
        high = role in ("president", "vice_president")
        giver, receiver = (other, 0) if high else (0, other)
        exchange = exchange_fields(
            seat_titles,
            0 if high else other,
            [{"giver": giver, "receiver": receiver, "cards": hand[-count:], "automatic": True}],
            [{"giver": giver, "receiver": receiver, "count": count}],
            [{"action": "give", "cards": hand[:count]}] if high else [],
        )
        out[f"exchange-{role}"] = [make(**exchange)]
    if "citizen" in titles:
        # a citizen has nothing to do in the exchange: the others' pairs exchange, not mine
        others = list(titles)
        others.remove("citizen")
        seat_titles = ["citizen", *others]
        pairs = [
            {"giver": seat_titles.index(low), "receiver": seat_titles.index(high), "count": count}
            for low, high, count in (("scum", "president", 2), ("vice_scum", "vice_president", 1))
            if low in seat_titles
        ]
        out["exchange-citizen"] = [
            make(**exchange_fields(seat_titles, pairs[0]["receiver"], [], pairs, []))
        ]
    jokers = sorted(set(hand[3:]) | {"6H", "7H", "RJ"})
    straight = ["6H", "7H", "RJ"]
    out["joker-choice"] = [
        make(
            hand=jokers,
            hand_counts=[len(jokers), *state["view"]["hand_counts"][1:]],
            trick=[{"seat": 1, "action": "play", "cards": ["3S", "4S", "5S"]}],
            legal_moves=[
                {"action": "play", "cards": straight, "jokers": {"RJ": "5"}},
                {"action": "play", "cards": straight, "jokers": {"RJ": "8"}},
                {"action": "pass"},
            ],
            **turn,
        )
    ]
    mine = [{"seat": 0, "action": "play", "cards": [hand[0]]}]
    out["owed-give"] = [
        make(
            owed={"seat": 0, "kind": "give", "count": 1, "receiver": 1},
            legal_moves=[{"action": "give", "cards": [code]} for code in hand[1:]],
            trick=mine,
            **turn,
        )
    ]
    out["owed-discard"] = [
        make(
            owed={"seat": 0, "kind": "discard", "count": 2, "receiver": None},
            legal_moves=[{"action": "discard", "cards": hand[1:3]}],
            trick=mine,
            **turn,
        )
    ]
    away = make(trick=pile, **turn)
    away["away"] = [
        {"action": "play", "cards": ["4D"], "round": 1},
        {"action": "pass", "round": 1},
        {"action": "play", "cards": ["8C", "8S"], "round": 1},
    ]
    out["away-list"] = [away]
    out["reactions"] = [make(trick=pile, **turn)]
    out["card-chosen"] = [make(trick=pile, **turn)]  # and a card chosen: Clear the choice shows
    order = list(range(players))
    results = make(
        phase="round_over",
        trick=[],
        turn=None,
        hand=[],
        hand_counts=[0] * players,
        places=[order],
        finished=order,
        titles={str(s): t for s, t in enumerate(titles)},
        points=[players - s for s in order],
        legal_moves=[],
    )
    totals = [players - s for s in order]
    results["score"] = {"rounds": [totals], "totals": totals, "standings": None, "titles": None}
    out["round-results"] = [results]
    over = copy.deepcopy(results)
    over["view"]["phase"] = "game_over"
    over["score"] = {**results["score"], "standings": order}
    over["score"]["titles"] = {str(s): t for s, t in enumerate(titles)}
    over["v"] += 5
    out["game-over"] = [{**table, "phase": "over", "records": []}, over]
    return out


AWAY_NAMES = {"en": "Alexandra Featherstonehaugh", "ja": "長谷川ちひろ"}


def open_game(page: Any, server_url: str, players: int, lang: str) -> None:
    """A table of ``players`` seats: this page is the host in seat 0, computer players fill
    the others, the game starts and the page waits for its turn."""
    open_table(page, server_url, players, {"jokers": 2}, lang)
    # item 7: a tile of the lobby shows its name and its level whole, not cut
    cut = page.evaluate(
        "() => [...document.querySelectorAll('#seat-list .seat-name, #seat-list .seat-level')]"
        ".filter(n => n.scrollWidth > n.clientWidth + 1).map(n => n.textContent)"
    )
    assert not cut, f"lobby tiles cut at {page.viewport_size}: {cut}"
    page.click("#start-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", WAIT)


def with_a_person_away(table: dict[str, Any], lang: str) -> dict[str, Any]:
    """The table with seat 1 a person of a long name, offline, the computer playing for them
    (their chip shows the name cut with its whole name kept, and the away badge whole)."""
    out = copy.deepcopy(table)
    out["seats"][1].update(kind="human", name=AWAY_NAMES[lang], connected=False, auto=True)
    return out


def choose_a_card(page: Any) -> None:
    """The highest card of the hand chosen: Clear the choice shows."""
    page.click("#hand .hand-card >> nth=-1")
    wait_for(page, "!document.querySelector('#clear-button').hidden", WAIT)


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("players", [3, 4, 6, 8])
def test_every_phase_keeps_the_felt_and_nothing_is_clipped(
    players: int, lang: str, server_url: str, browser: Any, artifacts: Any
) -> None:
    shots = artifacts / "phone"
    shots.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_game(page, server_url, players, lang)
        state = page.evaluate("window.cardverseTable.state.state")
        table = page.evaluate("window.cardverseTable.state.table")
        # a person of a long name is away (items 1 and 2), and a note about the people at the
        # table stands until the next change (item 3)
        inject(page, with_a_person_away(table, lang))
        inject(page, {"type": "host_changed", "host": 0})
        wait_for(page, "document.querySelector('#players .away-badge') !== null", WAIT)
        wait_for(page, "document.querySelector('#board > #people-note:not([hidden])') !== null")
        for phase, messages in positions(state, table).items():
            if page.is_visible("#clear-button"):  # each phase from a hand with nothing chosen
                page.click("#clear-button")
            for message in messages:
                inject(page, message)
            covered_hand = phase in ("joker-choice", "away-list")
            if phase == "joker-choice":
                for code in ("6H", "7H", "RJ"):
                    page.click(f'#hand .hand-card[data-card="{code}"]')
                page.click("#play-button")
                wait_for(page, "!document.querySelector('#choices').hidden", WAIT)
            elif phase == "away-list":
                wait_for(page, "!document.querySelector('#away').hidden", WAIT)
            elif phase == "card-chosen":
                choose_a_card(page)
            elif phase == "exchange-citizen":
                wait_for(page, f"document.querySelector('{APP}').dataset.game === 'exchange'")
            elif phase.startswith("exchange"):
                wait_for(page, "!document.querySelector('#exchange').hidden", WAIT)
            elif phase == "round-results":
                wait_for(page, "!document.querySelector('#round-results').hidden", WAIT)
            elif phase == "game-over":
                wait_for(page, "!document.querySelector('#results').hidden", WAIT)
            for size, (width, height) in SIZES.items():
                page.set_viewport_size({"width": width, "height": height})
                wait_for(page, f"innerWidth === {width} && innerHeight === {height}", WAIT)
                if phase == "reactions":
                    if not page.evaluate("document.querySelector('#reaction-bar').open"):
                        page.click("#reaction-bar summary")
                    wait_for(page, "document.querySelector('#reaction-bar').open", WAIT)
                settle(page)
                page.screenshot(path=str(shots / f"{phase}-{players}p-{lang}-{size}.png"))
                where = f"{phase}, {players} players, {lang}, {size}"
                check_screen(page, where, phase, players, covered_hand)
                if players == 8 and size == "360x640":
                    # axe-core at every phase on the phone with the most to show
                    found = axe_violations(page, where)
                    assert found == [], "\n".join(found)
            if phase == "joker-choice":
                page.click("#choice-cancel")
            elif phase == "away-list":
                page.click("#away-close")
            elif phase == "reactions":
                page.keyboard.press("Escape")
            page.set_viewport_size({"width": 360, "height": 640})
        # Close shows the lobby behind the game's end, and the page is a page again
        page.click("#results-close")
        wait_for(page, "document.querySelector('#results').hidden", WAIT)
        wait_for(page, "!document.querySelector('#lobby').hidden", WAIT)
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize(
    ("players", "lang"), [(8, "ja"), (8, "en"), (3, "en"), (4, "ja"), (6, "en")]
)
def test_a_won_trick_is_seen_whole_before_it_sweeps_away(
    players: int, lang: str, server_url: str, browser: Any, artifacts: Any
) -> None:
    """A real game is played (the lowest play, or a pass, on each of my turns) until a trick
    is won; the page's clock is held by the test (``page.clock``), so that the won trick stays
    while it is measured at every size; then the clock is moved past its moment and the page
    sweeps it away. Nothing waits for time: every wait is for a state of the page."""
    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        now = time.time()
        page.clock.install(time=now)
        page.clock.pause_at(now + 5)  # the page's clock stands still unless the test moves it
        open_game(page, server_url, players, lang)
        taken = "!document.querySelector('#taken').hidden"
        my_turn = f"document.querySelector('{APP}').dataset.myTurn === 'true'"
        over = f"document.querySelector('{APP}').dataset.game === 'game_over'"
        for _ in range(80):
            # a trick won (it stays: the clock is held), my turn, or the game's end
            wait_for(page, f"{taken} || {my_turn} || {over}", WAIT)
            if page.evaluate(f"() => {taken}"):
                break
            assert not page.evaluate(f"() => {over}"), "the game ended and no trick was won"
            take_turn(page, keys=False)
        else:
            pytest.fail("no trick was won in 80 turns")
        no_hand = page.evaluate("document.querySelectorAll('#hand .hand-card').length === 0")
        seat = page.get_attribute("#taken", "data-seat")
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            wait_for(page, f"innerWidth === {width} && innerHeight === {height}", WAIT)
            settle(page, frames=False)
            page.screenshot(
                path=str(artifacts / "phone" / f"won-trick-{players}p-{lang}-{size}.png")
            )
            where = f"a trick won by seat {seat}, {players} players, {lang}, {size}"
            found = measured(page)
            assert found["taken"], f"{where}: the won trick is not on the table"
            check_screen(page, where, "won-trick", players, covered_hand=no_hand)
        page.clock.run_for(TAKEN_MS + 100)
        wait_for(page, "document.querySelector('#taken').hidden", WAIT)
        assert not errors, errors
    finally:
        context.close()


# The largest plays a table allows (R5, R6, R43): at 8 players a hand holds at most 7 cards,
# so a straight of 7 (jokers in it) is the most a won trick and the play after it can show; at
# 3 players a hand of 18 can hold a straight of all 13 ranks.
LARGEST_PLAYS = {
    8: (["4H", "5H", "6H", "7H", "8H", "RJ", "BJ"], {"RJ": "9", "BJ": "10"},
        ["5S", "6S", "7S", "8S", "9S", "10S", "RJ"], {"RJ": "J"}),
    3: (["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "RJ"],
        {"RJ": "2"},
        ["3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "BJ"],
        {"BJ": "2"}),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("players", [8, 3])
def test_the_last_play_is_whole_beside_the_largest_won_trick(
    players: int, lang: str, server_url: str, browser: Any, artifacts: Any
) -> None:
    """Issue 26: sideways at 8 players, a won trick beside a new play pushed a card of the play
    off the screen, when the deal made both large. Built here whatever the deal: the largest won
    trick and the largest play after it, both by the person of the longest name, the passes
    since (on a tall pile, lines above the play), every badge on, the note about the people and
    the list of players who are away on the board; at every
    size the play is whole, uncovered and readable, and so is the won trick (the felt sizes the
    cards from its room and their number)."""
    won, won_jokers, play, play_jokers = LARGEST_PLAYS[players]
    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        now = time.time()
        page.clock.install(time=now)
        page.clock.pause_at(now + 5)  # the won trick stays while it is measured
        open_game(page, server_url, players, lang)
        state = page.evaluate("window.cardverseTable.state.state")
        table = page.evaluate("window.cardverseTable.state.table")
        inject(page, with_a_person_away(table, lang))
        inject(page, {"type": "host_changed", "host": 0})
        message = copy.deepcopy(state)
        message["v"] += 100
        message["view"].update(
            trick=[
                {"seat": 1, "action": "play", "cards": play, "jokers": play_jokers},
                *({"seat": seat, "action": "pass"} for seat in (2, 0)[: players - 1]),
            ],
            turn=0, passed=[], phase="play", revolution=True, jack_back=True, lock=["S"],
        )  # fmt: skip
        message["events"] = [
            {"event": "played", "seat": 1, "cards": won, "jokers": won_jokers},
            {"event": "trick_ended", "seat": 1, "leader": 1, "cleared": True},
            {"event": "played", "seat": 1, "cards": play, "jokers": play_jokers},
        ]
        inject(page, message)
        wait_for(page, "!document.querySelector('#taken').hidden", WAIT)
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            wait_for(page, f"innerWidth === {width} && innerHeight === {height}", WAIT)
            settle(page, frames=False)
            page.screenshot(
                path=str(artifacts / "phone" / f"largest-trick-{players}p-{lang}-{size}.png")
            )
            where = f"the largest won trick and play, {players} players, {lang}, {size}"
            found = measured(page)
            assert len(found["pile"]) == len(play), f"{where}: the play shows {found['pile']}"
            assert (
                len([p for p in found["taken"] if p["box"][2] - p["box"][0] > 0]) == len(won) + 1
            ), f"{where}: the won trick shows {found['taken']}"
            check_screen(page, where, "won-trick", players)
        assert not errors, errors
    finally:
        context.close()


def test_the_host_keeps_the_table_when_a_friends_phone_drops(
    quick_grace_server: Any, browser: Any, artifacts: Any
) -> None:
    """Issue 26, item 1: the "Players who are away" list was a child of the screen's grid with
    no place of its own, so it took a new row of the grid and the felt's height (83 px -> 0 px)
    while the friend was away, and the hand's lines printed over the chips. Now it is a line of
    the board: the felt keeps its room, before and after the computer takes the seat."""
    host_context = browser.new_context(viewport={"width": 360, "height": 640})
    guest_context = browser.new_context(viewport={"width": 360, "height": 640})
    try:
        host = host_context.new_page()
        guest = guest_context.new_page()
        for page in (host, guest):
            page.set_default_timeout(WAIT)
        link = create_table(host, quick_grace_server.url, "en", "Ada")
        guest.goto(link)
        guest.fill("#sit-name", "Bo")
        guest.keyboard.press("Enter")
        wait_for(guest, f"document.querySelector('{APP}').dataset.seated === 'true'", WAIT)
        wait_for(host, "document.querySelectorAll('#seat-list .seat-human').length === 2", WAIT)
        host.click("#fill-button")
        wait_for(host, "document.querySelectorAll('#seat-list .seat-empty').length === 0", WAIT)
        host.click("#start-button")
        wait_for(host, "!document.querySelector('#game').hidden", WAIT)
        wait_for(guest, "!document.querySelector('#game').hidden", WAIT)
        settle(host)
        before = host.evaluate("document.querySelector('#felt').getBoundingClientRect().height")
        players = len(host.evaluate("window.cardverseTable.state.table.seats"))

        guest_context.close()  # the friend's phone drops mid-game
        wait_for(host, "!document.querySelector('#host-absent').hidden", WAIT)
        settle(host)
        check_screen(host, "the friend is offline", "away", players, covered_hand=True)
        wait_for(
            host,
            "window.cardverseTable.state.table.seats.some(s => s.name === 'Bo' && s.auto)",
            WAIT,
        )
        wait_for(host, "!document.querySelector('#host-absent').hidden", WAIT)
        settle(host)
        host.screenshot(path=str(artifacts / "phone-host-friend-dropped.png"))
        check_screen(host, "the computer plays for the friend", "away", players, True)
        after = host.evaluate("document.querySelector('#felt').getBoundingClientRect().height")
        assert after >= max(MIN_FELT, 0.6 * before), (
            f"the felt went from {before:.0f} to {after:.0f} px"
        )
        # the list is a line of the board: above the felt, below the chips, over nothing
        boxes = host.evaluate(
            "() => Object.fromEntries(['#players', '#host-absent', '#felt', '#hand-area',"
            " '.me-bar', '#game-status'].map(s => { const r = document.querySelector(s)"
            ".getBoundingClientRect(); return [s, [r.left, r.top, r.right, r.bottom]]; }))"
        )
        order = ["#players", "#host-absent", "#felt", "#hand-area"]
        for upper, lower in itertools.pairwise(order):
            assert boxes[upper][3] <= boxes[lower][1] + 0.5, f"{upper} runs into {lower}: {boxes}"
        for line in (".me-bar", "#game-status"):
            assert not overlaps(boxes[line], boxes["#players"]), f"{line} prints over the chips"
        assert host.get_by_role("button", name="Give Bo's seat to a computer player").is_visible()
    finally:
        host_context.close()


def test_a_choice_keeps_the_icons_on_one_line_in_every_language(
    server_url: str, browser: Any, artifacts: Any
) -> None:
    """Issue 26: at 360 px, 3 players, a person of a long name away and the note about the
    people shown, choosing a card showed Clear the choice beside Play and Pass, which pushed the
    icons to a second line and took the felt's room. Clear the choice ends my line above the
    hand now; Play, Pass and the icons stay one line in each of the five languages, and my line
    keeps its height when it shows (the note below the hand may take a second line to say what
    Play will do: that is the note's, not the button's)."""
    from cardverse.web.i18n import LANGUAGES

    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    try:
        open_game(page, server_url, 3, "en")
        for lang in LANGUAGES:
            page.goto(page.url.split("?")[0] + f"?lang={lang}")
            wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", WAIT)
            table = page.evaluate("window.cardverseTable.state.table")
            inject(page, with_a_person_away(table, lang if lang in AWAY_NAMES else "en"))
            inject(page, {"type": "host_changed", "host": 0})
            wait_for(page, "document.querySelector('#board > #people-note:not([hidden])') !== null")
            settle(page)
            where = f"a card chosen in {lang} at 360x640"
            before = page.evaluate(
                "document.querySelector('.me-bar').getBoundingClientRect().height"
            )
            choose_a_card(page)
            settle(page)
            page.screenshot(path=str(artifacts / "phone" / f"card-chosen-3p-{lang}-360x640.png"))
            check_screen(page, where, "card-chosen", 3)
            after = page.evaluate(
                "document.querySelector('.me-bar').getBoundingClientRect().height"
            )
            assert after == before, f"{where}: my line went from {before} to {after} px"
            clear = page.evaluate(
                "() => { const r = document.querySelector('#clear-button')"
                ".getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"
            )
            assert inside(clear, 360, 640) and clear[2] - clear[0] >= MIN_HIT, (
                f"{where}: Clear the choice {clear}"
            )
            page.click("#clear-button")
            wait_for(page, "document.querySelector('#clear-button').hidden", WAIT)
    finally:
        context.close()


def test_the_toolbar_fits_320_px_in_every_language_with_every_badge_on(
    server_url: str, browser: Any, artifacts: Any
) -> None:
    """Item 5: the badges live on the felt, the toolbar keeps the round and its icons, and it
    fits a 320 px screen in each of the five languages with revolution, jack back and lock on."""
    from cardverse.web.i18n import LANGUAGES

    context = browser.new_context(viewport={"width": 320, "height": 640})
    page = context.new_page()
    page.set_default_timeout(WAIT)
    try:
        open_game(page, server_url, 4, "en")
        for lang in LANGUAGES:
            page.goto(page.url.split("?")[0] + f"?lang={lang}")
            wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'", WAIT)
            state = page.evaluate("window.cardverseTable.state.state")
            table = page.evaluate("window.cardverseTable.state.table")
            inject(page, positions(state, table)["turn-pile"][0])
            wait_for(page, "!document.querySelector('#lock').hidden", WAIT)
            settle(page)
            where = f"the toolbar in {lang} at 320 px"
            page.screenshot(path=str(artifacts / "phone" / f"toolbar-{lang}-320x640.png"))
            bar = page.evaluate(
                "() => { const b = document.querySelector('.game-bar'); return [b.scrollWidth,"
                " b.clientWidth, [...b.querySelectorAll('button')].filter(n => n.checkVisibility())"
                ".map(n => n.getBoundingClientRect().right)]; }"
            )
            assert bar[0] <= bar[1] and len(bar[2]) == 5 and max(bar[2]) <= 320, f"{where}: {bar}"
            badges = page.evaluate(
                "() => [...document.querySelectorAll('#felt-badges > :not([hidden])')]"
                ".map(n => { const r = n.getBoundingClientRect(); return [r.left, r.right]; })"
            )
            assert len(badges) == 3 and all(left >= 0 and right <= 320 for left, right in badges)
            check_screen(page, where, "turn-pile", 4)
        # item 6: Leave asks first; Stay (the button focused) keeps the seat
        page.click("#game-leave-button")
        wait_for(page, "document.querySelector('#leave-dialog').open", WAIT)
        assert page.evaluate("document.activeElement.id") == "leave-stay"
        boxes = page.evaluate(
            "() => [...document.querySelectorAll('#leave-dialog, #leave-dialog button')]"
            ".map(n => { const r = n.getBoundingClientRect(); return [r.left, r.top, r.right,"
            " r.bottom]; })"
        )
        assert all(inside(box, 320, 640) for box in boxes), f"the leave dialog: {boxes}"
        page.keyboard.press("Enter")
        wait_for(page, "!document.querySelector('#leave-dialog').open", WAIT)
        assert page.get_attribute(APP, "data-seated") == "true"
    finally:
        context.close()
