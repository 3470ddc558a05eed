"""Message catalogs (gettext .po files read with Babel) and choosing a person's language.

The catalogs live in ``locales/<lang>/LC_MESSAGES/messages.po``. They are read as text and
compiled in memory when first used, so no compiled ``.mo`` file is kept in the repository.
``python -m cardverse.web.i18n update`` extracts every string from the templates, the Python
code and the ES modules into ``locales/messages.pot`` and merges it into each language's
catalog (docs/i18n.md).

Strings that code chooses at run time (rank names, refusal codes, option names) are marked for
extraction with :func:`N_`, :func:`NP_` (singular and plural) and :func:`NC_` (with a context),
and translated where they are shown.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, cast

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.support import Translations

HERE = Path(__file__).resolve().parent
#: the rule parts name their own words (cardverse.engine.words): msgids extracted from there too
PARTS_DIR = HERE.parent / "engine" / "parts"
LOCALES_DIR = HERE / "locales"
POT_PATH = LOCALES_DIR / "messages.pot"

DEFAULT_LANGUAGE = "en"
# Each language under its own name (an endonym is not translated: it is marked with lang=).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fi": "Suomi",
    "pl": "Polski",
    "lt": "Lietuvių",
    "ja": "日本語",
}
LANG_COOKIE = "lang"
LANG_PARAM = "lang"

KEYWORDS: dict[str, Any] = {
    **DEFAULT_KEYWORDS,
    "N_": None,
    "NP_": (1, 2),
    "NC_": ((1, "c"), 2),
    "t": None,
    "tn": (1, 2),
}
METHOD_MAP = [
    ("templates/**.html", "jinja2"),
    ("static/js/**.js", "javascript"),
    ("**.py", "python"),
]
OPTIONS_MAP = {
    "templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"},
}


def N_(message: str) -> str:
    """Mark a string for extraction; it is translated later, where it is shown."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a singular/plural pair for extraction."""
    return (singular, plural)


def NC_(context: str, message: str) -> tuple[str, str]:
    """Mark a string with a context (``pgettext``) for extraction."""
    return (context, message)


def po_path(lang: str) -> Path:
    return LOCALES_DIR / lang / "LC_MESSAGES" / "messages.po"


@cache
def catalog(lang: str) -> Catalog:
    """The catalog of a language, read from its .po file."""
    with po_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang)


@cache
def translations(lang: str) -> Translations:
    """gettext translations of a language, compiled in memory from its catalog."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog(lang))
    buffer.seek(0)
    return Translations(fp=buffer, domain="messages")


class Translator:
    """The gettext functions of one language, for Python code (templates have their own)."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self._t = translations(lang)

    def gettext(self, message: str, **params: Any) -> str:
        text = self._t.gettext(message)
        return text % params if params else text

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        params.setdefault("num", n)
        return str(self._t.ngettext(singular, plural, n)) % params

    def pgettext(self, context: str, message: str, **params: Any) -> str:
        text = str(self._t.pgettext(context, message))
        return text % params if params else text

    def plural(self, pair: tuple[str, str], n: int, **params: Any) -> str:
        return self.ngettext(pair[0], pair[1], n, **params)

    def ctx(self, pair: tuple[str, str], **params: Any) -> str:
        return self.pgettext(pair[0], pair[1], **params)


@cache
def translator(lang: str) -> Translator:
    return Translator(lang)


def parse_accept_language(header: str | None) -> list[str]:
    """Language tags of an Accept-Language header, most wanted first (q=0 left out)."""
    if not header:
        return []
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        pieces = part.strip().split(";")
        tag = pieces[0].strip().lower()
        if not tag:
            continue
        quality = 1.0
        for piece in pieces[1:]:
            key, _, value = piece.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            weighted.append((-quality, index, tag))
    return [tag for _, _, tag in sorted(weighted)]


def supported(tag: str | None) -> str | None:
    """The supported language a tag names (``fi-FI`` → ``fi``), or None."""
    if not tag:
        return None
    base = tag.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def negotiate(param: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The language to use: the query parameter, then the cookie, then the browser's wishes."""
    for choice in (param, cookie):
        lang = supported(choice)
        if lang:
            return lang
    for tag in parse_accept_language(accept_language):
        lang = supported(tag)
        if lang:
            return lang
    return DEFAULT_LANGUAGE


# --- extraction and catalog upkeep --------------------------------------------------------


def extract() -> Catalog:
    """Every translatable string used by the web package and the rule parts, as a template
    catalog."""
    template = Catalog(project="CardVerse", fuzzy=False)
    for folder, prefix in ((HERE, ""), (PARTS_DIR, "../engine/parts/")):
        messages: Iterator[Any] = extract_from_dir(
            str(folder),
            method_map=METHOD_MAP,
            options_map=OPTIONS_MAP,
            keywords=KEYWORDS,
            comment_tags=("Translators:",),
            strip_comment_tags=True,
        )
        for filename, lineno, message, comments, context in messages:
            template.add(
                message,
                None,
                [(prefix + filename, lineno)],
                auto_comments=comments,
                context=context,
            )
    return template


def js_message_ids() -> list[str | tuple[str, str]]:
    """The msgids used by the ES modules (their translations are sent with each page)."""
    ids = [message.id for message in extract() if _from_js(message.locations)]
    return cast("list[str | tuple[str, str]]", ids)


def _from_js(locations: Iterable[tuple[str, int | None]]) -> bool:
    return any(path.endswith(".js") for path, _ in locations)


def js_messages(lang: str) -> dict[str, str | list[str]]:
    """msgid → translation for every string of the ES modules.

    A plural message (``tn("one", "many", n)``) maps its singular msgid to the list of the
    language's plural forms (static/js/i18n.js picks one by the language's plural rule).
    """
    out: dict[str, str | list[str]] = {}
    trans = translations(lang)
    cat = catalog(lang)
    for msgid in _js_ids():
        if isinstance(msgid, str):
            out[msgid] = trans.gettext(msgid)
            continue
        message = cat.get(msgid)
        forms = list(message.string) if message is not None and message.string else []
        if not forms or not all(forms):
            forms = [msgid[0], msgid[1]]
        out[msgid[0]] = forms
    return out


@cache
def _js_ids() -> tuple[str | tuple[str, str], ...]:
    return tuple(js_message_ids())


def update_catalogs(langs: Iterable[str] = LANGUAGES) -> None:
    """Write messages.pot and merge it into each language's .po (new strings come untranslated)."""
    template = extract()
    LOCALES_DIR.mkdir(parents=True, exist_ok=True)
    with POT_PATH.open("wb") as handle:
        write_po(handle, template, width=96, omit_header=False, sort_output=False)
    for lang in langs:
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as handle:
                existing = read_po(handle, locale=lang)
            existing.update(template, no_fuzzy_matching=True)
        else:
            existing = Catalog(locale=lang, project="CardVerse", fuzzy=False)
            existing.update(template, no_fuzzy_matching=True)
            path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, existing, width=96, ignore_obsolete=True, include_previous=False)
    catalog.cache_clear()
    translations.cache_clear()
    translator.cache_clear()


def _main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update_catalogs()
        print(f"wrote {POT_PATH} and merged it into {', '.join(LANGUAGES)}")
        return 0
    print("usage: python -m cardverse.web.i18n update", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
