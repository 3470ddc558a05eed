"""The server's settings: one dataclass, every default written once (the CLI reads them here)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class Settings:
    """Server settings; every duration is in seconds."""

    data_dir: Path = Path("data")
    turn_timer: float | None = 60.0  # a new table's turn timer (None: off)
    grace: float | None = 30.0  # disconnected this long: a computer player stands in (None: never)
    bot_delay: float = 0.8  # a computer player's "thinking" pause before it acts
    bot_delay_jitter: float = 0.5  # the pause varies by up to this fraction either way
    round_pause: float = 3.0  # pause between the end of a round and the next deal
    hard_time_limit: float | None = 1.0  # the hard player's search time per move
    bot_processes: int | None = None  # hard players' worker processes (0: threads; None: auto)
    rate_per_second: float = 20.0  # client messages per second per connection ...
    burst: int = 40  # ... with bursts up to this many
    flood_limit: int = 100  # messages dropped in a row by the rate limit: the connection closes
    outbox_limit: int = 2000  # messages written while its send buffer is full: aborted
    outbox_bytes: int = 1 << 20  # bytes unread in a connection's send buffer: aborted
    send_timeout: float = 10.0  # a full send buffer that does not drain in this time: aborted
    ws_idle_timeout: float | None = 300.0  # no message from a connection for this long: closed
    standby_timeout: float = 10.0  # a connection over the watcher limit must join within this
    max_watchers: int = 100  # connections watching one table without a seat
    max_connections_per_address: int = 32  # WebSocket connections from one client address
    create_rate: float = 0.1  # tables one address may create a second ...
    create_burst: int = 10  # ... with bursts up to this many
    max_tables: int = 20_000  # tables in memory: creation is refused above this
    lookup_burst: int = 10  # invite codes from one address that may find no table in a row ...
    lookup_rate: float = 10 / 60  # ... and then a second (cardverse.tabletalk.invites)
    lookup_all_burst: int = 300  # the same for all addresses together
    lookup_all_rate: float = 300 / 60
    idle_unload: float | None = 600.0  # a table nobody is connected to leaves memory after this
    lobby_expiry: float | None = 86_400.0  # a lobby nobody is connected to expires after this
    sweep_interval: float = 30.0  # how often idle tables and lobbies are looked for
    heap_trim_interval: float | None = 1.0  # freed heap pages go back to the system this often
    timeout_timer: float = 10.0  # the turn timer of a person who timed out this round
    max_timeouts: int = 3  # time-outs in a round: the computer keeps the seat for the round
    sqlite_synchronous: str = "FULL"  # FULL: an acknowledged action survives a power cut
    group_commit: bool = True  # one transaction per event-loop turn for all tables
    allowed_origins: tuple[str, ...] = ()  # origins besides the site itself ("*": any)
    operator_token: str | None = None  # gives /api/operator (Authorization: Bearer ...)
    operator_addresses: tuple[str, ...] = ()  # client addresses that may read /api/operator
    trusted_proxies: tuple[str, ...] = ()  # proxies whose X-Forwarded-For is read (proxies.py)
    database: str | None = None  # postgresql://... (None: the SQLite file in data_dir)
    redis: str | None = None  # redis://...: tables are owned through leases, frames routed
    lease_ttl: float = 10.0  # a table's lease in Redis lasts this long unless renewed ...
    lease_renew: float = 3.0  # ... which its owner does this often
    orphan_scan: float = 1.0  # how often live tables without an owner are looked for
    handoff_dir: str | None = None  # --workers: the siblings' private directory of Unix sockets
    # (cardverse.server.handoff: a table's socket is passed to its owner; None: linked)
    # UECda programs at web tables (cardverse.server.programs, docs/uecda.md section 10)
    uecda_port: int | None = None  # the UECda port (None: off; 0: a free one, set once bound)
    uecda_host: str = "127.0.0.1"  # the address it listens on (cardverse serve: --host)
    uecda_handshake_timeout: float = 3.0  # from the connection to the whole handshake table
    uecda_move_timeout: float = 10.0  # a program on turn (or giving back) begins its table
    uecda_piece_timeout: float = 2.0  # the rest of a table follows its first byte within this
    uecda_connections_per_address: int = 4  # open UECda connections from one address
    uecda_lead_attempts: int = 3  # refused leads in a row before a computer player leads
    uecda_keep_sent: bool = False  # keep every table sent to a program (the tests' proof)
