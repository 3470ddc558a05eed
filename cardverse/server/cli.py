"""The options of ``cardverse serve`` and running the server they describe (uvicorn): one
process on one SQLite file, or ``--workers N`` processes (on this machine, sharing one listening
socket) with ``--database postgresql://...`` and ``--redis redis://...`` (see docs/deploy.md).

Every default is read from :class:`~cardverse.server.tables.Settings` (and the HTTP server's
from :class:`~cardverse.server.connections.ConnectionLimits`): a default is written once, there
(tests/server/test_serve_defaults.py checks it). The command itself is registered by the
top-level :mod:`cardverse.application`, which hands :func:`serve` the site's app factory: the
server package does not know the web pages.
"""

from __future__ import annotations

import argparse
import gc
import logging
import socket
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from .connections import ConnectionLimits
from .tables import Settings

DEFAULTS = Settings()  # every setting's default, read (never restated) below
HTTP_DEFAULTS = ConnectionLimits()


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


def _shown(value: float | None) -> str:
    """A default as the help says it: ``off`` for None, else the number as it is written."""
    return "off" if value is None else f"{value:g}"


def settings_from(args: argparse.Namespace, environ: dict[str, str]) -> Settings:
    """The server's settings from the parsed options (and ``CARDVERSE_DATABASE``,
    ``CARDVERSE_REDIS``, ``CARDVERSE_OPERATOR_TOKEN`` in ``environ``); what no option gives
    keeps its :class:`Settings` default."""
    settings = replace(
        DEFAULTS,
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
        operator_token=environ.get("CARDVERSE_OPERATOR_TOKEN") or None,
        operator_addresses=tuple(
            a.strip() for a in args.operator_addresses.split(",") if a.strip()
        ),
        trusted_proxies=args.trusted_proxies,
        database=args.database or environ.get("CARDVERSE_DATABASE") or None,
        redis=args.redis or environ.get("CARDVERSE_REDIS") or None,
        lease_ttl=args.lease_ttl,
        uecda_port=args.uecda_port,
        uecda_host=args.host,
        uecda_move_timeout=args.uecda_move_timeout,
        uecda_connections_per_address=args.uecda_connections_per_address,
    )
    if args.lease_ttl != DEFAULTS.lease_ttl:  # renewed every third of it, orphans looked for
        settings.lease_renew = max(0.05, args.lease_ttl / 3)  # as often (at most each second)
        settings.orphan_scan = min(1.0, args.lease_ttl / 3)
    return settings


def http_limits_from(args: argparse.Namespace) -> ConnectionLimits:
    return replace(
        HTTP_DEFAULTS,
        request_timeout=args.request_timeout,
        keep_alive=args.keep_alive,
        max_connections=args.max_connections,
    )


def serve(
    args: argparse.Namespace, app_factory: Callable[..., Any], out: TextIO, err: TextIO
) -> int:
    """Run the server the options describe; ``app_factory(settings=...)`` makes each process's
    ASGI app (:func:`cardverse.application.create_app`: the server with the web pages)."""
    import os

    settings = settings_from(args, dict(os.environ))
    database, redis_url = settings.database, settings.redis
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

    from .connections import uvicorn_config

    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    limits = http_limits_from(args)
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
    if settings.uecda_port is not None:  # bound here too: port 0 says its port, workers share it
        from .programlink import PREBOUND, bind_port

        try:
            uecda = bind_port(args.host, settings.uecda_port)
        except OSError as error:
            print(
                f"cardverse serve: cannot listen on UECda port {args.uecda_port}: {error}", file=err
            )
            return 1
        settings.uecda_port = uecda.getsockname()[1]
        PREBOUND[settings.uecda_port] = uecda
        print(f"cardverse: UECda programs on {host} port {settings.uecda_port}", file=out)
    out.flush()

    def run_one() -> None:
        app = app_factory(settings=settings)
        tune_garbage_collector()
        config = uvicorn_config(app, limits, log_level=args.log_level, access_log=args.access_log)
        server = uvicorn.Server(config)
        handoff = getattr(app.state, "handoff", None)
        if handoff is not None:  # it takes sockets from siblings before any of its own
            handoff.server, handoff.server_state = server, server.server_state
        server.run(sockets=[sock])

    if args.workers <= 1:
        run_one()
        return 0
    from .workers import supervise

    if not args.no_handoff:
        import shutil
        import tempfile

        # The workers' Unix sockets for handing a table's socket to its owner: a directory
        # only this user may enter (mode 0700), removed when the supervisor ends.
        settings.handoff_dir = tempfile.mkdtemp(prefix="cardverse-handoff-")
        try:
            return supervise(args.workers, run_one, err)
        finally:
            shutil.rmtree(settings.handoff_dir, ignore_errors=True)
    return supervise(args.workers, run_one, err)


