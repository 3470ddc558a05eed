"""Playing cards drawn as SVG by the project (issue 5, item 3).

Each card shows its rank in the corner, and its suit three ways: a drawn shape, a letter inside
the large shape (C/D/H/S in English, the reader's own letters elsewhere) and a colour. The shapes
and letters alone tell the four suits apart, so colour is never needed. Every card carries an
accessible name ("queen of hearts") from the catalogs.
"""

from __future__ import annotations

from html import escape

from ..engine.cards import JOKER_NAMES, RANK_NAMES, SUIT_NAMES
from .i18n import Translator
from .messages import (
    JOKER_WORD,
    SUIT_LETTER_TO_KEY,
    card_label,
    rank_short,
    suit_letter,
)

WIDTH, HEIGHT = 60, 84
RED = "#b0001e"  # 7.3:1 on white
BLACK = "#1b1b1b"

# Suit shapes drawn in a 100 x 100 box.
SUIT_PATHS: dict[str, str] = {
    "hearts": (
        "M50 92C22 68 4 52 4 31C4 15 16 5 30 5C40 5 47 11 50 19C53 11 60 5 70 5"
        "C84 5 96 15 96 31C96 52 78 68 50 92Z"
    ),
    "diamonds": "M50 2L90 50L50 98L10 50Z",
    "spades": (
        "M50 3C27 26 5 42 5 61C5 76 16 85 29 85C37 85 43 82 47 76L41 97H59L53 76"
        "C57 82 63 85 71 85C84 85 95 76 95 61C95 42 73 26 50 3Z"
    ),
    "clubs": (
        "M50 4A21 21 0 0 0 33 37A21 21 0 1 0 46 73L40 97H60L54 73A21 21 0 1 0 67 37"
        "A21 21 0 0 0 50 4Z"
    ),
}
# Where the suit letter's baseline sits in the large shape (per cent of its height).
LETTER_BASELINE = {"hearts": 54, "diamonds": 66, "spades": 72, "clubs": 60}
STAR = "M50 4L61 38H97L68 59L79 94L50 72L21 94L32 59L3 38H39Z"


def _shape(path: str, x: float, y: float, size: float, fill: str, stroke: str = "") -> str:
    scale = size / 100
    extra = f' stroke="{stroke}" stroke-width="{2 / scale:.1f}"' if stroke else ""
    return (
        f'<path d="{path}" fill="{fill}"{extra} '
        f'transform="translate({x:g} {y:g}) scale({scale:g})"/>'
    )


def card_svg(code: str, t: Translator, *, width: int | None = None, css_class: str = "card") -> str:
    """One card as an inline ``<svg>`` element (``code`` in notation: ``QH``, ``10C``, ``RJ``)."""
    code = code.strip().upper()
    label = escape(card_label(code, t))
    size_attrs = f' width="{width}" height="{round(width * HEIGHT / WIDTH)}"' if width else ""
    head = (
        f'<svg class="{css_class}" viewBox="0 0 {WIDTH} {HEIGHT}"{size_attrs} role="img" '
        f'aria-label="{label}" xmlns="http://www.w3.org/2000/svg" data-card="{code}">'
        f"<title>{label}</title>"
        f'<rect x="1" y="1" width="{WIDTH - 2}" height="{HEIGHT - 2}" rx="5" fill="#fff" '
        f'stroke="#444" stroke-width="1.5"/>'
    )
    if code in JOKER_NAMES.values():
        return head + _joker_body(code, t) + "</svg>"
    rank, suit = code[:-1], SUIT_LETTER_TO_KEY[code[-1]]
    if rank not in RANK_NAMES or code[-1] not in SUIT_NAMES:
        raise ValueError(f"no card {code!r}")
    colour = RED if suit in ("hearts", "diamonds") else BLACK
    path = SUIT_PATHS[suit]
    rank_text = escape(rank_short(rank, t))
    letter = escape(suit_letter(suit, t))
    font = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-weight="700"'
    rank_size = 21 if len(rank_text) < 2 else 17
    x, y, size = 18, 39, 37
    letter_y = y + LETTER_BASELINE[suit] * size / 100
    letter_size = 15 if len(letter) < 2 else 12
    body = (
        f'<text x="5" y="22" font-size="{rank_size}" {font} fill="{colour}" '
        f'letter-spacing="-1">{rank_text}</text>'
        + _shape(path, 6, 26, 13, colour)
        # the large shape with the suit letter in it
        + _shape(path, x, y, size, colour)
        + f'<text x="{x + size / 2:g}" y="{letter_y:.1f}" font-size="{letter_size}" {font} '
        f'fill="#fff" text-anchor="middle">{letter}</text>'
    )
    return head + body + "</svg>"


def _joker_body(code: str, t: Translator) -> str:
    red = code == "RJ"
    colour = RED if red else BLACK
    word = escape(t.ctx(JOKER_WORD))
    font = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif" font-weight="700"'
    star = _shape(STAR, 12, 18, 36, colour) if red else _shape(STAR, 12, 18, 36, "#fff", colour)
    mark = "★" if red else "☆"
    return (
        f'<text x="5" y="15" font-size="12" {font} fill="{colour}">{mark}</text>'
        + star
        + f'<text x="30" y="72" font-size="{min(10, 58 / max(1, len(word)) * 1.6):.1f}" '
        f'{font} fill="{colour}" text-anchor="middle">{word}</text>'
    )


def all_card_codes(jokers: int = 2) -> list[str]:
    codes = [rank + suit for rank in RANK_NAMES for suit in SUIT_NAMES]
    return codes + list(JOKER_NAMES.values())[:jokers]
