"""``cardverse serve``: run the multiplayer server (uvicorn) on one SQLite file.

Registered with :func:`cardverse.cli.register_command` when this module is imported.
"""

from __future__ import annotations

import argparse
import logging
import socket
from pathlib import Path
from typing import Any, TextIO

from ..cli import register_command
from .protocol import MAX_MESSAGE_BYTES


def _seconds_or_off(text: str) -> float | None:
    if text.lower() in ("off", "none", "0"):
        return None
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("give a number of seconds above 0, or off")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("give a number of seconds from 0")
    return value


def cmd_serve(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    import uvicorn

    from .app import create_app
    from .heartbeat import heartbeat_limits
    from .tables import Settings

    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    settings = Settings(
        data_dir=Path(args.data_dir),
        turn_timer=args.turn_timer,
        grace=args.grace,
        bot_delay=args.bot_delay,
        round_pause=args.round_pause,
        hard_time_limit=args.hard_time_limit,
        bot_processes=args.bot_processes,
        sqlite_synchronous=args.sqlite_synchronous,
        rate_per_second=args.rate_limit,
        burst=args.burst,
    )
    app = create_app(settings=settings)
    # Bind first, so that --port 0 can say which port it got.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as error:
        print(f"cardverse serve: cannot listen on {args.host}:{args.port}: {error}", file=err)
        return 1
    sock.listen(2048)
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"cardverse: serving on http://{host}:{port} (data in {settings.data_dir})", file=out)
    out.flush()
    options: dict[str, Any] = {
        "log_level": args.log_level,
        "ws_max_size": 64 * MAX_MESSAGE_BYTES,  # larger: refused with a message, not closed
        "ws_per_message_deflate": False,
        **heartbeat_limits(),  # the heartbeat: a dead connection is found within 5 s
        "access_log": args.access_log,
        "lifespan": "on",
        "timeout_graceful_shutdown": 3,
    }
    config = uvicorn.Config(app, **options)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve", help="run the multiplayer server (tables, WebSocket play, computer players)"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    serve.add_argument(
        "--data-dir", default="./data", help="directory of the SQLite file (default ./data)"
    )
    serve.add_argument(
        "--turn-timer",
        type=_seconds_or_off,
        default=60.0,
        help="a new table's turn timer in seconds, or off (default 60)",
    )
    serve.add_argument(
        "--grace",
        type=_seconds_or_off,
        default=30.0,
        help="seconds a person may be disconnected before a computer player stands in (or off)",
    )
    serve.add_argument(
        "--bot-delay", type=_seconds, default=0.8, help="computer players' pause before acting"
    )
    serve.add_argument(
        "--round-pause", type=_seconds, default=3.0, help="pause between rounds (seconds)"
    )
    serve.add_argument(
        "--hard-time-limit",
        type=_seconds,
        default=1.0,
        help="the hard computer player's thinking time per move (seconds)",
    )
    serve.add_argument(
        "--bot-processes",
        type=int,
        default=1,
        help="worker processes for hard computer players (0: threads)",
    )
    serve.add_argument(
        "--sqlite-synchronous",
        default="NORMAL",
        choices=["NORMAL", "FULL"],
        help="NORMAL survives a killed process; FULL also a power cut (slower)",
    )
    serve.add_argument(
        "--rate-limit",
        type=float,
        default=20.0,
        help="client messages a second per connection (default 20)",
    )
    serve.add_argument(
        "--burst", type=int, default=40, help="messages a connection may send at once (40)"
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument("--access-log", action="store_true", help="log every HTTP request")
    serve.set_defaults(handler=cmd_serve)


register_command(register)
