"""Each server default is written once, in ``Settings`` (and the HTTP server's in
``ConnectionLimits``): ``cardverse serve`` without options runs on exactly those defaults."""

from __future__ import annotations

import argparse
from dataclasses import fields

import pytest

from cardverse.application import register
from cardverse.server.cli import http_limits_from, settings_from
from cardverse.server.connections import ConnectionLimits
from cardverse.server.tables import Settings


def serve_parser() -> argparse.ArgumentParser:
    """``cardverse serve``'s parser, as the application registers it."""
    root = argparse.ArgumentParser(prog="cardverse")
    commands = root.add_subparsers(dest="command")
    register(commands)
    parser: argparse.ArgumentParser = commands.choices["serve"]
    return parser


def parse(*argv: str) -> argparse.Namespace:
    return serve_parser().parse_args(list(argv))


def test_every_cli_default_is_the_settings_default() -> None:
    built = settings_from(parse(), environ={})
    defaults = Settings()
    differing = [
        (f.name, getattr(built, f.name), getattr(defaults, f.name))
        for f in fields(Settings)
        if getattr(built, f.name) != getattr(defaults, f.name)
    ]
    assert differing == []


def test_every_http_default_is_the_connection_limits_default() -> None:
    assert http_limits_from(parse()) == ConnectionLimits()


def test_the_help_states_the_defaults_it_read() -> None:
    text = " ".join(serve_parser().format_help().split())
    defaults = Settings()
    assert f"(default {defaults.turn_timer:g})" in text
    assert f"({defaults.max_watchers})" in text
    assert f"({defaults.idle_unload:g})" in text
    assert "FULL (default)" in text and "group (default)" in text


def test_options_and_environment_override_the_defaults() -> None:
    environ = {
        "CARDVERSE_DATABASE": "postgresql://db/cardverse",
        "CARDVERSE_REDIS": "redis://cache/0",
        "CARDVERSE_OPERATOR_TOKEN": "secret",
    }
    built = settings_from(
        parse("--turn-timer", "off", "--create-per-minute", "12", "--lease-ttl", "6"), environ
    )
    assert built.turn_timer is None
    assert built.create_rate == pytest.approx(0.2)
    assert (built.lease_ttl, built.lease_renew, built.orphan_scan) == (6.0, 2.0, 1.0)
    assert built.database == "postgresql://db/cardverse" and built.redis == "redis://cache/0"
    assert built.operator_token == "secret"
    given = settings_from(parse("--database", "postgresql://other/db"), environ)
    assert given.database == "postgresql://other/db"  # the option before the environment
