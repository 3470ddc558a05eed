"""The table page kept by `change` messages (issue 13): the server tells each change of the game
as what changed, the page applies it to its one state object, and what it draws is what a reload
(a full state) draws. A change that does not follow the state the page holds (a gap in the
numbers) makes the page ask for the full state again.

The test plays a whole game (two rounds, so with an exchange) against computer players; at
several of its turns, and once the game is over, it reloads the page and compares the state
object and the drawn screen with those before the reload.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from .table_support import inject, open_table
from .test_table import APP, WAIT, data, take_turn, wait_for
from .test_table_story import new_page, start_game

# What the page draws (the parts that stay; a won trick shown for a moment is left out) and its
# one state object.
DRAWN = """() => {
  const text = (id) => {
    const node = document.getElementById(id);
    return node && node.checkVisibility() ? node.innerText : null; // what is on the screen
  };
  const app = document.querySelector('#table-app').dataset;
  const state = window.cardverseTable.state;
  return {
    view: state.view,
    score: state.score,
    events: state.events,
    data: {phase: app.phase, game: app.game, myTurn: app.myTurn, v: app.v,
           players: app.players},
    hand: [...document.querySelectorAll('#hand .hand-card')]
      .filter((e) => e.checkVisibility()).map((e) => e.dataset.card),
    regions: Object.fromEntries(
      ['players', 'trick-plays', 'round-info', 'my-title', 'my-points', 'my-state', 'log',
       'exchange-lines', 'round-results-body', 'revolution', 'jack-back', 'lock-text',
       'results', 'final-body', 'last-round-body'].map((id) => [id, text(id)])),
  };
}"""


class Frames:
    """The page's WebSockets routed through the test, counting the server's messages by type
    and keeping what the page sends."""

    def __init__(self, page: Any) -> None:
        self.kinds: dict[str, int] = {}
        self.sent: list[dict[str, Any]] = []
        page.route_web_socket(re.compile(r"/ws/"), self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()

        def to_page(message: Any) -> None:
            kind = json.loads(message)["type"]
            self.kinds[kind] = self.kinds.get(kind, 0) + 1
            ws.send(message)

        def to_server(message: Any) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        server.on_message(to_page)
        ws.on_message(to_server)
        ws.on_close(lambda code, reason: server.close())
        server.on_close(lambda code, reason: ws.close())


def drawn(page: Any) -> dict[str, Any]:
    return page.evaluate(DRAWN)  # type: ignore[no-any-return]


def settled(page: Any) -> dict[str, Any]:
    """The drawn state once no won trick is on show (it is swept after a moment)."""
    wait_for(page, "!window.cardverseTable.state.taken", WAIT)
    return drawn(page)


def reload_and_compare(page: Any, where: str) -> None:
    before = settled(page)
    page.reload()
    wait_for(page, f"document.querySelector('{APP}').dataset.v === '{before['data']['v']}'")
    wait_for(page, f"window.cardverseTable.state.events.length === {len(before['events'])}")
    after = settled(page)
    for key in before:
        assert after[key] == before[key], (where, key, before[key], after[key])


def test_a_game_told_by_changes_draws_what_a_reload_draws(server_url: str, browser: Any) -> None:
    page = new_page(browser)
    frames = Frames(page)
    try:
        open_table(page, server_url, 4, {"rounds": 2})
        start_game(page)
        turns = 0
        checks = 0
        deadline = time.monotonic() + 120
        while data(page, "game") != "game_over":
            assert time.monotonic() < deadline, "the game did not end in time"
            wait_for(
                page,
                f"document.querySelector('{APP}').dataset.myTurn === 'true'"
                f" || document.querySelector('{APP}').dataset.game === 'game_over'",
                30_000,
            )
            if data(page, "game") == "game_over":
                break
            if turns % 6 == 3:
                reload_and_compare(page, f"turn {turns}")
                checks += 1
            if take_turn(page, keys=False):
                turns += 1
        wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'over'")
        reload_and_compare(page, "game over")
        assert checks >= 2, checks
        # The game came as changes: far more of them than full states (one per reload or so).
        assert frames.kinds.get("change", 0) > 5 * frames.kinds.get("state", 0), frames.kinds
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()


def test_a_gap_in_the_changes_brings_the_full_state(server_url: str, browser: Any) -> None:
    page = new_page(browser)
    frames = Frames(page)
    try:
        open_table(page, server_url, 4, {})
        start_game(page)
        wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
        before = settled(page)
        v = int(before["data"]["v"])
        syncs = sum(1 for m in frames.sent if m["type"] == "sync")
        # A change that follows a state this page never got: it is not applied, and the page
        # asks for the full state (once), which draws the same screen again.
        inject(
            page,
            {
                "type": "change",
                "v": v + 2,
                "from": v + 1,
                "at": {"game": 1, "round": 1, "step": 99},
                "timer": None,
                "events": [],
                "view": {"turn": None, "hand": []},
            },
        )
        assert page.evaluate("window.cardverseTable.state.resyncAt") == v  # asked for it
        wait_for(page, "window.cardverseTable.state.resyncAt === null")  # and it came
        assert sum(1 for m in frames.sent if m["type"] == "sync") == syncs + 1
        after = settled(page)
        assert after == before
        assert data(page, "my-turn") == "true"
        assert not page.js_errors, page.js_errors
    finally:
        page.context.close()
