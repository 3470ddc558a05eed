"""The server-rendered pages: home, join, the table, rules pages, rules sheets, card images,
and the error pages (every HTTP error of a page address, in the site's layout and language)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..engine.cards import JOKER_NAMES, RANK_NAMES, SUIT_NAMES
from ..engine.options import OPTION_NAMES, PRESETS, OptionsError
from ..guards import BodyTooLarge, read_body
from ..tabletalk.finder import TableFinder
from ..tabletalk.invites import TooManyLookups, invite_code_for, read_code, show_code
from .cards import card_svg
from .i18n import LANG_COOKIE, LANG_PARAM, LANGUAGES, N_, negotiate, supported, translator
from .invites import qr_svg
from .messages import (
    BOT_LEVELS,
    OPTION_LABELS,
    PRESET_NAMES,
    SEAT_LABEL,
    UNKNOWN_REFUSAL,
    option_value,
    refusal_text,
)
from .replay import (
    BAD_RECORD,
    MAX_RECORD_BYTES,
    READ_SECONDS,
    TOO_LARGE,
    TOO_MANY,
    TOO_SLOW,
    refused,
    replay_answer,
)
from .replay import LIMITS as REPLAY_LIMITS
from .rulesheet import hints_from_query, rules_from_query, rules_sheet_context
from .site import STATIC_DIR, VARIANTS, environment, other_options
from .strength import strength_context
from .table import card_templates, refusal_for, table_config

# Where a table lives; the join form sends people there. Keep in step with the server.
TABLE_PATH = "/t/{table_id}"
TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{6,64}$")
COOKIE_AGE = 365 * 24 * 3600


def request_language(request: Request) -> str:
    return negotiate(
        request.query_params.get(LANG_PARAM),
        request.cookies.get(LANG_COOKIE),
        request.headers.get("accept-language"),
    )


# A page links to itself in each language; an address longer than this (no page of the site
# has one) is not echoed five times over: its language links go to the home page.
MAX_ECHOED_ADDRESS = 1024


def _language_links(request: Request) -> list[dict[str, str]]:
    links = []
    raw_path = request.scope.get("raw_path") or b""
    too_long = (
        len(raw_path) + len(request.scope.get("query_string", b"")) > MAX_ECHOED_ADDRESS
        or len(request.url.path) > MAX_ECHOED_ADDRESS
    )
    for code, name in LANGUAGES.items():
        if too_long:
            href = f"/?{LANG_PARAM}={code}"
        else:
            url = request.url.include_query_params(**{LANG_PARAM: code})
            href = f"{url.path}?{url.query}"
        links.append({"code": code, "name": name, "href": href})
    return links


def render(
    request: Request,
    template: str,
    context: dict[str, Any] | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """A page in the person's language; a ?lang= choice is kept in a cookie."""
    lang = request_language(request)
    env = environment(lang)
    page = env.get_template(template).render(
        request=request,
        path=request.url.path[:MAX_ECHOED_ADDRESS],
        language_links=_language_links(request),
        **(context or {}),
    )
    response = HTMLResponse(page, status_code=status, headers=headers)
    response.headers["Content-Language"] = lang
    response.headers["Vary"] = "Accept-Language, Cookie"
    chosen = supported(request.query_params.get(LANG_PARAM))
    if chosen and chosen != request.cookies.get(LANG_COOKIE):
        response.set_cookie(LANG_COOKIE, chosen, max_age=COOKIE_AGE, samesite="lax")
    return response


async def home(request: Request) -> Response:
    return render(request, "home.html", {"presets": PRESET_NAMES})


def table_id_from(text: str) -> str | None:
    """The table id in a share link or a typed code, or None."""
    text = text.strip()
    if "/" in text:
        path = urlsplit(text if "://" in text else "http://x/" + text.lstrip("/")).path
        text = path.rstrip("/").rsplit("/", 1)[-1]
    return text if TABLE_ID.match(text) else None


def _join_refused(request: Request, error: str, status: int, **headers: str) -> Response:
    context = {
        "presets": PRESET_NAMES,
        "join_error": error,
        "code": request.query_params.get("code", "")[:100],
    }
    return render(request, "home.html", context, status=status, headers=headers or None)


