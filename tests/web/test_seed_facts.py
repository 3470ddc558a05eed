"""Every fact of the three seed pages is on its page, in every language.

The fact tables are in tests/web/seed_facts.py: each fact with the rule it states and the catalog
entry, page element or table row that carries it. A fact whose carrier leaves a page (or is left
untranslated in one language) fails here.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from cardverse.web import error_handlers, web_routes
from cardverse.web.i18n import LANGUAGES, catalog, translator

from .seed_facts import CARRIED, DIFFERS, MISSING, SEEDS, WRONG, Entry, Fact, Seed
from .test_rules_content import _page, _rows, _text


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(Starlette(routes=web_routes(), exception_handlers=error_handlers()))


def _translated(entry: Entry, lang: str) -> str:
    t = translator(lang)
    if isinstance(entry, str):
        return t.gettext(entry)
    if len(entry) == 2:
        return t.pgettext(entry[0], entry[1])
    singular, plural, count = entry  # type: ignore[misc]
    return t.ngettext(singular, plural, count)


def _pieces(entry: Entry, lang: str) -> list[str]:
    """The text of an entry in a language, cut at its parameters (the pieces a page must show)."""
    text = re.sub(r"\s+", " ", _translated(entry, lang))
    pieces = [piece.strip() for piece in re.split(r"%\(\w+\)s", text)]
    return [piece for piece in pieces if len(piece.replace(" ", "")) >= 2]


def _msgid(entry: Entry) -> tuple[str | tuple[str, str], str | None]:
    if isinstance(entry, str):
        return entry, None
    if len(entry) == 2:
        return entry[1], entry[0]
    return (entry[0], entry[1]), None  # type: ignore[misc]


def _not_carried(fact: Fact, page: str, lang: str) -> list[str]:
    text = _text(page)
    gaps = [
        f"{fact.says!r}: {piece!r}"
        for entry in fact.entries
        for piece in _pieces(entry, lang)
        if piece not in text
    ]
    if fact.element and not re.search(fact.element, page, re.S):
        gaps.append(f"{fact.says!r}: no element {fact.element!r}")
    if fact.row:
        label, cells = fact.row
        rows = {row[0]: " ".join(row[1:]) for row in _rows(page)}
        shown = rows.get(_translated(label, lang))
        if shown is None:
            gaps.append(f"{fact.says!r}: no row {label!r}")
        else:
            gaps += [
                f"{fact.says!r}: row {label!r} lacks {cell!r}"
                for cell in cells
                for piece in _pieces(cell, lang)
                if piece not in shown
            ]
    return gaps


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.file[:3])
def test_every_carrier_is_a_catalog_entry_and_every_fact_has_one(seed: Seed) -> None:
    entries = catalog("fi")
    for fact in seed.facts:
        assert fact.entries or fact.element or fact.row, fact.says
        assert fact.rule, fact.says
        assert fact.before in (CARRIED, WRONG, MISSING, DIFFERS), fact.says
        for entry in (
            *fact.entries,
            *(fact.row[1] if fact.row else ()),
            *((fact.row[0],) if fact.row else ()),
        ):
            msgid, context = _msgid(entry)
            assert entries.get(msgid, context=context) is not None, (fact.says, entry)


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.file[:3])
def test_every_fact_of_the_seed_is_on_its_page(client: TestClient, seed: Seed, lang: str) -> None:
    pages: dict[str, str] = {}
    gaps: list[str] = []
    for fact in seed.facts:
        path = fact.page or seed.page
        if path not in pages:
            pages[path] = _page(client, path, lang)
        gaps += _not_carried(fact, pages[path], lang)
    assert not gaps, f"{seed.file} in {lang}: {gaps}"


# The counts of the closing note of issue 27: facts per seed, and how main stood before it.
COUNTS = {
    "000": {"facts": 37, CARRIED: 29, WRONG: 1, MISSING: 7, DIFFERS: 0, "overridden": 0},
    "001": {"facts": 47, CARRIED: 40, WRONG: 1, MISSING: 3, DIFFERS: 3, "overridden": 0},
    "003": {"facts": 38, CARRIED: 33, WRONG: 0, MISSING: 3, DIFFERS: 2, "overridden": 1},
}


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.file[:3])
def test_the_fact_tables_count_what_the_closing_note_says(seed: Seed) -> None:
    before = Counter(fact.before for fact in seed.facts)
    counts = {
        "facts": len(seed.facts),
        **{status: before[status] for status in (CARRIED, WRONG, MISSING, DIFFERS)},
        "overridden": sum(1 for fact in seed.facts if fact.overridden),
    }
    assert counts == COUNTS[seed.file[:3]]
