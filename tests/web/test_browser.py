"""The pages in a real browser (Debian's Chromium through Playwright), as a person sees them.

Screenshots go to test-artifacts/web/ (phone 360x640 and desktop 1280x800) to be looked at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from cardverse.web.i18n import LANGUAGES, catalog

SIZES = {"phone": (360, 640), "desktop": (1280, 800)}
PAGES = {
    "home": "/",
    "rules-revolution": "/rules/revolution",
    "rules-straights": "/rules/straights",
    "not-found": "/no/such/page",
    "rules-sheet": "/rules/sheet?preset=cardverse&players=5&rounds=3",
    "rules-sheet-all": "/rules/sheet?players=4&rounds=3&revolution=on&straights=on&jokers=2"
    "&eight_stop=on",
}
ENGLISH_WORDS = re.compile(r"\b(?:the|and|you|your|with|of|is|are|this|that|cards?)\b")
PLACEHOLDER = re.compile(r"%\(\w+\)s")

# Visible text of the page, leaving out what is marked as another language (the language switch).
VISIBLE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  const lang = document.documentElement.lang;
  body.querySelectorAll('[lang]').forEach(el => { if (el.lang !== lang) el.remove(); });
  body.querySelectorAll('script, style, svg').forEach(el => el.remove());
  document.documentElement.appendChild(body);
  body.style.position = 'absolute';
  const text = body.innerText;
  body.remove();
  return text;
}"""

# WCAG AA: every element with its own text, against the first opaque background behind it.
CONTRAST = """() => {
  const parse = c => {
    const m = c.match(/[\\d.]+/g).map(Number);
    return m.length > 3 ? m : [...m, 1];
  };
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = parse(getComputedStyle(el).backgroundColor);
      if (c[3] > 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  const failures = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg')) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const box = el.getBoundingClientRect();
    if (!own || box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    const fg = parse(style.color), bg = background(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) {
      const text = el.textContent.trim().slice(0, 30);
      failures.push(`${el.tagName}.${el.className} ${ratio.toFixed(2)} "${text}"`);
    }
  }
  return failures;
}"""


@pytest.fixture
def context_factory(browser: Any) -> Iterator[Any]:
    contexts = []

    def make(size: str = "desktop", **options: Any) -> Any:
        width, height = SIZES[size]
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def _english_strings(lang: str) -> list[str]:
    """English catalog strings that the language translates differently (so must not show)."""
    target = catalog(lang)
    translated_text = " ".join(
        form
        for message in target
        if message.id
        for form in (message.string if isinstance(message.string, tuple) else (message.string,))
    )
    out = []
    for message in target:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        for english in ids:
            for fragment in PLACEHOLDER.split(english):
                fragment = fragment.strip(" .,:;()")
                if len(fragment) < 4 or not re.search(r"[A-Za-z]{3}", fragment):
                    continue
                if fragment in translated_text:  # a name the language keeps (Dai Fugō, Beta)
                    continue
                out.append(fragment)
    return sorted(set(out), key=len, reverse=True)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_english_left_over(
    lang: str, server_url: str, context_factory: Any, artifacts: Any
) -> None:
    english = _english_strings(lang)
    page = context_factory("desktop").new_page()
    for name, path in PAGES.items():
        sep = "&" if "?" in path else "?"
        page.goto(f"{server_url}{path}{sep}lang={lang}")
        assert page.evaluate("document.documentElement.lang") == lang
        text = page.evaluate(VISIBLE_TEXT)
        left = [s for s in english if re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)]
        assert not left, f"{lang} {name}: English left over: {left[:5]}"
        words = ENGLISH_WORDS.findall(text)
        assert not words, f"{lang} {name}: English words {words[:5]} in {text[:300]!r}"


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_screenshots_and_layout(
    lang: str, size: str, server_url: str, context_factory: Any, artifacts: Any
) -> None:
    page = context_factory(size).new_page()
    width = SIZES[size][0]
    for name, path in PAGES.items():
        sep = "&" if "?" in path else "?"
        page.goto(f"{server_url}{path}{sep}lang={lang}")
        page.screenshot(path=str(artifacts / f"{name}-{lang}-{size}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name} {lang}: the page is {overflow}px wide at {width}px"
        hidden = page.evaluate(
            "[...document.querySelectorAll('.table-scroll')]"
            ".map(e => e.scrollWidth - e.clientWidth).filter(d => d > 0)"
        )
        assert not hidden, f"{name} {lang}: a table needs sideways scrolling at {width}px"
        failures = page.evaluate(CONTRAST)
        assert not failures, f"{name} {lang} {size}: low contrast {failures[:5]}"


def test_skip_link_and_visible_focus(server_url: str, context_factory: Any) -> None:
    page = context_factory("phone").new_page()
    page.goto(f"{server_url}/rules?lang=en")
    page.keyboard.press("Tab")
    # it slides into view (no motion when the person asks for none)
    page.wait_for_function("() => document.activeElement.getBoundingClientRect().top >= 0")
    focused = page.evaluate(
        "() => { const el = document.activeElement; const r = el.getBoundingClientRect();"
        " const s = getComputedStyle(el);"
        " return {cls: el.className, top: r.top, outline: s.outlineStyle, width: s.outlineWidth}; }"
    )
    assert focused["cls"] == "skip-link" and focused["top"] >= 0
    assert focused["outline"] != "none" and focused["width"] != "0px"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.keyboard.press("Tab")  # the next stop is inside the main content
    assert page.evaluate("document.activeElement.closest('main') !== null")


def test_language_choice_is_kept(server_url: str, context_factory: Any) -> None:
    page = context_factory("desktop", locale="fi-FI").new_page()
    page.goto(f"{server_url}/")
    assert page.evaluate("document.documentElement.lang") == "fi"  # from Accept-Language
    page.get_by_role("link", name="Lietuvių").click()
    assert page.evaluate("document.documentElement.lang") == "lt"
    page.goto(f"{server_url}/rules")
    assert page.evaluate("document.documentElement.lang") == "lt"
    assert page.get_by_role("heading", level=1).inner_text() == "Kaip žaisti Prezidentą"


def test_reduced_motion_is_respected(server_url: str, context_factory: Any) -> None:
    page = context_factory("desktop", reduced_motion="reduce").new_page()
    page.goto(f"{server_url}/")
    duration = page.evaluate(
        "getComputedStyle(document.querySelector('.fan-card')).transitionDuration"
    )
    assert duration in ("0s", "")


def test_join_form_says_what_is_wrong(server_url: str, context_factory: Any) -> None:
    page = context_factory("phone").new_page()
    page.goto(f"{server_url}/?lang=pl")
    page.get_by_role("button", name="Dołącz").click()
    alert = page.get_by_role("alert")
    assert alert.inner_text() == "Najpierw wklej link do stołu albo wpisz jego kod."
    page.get_by_label("Link do stołu albo kod").fill("x")
    page.get_by_role("button", name="Dołącz").click()
    assert page.get_by_role("alert").inner_text() == "To nie jest link do stołu ani kod."


def test_create_table_goes_to_the_table(server_url: str, context_factory: Any) -> None:
    page = context_factory("desktop").new_page()
    health = page.request.get(f"{server_url}/api/health")
    if not health.ok:
        pytest.skip("no server API in this app yet")
    page.goto(f"{server_url}/?lang=en")
    page.get_by_label("Your name").fill("Ada")
    page.get_by_role("button", name="Create a table").click()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    table_id = page.url.rsplit("/", 1)[-1]
    stored = page.evaluate(f"localStorage.getItem('cardverse.seat.{table_id}')")
    assert stored and '"token"' in stored
