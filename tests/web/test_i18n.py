"""The message catalogs: complete in every language, and every string a person reads is in them."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from jinja2 import nodes

from cardverse.engine import Game, Phase, Rules
from cardverse.engine.cards import cards_of
from cardverse.engine.plays import STRAIGHT
from cardverse.web import i18n
from cardverse.web.i18n import LANGUAGES, catalog, extract, negotiate, translator
from cardverse.web.messages import (
    REFUSALS,
    SERVER_ERRORS,
    SUIT_KEYS,
    UNKNOWN_REFUSAL,
    error_codes,
    refusal_text,
    suit_letter,
)
from cardverse.web.site import TEMPLATES_DIR, environment

ENGINE_DIR = Path(i18n.__file__).resolve().parents[1] / "engine"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
OTHER_LANGS = [lang for lang in LANGUAGES if lang != "en"]


def _ids(cat) -> set:  # type: ignore[no-untyped-def]
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in cat if m.id}


@pytest.fixture(scope="module")
def template_catalog():  # type: ignore[no-untyped-def]
    return extract()


def test_extraction_finds_the_strings(template_catalog) -> None:  # type: ignore[no-untyped-def]
    ids = _ids(template_catalog)
    assert (None, "No registration. Share a link and start playing.") in ids
    assert ("rank", "queen") in ids  # from the Python registries
    assert (None, "Paste a table link or type its code first.") in ids  # from the ES modules
    assert len(ids) > 300


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_catalog_holds_exactly_the_used_strings(lang: str, template_catalog) -> None:  # type: ignore[no-untyped-def]
    used, present = _ids(template_catalog), _ids(catalog(lang))
    missing = sorted(used - present, key=str)
    unused = sorted(present - used, key=str)
    assert not missing, f"{lang} catalog misses {len(missing)}: {missing[:5]} (run i18n update)"
    assert not unused, f"{lang} catalog has strings no code uses: {unused[:5]}"


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_every_string_is_translated(lang: str) -> None:
    untranslated = []
    for message in catalog(lang):
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(form.strip() for form in forms):
            untranslated.append(message.id)
    assert not untranslated, f"{lang}: {len(untranslated)} untranslated, e.g. {untranslated[:3]}"


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_plural_forms_match_the_language(lang: str) -> None:
    cat = catalog(lang)
    for message in cat:
        if message.id and message.pluralizable:
            assert len(message.string) == cat.num_plurals, message.id


@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_placeholders_are_kept(lang: str) -> None:
    for message in catalog(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(PLACEHOLDER.findall(text) for text in ids))
        found = set().union(*(PLACEHOLDER.findall(form) for form in forms))
        assert found <= wanted, f"{lang}: unknown placeholder in {message.id!r}"
        # every parameter but the plural count must be shown in every plural form
        for form in forms:
            needed = set(PLACEHOLDER.findall(ids[-1])) - {"num"}
            if len(ids) == 1:
                needed = set(PLACEHOLDER.findall(ids[0]))
            assert needed <= set(PLACEHOLDER.findall(form)), f"{lang}: {message.id!r} -> {form!r}"
        for form in forms:
            assert "%" not in PLACEHOLDER.sub("", form), f"{lang}: stray % in {form!r}"


def _engine_codes() -> set[str]:
    # the engine's modules and its rule parts (engine/parts/*.py refuse plays too)
    source = "\n".join(path.read_text() for path in sorted(ENGINE_DIR.rglob("*.py")))
    calls = re.findall(
        r"(?:refuse|PlayShapeError|OptionsError|Refusal)\(\s*\"([a-z_]+)\""
        r"(?: if [^\n]* else \"([a-z_]+)\")?",
        source,
    )
    return {code for pair in calls for code in pair if code}


def test_every_engine_refusal_code_has_a_translation() -> None:
    codes = _engine_codes()
    assert {"not_your_turn", "set_too_high", "option_locked", "straight_too_short"} <= codes
    assert {"outside_lock", "straight_not_all_higher", "straight_not_all_lower"} <= codes
    assert codes - set(REFUSALS) == set()


def test_every_server_error_code_has_a_translation() -> None:
    protocol = pytest.importorskip("cardverse.server.protocol")
    assert set(protocol.ERROR_CODES) - error_codes() == set()


def _refusals_seen(seed: int, rules: Rules) -> list:  # type: ignore[no-untyped-def]
    """Refusals of random wrong actions over a random game (every kind the engine gives)."""
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    seen = []
    for _ in range(400):
        if game.phase is Phase.GAME_OVER:
            break
        if game.phase is Phase.ROUND_OVER:
            refusal = game.check(0, 1)
            if refusal is not None:
                seen.append(refusal)
            game.start_next_round()
            continue
        seat = rng.randrange(rules.players)
        hand = cards_of(game.hands[seat]) if game.hands[seat] else []
        picked = rng.sample(hand, min(len(hand), rng.randint(1, 4))) if hand else []
        move = sum(1 << card for card in picked) | (STRAIGHT if rng.random() < 0.2 else 0)
        refusal = game.check(seat, move) if move else None
        if refusal is not None:
            seen.append(refusal)
        game.apply(rng.choice(game.legal_moves()))
    return seen


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_real_refusals_read_well(lang: str) -> None:
    t = translator(lang)
    refusals = _refusals_seen(3, Rules.make("standard", players=4, rounds=2, jokers=2))
    refusals += _refusals_seen(4, Rules.make("cardverse", players=5))
    assert len({r.code for r in refusals}) >= 5
    unknown = t.gettext(UNKNOWN_REFUSAL)
    for refusal in refusals:
        text = refusal_text(refusal.code, refusal.params, t)
        assert text and text != unknown and "%(" not in text, (refusal, text)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_code_with_its_params_reads_well(lang: str) -> None:
    t = translator(lang)
    params = {
        "seat": 1, "turn": 2, "cards": "QH 10S RJ", "size": 3, "count": 2, "played": 2,
        "need": "J", "got": "jokers", "kind": "straight", "equal_plays": True,
        "option": "equal_plays", "preset": "cardverse", "value": False, "low": 3, "high": 6,
        "needs": "jokers", "suits": ["H", "S"], "suit": "D", "joker": "RJ", "largest": 4,
    }  # fmt: skip
    unknown = t.gettext(UNKNOWN_REFUSAL)
    for code in error_codes():
        text = refusal_text(code, params, t)
        assert text != unknown and "%(" not in text, code
    assert refusal_text("no_such_code", {}, t) == unknown


def test_refusal_in_words() -> None:
    fi, pl = translator("fi"), translator("pl")
    assert refusal_text("not_your_turn", {"seat": 0, "turn": 2}, translator("en")) == (
        "Not your turn: Seat 3 plays now."
    )
    assert "W♥" in refusal_text("card_not_in_hand", {"cards": "JH"}, pl)
    assert "Jokeri" not in refusal_text("set_too_low", {"need": "9", "got": "7"}, fi)
    locked = refusal_text(
        "option_locked", {"option": "jokers", "preset": "cardverse", "value": 0}, pl
    )
    assert "Jokery" in locked and "CardVerse" in locked


def test_R41_straight_refusals_name_the_covered_card_and_the_played_one() -> None:
    en = translator("en")
    assert refusal_text("straight_not_all_higher", {"need": "7", "got": "6"}, en) == (
        "Every card of your straight must be higher than 7, the highest card it covers; your "
        "lowest is 6."
    )
    lower = refusal_text("straight_not_all_lower", {"need": "Q", "got": "K"}, translator("fi"))
    assert "Vallankumouksen aikana" in lower and "Q" in lower and "K" in lower


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_suit_letters_differ(lang: str) -> None:
    letters = [suit_letter(suit, translator(lang)) for suit in SUIT_KEYS]
    assert len(set(letters)) == 4


def test_server_error_registry_is_separate_from_refusals() -> None:
    # A code both layers use must mean the same thing.
    for code in set(SERVER_ERRORS) & set(REFUSALS):
        assert SERVER_ERRORS[code] == REFUSALS[code]


# --- no hard-coded text in the templates ----------------------------------------------------

TAG = re.compile(r"<[^>]*>", re.S)
ATTRIBUTE_TEXT = re.compile(r"\b(?:alt|title|aria-label|placeholder)=\"[^\"{]*[A-Za-z]")
ALLOWED_WORDS = {"CardVerse", "v"}


def _template_data(name: str) -> list[str]:
    env = environment("en")
    source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
    tree = env.parse(source)
    return [node.data for node in tree.find_all(nodes.TemplateData)]


TEMPLATE_NAMES = sorted(
    str(path.relative_to(TEMPLATES_DIR)) for path in TEMPLATES_DIR.rglob("*.html")
)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_templates_hold_no_text_outside_the_catalogs(name: str) -> None:
    # The literal parts of a template, in order, with every {{ expression }} left out.
    data = "".join(_template_data(name))
    assert not ATTRIBUTE_TEXT.search(data), f"{name}: attribute text in {data!r}"
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", data, flags=re.S)
    words = re.findall(r"[^\W\d_]+", TAG.sub(" ", text))
    stray = [word for word in words if word not in ALLOWED_WORDS]
    assert not stray, f"{name}: text not from the catalogs: {stray}"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_js_messages_cover_the_modules(lang: str) -> None:
    messages = i18n.js_messages(lang)
    assert "Paste a table link or type its code first." in messages
    if lang != "en":
        assert all(text != key for key, text in messages.items())


# --- choosing the language ----------------------------------------------------------------


def test_language_from_accept_language() -> None:
    assert negotiate(None, None, "pl-PL,pl;q=0.9,en;q=0.8") == "pl"
    assert negotiate(None, None, "de-DE, lt;q=0.5, fi;q=0.7") == "fi"
    assert negotiate(None, None, "de, fr;q=0.5") == "en"
    assert negotiate(None, None, "fi;q=0, lt") == "lt"
    assert negotiate(None, None, None) == "en"


def test_parameter_then_cookie_then_header() -> None:
    assert negotiate("lt", "fi", "pl") == "lt"
    assert negotiate(None, "fi", "pl") == "fi"
    assert negotiate("xx", "yy", "pl") == "pl"


# --- lists: each language's own separator, on the server and in the table's modules --------

SEPARATORS = {"en": ", ", "fi": ", ", "pl": ", ", "lt": ", ", "ja": "、"}


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_lists_use_the_languages_own_separator(lang: str) -> None:
    from cardverse.web.messages import join_list, refusal_text
    from cardverse.web.table import table_config

    t = translator(lang)
    assert table_config("x", t)["listSeparator"] == SEPARATORS[lang]
    assert join_list(["a", "b"], t) == f"a{SEPARATORS[lang]}b"
    # a refusal naming the suits of a lock (R31)
    said = refusal_text("outside_lock", {"suits": ["H", "S"]}, t)
    hearts, spades = t.gettext("Hearts"), t.gettext("Spades")
    assert f"{hearts}{SEPARATORS[lang]}{spades}" in said
    for other in set(SEPARATORS.values()) - {SEPARATORS[lang]}:
        assert f"{hearts}{other}{spades}" not in said


def test_the_table_modules_join_no_list_with_a_fixed_separator() -> None:
    """Lists in the table's words go through joinList (the page's language's separator)."""
    js = Path(i18n.HERE) / "static" / "js"
    fixed = [
        f"{path.name}:{number}"
        for path in sorted(js.glob("*.js"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"""\.join\(\s*["'`][,、]""", line)
    ]
    assert not fixed, fixed
