"""What the browser tests of the table share: opening a table through the API, giving the page a
message as if the server had sent it, waiting for the screen to settle, and measuring the
screen (boxes, hit areas of the hand's cards, the text of the opponents' chips)."""

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


def titles_for(players: int) -> list[str]:
    """The titles of the seats in order, first place first."""
    middle = ["citizen"] * max(0, players - 4)
    if players >= 4:
        return ["president", "vice_president", *middle, "vice_scum", "scum"]
    return ["president", "citizen", "scum"]


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
