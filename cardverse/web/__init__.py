"""The web client: server-rendered pages (Jinja2), ES modules and CSS, in four languages.

The server includes :func:`web_routes` in its Starlette app. :func:`rules_sheet_context`
builds the rules sheet of a table from its :class:`~cardverse.engine.options.Rules`.
"""

from __future__ import annotations

from .pages import TABLE_PATH, web_routes
from .rulesheet import rules_sheet_context

__all__ = ["TABLE_PATH", "rules_sheet_context", "web_routes"]
