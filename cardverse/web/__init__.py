"""The web client: server-rendered pages (Jinja2), ES modules and CSS, in five languages.

The top-level application (:mod:`cardverse.application`) hands the server's Starlette app
:func:`web_routes`, :func:`error_handlers` for the error pages and :func:`outage_page`; the
pages look tables up through ``app.state.tables`` (a
:class:`~cardverse.tabletalk.finder.TableFinder`); the web package imports nothing from the
server. :func:`rules_sheet_context`
builds the rules sheet of a table from its :class:`~cardverse.engine.options.Rules`.
"""

from __future__ import annotations

from .pages import TABLE_PATH, error_handlers, outage_page, web_routes
from .rulesheet import rules_sheet_context

__all__ = ["TABLE_PATH", "error_handlers", "outage_page", "rules_sheet_context", "web_routes"]