def add_arguments(serve: argparse.ArgumentParser) -> None:
    """The options of ``cardverse serve``, each defaulting to its :class:`Settings` field (or
    the HTTP server's :class:`ConnectionLimits` field); the help says the default it read."""
    d, h = DEFAULTS, HTTP_DEFAULTS
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    serve.add_argument(
        "--data-dir",
        default=str(d.data_dir),
        help=f"directory of the SQLite file (default {d.data_dir})",
    )
    serve.add_argument(
        "--turn-timer",
        type=_seconds_or_off,
        default=d.turn_timer,
        help=f"a new table's turn timer in seconds, or off (default {_shown(d.turn_timer)})",
    )
    serve.add_argument(
        "--grace",
        type=_seconds_or_off,
        default=d.grace,
        help="seconds a person may be disconnected before a computer player stands in (or "
        f"off; default {_shown(d.grace)})",
    )
    serve.add_argument(
        "--bot-delay",
        type=_seconds,
        default=d.bot_delay,
        help=f"computer players' pause before acting ({_shown(d.bot_delay)})",
    )
    serve.add_argument(
        "--round-pause",
        type=_seconds,
        default=d.round_pause,
        help=f"pause between rounds (seconds; {_shown(d.round_pause)})",
    )
    serve.add_argument(
        "--hard-time-limit",
        type=_seconds,
        default=d.hard_time_limit,
        help="the hard computer player's thinking time per move (seconds; "
        f"{_shown(d.hard_time_limit)})",
    )
    serve.add_argument(
        "--bot-processes",
        type=_processes,
        default=d.bot_processes,
        help="worker processes for hard computer players (0: threads; default "
        + ("auto: one per core but one)" if d.bot_processes is None else f"{d.bot_processes})"),
    )
    serve.add_argument(
        "--sqlite-synchronous",
        default=d.sqlite_synchronous,
        choices=["NORMAL", "FULL"],
        help=f"{d.sqlite_synchronous} (default); FULL: an acknowledged action survives a power "
        "cut; NORMAL only a killed process",
    )
    commit = "group" if d.group_commit else "per-move"
    serve.add_argument(
        "--commit",
        default=commit,
        choices=["group", "per-move"],
        help=f"{commit} (default); group: one transaction per event-loop turn for all tables; "
        "per-move: one per change",
    )
    serve.add_argument(
        "--rate-limit",
        type=float,
        default=d.rate_per_second,
        help=f"client messages a second per connection (default {_shown(d.rate_per_second)})",
    )
    serve.add_argument(
        "--burst",
        type=int,
        default=d.burst,
        help=f"messages a connection may send at once ({d.burst})",
    )
    limits = serve.add_argument_group("limits against abuse")
    limits.add_argument(
        "--outbox-bytes",
        type=_count,
        default=d.outbox_bytes,
        help="unread output a connection may hold before it is aborted (default "
        f"{d.outbox_bytes} bytes)",
    )
    limits.add_argument(
        "--send-timeout",
        type=_positive,
        default=d.send_timeout,
        help="seconds a connection's full send buffer may take to drain before it is aborted "
        f"({_shown(d.send_timeout)})",
    )
    limits.add_argument(
        "--ws-idle-timeout",
        type=_seconds_or_off,
        default=d.ws_idle_timeout,
        help="seconds without a message before a WebSocket is closed, or off "
        f"({_shown(d.ws_idle_timeout)})",
    )
    limits.add_argument(
        "--request-timeout",
        type=_positive,
        default=h.request_timeout,
        help=f"seconds a client has to send a whole HTTP request ({_shown(h.request_timeout)})",
    )
    limits.add_argument(
        "--keep-alive",
        type=_positive,
        default=h.keep_alive,
        help=f"idle keep-alive seconds ({_shown(h.keep_alive)})",
    )
    limits.add_argument(
        "--max-connections",
        type=_count,
        default=h.max_connections,
        help=f"open connections; more are answered 503 ({h.max_connections})",
    )
    programs = serve.add_argument_group("programs at web tables (UECda, docs/uecda.md section 10)")
    programs.add_argument(
        "--uecda-port",
        type=int,
        default=d.uecda_port,
        help="TCP port where UECda programs connect to play at web tables (0: a free port; "
        "default off)",
    )
    programs.add_argument(
        "--uecda-move-timeout",
        type=_positive,
        default=d.uecda_move_timeout,
        help="seconds a program has to begin its move before a computer player takes its seat "
        f"({_shown(d.uecda_move_timeout)})",
    )
    programs.add_argument(
        "--uecda-connections-per-address",
        type=_count,
        default=d.uecda_connections_per_address,
        help=f"UECda connections from one address ({d.uecda_connections_per_address})",
    )
    limits.add_argument(
        "--max-connections-per-address",
        type=_count,
        default=d.max_connections_per_address,
        help=f"WebSocket connections from one address ({d.max_connections_per_address})",
    )
    limits.add_argument(
        "--max-watchers",
        type=_count,
        default=d.max_watchers,
        help=f"connections watching one table without a seat ({d.max_watchers})",
    )
    limits.add_argument(
        "--create-per-minute",
        type=_positive,
        default=d.create_rate * 60,
        help=f"tables one address may create a minute ({_shown(d.create_rate * 60)}) ...",
    )
    limits.add_argument(
        "--create-burst",
        type=_count,
        default=d.create_burst,
        help=f"... with bursts of this many ({d.create_burst})",
    )
    limits.add_argument(
        "--max-tables",
        type=_count,
        default=d.max_tables,
        help=f"tables in memory; creating more is refused ({d.max_tables})",
    )
    limits.add_argument(
        "--idle-unload",
        type=_seconds_or_off,
        default=d.idle_unload,
        help="seconds before a table nobody is connected to leaves memory, or off "
        f"({_shown(d.idle_unload)})",
    )
    limits.add_argument(
        "--lobby-expiry",
        type=_seconds_or_off,
        default=d.lobby_expiry,
        help="seconds before a lobby nobody is connected to expires, or off "
        f"({_shown(d.lobby_expiry)})",
    )
    limits.add_argument(
        "--timeout-timer",
        type=_positive,
        default=d.timeout_timer,
        help=f"turn timer of a person who timed out this round ({_shown(d.timeout_timer)})",
    )
    limits.add_argument(
        "--max-timeouts",
        type=_count,
        default=d.max_timeouts,
        help="time-outs in a round before the computer keeps the seat for the round "
        f"({d.max_timeouts})",
    )
    limits.add_argument(
        "--allowed-origins",
        default=",".join(d.allowed_origins),
        help="comma-separated origins (scheme://host:port) allowed besides the site itself",
    )
    limits.add_argument(
        "--operator-addresses",
        default=",".join(d.operator_addresses),
        help="comma-separated client addresses that may read /api/operator (also: "
        "CARDVERSE_OPERATOR_TOKEN as a bearer token)",
    )
    limits.add_argument(
        "--trusted-proxies",
        type=_proxies,
        default=d.trusted_proxies,
        help="comma-separated addresses or networks of your load balancers (10.0.0.5, "
        "10.0.0.0/8): from them the client's address is read from X-Forwarded-For (the "
        "right-most hop that is not one of them); default none: the header is ignored, even "
        "from 127.0.0.1, and every limit per address counts the connection's own address",
    )
    cluster = serve.add_argument_group("several processes (see docs/deploy.md)")
    cluster.add_argument(
        "--database",
        default=d.database,
        help="postgresql://user@host:port/db: the event log in PostgreSQL (also "
        "CARDVERSE_DATABASE; default: the SQLite file in --data-dir)",
    )
    cluster.add_argument(
        "--redis",
        default=d.redis,
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
        "--no-handoff",
        action="store_true",
        help="with --workers: link a table's socket that lands on a worker not owning the "
        "table (over Redis) instead of handing the connection to the sibling that owns it",
    )
    cluster.add_argument(
        "--lease-ttl",
        type=_positive,
        default=d.lease_ttl,
        help="seconds a table's lease outlives a stalled owner (renewed every third of it; "
        f"{_shown(d.lease_ttl)}); a dead owner is noticed at once",
    )
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument("--access-log", action="store_true", help="log every HTTP request")
