"""``cardverse uecda``: the UECda bridge's sub-commands (docs/uecda.md, sections 8, 9 and 11):
``serve``, a UECda-protocol server that plays a match under the ``uecda`` preset, ``check``,
the reference server's recorded games replayed through our ``uecda`` referee, and ``client``,
one of our computer players as a UECda program."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from ..cli import EXIT_ILLEGAL, EXIT_MALFORMED, EXIT_OK, register_command

LEVELS = ("easy", "normal")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 1 or more")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port (0-65535; 0 picks a free one)")
    return value


def _seconds(allow_zero: bool) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if value < 0 or (value == 0 and not allow_zero) or value != value:
            least = "0 or more" if allow_zero else "more than 0"
            raise argparse.ArgumentTypeError(f"{text} seconds: give {least}")
        return value

    return parse


def cmd_uecda_serve(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    from .serve import ServeConfig, UecdaServer

    config = ServeConfig(
        host=args.host,
        port=args.port,
        games=args.games,
        seed=args.seed,
        records=Path(args.records) if args.records else None,
        handshake_timeout=args.handshake_timeout,
        move_timeout=args.move_timeout,
        lead_attempts=args.lead_attempts,
        substitute=args.substitute,
    )
    if config.records is not None and config.records.exists() and not config.records.is_dir():
        print(f"cardverse uecda serve: --records {config.records} is not a folder", file=err)
        return EXIT_MALFORMED
    server = UecdaServer(
        config, out=out, log=lambda line: print(f"uecda serve: {line}", file=err, flush=True)
    )
    try:
        port = server.bind()
    except OSError as error:
        print(
            f"cardverse uecda serve: cannot listen on {config.host} port {config.port}: "
            f"{error.strerror or error}",
            file=err,
        )
        return EXIT_MALFORMED
    out.write(f"listening on {config.host} port {port}\n")
    out.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        server.close()
        print("cardverse uecda serve: interrupted", file=err)
        return 130
    return EXIT_OK


def cmd_uecda_check(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    from .check import LogError, check_file

    try:
        report = check_file(Path(args.log))
    except OSError as error:
        print(f"cardverse uecda check: cannot read {args.log}: {error.strerror}", file=err)
        return EXIT_MALFORMED
    except LogError as error:
        print(f"cardverse uecda check: malformed log: {error}", file=err)
        return EXIT_MALFORMED
    if args.json:
        out.write(json.dumps(report.to_json(), indent=1) + "\n")
    else:
        out.write(report.summary(args.show) + "\n")
    return EXIT_ILLEGAL if report.unexplained else EXIT_OK


def cmd_uecda_client(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    from .client import ClientError, run_client

    try:
        run_client(
            args.host,
            args.port,
            args.name or f"cv-{args.bot}",
            args.bot,
            seed=args.seed,
            time_limit=args.time_limit,
            playouts=args.playouts,
            out=out,
            err=err,
        )
    except ClientError as error:
        print(f"cardverse uecda client: {error}", file=err)
        return EXIT_ILLEGAL
    except KeyboardInterrupt:
        print("cardverse uecda client: interrupted", file=err)
        return 130
    return EXIT_OK


def add_uecda_parser(subparsers: Any) -> None:
    """Add ``uecda`` (``serve``, ``check``, ``client``) to the command line's sub-commands."""
    parser = subparsers.add_parser(
        "uecda",
        help="the UECda tournament protocol: serve a match to five programs, check a tndhms log",
        description="The UECda computer Dai Fugō tournament's protocol (docs/uecda.md).",
    )
    sub = parser.add_subparsers(
        dest="uecda_command", metavar="COMMAND", required=True, parser_class=type(parser)
    )
    serve = sub.add_parser(
        "serve",
        help="seat five UECda programs and play a match under the uecda preset",
        description=(
            "Listen for five programs speaking the UECda protocol (version 20070), seat them "
            "in the order they connect (player numbers 0-4) and play --games games under "
            "CardVerse's uecda preset, with the tournament's structure: the seats redrawn every "
            "3 games, the exchange from the second game of every hundred. Prints the port, "
            "then each game's places; writes each game as a CardVerse game record with "
            "--records. The log goes to standard error. docs/uecda.md, section 8."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument(
        "--port", type=_port, default=42485, help="TCP port (42485; 0 picks a free port)"
    )
    serve.add_argument("--games", type=_positive_int, default=1000, help="games (1000)")
    serve.add_argument("--seed", type=int, default=None, help="seed of seats, deals and bots")
    serve.add_argument(
        "--records", metavar="DIR", help="write game-NNNN.json per game and match.jsonl here"
    )
    serve.add_argument(
        "--handshake-timeout",
        type=_seconds(False),
        default=2.0,
        metavar="SECONDS",
        help="time a program has to send its handshake after connecting (2, as the reference)",
    )
    serve.add_argument(
        "--move-timeout",
        type=_seconds(True),
        default=30.0,
        metavar="SECONDS",
        help="time a program has to start its move or exchange (30; 0: no limit); a program "
        "that exceeds it is replaced by a computer player",
    )
    serve.add_argument(
        "--lead-attempts",
        type=_positive_int,
        default=3,
        metavar="N",
        help="refused submissions on an empty trick before a computer player leads for the "
        "program (3)",
    )
    serve.add_argument(
        "--substitute",
        choices=LEVELS,
        default="normal",
        help="the computer player that replaces a lost program (normal)",
    )
    serve.set_defaults(handler=cmd_uecda_serve)
    check = sub.add_parser(
        "check",
        help="replay a tndhms log through our uecda referee and classify every disagreement",
        description=(
            "Read a log of the UECda reference server tndhms, rebuild each game's deal and "
            "exchange, and judge every logged submission with CardVerse's uecda referee at the "
            "reference's position. Disagreements are counted in the categories of "
            "docs/uecda.md section 7 (lead_pass, own_cover, rank_clear, joker_beyond_end, "
            "twenty_passes) or as unexplained. Exit status 0 when none is unexplained, 1 "
            "otherwise, 2 on a malformed log. docs/uecda.md, section 9."
        ),
    )
    check.add_argument("log", help="a tndhms log (logs/<start time>.log)")
    check.add_argument("--json", action="store_true", help="the full report as JSON")
    check.add_argument(
        "--show",
        type=_positive_int,
        default=5,
        metavar="N",
        help="unexplained cases shown in detail in the summary (5)",
    )
    check.set_defaults(handler=cmd_uecda_check)
    client = sub.add_parser(
        "client",
        help="play in a UECda server's match as one of our computer players",
        description=(
            "Connect to a UECda server (the reference tndhms, cardverse uecda serve, or any "
            "server of protocol 20070) as one program and play its games with one of "
            "CardVerse's computer players until the server's all-over code. The client plays "
            "the server's rules as the tables show them and sends only plays the reference "
            "accepts. Exit status 0 when the match ended, 1 when the connection failed or the "
            "server broke the protocol (the message says which). docs/uecda.md, section 11."
        ),
    )
    client.add_argument("--host", default="127.0.0.1", help="the server's address (127.0.0.1)")
    client.add_argument("--port", type=_port, default=42485, help="the server's port (42485)")
    client.add_argument(
        "--name", default="", help="the name in the handshake (cv-LEVEL; 14 characters kept)"
    )
    client.add_argument(
        "--bot", choices=("easy", "normal", "hard"), default="normal", help="the player (normal)"
    )
    client.add_argument("--seed", type=int, default=None, help="seed of the bot's choices")
    client.add_argument(
        "--time-limit",
        type=_seconds(False),
        default=None,
        metavar="SECONDS",
        help="hard: the search's time per decision (1 s by default)",
    )
    client.add_argument(
        "--playouts",
        type=_positive_int,
        default=None,
        metavar="N",
        help="hard: playouts per decision (deterministic for a seed); with --time-limit, "
        "whichever ends first",
    )
    client.set_defaults(handler=cmd_uecda_client)


register_command(add_uecda_parser)
