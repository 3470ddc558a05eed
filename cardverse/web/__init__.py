"""The web client: server-rendered pages (Jinja2), ES modules and CSS, in five languages.

The server includes :func:`web_routes` in its Starlette app, and :func:`error_handlers` for
the error pages. :func:`rules_sheet_context`
builds the rules sheet of a table from its :class:`~cardverse.engine.options.Rules`.
"""

from __future__ import annotations

from .pages import TABLE_PATH, error_handlers, web_routes
from .rulesheet import rules_sheet_context

__all__ = ["TABLE_PATH", "error_handlers", "rules_sheet_context", "web_routes"]
