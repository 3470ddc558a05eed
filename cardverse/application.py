"""The whole site: the server's app with the web pages, wired here and nowhere else.

:func:`create_app` builds the server's ASGI app (:func:`cardverse.server.app.create_server_app`)
and hands it the web layer's routes, error pages and outage page (:class:`~cardverse.server.app.
Pages`); the pages look tables up through :class:`ServiceTables`, which shows them the server's
table service as a :class:`~cardverse.tabletalk.finder.TableFinder`. So the server imports
nothing from the web package, and the web package nothing from the server (tests/test_layers.py).

Everything that starts the server goes through here: ``cardverse serve`` (registered below; its
options are :mod:`cardverse.server.cli`'s), ``make run`` (which runs ``cardverse serve``), its
``--workers`` processes, and the tests' servers.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .cli import register_command
from .server import cli as serve_cli

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from .server.tables import Settings, Table, TableService

SERVE_HELP = "run the multiplayer server (tables, WebSocket play, computer players)"


class ServiceTables:
    """The server's table service as the pages may use it (a TableFinder): a refused invite
    look-up is told as :class:`~cardverse.tabletalk.invites.TooManyLookups`."""

    def __init__(self, service: TableService) -> None:
        self.service = service

    def get(self, table_id: str) -> Table | None:
        return self.service.get(table_id)

    def get_watched(self, watch_id: str) -> Table | None:
        return self.service.get_watched(watch_id)

    def find_by_code(self, text: str, address: str) -> Table | None:
        from .server.protocol import ProtocolError
        from .tabletalk.invites import TooManyLookups

        try:
            return self.service.find_by_code(text, address)
        except ProtocolError as error:
            if error.code != "too_many_lookups":
                raise
            raise TooManyLookups(int(error.params.get("retry_after", 60))) from None


def create_app(
    data_dir: str | Path = "data", settings: Settings | None = None, **overrides: Any
) -> Starlette:
    """The site's ASGI app on ``settings`` (or keyword overrides of
    :class:`~cardverse.server.tables.Settings`): the server's API and WebSocket with the pages.

    The server and the web package are imported here, when an app is made, so that
    ``cardverse serve --help`` stays light."""
    from .server.app import Pages, create_server_app
    from .server.tables import Settings
    from .web import error_handlers, outage_page, web_routes

    if settings is None:
        settings = Settings(data_dir=Path(data_dir), **overrides)
    elif overrides:
        raise TypeError("pass either settings or keyword overrides, not both")
    pages = Pages(routes=web_routes(), exception_handlers=error_handlers(), outage_page=outage_page)
    app = create_server_app(settings, pages)
    app.state.tables = ServiceTables(app.state.service)
    return app


def cmd_serve(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    """``cardverse serve``: the server's command line, running this site's app."""
    return serve_cli.serve(args, create_app, out, err)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help=SERVE_HELP)
    serve_cli.add_arguments(parser)
    parser.set_defaults(handler=cmd_serve)


register_command(register)
