"""The table as one screen, in a real browser against the real server (issue 9).

At three phone sizes and 1280x800, with 3, 4, 6 and 8 players, every phase (lobby, play,
joker choice, exchange, round results, game over) keeps the hand, Play and Pass, the pile and
every opponent inside the viewport without overlapping (measured from bounding boxes), and
every card of the hand keeps a hit area of at least 44 px. The lobby and the play are the
server's own; the other phases are drawn from the real state of that game with the phase's
fields changed (the page draws whatever state it is given), so that every phase can be seen at
every size without waiting for chance to bring it. Where a phase has no Play or Pass (the
exchange has Give back; the round's results have nothing to play) they are not asked for; at
the game's end the table makes way for the standings, which must fit with their buttons.
Screenshots of every phase at every size go to test-artifacts/web/screen/.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .table_support import (
    HIT_AREAS,
    MIN_HIT,
    exchange_fields,
    inject,
    open_table,
    overlaps,
    titles_for,
)
from .test_browser import CONTRAST
from .test_table import APP, wait_for

SIZES = {
    "360x640": (360, 640),
    "390x844": (390, 844),
    "412x915": (412, 915),
    "1280x800": (1280, 800),
}
# Boxes of what must be on screen, per phase: name -> CSS selector (visible ones only).
GAME_PARTS = {
    "hand": "#hand",
    "play": "#play-button",
    "pass": "#pass-button",
    "pile": "#pile",
}

MEASURE = """(selectors) => {
  const out = {};
  for (const [name, selector] of Object.entries(selectors)) {
    const nodes = [...document.querySelectorAll(selector)].filter(n => n.checkVisibility());
    nodes.forEach((n, i) => {
      const r = n.getBoundingClientRect();
      out[nodes.length > 1 ? `${name}${i}` : name] = [r.left, r.top, r.right, r.bottom];
    });
  }
  return {boxes: out, width: innerWidth, height: innerHeight,
          scroll: document.scrollingElement.scrollHeight};
}"""


def check_screen(page: Any, where: str, parts: dict[str, str], inside: dict[str, str]) -> None:
    """Everything in ``parts`` is inside the viewport and overlaps nothing else of ``parts``;
    everything in ``inside`` is inside the viewport (a panel may lie on the pile area)."""
    found = page.evaluate(MEASURE, {**parts, **inside})
    boxes, width, height = found["boxes"], found["width"], found["height"]
    for name, (left, top, right, bottom) in boxes.items():
        assert left >= -0.5 and top >= -0.5 and right <= width + 0.5 and bottom <= height + 0.5, (
            f"{where}: {name} {[round(v) for v in (left, top, right, bottom)]} is not inside "
            f"the {width}x{height} viewport"
        )
    names = [n for n in boxes if not any(n.startswith(k) for k in inside)]
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            assert not overlaps(boxes[first], boxes[second]), (
                f"{where}: {first} {boxes[first]} overlaps {second} {boxes[second]}"
            )
    for name in parts:
        assert any(n.startswith(name) for n in boxes), f"{where}: {name} is not shown"


def check_cards_in_hand(page: Any, where: str) -> None:
    """Every card of the hand lies inside the hand's box (which nothing else overlaps)."""
    outside = page.evaluate(
        "(() => { const h = document.querySelector('#hand').getBoundingClientRect();"
        " return [...document.querySelectorAll('#hand .hand-card')].filter(c => {"
        " const r = c.getBoundingClientRect(); return r.left < h.left - 0.5 || r.right > h.right"
        " + 0.5 || r.top < h.top - 0.5 || r.bottom > h.bottom + 0.5; }).map(c => c.dataset.card);"
        " })()"
    )
    assert not outside, f"{where}: cards outside the hand: {outside}"


def check_hit_areas(page: Any, where: str) -> None:
    for area in page.evaluate(HIT_AREAS):
        assert area["w"] >= MIN_HIT and area["h"] >= MIN_HIT, f"{where}: {area}"


