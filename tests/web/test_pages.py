"""The server-rendered pages, checked over HTTP in process (the browser tests check the look)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from cardverse import __version__
from cardverse.engine import Rules
from cardverse.web import TABLE_PATH, error_handlers, rules_sheet_context, web_routes
from cardverse.web.cards import all_card_codes, card_svg
from cardverse.web.i18n import LANGUAGES, translator
from cardverse.web.pages import table_id_from
from cardverse.web.site import VARIANTS, source_commit

PAGES = [
    "/",
    "/rules",
    *(f"/rules/{slug}" for slug in VARIANTS),
    "/rules/sheet?players=5",
    "/bots",
]


def _app() -> Starlette:
    return Starlette(routes=web_routes(), exception_handlers=error_handlers())


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(_app())


def _footer_is_complete(html: str, lang: str) -> None:
    footer = html.split('<footer class="site-footer">', 1)[1]
    t = translator(lang)
    assert t.gettext("No registration. Share a link and start playing.") in footer  # tagline
    assert f'<span class="beta">{t.gettext("Beta")}</span>' in footer
    assert f"v{__version__} · {source_commit()}" in footer


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_in_every_language(client: TestClient, path: str, lang: str) -> None:
    sep = "&" if "?" in path else "?"
    response = client.get(f"{path}{sep}lang={lang}")
    assert response.status_code == 200
    html = response.text
    assert f'<html lang="{lang}">' in html
    assert response.headers["content-language"] == lang
    assert 'class="skip-link" href="#main"' in html and 'id="main"' in html
    _footer_is_complete(html, lang)
    for code in LANGUAGES:  # the language switch keeps the page
        assert f'hreflang="{code}"' in html


def test_the_language_follows_the_browser() -> None:
    fresh = TestClient(_app())
    html = fresh.get("/", headers={"Accept-Language": "lt-LT,lt;q=0.9,en;q=0.5"}).text
    assert '<html lang="lt">' in html
    assert "Jokios registracijos" in html
    japanese = fresh.get("/rules", headers={"Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"})
    assert '<html lang="ja">' in japanese.text and japanese.headers["content-language"] == "ja"
    assert "<h1>大富豪の遊び方</h1>" in japanese.text


def test_japanese_is_chosen_from_the_language_switch() -> None:
    fresh = TestClient(_app())
    html = fresh.get("/?lang=fi").text
    assert 'href="/?lang=ja" lang="ja" hreflang="ja"' in html and ">日本語</a>" in html
    chosen = fresh.get("/?lang=ja", headers={"Accept-Language": "fi"})
    assert chosen.cookies.get("lang") == "ja"
    assert (
        '<html lang="ja">' in fresh.get("/rules/revolution", headers={"Accept-Language": "fi"}).text
    )


# --- error pages ----------------------------------------------------------------------------

ERROR_PATHS = ["/no/such/page", "/rules/nothing", "/t", "/cards/ZZ.svg", "/static/none.css"]


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("path", ERROR_PATHS)
def test_unknown_addresses_get_the_site_error_page(path: str, lang: str) -> None:
    fresh = TestClient(_app())
    response = fresh.get(f"{path}?lang={lang}")
    assert response.status_code == 404
    html = response.text
    t = translator(lang)
    assert f'<html lang="{lang}">' in html and response.headers["content-language"] == lang
    assert 'class="skip-link" href="#main"' in html and 'id="main"' in html
    assert f"<h1>{t.gettext('Page not found')}</h1>" in html
    assert t.gettext("There is no page at this address.") in html
    for code in LANGUAGES:
        assert f'hreflang="{code}"' in html
    _footer_is_complete(html, lang)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_error_page_follows_the_browser_language(lang: str) -> None:
    response = TestClient(_app()).get("/nowhere", headers={"Accept-Language": lang})
    assert response.status_code == 404
    assert f'<html lang="{lang}">' in response.text


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_wrong_method_gets_an_error_page_too(lang: str) -> None:
    response = TestClient(_app()).post(f"/rules?lang={lang}")
    assert response.status_code == 405
    assert "GET" in response.headers["allow"]
    t = translator(lang)
    assert t.gettext("This address cannot be used that way.") in response.text
    _footer_is_complete(response.text, lang)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_server_failure_gets_an_error_page(lang: str) -> None:
    async def broken(request: object) -> None:
        raise RuntimeError("boom")

    from starlette.routing import Route

    app = Starlette(
        routes=[Route("/broken", broken), *web_routes()], exception_handlers=error_handlers()
    )
    response = TestClient(app, raise_server_exceptions=False).get(f"/broken?lang={lang}")
    assert response.status_code == 500
    t = translator(lang)
    assert t.gettext("Something went wrong on the server. Try again in a moment.") in response.text
    assert "boom" not in response.text and "Traceback" not in response.text
    _footer_is_complete(response.text, lang)


def test_machine_addresses_keep_their_plain_errors() -> None:
    response = TestClient(_app()).get("/api/no-such-thing?lang=fi")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/plain")
    assert "<html" not in response.text


def test_a_chosen_language_is_kept(client: TestClient) -> None:
    fresh = TestClient(Starlette(routes=web_routes()))
    response = fresh.get("/?lang=pl", headers={"Accept-Language": "fi"})
    assert response.cookies.get("lang") == "pl"
    again = fresh.get("/rules", headers={"Accept-Language": "fi"})
    assert '<html lang="pl">' in again.text


def test_home_pitch_and_forms(client: TestClient) -> None:
    html = client.get("/?lang=en").text
    assert "No registration. Share a link and start playing." in html
    assert 'action="/api/tables"' in html and 'action="/join"' in html
    assert client.get("/?lang=pl").text.count("Bez rejestracji. Udostępnij link i zacznij grać.")


@pytest.mark.parametrize(
    ("text", "table_id"),
    [
        ("AbCdEf123456", "AbCdEf123456"),
        ("  AbCdEf123456 ", "AbCdEf123456"),
        ("https://cardverse.example/t/AbCdEf123456", "AbCdEf123456"),
        ("http://127.0.0.1:8000/t/AbC-dEf_12/", "AbC-dEf_12"),
        ("/t/AbCdEf123456?x=1", "AbCdEf123456"),
        ("", None),
        ("no", None),
        ("<script>", None),
    ],
)
def test_table_id_from_a_link_or_code(text: str, table_id: str | None) -> None:
    assert table_id_from(text) == table_id


def test_join_goes_to_the_table(client: TestClient) -> None:
    response = client.get("/join?code=https://x.example/t/AbCdEf123456", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == TABLE_PATH.format(table_id="AbCdEf123456")
    refused = client.get("/join?code=%3Cb%3E&lang=fi")
    assert refused.status_code == 400
    assert "Tämä ei ole pöydän linkki eikä koodi." in refused.text
    assert "<b>" not in refused.text


def test_rules_pages_open_with_what_is_and_compare(client: TestClient) -> None:
    for slug in VARIANTS:
        html = client.get(f"/rules/{slug}?lang=en").text
        headings = re.findall(r"<h2[^>]*>(.*?)</h2>", html)
        assert headings[0].startswith("What is"), slug
        assert headings[1] == "Rule changes", slug
        assert '<table class="changes">' in html
        assert '<th scope="col">Standard game</th>' in html
    assert "History" in client.get("/rules/revolution?lang=en").text
    assert "1979" in client.get("/rules/jokers?lang=en").text
    assert client.get("/rules/nothing").status_code == 404


def test_R4_cardverse_page_shows_the_locked_options(client: TestClient) -> None:
    html = client.get("/rules/cardverse?lang=en").text
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</th><td>(.*?)</td><td>(.*?)</td></tr>", html)
    by_option = {row[0]: row for row in rows}
    assert by_option["Players"][1:] == ("3 to 8", "3 to 6")
    assert by_option["Equal plays"][2].startswith("Off") and "locked" in by_option["Equal plays"][2]
    assert "locked" in by_option["Jokers"][2] and "locked" not in by_option["Revolution"][2]


def _sheet_text(client: TestClient, query: str, lang: str = "en") -> str:
    response = client.get(f"/rules/sheet?{query}&lang={lang}")
    assert response.status_code == 200, response.text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.text))


def test_R23_sheet_tells_how_many_cards_each_player_gets(client: TestClient) -> None:
    assert "everyone gets 13 cards" in _sheet_text(client, "players=4")
    assert "everyone gets 17 or 18 cards" in _sheet_text(client, "players=3")
    assert "everyone gets 18 cards" in _sheet_text(client, "players=3&jokers=2")
    assert "każdy dostaje 17 lub 18 kart" in _sheet_text(client, "players=3", "pl")


def test_sheet_follows_the_options(client: TestClient) -> None:
    plain = _sheet_text(client, "players=4")
    assert "Revolution" not in plain.split("Who leads")[0].split("Clearing the pile")[1]
    assert "the same rank or" not in plain and "or the same rank" in plain
    assert "A game of one round has no card exchange." in plain
    assert "The holder of the 3 of clubs leads the first round" in plain
    full = _sheet_text(
        client,
        "players=6&rounds=3&revolution=on&straights=on&jokers=2&eight_stop=on&equal_plays=off",
    )
    assert "Every set of four starts a revolution" in full  # R15
    assert "So does a straight that holds an 8" in full  # R14
    assert "the same rank is not enough" in full  # R10
    assert "The Vice-Scum gives the Vice-President" in full  # R25
    assert "Every later round is led by the Scum" in full  # R24
    assert "The game lasts 3 rounds." in full
    three = _sheet_text(client, "players=3&rounds=2")
    assert "Vice-Scum gives" not in three  # R25: only with 4 or more players
    assert re.search(r"1\. President 3 2\. Citizen 2 3\. Scum 1", three)  # R21, R22


@pytest.mark.parametrize(
    "query",
    [
        "suit_lock=0&spade_three=0",  # the table page sends on/off as 1/0, for switches too
        "jokers=1&suit_lock=1&spade_three=1",
        "jokers=1&suit_lock=natural&spade_three=on",
        "jokers=1&suit_lock=with_jokers&spade_three=over_lock",  # R44, R45: named values
        "straights=on&straight_cover=all_higher&revolution=1&straight_revolution=5",  # R41, R42
        "straight_revolution=0&five_card_sets=0&lead_every_round=0",
    ],
)
def test_R44_R45_sheet_reads_switches_and_named_values(client: TestClient, query: str) -> None:
    for path in ("/rules/sheet", "/rules/sheet/part"):
        response = client.get(f"{path}?preset=standard&players=4&{query}&lang=en")
        assert response.status_code == 200, (path, query, response.text[:200])
    refused = client.get("/rules/sheet/part?preset=standard&players=4&suit_lock=sometimes")
    assert refused.status_code == 400 and "Suit lock has no such choice." in refused.text


def test_uecda_preset_page_shows_its_options(client: TestClient) -> None:
    html = client.get("/rules/uecda?lang=en").text
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</th><td>(.*?)</td><td>(.*?)</td></tr>", html)
    by_option = {row[0]: row[1:] for row in rows}
    assert by_option["Straight cover"] == ("Higher top", "All cards higher")  # R41
    assert by_option["Suit lock"] == ("Off", "Jokers too")  # R44
    assert by_option["Spade three"] == ("Off", "Also over a lock")  # R45
    assert by_option["Same lead every round"] == ("Off", "On")  # R46
    assert by_option["Straight revolution"] == ("Off", "5 cards or more")  # R42
    assert by_option["First lead"][1] == "The holder of the 3 of diamonds"
    assert "locked" not in html.split("<tbody>")[1].split("</tbody>")[0]  # locks nothing
    assert 'href="/rules/uecda"' in client.get("/rules?lang=en").text


def test_R4_sheet_of_the_cardverse_preset(client: TestClient) -> None:
    text = _sheet_text(client, "preset=cardverse&players=5")
    assert "The CardVerse preset locks these options: Equal plays, Straights and Jokers." in text
    assert "The CardVerse preset is for 3 to 6 players." in text
    assert "The player in the first seat leads the first round, with any play." in text  # R24
    # the points of the sheet the preset was modelled on
    text = _sheet_text(client, "preset=cardverse&players=4&rounds=3")
    assert "A set of four does not end the trick." in text  # R16
    assert "the ranks are: 2, A, K, Q, J, 10, 9, 8, 7, 6, 5, 4, 3." in text  # R3
    assert "The highest cards are given automatically" in text  # R25
    assert "the results show the places of the last round and the totals" in text  # R22
    assert "They see only what a person in their seat would see." in text  # R27


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_R4_refused_options_are_explained(client: TestClient, lang: str) -> None:
    response = client.get(f"/rules/sheet?preset=cardverse&straights=on&lang={lang}")
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    too_many = client.get(f"/rules/sheet?preset=cardverse&players=8&lang={lang}")
    assert too_many.status_code == 400
    assert "8" in too_many.text


def test_rules_sheet_context_is_data_for_the_table_page() -> None:
    context = rules_sheet_context(Rules.make("cardverse", players=4, rounds=2))
    keys = [section.key for section in context["sections"]]
    assert keys[:3] == ["goal", "setup", "turn"] and "revolution" in keys and "special" in keys
    assert [option["name"] for option in context["options"] if option["locked"]] == [
        "equal_plays",
        "straights",
        "jokers",
    ]
    assert [place["points"] for place in context["places"]] == [4, 3, 2, 1]
    assert context["version"] == __version__


def test_error_text_endpoint(client: TestClient) -> None:
    response = client.get('/i18n/error?code=not_your_turn&params={"turn":1}&lang=pl')
    assert response.json()["text"] == "To nie twoja kolej: teraz gra Miejsce 2."
    assert client.get("/i18n/error?code=name_empty&lang=lt").json()["text"].startswith("Įrašykite")
    assert client.get("/i18n/error?code=x&params=[1]").json()["text"]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_cards_are_svg_with_a_name(lang: str) -> None:
    t = translator(lang)
    names = set()
    for code in all_card_codes():
        svg = card_svg(code, t)
        root = ET.fromstring(svg)
        assert root.get("role") == "img"
        label = root.get("aria-label")
        assert label and root.find("{http://www.w3.org/2000/svg}title").text == label
        names.add(label)
    assert len(names) == 54


def test_R1_suits_differ_by_shape_and_letter_not_only_colour() -> None:
    t = translator("en")
    shapes, letters = set(), set()
    for suit in "CDHS":
        root = ET.fromstring(card_svg("7" + suit, t))
        paths = [p.get("d") for p in root.iter("{http://www.w3.org/2000/svg}path")]
        texts = [x.text for x in root.iter("{http://www.w3.org/2000/svg}text")]
        shapes.add(paths[0])
        letters.add(texts[-1])
    assert len(shapes) == 4 and letters == {"C", "D", "H", "S"}


def test_card_images_are_served(client: TestClient) -> None:
    response = client.get("/cards/QH.svg?lang=pl")
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert 'aria-label="dama kier"' in response.text
    assert client.get("/cards/ZZ.svg").status_code == 404


def test_source_commit_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    source_commit.cache_clear()
    monkeypatch.setenv("CARDVERSE_COMMIT", "3f2a9c1")
    try:
        assert source_commit() == "3f2a9c1"
    finally:
        source_commit.cache_clear()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_strength_page_shows_the_arena_run_in_every_language(
    client: TestClient, lang: str
) -> None:
    """/bots (issue 14): every pairing of the kept arena run, with its figures, in the language."""
    from cardverse.web.strength import BASELINE_NAMES, BUDGET, load_strength, player_name

    data = load_strength()
    t = translator(lang)
    html = client.get(f"/bots?lang={lang}").text
    assert f"<h1>{t.gettext('Computer players')}</h1>" in html
    footer = html.split('<footer class="site-footer">', 1)[1]
    assert 'href="/bots" aria-current="page"' in footer  # linked from every page's footer
    comma = lang in ("fi", "pl", "lt")
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = body.split("<tr>")[1:]
    assert len(rows) == len(data["pairings"]) >= 1
    for row, pairing in zip(rows, data["pairings"], strict=True):
        result = pairing["player_result"]
        mean = f"{result['mean_points']:.2f}"
        low, high = (f"{v:.2f}" for v in result["ci95"])
        if comma:
            mean, low, high = (v.replace(".", ",") for v in (mean, low, high))
        assert player_name(pairing["player"], t) in row
        assert player_name(pairing["opponent"], t) in row
        assert f">{mean}<" in row and f"{low} – {high}" in row
        assert f">{pairing['games']}<" in row
        if "hard" in pairing["lineup"] or "montecarlo" in pairing["lineup"]:
            assert t.plural(BUDGET, pairing["playouts"]) in row
    assert data["date"] in html and data["version"] in html
    for name in BASELINE_NAMES.values():
        assert t.gettext(name) in html
