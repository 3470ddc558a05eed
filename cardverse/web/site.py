"""What every page shares: the version, the source commit, one Jinja2 environment a language."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from .. import __version__
from ..engine.options import SPECS
from .cards import card_svg
from .i18n import HERE, LANGUAGES, N_, js_messages, translations, translator
from .messages import (
    BOT_LEVEL_TEXTS,
    BOT_LEVELS,
    OPTION_LABELS,
    option_value,
    rank_short,
    refusal_text,
    title_label,
)

TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"
COMMIT_ENV = "CARDVERSE_COMMIT"

# The rules pages: slug -> template, one per option that has a page (its part says so, and its
# template is rules/<option>.html), then the presets. The standard game is /rules itself.
VARIANTS: dict[str, str] = {
    **{spec.page: f"rules/{name}.html" for name, spec in SPECS.items() if spec.page},
    "cardverse": "rules/cardverse.html",
    "daifugo": "rules/daifugo.html",
    "uecda": "rules/uecda.html",
}
# The option each option page is about (slug -> option name).
PAGE_OPTIONS: dict[str, str] = {spec.page: name for name, spec in SPECS.items() if spec.page}


def other_options(slug: str) -> list[str]:
    """The labels (msgids) of every option a table may set besides the one of page ``slug``."""
    own = PAGE_OPTIONS.get(slug)
    return [OPTION_LABELS[name] for name in SPECS if name not in ("players", own)]


VARIANT_LABELS: dict[str, str] = {
    **{spec.page: OPTION_LABELS[name] for name, spec in SPECS.items() if spec.page},
    "cardverse": N_("The CardVerse preset"),
    "daifugo": N_("The Dai Fugō preset"),
    "uecda": N_("The UECda preset"),
}


@cache
def source_commit() -> str:
    """The short commit the server runs: $CARDVERSE_COMMIT, else git, else "unknown"."""
    from_env = os.environ.get(COMMIT_ENV, "").strip()
    if from_env:
        return from_env[:12]
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and commit else "unknown"


@cache
def environment(lang: str) -> Environment:
    """The Jinja2 environment of one language, with gettext and the page helpers installed."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES_DIR),
        autoescape=select_autoescape(["html", "svg"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    t = translator(lang)

    def card(code: str, **options: Any) -> Markup:
        return Markup(card_svg(code, t, **options))

    env.globals.update(
        lang=lang,
        languages=LANGUAGES,
        version=__version__,
        commit=source_commit(),
        card=card,
        option_value=lambda name, value: option_value(name, value, t),
        title_label=lambda title: title_label(title, t),
        rank_short=lambda rank: rank_short(rank, t),
        refusal_text=lambda code, params=None: refusal_text(code, params, t),
        js_messages=lambda: js_messages(lang),
        variants=VARIANTS,
        variant_labels=VARIANT_LABELS,
        bot_levels=[(BOT_LEVELS[level], BOT_LEVEL_TEXTS[level]) for level in BOT_LEVELS],
    )
    return env