def phase_states(state: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """The real state of my turn, and the same game at the other phases."""
    players = len(state["view"]["hand_counts"])
    v = state["v"] + 1000
    out: dict[str, Any] = {}

    choice = copy.deepcopy(state)
    view = choice["view"]
    view["hand"] = sorted(set(view["hand"][3:]) | {"6H", "7H", "RJ"})
    view["hand_counts"][0] = len(view["hand"])
    view["trick"], view["turn"], view["passed"] = [], 0, []
    straight = ["6H", "7H", "RJ"]
    view["legal_moves"] = [
        {"action": "play", "cards": straight, "jokers": {"RJ": "5"}},
        {"action": "play", "cards": straight, "jokers": {"RJ": "8"}},
        {"action": "play", "cards": ["7H"]},
    ]
    choice["v"] = v
    out["joker-choice"] = choice

    exchange = copy.deepcopy(state)
    view = exchange["view"]
    mine = [{"giver": players - 1, "receiver": 0, "cards": view["hand"][-2:], "automatic": True}]
    pairs = [{"giver": players - 1, "receiver": 0, "count": 2}]
    moves = [{"action": "give", "cards": view["hand"][:2]}]
    view.update(exchange_fields(titles_for(players), 0, mine, pairs, moves))
    exchange["v"] = v + 1
    out["exchange"] = exchange

    results = copy.deepcopy(state)
    view = results["view"]
    order = list(range(players))
    view.update(
        phase="round_over",
        trick=[],
        turn=None,
        hand=[],
        hand_counts=[0] * players,
        places=[order],
        finished=order,
        titles={str(s): t for s, t in enumerate(titles_for(players))},
        points=[players - s for s in order],
        legal_moves=[],
    )
    results["score"] = {
        "rounds": [[players - s for s in order]],
        "totals": [players - s for s in order],
        "standings": None,
        "titles": None,
    }
    results["v"] = v + 2
    out["round-results"] = results

    over = copy.deepcopy(results)
    over["view"]["phase"] = "game_over"
    over["score"]["standings"] = order
    over["score"]["titles"] = {str(s): t for s, t in enumerate(titles_for(players))}
    over["v"] = v + 3
    out["game-over"] = over
    out["game-over-table"] = {**table, "phase": "over", "records": []}
    for name, message in out.items():
        if name != "game-over-table":
            message["events"] = []  # what led to the real state was told already
    return out


def chips(players: int) -> dict[str, str]:
    return {
        f"opponent{seat}": f'#players .player[data-seat="{seat}"]' for seat in range(1, players)
    }


@pytest.mark.parametrize("players", [3, 4, 6, 8])
def test_every_phase_fits_one_screen_at_every_size(
    players: int, server_url: str, browser: Any, artifacts: Any
) -> None:
    shots = artifacts / "screen"
    shots.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        open_table(page, server_url, players, {"jokers": 2})

        def each_size(phase: str, parts: dict[str, str], inside: dict[str, str]) -> None:
            for size, (width, height) in SIZES.items():
                page.set_viewport_size({"width": width, "height": height})
                # A function, not an expression: the page's CSP forbids eval.
                page.wait_for_function(f"() => innerWidth === {width}")
                page.evaluate("window.scrollTo(0, 0)")
                page.evaluate(
                    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
                )
                wait_for(page, "document.getAnimations().every(a => a.playState !== 'running')")
                page.screenshot(path=str(shots / f"{phase}-{players}p-{size}.png"))
                where = f"{phase}, {players} players, {size}"
                check_screen(page, where, parts, inside)
                if "hand" in parts:
                    check_hit_areas(page, where)
                    check_cards_in_hand(page, where)
                if size == "360x640":
                    failures = page.evaluate(CONTRAST)
                    assert not failures, f"{where}: low contrast {failures[:5]}"

        host_lobby = {"share": "#share-link", "seats": "#seat-list", "start": "#start-button"}
        each_size("lobby", host_lobby, {})

        page.click("#start-button")
        wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
        each_size("play", {**GAME_PARTS, **chips(players)}, {})

        state = page.evaluate("window.cardverseTable.state.state")
        table = page.evaluate("window.cardverseTable.state.table")
        variants = phase_states(state, table)

        inject(page, variants["joker-choice"])
        for code in ("6H", "7H", "RJ"):
            page.click(f'#hand .hand-card[data-card="{code}"]')
        page.click("#play-button")
        wait_for(page, "!document.querySelector('#choices').hidden")
        # the choice rises over the hand (issue 26): the play to beat stays in sight above it
        each_size("joker-choice", {"pile": "#pile", **chips(players)}, {"choices": "#choices"})
        page.click("#choice-cancel")

        inject(page, variants["exchange"])
        wait_for(page, "!document.querySelector('#exchange').hidden")
        each_size(
            "exchange",
            {"hand": "#hand", "play": "#play-button", "pile": "#pile", **chips(players)},
            {"exchange": "#exchange"},
        )

        inject(page, variants["round-results"])
        wait_for(page, "!document.querySelector('#round-results').hidden")
        each_size(
            "round-results", {"pile": "#pile", **chips(players)}, {"results": "#round-results"}
        )

        inject(page, variants["game-over-table"])
        inject(page, variants["game-over"])
        wait_for(page, "!document.querySelector('#results').hidden")
        each_size(
            "game-over",
            {"winner": "#winner", "standings": "#final-body", "again": "#rematch-button"},
            {},
        )
        assert not errors, errors
    finally:
        context.close()


def test_a_joker_is_drawn_where_it_stands(server_url: str, browser: Any, artifacts: Any) -> None:
    """In a straight a joker is drawn in the place of the rank it stands for, marked with that
    rank; in a set it is drawn beside the natural cards. The play to beat is highlighted."""
    context = browser.new_context(viewport={"width": 360, "height": 640})
    page = context.new_page()
    try:
        open_table(page, server_url, 3, {"jokers": 2, "straights": True})
        page.click("#start-button")
        wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
        state = page.evaluate("window.cardverseTable.state.state")
        state["v"] += 1000
        state["events"] = []
        state["view"]["trick"] = [
            {"seat": 1, "action": "play", "cards": ["7H", "RJ"]},
            {"seat": 2, "action": "play", "cards": ["5S", "BJ", "7S"], "jokers": {"BJ": "6"}},
        ]
        inject(page, state)
        order = page.eval_on_selector_all(
            "#trick-plays .is-top svg", "els => els.map(e => e.dataset.card)"
        )
        assert order == ["5S", "BJ", "7S"]
        assert page.inner_text("#trick-plays .is-top .joker-as") == "6"
        earlier = page.eval_on_selector_all(
            "#trick-plays .trick-play:not(.is-top) svg", "els => els.map(e => e.dataset.card)"
        )
        assert earlier == ["7H", "RJ"]
        assert page.locator("#trick-plays .joker-as").count() == 1
        # A set's joker naming its card (R44) is marked with that card, beside its suit.
        state["v"] += 1
        state["view"]["trick"] = [
            {"seat": 1, "action": "play", "cards": ["7S", "RJ", "7C"], "jokers": {"RJ": "7H"}},
        ]
        inject(page, state)
        wait_for(page, "document.querySelectorAll('#trick-plays .joker-as').length === 1")
        order = page.eval_on_selector_all(
            "#trick-plays .is-top svg", "els => els.map(e => e.dataset.card)"
        )
        assert order == ["7C", "RJ", "7S"]
        assert page.inner_text("#trick-plays .is-top .joker-as") == "7♥"
        label = page.get_attribute("#trick-plays .is-top .card-group", "aria-label") or ""
        assert "Red joker as 7♥" in label
        wait_for(page, "document.getAnimations().length === 0")  # the earlier trick swept away
        page.screenshot(path=str(artifacts / "joker-names-its-card-360x640.png"))
    finally:
        context.close()
