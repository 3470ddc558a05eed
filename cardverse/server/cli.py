"""``cardverse serve``: run the multiplayer server (uvicorn): one process on one SQLite file, or
``--workers N`` processes (on this machine, sharing one listening socket) with
``--database postgresql://...`` and ``--redis redis://...`` (see docs/deploy.md).

Registered with :func:`cardverse.cli.register_command` when this module is imported.
"""

from __future__ import annotations

import argparse
import gc
import logging
import socket
from pathlib import Path
from typing import Any, TextIO

from ..cli import register_command


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


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("give a whole number from 1")
    return value


def _processes(text: str) -> int | None:
    if text == "auto":
        return None
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("give a whole number from 0, or auto")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("give a number above 0")
    return value


def _proxies(text: str) -> tuple[str, ...]:
    from .proxies import read_networks

    entries = tuple(e.strip() for e in text.split(",") if e.strip())
    try:
        read_networks(entries)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return entries


def tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector from stalling the event loop.

    With a few hundred tables a server holds a few hundred thousand objects the collector
    tracks (most of them each WebSocket's coroutines), and CPython's default thresholds run a
    full collection every few seconds under play, each scanning all of them: 60 to 100 ms of
    CPU with 300 tables, every connection waiting meanwhile. What the server holds once it is
    up (modules, the app) is frozen out of every collection, and the youngest generation is
    collected after 20,000 new objects instead of 700, so that the short-lived objects of a
    move die before a collection and are never promoted: full collections become rare (once
    each 8 million objects more made than freed) and the young ones take a few milliseconds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def cmd_serve(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    import os

    database = args.database or os.environ.get("CARDVERSE_DATABASE") or None
    redis_url = args.redis or os.environ.get("CARDVERSE_REDIS") or None
    if database and not database.startswith(("postgresql://", "postgres://")):
        print("cardverse serve: --database takes a postgresql:// address", file=err)
        return 2
    if redis_url and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        print("cardverse serve: --redis takes a redis:// address", file=err)
        return 2
    if (args.workers > 1 or redis_url) and not (database and redis_url):
        print(
            "cardverse serve: several processes need both --database postgresql://... and "
            "--redis redis://... (the SQLite file is for one process)",
            file=err,
        )
        return 2
    if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        import tempfile

        # Every worker writes its metrics here, so any worker's /api/metrics tells them all.
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="cardverse-metrics-")

    import uvicorn

    from .app import create_app
    from .connections import ConnectionLimits, uvicorn_config
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
        group_commit=args.commit == "group",
        rate_per_second=args.rate_limit,
        burst=args.burst,
        outbox_bytes=args.outbox_bytes,
        send_timeout=args.send_timeout,
        ws_idle_timeout=args.ws_idle_timeout,
        max_watchers=args.max_watchers,
        max_connections_per_address=args.max_connections_per_address,
        create_rate=args.create_per_minute / 60.0,
        create_burst=args.create_burst,
        max_tables=args.max_tables,
        idle_unload=args.idle_unload,
        lobby_expiry=args.lobby_expiry,
        timeout_timer=args.timeout_timer,
        max_timeouts=args.max_timeouts,
        allowed_origins=tuple(o.strip() for o in args.allowed_origins.split(",") if o.strip()),
        operator_token=os.environ.get("CARDVERSE_OPERATOR_TOKEN") or None,
        operator_addresses=tuple(
            a.strip() for a in args.operator_addresses.split(",") if a.strip()
        ),
        trusted_proxies=args.trusted_proxies,
        database=database,
        redis=redis_url,
        lease_ttl=args.lease_ttl,
        lease_renew=max(0.05, args.lease_ttl / 3),
        orphan_scan=min(1.0, args.lease_ttl / 3),
    )
    limits = ConnectionLimits(
        request_timeout=args.request_timeout,
        keep_alive=args.keep_alive,
        max_connections=args.max_connections,
    )
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
    where = f"data in {settings.data_dir}" if not database else "data in PostgreSQL"
    if args.workers > 1:
        where += f", {args.workers} worker processes"
    print(f"cardverse: serving on http://{host}:{port} ({where})", file=out)
    out.flush()

    def run_one() -> None:
        app = create_app(settings=settings)
        tune_garbage_collector()
        config = uvicorn_config(app, limits, log_level=args.log_level, access_log=args.access_log)
        uvicorn.Server(config).run(sockets=[sock])

    if args.workers <= 1:
        run_one()
        return 0
    from .workers import supervise

    return supervise(args.workers, run_one, err)


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
        type=_processes,
        default=None,
        help="worker processes for hard computer players (0: threads; default auto: "
        "one per core but one)",
    )
    serve.add_argument(
        "--sqlite-synchronous",
        default="FULL",
        choices=["NORMAL", "FULL"],
        help="FULL (default): an acknowledged action survives a power cut; NORMAL only a "
        "killed process",
    )
    serve.add_argument(
        "--commit",
        default="group",
        choices=["group", "per-move"],
        help="group (default): one transaction per event-loop turn for all tables; per-move: "
        "one per change",
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
    limits = serve.add_argument_group("limits against abuse")
    limits.add_argument(
        "--outbox-bytes",
        type=_count,
        default=1 << 20,
        help="unread output a connection may hold before it is aborted (default 1 MiB)",
    )
    limits.add_argument(
        "--send-timeout",
        type=_positive,
        default=10.0,
        help="seconds a connection may take to accept a message before it is aborted (10)",
    )
    limits.add_argument(
        "--ws-idle-timeout",
        type=_seconds_or_off,
        default=300.0,
        help="seconds without a message before a WebSocket is closed, or off (300)",
    )
    limits.add_argument(
        "--request-timeout",
        type=_positive,
        default=10.0,
        help="seconds a client has to send a whole HTTP request (10)",
    )
    limits.add_argument(
        "--keep-alive", type=_positive, default=5.0, help="idle keep-alive seconds (5)"
    )
    limits.add_argument(
        "--max-connections",
        type=_count,
        default=4000,
        help="open connections; more are answered 503 (4000)",
    )
    limits.add_argument(
        "--max-connections-per-address",
        type=_count,
        default=32,
        help="WebSocket connections from one address (32)",
    )
    limits.add_argument(
        "--max-watchers",
        type=_count,
        default=100,
        help="connections watching one table without a seat (100)",
    )
    limits.add_argument(
        "--create-per-minute",
        type=_positive,
        default=6.0,
        help="tables one address may create a minute (6) ...",
    )
    limits.add_argument(
        "--create-burst", type=_count, default=10, help="... with bursts of this many (10)"
    )
    limits.add_argument(
        "--max-tables",
        type=_count,
        default=20_000,
        help="tables in memory; creating more is refused (20000)",
    )
    limits.add_argument(
        "--idle-unload",
        type=_seconds_or_off,
        default=600.0,
        help="seconds before a table nobody is connected to leaves memory, or off (600)",
    )
    limits.add_argument(
        "--lobby-expiry",
        type=_seconds_or_off,
        default=86_400.0,
        help="seconds before a lobby nobody is connected to expires, or off (86400)",
    )
    limits.add_argument(
        "--timeout-timer",
        type=_positive,
        default=10.0,
        help="turn timer of a person who timed out this round (10)",
    )
    limits.add_argument(
        "--max-timeouts",
        type=_count,
        default=3,
        help="time-outs in a round before the computer keeps the seat for the round (3)",
    )
    limits.add_argument(
        "--allowed-origins",
        default="",
        help="comma-separated origins (scheme://host:port) allowed besides the site itself",
    )
    limits.add_argument(
        "--operator-addresses",
        default="",
        help="comma-separated client addresses that may read /api/operator (also: "
        "CARDVERSE_OPERATOR_TOKEN as a bearer token)",
    )
    limits.add_argument(
        "--trusted-proxies",
        type=_proxies,
        default=(),
        help="comma-separated addresses or networks of your load balancers (10.0.0.5, "
        "10.0.0.0/8): from them the client's address is read from X-Forwarded-For (the "
        "right-most hop that is not one of them); default none: the header is ignored, even "
        "from 127.0.0.1, and every limit per address counts the connection's own address",
    )
    cluster = serve.add_argument_group("several processes (see docs/deploy.md)")
    cluster.add_argument(
        "--database",
        default=None,
        help="postgresql://user@host:port/db: the event log in PostgreSQL (also "
        "CARDVERSE_DATABASE; default: the SQLite file in --data-dir)",
    )
    cluster.add_argument(
        "--redis",
        default=None,
        help="redis://host:port/0: table leases and messages between processes (also "
        "CARDVERSE_REDIS); needs --database",
    )
    cluster.add_argument(
        "--workers",
        type=_count,
        default=1,
        help="server processes on this machine sharing the port (needs --database and --redis)",
    )
    cluster.add_argument(
        "--lease-ttl",
        type=_positive,
        default=10.0,
        help="seconds a table's lease outlives a stalled owner (renewed every third of it; "
        "10); a dead owner is noticed at once",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument("--access-log", action="store_true", help="log every HTTP request")
    serve.set_defaults(handler=cmd_serve)


register_command(register)
