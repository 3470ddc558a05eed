"""What the browser tests of the table share: opening a table through the API, giving the page a
message as if the server had sent it (and the messages of a three-seat game made up by the
test), waiting for the screen to settle, and measuring the screen (boxes, hit areas of the
hand's cards, the text of the opponents' chips)."""

from __future__ import annotations

from typing import Any

from .conftest import WAIT
from .test_table import APP, wait_for

SIZES = {
    "360x640": (360, 640),
    "390x844": (390, 844),
    "640x360": (640, 360),
    "1280x800": (1280, 800),
}
MIN_HIT = 44  # px: the least hit width and height of a card of the hand

# The part of each hand card that is its own (not covered by a later card), found by asking
# the browser which element is at each point of a grid over the card.
HIT_AREAS = """() => {
  const out = [];
  for (const card of document.querySelectorAll('#hand .hand-card')) {
    const r = card.getBoundingClientRect();
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let x = r.left + 1; x < r.right; x += 2) {
      for (let y = r.top + 1; y < r.bottom; y += 2) {
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('.hand-card') === card) {
          minX = Math.min(minX, x); maxX = Math.max(maxX, x);
          minY = Math.min(minY, y); maxY = Math.max(maxY, y);
        }
      }
    }
    out.push({card: card.dataset.card, w: maxX - minX + 2, h: maxY - minY + 2});
  }
  return out;
}"""

# Each opponent's chip: whether its words stand whole inside it. A name may end in "…" only
# when the whole name is its tooltip and its screen readers' text; a number ending a name, the
# away badge and every word of the second line are never cut.
CHIP_TEXT = """() => {
  const cut = (n) => n.scrollWidth > n.clientWidth + 1;
  const out = (n, box) => {
    const r = n.getBoundingClientRect();
    return r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
      || r.bottom > box.bottom + 0.5;
  };
  const wrong = [];
  for (const chip of document.querySelectorAll('#players .player')) {
    if (!chip.checkVisibility()) continue;
    const box = chip.getBoundingClientRect();
    const name = chip.querySelector('.player-name');
    const full = name.querySelector('.sr-only').textContent;
    const stem = name.querySelector('.name-stem');
    if (cut(stem) && name.title !== full) wrong.push(`${full}: cut without its whole name`);
    const shown = [...name.querySelectorAll('.name-shown > *')].map(n => n.textContent).join('');
    const bare = (text) => text.replace(/\\s/g, '');
    if (bare(shown) !== bare(full)) wrong.push(`${full}: shows ${shown}`);
    const parts = [...chip.querySelectorAll('.name-tail, .away-badge, .player-meta > *')]
      .filter(n => n.checkVisibility() && n.getBoundingClientRect().width > 1);
    for (const part of parts) {
      const words = part.textContent;
      if (part.classList.contains('player-count')) {
        const digits = part.querySelector('.count-short');
        const whole = !cut(digits) && !out(digits, box);
        if (digits.checkVisibility() && !whole) wrong.push(`${full}: ${words}`);
        continue;
      }
      if (cut(part) || out(part, box)) wrong.push(`${full}: "${words}" is cut`);
    }
    if (chip.scrollHeight > chip.clientHeight + 1) wrong.push(`${full}: the chip's lines are cut`);
  }
  return wrong;
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def inside(box: list[float], width: int, height: int) -> bool:
    left, top, right, bottom = box
    return left >= -0.5 and top >= -0.5 and right <= width + 0.5 and bottom <= height + 0.5


def inject(page: Any, message: dict[str, Any]) -> None:
    """The page handles ``message`` as if the server had sent it."""
    page.evaluate("message => window.cardverseTable.receive(message)", message)


# A three-seat game given to the page by the test: three people, seat 0 (the host) is this page.
GIVEN_NAMES = ["Ada", "Bo", "Cy"]
GIVEN_HAND = ["3C", "9D", "KH"]


def given_view(rules: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """Seat 0's view in round 1 of a three-seat table, my turn, a 7♣ on the pile."""
    view: dict[str, Any] = {
        "seat": 0, "rules": rules, "round": 1, "phase": "play",
        "hand": GIVEN_HAND, "hand_counts": [3, 10, 10], "turn": 0, "leader": 0,
        "trick": [{"seat": 0, "action": "play", "cards": ["7C"]}],
        "history": [{"trick": 0, "seat": 0, "action": "play", "cards": ["7C"]}],
        "passed": [], "finished": [], "round_places": [-1, -1, -1], "from_bottom": [],
        "fallen": [], "out_of_play": [0, 0, 0], "discarded": [], "revolution": False,
        "jack_back": False, "reversed_order": False, "lock": [], "owed": None,
        "points": [0, 0, 0], "places": [], "titles": {}, "exchange": [], "exchange_pairs": [],
        "gives": [], "legal_moves": [],
    }  # fmt: skip
    view.update(changes)
    return view