async def join(request: Request) -> Response:
    """The home page's join form: a share link, a table id, or a short invite code."""
    text = request.query_params.get("code", "")
    tables = _tables(request)
    if read_code(text) is not None and tables is not None:
        address = request.client.host if request.client is not None else "unknown"
        try:
            table = tables.find_by_code(text, address)
        except TooManyLookups as error:
            retry = str(error.retry_after)
            return _join_refused(request, "too_many", 429, **{"Retry-After": retry})
        if table is None:
            return _join_refused(request, "no_code", 404)
        return RedirectResponse(TABLE_PATH.format(table_id=table.id), status_code=303)
    table_id = table_id_from(text)
    if table_id is None:
        return _join_refused(request, "unreadable", 400)
    return RedirectResponse(TABLE_PATH.format(table_id=table_id), status_code=303)


async def bots_page(request: Request) -> Response:
    """What each computer player does and how strong it measured (cardverse/web/strength.json)."""
    lang = request_language(request)
    return render(request, "bots.html", {"strength": strength_context(translator(lang), lang)})


async def table_qr(request: Request) -> Response:
    """``/t/{table_id}/qr.svg``: the QR code of the table's share link (made with segno)."""
    table_id = request.path_params["table_id"]
    if not TABLE_ID.match(table_id) or _table_exists(request, table_id) is False:
        return error_page(request, 404)
    link = str(request.base_url).rstrip("/") + TABLE_PATH.format(table_id=table_id)
    svg = qr_svg(link, translator(request_language(request)))
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"},
    )


async def rules_standard(request: Request) -> Response:
    return render(request, "rules/standard.html", {"slug": "standard"})


PLAYER_RANGE = N_("%(low)s to %(high)s")


PRESET_PAGES = ("cardverse", "daifugo", "uecda")  # presets with a page of their own (slug = name)


def preset_rows(lang: str, name: str = "cardverse") -> list[dict[str, Any]]:
    """The options where preset ``name`` differs from the standard one, or is locked."""
    t = translator(lang)
    standard, ours = PRESETS["standard"], PRESETS[name]
    rows: list[dict[str, Any]] = [
        {
            "label": OPTION_LABELS["players"],
            "standard": t.gettext(
                PLAYER_RANGE, low=standard.min_players, high=standard.max_players
            ),
            "cardverse": t.gettext(PLAYER_RANGE, low=ours.min_players, high=ours.max_players),
            "locked": False,
        }
    ]
    for option in OPTION_NAMES:
        if option == "players":
            continue
        before, after = standard.defaults[option], ours.defaults[option]
        if before != after or option in ours.locked:
            rows.append(
                {
                    "label": OPTION_LABELS[option],
                    "standard": option_value(option, before, t),
                    "cardverse": option_value(option, after, t),
                    "locked": option in ours.locked,
                }
            )
    return rows


async def rules_variant(request: Request) -> Response:
    slug = request.path_params["variant"]
    if slug not in VARIANTS:
        return error_page(request, 404)
    context: dict[str, Any] = {"slug": slug, "other_options": other_options(slug)}
    if slug in PRESET_PAGES:
        context["preset_rows"] = preset_rows(request_language(request), slug)
    return render(request, VARIANTS[slug], context)


async def rules_sheet(request: Request) -> Response:
    try:
        rules = rules_from_query(request.query_params)
    except OptionsError as error:
        return render(
            request,
            "rules/sheet.html",
            {"error": {"code": error.code, "params": error.params}, "sheet": None},
            status=400,
        )
    sheet = rules_sheet_context(rules, hints_from_query(request.query_params))
    return render(request, "rules/sheet.html", {"sheet": sheet, "error": None})


async def rules_sheet_part(request: Request) -> Response:
    """The rules sheet alone (no page around it), for the table page's rules dialog."""
    try:
        rules = rules_from_query(request.query_params)
    except OptionsError as error:
        text = refusal_text(error.code, error.params, translator(request_language(request)))
        return render(request, "rules/sheet_part.html", {"sheet": None, "error": text}, 400)
    sheet = rules_sheet_context(rules, hints_from_query(request.query_params))
    return render(request, "rules/sheet_part.html", {"sheet": sheet, "error": None})


MAX_CHECK_BYTES = 16 * 1024
MAX_CODE_LENGTH = 64
MAX_PARAMS = 16
MAX_PARAM_TEXT = 200
MAX_PARAM_NUMBER = 10**6
MAX_NAMES = 8
MAX_SEAT_NAME = 40


