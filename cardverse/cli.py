"""The ``cardverse`` command line: ``moves`` and ``check`` (notation.md), and the product's tools.

Exit status: 0 success; 1 an illegal action in a record (the rule is named); 2 malformed input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from . import __version__

# The engine and the notation are imported by the commands that use them, and the other layers'
# commands (arena, server) only when they run: ``cardverse --help`` imports neither.

EXIT_OK = 0
EXIT_ILLEGAL = 1
EXIT_MALFORMED = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors with our exit status for malformed input."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"cardverse: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_MALFORMED)


def _read_json(path: str, stdin: TextIO) -> Any:
    from .notation import NotationError

    try:
        if path == "-":
            text = stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        raise NotationError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise NotationError(f"{path} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise NotationError(
            f"{path} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None


def _print_json_list(items: list[dict[str, Any]], out: TextIO) -> None:
    if not items:
        out.write("[]\n")
        return
    out.write("[\n" + ",\n".join("  " + json.dumps(item) for item in items) + "\n]\n")


def cmd_moves(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    from .engine import from_move
    from .notation import NotationError, read_position, sorted_moves

    try:
        position = read_position(_read_json(args.position, stdin))
    except NotationError as error:
        print(f"cardverse moves: bad position: {error}", file=err)
        return EXIT_MALFORMED
    seat = position.turn
    moves = sorted_moves(position.legal_moves())
    _print_json_list([from_move(m, seat).to_json() for m in moves], out)
    return EXIT_OK


def cmd_check(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    from .notation import IllegalRecordAction, NotationError, replay_record, summary

    try:
        replay = replay_record(_read_json(args.record, stdin))
    except NotationError as error:
        print(f"cardverse check: bad record: {error}", file=err)
        return EXIT_MALFORMED
    except IllegalRecordAction as illegal:
        print(f"cardverse check: {illegal}", file=err)
        return EXIT_ILLEGAL
    out.write(json.dumps(summary(replay.game)) + "\n")
    return EXIT_OK


Command = Callable[[argparse.Namespace, TextIO, TextIO, TextIO], int]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cardverse",
        description="CardVerse: play President (Dai Fugō). Rules engine tools, bots and server.",
    )
    parser.add_argument("--version", action="version", version=f"cardverse {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    moves = sub.add_parser("moves", help="list the legal moves of a position (JSON, notation.md)")
    moves.add_argument("position", help="position file, or - for standard input")
    moves.set_defaults(handler=cmd_moves)
    check = sub.add_parser(
        "check", help="replay a game record and print the state after its last action"
    )
    check.add_argument("record", help="game record file, or - for standard input")
    check.set_defaults(handler=cmd_check)
    for register in _EXTRA_COMMANDS:
        register(sub)
    for name, (_, line) in LAYER_COMMANDS.items():
        if name not in sub.choices:  # listed by --help; its module loads when it runs
            sub.add_parser(name, help=line, add_help=False).set_defaults(handler=_not_loaded)
    return parser


# Other layers (arena, server) add their sub-commands here without the engine knowing them.
_EXTRA_COMMANDS: list[Callable[[Any], None]] = []


ENGINE_COMMANDS = ("moves", "check")

#: the other layers' sub-commands: the module that registers each, and its line in --help
LAYER_COMMANDS: dict[str, tuple[str, str]] = {
    "arena": (
        "cardverse.arena",
        "play many games between computer players and report their strength",
    ),
    "uecda": (
        "cardverse.uecda.cli",
        "the UECda tournament protocol: serve a match to five programs, check a tndhms log",
    ),
    "serve": (
        "cardverse.application",
        "run the multiplayer server (tables, WebSocket play, computer players)",
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in LAYER_COMMANDS:
        _load_layer(LAYER_COMMANDS[args_list[0]][0])  # only the sub-command that runs
    parser = build_parser()
    args = parser.parse_args(args_list)
    handler: Command | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_OK
    return handler(args, sys.stdin, sys.stdout, sys.stderr)


def _not_loaded(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    print(f"cardverse: the {args.command} command is not installed here", file=err)
    return EXIT_MALFORMED


def _load_layer(module: str) -> None:
    """Import a layer that registers sub-commands (it may be absent from an installation)."""
    import importlib

    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.partition(".")[0] == "cardverse":
            if error.name is None or not module.startswith(error.name):
                raise
            return  # the layer itself is absent from this installation
        # A package of an extra is missing: the base install has the engine, notation, bots
        # and command line only (pyproject.toml).
        print(
            f"cardverse: this command needs the package {error.name!r}, which the base install "
            "leaves out: pip install 'cardverse[server]'",
            file=sys.stderr,
        )
        raise SystemExit(EXIT_MALFORMED) from None


def _load_extra_commands() -> None:
    """Import every layer that registers sub-commands."""
    for module, _ in LAYER_COMMANDS.values():
        _load_layer(module)


def register_command(register: Callable[[Any], None]) -> None:
    if register not in _EXTRA_COMMANDS:
        _EXTRA_COMMANDS.append(register)