def given_messages(
    table_id: str,
    rules: dict[str, Any],
    v: int,
    view: dict[str, Any],
    events: list[Any] | None = None,
    **extra: Any,
) -> list[dict[str, Any]]:
    """The messages that bring the page to ``view`` as state ``v``: first (v == 1) the table
    during a game and seat 0 welcomed back to it, then the state."""
    messages: list[dict[str, Any]] = []
    if v == 1:
        seats = [
            {"seat": i, "kind": "human", "name": name, "level": None, "connected": True}
            | {"auto": None, "host": i == 0}
            for i, name in enumerate(GIVEN_NAMES)
        ]
        messages += [
            {"type": "table", "table_id": table_id, "phase": "playing", "host": 0}
            | {"rules": rules, "turn_timer": None, "game": 1, "records": [], "seats": seats},
            {"type": "welcome", "seat": 0, "name": "Ada", "host": True, "last_seq": 0}
            | {"resumed": True},
        ]
    messages.append(
        {"type": "state", "v": v, "at": {"game": 1, "round": 1, "step": v}}
        | {"view": view, "timer": None, "events": events or []}
        | extra
    )
    return messages


def titles_for(players: int) -> list[str]:
    """The titles of the seats in order, first place first."""
    middle = ["citizen"] * max(0, players - 4)
    if players >= 4:
        return ["president", "vice_president", *middle, "vice_scum", "scum"]
    return ["president", "citizen", "scum"]


def exchange_fields(
    titles: list[str],
    turn: int,
    exchange: list[dict[str, Any]],
    pairs: list[dict[str, Any]],
    moves: list[dict[str, Any]],
) -> dict[str, Any]:
    """The fields of a view in the card exchange before round 2, the seats titled ``titles``
    (in seat order) and ``turn`` to give."""
    return {
        "phase": "exchange",
        "round": 2,
        "trick": [],
        "history": [],
        "passed": [],
        "places": [list(range(len(titles)))],
        "titles": {str(s): t for s, t in enumerate(titles)},
        "turn": turn,
        "exchange": exchange,
        "exchange_pairs": pairs,
        "legal_moves": moves,
    }


def open_table(
    page: Any,
    server_url: str,
    players: int,
    rules: dict[str, Any] | None = None,
    lang: str = "en",
    fill: bool = True,
) -> str:
    """A table of ``players`` seats made through the API; this page takes seat 0 with its
    token and (with ``fill``) fills the other seats with computer players; it waits in the
    lobby. Returns the table's id."""
    created = page.request.post(
        f"{server_url}/api/tables",
        data={"name": "Ada", "rules": {"preset": "standard", "players": players, **(rules or {})}},
    ).json()
    table_id = created["table_id"]
    page.goto(f"{server_url}/t/{table_id}?lang={lang}")
    page.evaluate(
        "([id, token]) => localStorage.setItem('cardverse.seat.' + id,"
        " JSON.stringify({seat: 0, token}))",
        [table_id, created["token"]],
    )
    page.reload()
    wait_for(page, f"document.querySelector('{APP}').dataset.seated === 'true'", WAIT)
    if fill:
        page.click("#fill-button")
        wait_for(
            page,
            f"document.querySelectorAll('#seat-list .seat-bot').length === {players - 1}",
            WAIT,
        )
    return str(table_id)


def settle(page: Any, frames: bool = True) -> None:
    """No animation running (and, with ``frames``, two frames drawn): the screen as the player
    sees it. A page whose clock the test holds (``page.clock``) draws no frame: no ``frames``."""
    if frames:
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    wait_for(page, "document.getAnimations().every(a => a.playState !== 'running')", WAIT)