def _bad_request(message: str, status: int = 400, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": "bad_request", "message": message, **extra}, status_code=status)


def _json_param(request: Request, name: str, default: Any) -> Any:
    """A JSON query parameter of the type of ``default``; ValueError says what is wrong."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if len(raw) > MAX_CHECK_BYTES // 4:
        raise ValueError(f"{name} may hold at most {MAX_CHECK_BYTES // 4} characters")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        raise ValueError(f"{name} is not valid JSON") from None
    if not isinstance(value, type(default)):
        raise ValueError(f"{name} must be a JSON {type(default).__name__}")
    return value


def _scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= MAX_PARAM_TEXT and value.isprintable()
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return abs(value) <= MAX_PARAM_NUMBER
    return False


def _check_error_query(code: str, params: dict[str, Any], names: list[Any]) -> None:
    if len(code) > MAX_CODE_LENGTH or not code.isascii() or not code.isprintable():
        raise ValueError(f"code is at most {MAX_CODE_LENGTH} printable ASCII characters")
    if len(params) > MAX_PARAMS:
        raise ValueError(f"params holds at most {MAX_PARAMS} entries")
    for key, value in params.items():
        if len(key) > MAX_CODE_LENGTH or not _scalar(value):
            raise ValueError(
                f"params: {key[:MAX_CODE_LENGTH]!r} must be text of at most {MAX_PARAM_TEXT} "
                f"characters, a number within ±{MAX_PARAM_NUMBER}, true, false or null"
            )
    if len(names) > MAX_NAMES or not all(
        isinstance(n, str) and len(n) <= MAX_SEAT_NAME for n in names
    ):
        raise ValueError(f"names lists at most {MAX_NAMES} texts of {MAX_SEAT_NAME} characters")


async def error_text(request: Request) -> Response:
    """An error code of the engine or the server, with its params, in the person's language.

    ``names`` (a JSON list) names the seats, for codes whose params hold seat numbers. A query
    that cannot be read is answered 400 with what was wrong.
    """
    code = request.query_params.get("code", "")
    try:
        params = _json_param(request, "params", {})
        names = _json_param(request, "names", [])
        _check_error_query(code, params, names)
    except ValueError as error:
        unknown = translator(request_language(request)).gettext(UNKNOWN_REFUSAL)
        return _bad_request(str(error), code=code[:MAX_CODE_LENGTH], text=unknown)
    t = translator(request_language(request))

    def seat_name(seat: int) -> str:
        if 0 <= seat < len(names) and names[seat]:
            return str(names[seat])
        return t.gettext(SEAT_LABEL, number=seat + 1)

    text = refusal_text(code, params, t, seat_name if names else None)
    return JSONResponse({"code": code, "text": text})


async def refusal(request: Request) -> Response:
    """Why the rules refuse an action in a seat's own position (see :func:`refusal_for`).

    The body is read no further than :data:`MAX_CHECK_BYTES`; a body or a position that
    cannot be read is answered 4xx with what was wrong (and the unknown-refusal text)."""
    t = translator(request_language(request))
    try:
        body = await read_body(request, MAX_CHECK_BYTES)
    except BodyTooLarge as error:
        return _bad_request(str(error), 413, limit=error.limit)
    except ClientDisconnect:
        return _bad_request("the request body was cut off")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        answer = refusal_for(None, t)
        return JSONResponse({**answer, "error": "the body is not valid JSON"}, status_code=400)
    answer = refusal_for(data, t)
    return JSONResponse(answer, status_code=400 if "error" in answer else 200)


def _tables(request: Request) -> TableFinder | None:
    """The tables this site may look up (``app.state.tables``, given by cardverse.application),
    or None for a site without tables."""
    return getattr(request.app.state, "tables", None)


def _table_exists(request: Request, table_id: str) -> bool | None:
    """Whether the server knows the table (None when this app has no tables)."""
    tables = _tables(request)
    if tables is None:
        return None
    return tables.get(table_id) is not None


def _watched_exists(request: Request, watch_id: str) -> bool | None:
    tables = _tables(request)
    if tables is None:
        return None
    return tables.get_watched(watch_id) is not None


async def table_page(request: Request) -> Response:
    """The table at its share link: lobby, play and results (drawn by static/js/table.js);
    at its watch link (``/w/{watch_id}``) the same page, only to watch."""
    watch_id = request.path_params.get("watch_id")
    table_id = watch_id if watch_id is not None else request.path_params["table_id"]
    exists = _watched_exists if watch_id is not None else _table_exists
    if not TABLE_ID.match(table_id) or exists(request, table_id) is False:
        return render(request, "table_missing.html", {}, status=404)
    t = translator(request_language(request))
    config = table_config(table_id, t)
    config["watch"] = watch_id is not None
    if watch_id is None:  # the watch link must not learn how to join
        config["inviteCode"] = show_code(invite_code_for(table_id))
    context = {
        "table_id": table_id,
        "config": config,
        "card_svgs": card_templates(t),
        "level_names": list(BOT_LEVELS.items()),
    }
    response = render(request, "table.html", context)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


async def replay_page(request: Request) -> Response:
    """The replay viewer of a finished game (``/t/{table_id}/replay/{game}``, or from a watch
    link ``/w/{watch_id}/replay/{game}``), or of a record file picked from disk (``/replay``).
    ``static/js/replay.js`` reads the record and draws it; a game not over yet has no record,
    and the page says so."""
    watch_id = request.path_params.get("watch_id")
    key = watch_id if watch_id is not None else request.path_params.get("table_id")
    game = request.path_params.get("game")
    state = "open"
    if key is not None:
        exists = _watched_exists if watch_id is not None else _table_exists
        if not TABLE_ID.match(key) or exists(request, key) is False:
            return render(request, "table_missing.html", {}, status=404)
        tables = _tables(request)
        table = None
        if tables is not None:
            table = tables.get_watched(key) if watch_id is not None else tables.get(key)
        finished = len(table.records) if table is not None else 0
        state = "ready" if game is not None and 1 <= game <= finished else "not_finished"
    t = translator(request_language(request))
    api = "watch" if watch_id is not None else "tables"  # a watch link knows only its own id
    context = {
        "table_id": key,
        "back": None if key is None else (f"/w/{key}" if watch_id is not None else f"/t/{key}"),
        "game": game,
        "state": state,
        "config": {**table_config(key or "", t), "replay": {"api": api, "id": key, "game": game}},
        "card_svgs": card_templates(t),
    }
    status = 404 if state == "not_finished" else 200
    response = render(request, "replay.html", context, status=status)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


async def replay_read(request: Request) -> Response:
    """``POST /replay/read``: a game record in the body; every step of its game, or what is
    wrong with it in the person's language (see :mod:`cardverse.web.replay`). The record is
    received before a replay slot is taken (:class:`~cardverse.web.replay.ReplayLimits`)."""
    t = translator(request_language(request))
    address = request.client.host if request.client is not None else "unknown"

    def too_many() -> Response:
        answer, status = refused(t.gettext(TOO_MANY), "too many replays: try again later", 429)
        return JSONResponse(answer, status_code=status, headers={"Retry-After": "10"})

    if not REPLAY_LIMITS.may_send(address):
        return too_many()
    try:
        async with asyncio.timeout(READ_SECONDS):
            body = await read_body(request, MAX_RECORD_BYTES)
    except BodyTooLarge as error:
        answer, status = refused(t.gettext(TOO_LARGE), str(error), 413)
        return JSONResponse(answer, status_code=status)
    except ClientDisconnect:
        answer, status = refused(t.gettext(BAD_RECORD), "the request body was cut off")
        return JSONResponse(answer, status_code=status)
    except TimeoutError:
        detail = f"the record did not arrive within {READ_SECONDS:g} s"
        answer, status = refused(t.gettext(TOO_SLOW), detail, 408)
        return JSONResponse(answer, status_code=status, headers={"Connection": "close"})
    finally:
        REPLAY_LIMITS.done_reading(address)
    if not REPLAY_LIMITS.take(address):  # the slot is held only while the replay is made
        return too_many()
    try:
        # the engine's work is done in a thread: the event loop goes on serving the tables
        answer, status = await run_in_threadpool(replay_answer, body, t)
    finally:
        REPLAY_LIMITS.running -= 1
    return JSONResponse(answer, status_code=status)


CARD_CODES = {rank + suit for rank in RANK_NAMES for suit in SUIT_NAMES} | set(JOKER_NAMES.values())


async def card_image(request: Request) -> Response:
    code = request.path_params["code"].upper()
    if code not in CARD_CODES:
        return error_page(request, 404)
    svg = card_svg(code, translator(request_language(request)))
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={"Cache-Control": "public, max-age=3600", "Vary": "Accept-Language, Cookie"},
    )


# --- error pages ---------------------------------------------------------------------------

log = logging.getLogger(__name__)

# Addresses that answer machines (JSON, WebSocket), not people: their errors stay as they are.
MACHINE_PREFIXES = ("/api/", "/ws/", "/i18n/")

# status -> (heading, sentence); any other status gets the generic pair.
ERROR_TEXTS: dict[int, tuple[str, str]] = {
    400: (N_("Bad request"), N_("This request could not be read.")),
    403: (N_("Not allowed"), N_("This page cannot be shown to you.")),
    404: (N_("Page not found"), N_("There is no page at this address.")),
    405: (N_("Not allowed"), N_("This address cannot be used that way.")),
    500: (
        N_("Something went wrong"),
        N_("Something went wrong on the server. Try again in a moment."),
    ),
}
ERROR_TEXTS[503] = ERROR_TEXTS[500]  # the database cannot be reached just now
GENERIC_ERROR = (N_("Something went wrong"), N_("This request could not be answered."))


def error_page(request: Request, status: int, headers: dict[str, str] | None = None) -> Response:
    """An error page with the site's layout, language, skip link and footer."""
    heading, message = ERROR_TEXTS.get(status, GENERIC_ERROR)
    context = {"heading": heading, "message": message, "slug": None}
    return render(request, "error.html", context, status=status, headers=headers)


def outage_page(request: Request, status: int, headers: dict[str, str]) -> Response | None:
    """The error page a person gets when the database or Redis is down (None for the
    addresses that answer machines: they get the server's JSON answer)."""
    if request.url.path.startswith(MACHINE_PREFIXES):
        return None
    return error_page(request, status, headers)


async def http_error(request: Request, exc: Exception) -> Response:
    """An HTTP error (unknown address, wrong method …): a page for people; machines as before."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith(MACHINE_PREFIXES) or exc.status_code in (204, 304):
        if exc.status_code in (204, 304):
            return Response(status_code=exc.status_code, headers=exc.headers)
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
    return error_page(request, exc.status_code, dict(exc.headers or {}))


async def server_error(request: Request, exc: Exception) -> Response:
    """An unexpected failure: the error page (or a short text, should the page itself fail)."""
    if request.url.path.startswith(MACHINE_PREFIXES):
        return PlainTextResponse("Internal Server Error", status_code=500)
    try:
        return error_page(request, 500)
    except Exception:  # the page itself failed: say so briefly rather than fail again
        log.exception("the error page could not be shown")
        return PlainTextResponse("Internal Server Error", status_code=500)


def error_handlers() -> dict[Any, Any]:
    """Starlette exception handlers that answer every HTTP error of a page with an error page."""
    return {HTTPException: http_error, 500: server_error}


def web_routes() -> list[BaseRoute]:
    """Every page of the web client, plus its static files under /static.

    ``/t/{table_id}`` is the table page; the API, the WebSocket and the tables are the server's
    (cardverse.server), whose app the top-level cardverse.application hands these routes.
    """
    return [
        Route("/", home, name="web_home"),
        Route("/join", join, name="web_join"),
        Route("/rules", rules_standard, name="web_rules"),
        Route("/bots", bots_page, name="web_bots"),
        Route("/rules/sheet", rules_sheet, name="web_rules_sheet"),
        Route("/rules/sheet/part", rules_sheet_part, name="web_rules_sheet_part"),
        Route("/rules/{variant}", rules_variant, name="web_rules_variant"),
        Route("/cards/{code}.svg", card_image, name="web_card"),
        Route("/i18n/error", error_text, name="web_error_text"),
        Route("/i18n/refusal", refusal, methods=["POST"], name="web_refusal"),
        Route(TABLE_PATH, table_page, name="web_table"),
        Route(TABLE_PATH + "/replay/{game:int}", replay_page, name="web_replay"),
        Route(TABLE_PATH + "/qr.svg", table_qr, name="web_table_qr"),
        Route("/w/{watch_id}/replay/{game:int}", replay_page, name="web_watch_replay"),
        Route("/replay", replay_page, name="web_replay_file"),
        Route("/replay/read", replay_read, methods=["POST"], name="web_replay_read"),
        Route("/w/{watch_id}", table_page, name="web_watch"),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="web_static"),
    ]
