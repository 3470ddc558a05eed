"""Sibling workers hand a table's socket to its owner (``cardverse serve --workers N``).

Under ``--workers`` the kernel gives each new connection to any worker, so three of a table's
four sockets may land on workers that do not own it, and each of them would be *linked*
(:mod:`.cluster`: its messages and frames cross Redis and wake two processes). When the
WebSocket upgrade for table T reaches a worker that does not hold T, and T's lease is held by
a *sibling* (a worker of the same supervisor), :class:`Handoff` passes the connection itself
to the owner: the file descriptor over a Unix socket (``SCM_RIGHTS``), with the request's head
already read. The owner serves it as a socket of its own (the same picows path as
:func:`~.tablesockets.hand_over`), and the accepting worker drops its copy of the descriptor,
which leaves the client's TCP connection open (the owner holds it).

Where the sockets are: the supervisor makes a private directory (mode 0700) and gives it to
every worker (:attr:`Settings.handoff_dir`); each worker listens on ``<dir>/<node id>.sock``,
its node id being the one its leases name. A worker finds a table's owner through the lease,
and its socket by name in that directory: an owner whose socket is not there is not a sibling
(another machine, a separate process), and the socket is linked as before. A connection to the
Unix socket is taken only from the same user (``SO_PEERCRED``).

The exchange, one Unix connection a socket: the accepting worker sends the table id and the
head with the descriptor; the owner answers ``y`` only while it holds the table (and is not
stopping, and is under its connection limit), else ``n``; the accepting worker then sends
``g`` and drops its copy. The owner serves the descriptor only after the ``g``, and drops it
if the connection ends without one (or none comes in :data:`GO_WAIT`: a stuck sibling), so
exactly one side serves the client: any failure before the ``g`` (no socket, refused, a
time-out, the table moved) leaves the connection with the accepting worker, which links it as
before (nothing lost). A socket handed over is the
owner's like any other: counted in its connections and its address limits (only there), shut
down with it (1012), and closed with its table if the table is lost (clients reconnect).
Watch links are handed over likewise (their table is resolved first); programs on the UECda
port use a stand-in socket and stay linked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import metrics
from .tablesockets import SocketHub, TableSocketProtocol, hand_over

if TYPE_CHECKING:
    from .table.service import TableService

log = logging.getLogger("cardverse.server.handoff")

TIMEOUT = 5.0  # seconds the accepting worker waits for the owner's answer (then: it links)
# Seconds the owner waits for the "g" after its "y". The sibling sends it at once; one that
# does not within this time is stuck (stopped, not dead), and the owner lets the descriptor
# go. A "g" sent after that finds the connection closed and the sibling links the socket.
GO_WAIT = 30.0
MAX_HEAD = 256 * 1024  # a request's head larger than this is not handed over
MAX_PATH = 100  # a Unix socket's path is at most 107 bytes: longer directories hand nothing
_PREFIX = struct.Struct("!HI")  # the table id's length, the head's length
_PEERCRED = struct.Struct("3i")  # pid, uid, gid
_CLOEXEC = getattr(socket, "MSG_CMSG_CLOEXEC", 0)  # a descriptor received is not inherited


class Handoff:
    """This worker's part in handing sockets between siblings: its listening Unix socket (the
    owner's side) and :meth:`upgrade` (the accepting worker's side)."""

    def __init__(
        self, hub: SocketHub, service: TableService, directory: str, max_connections: int
    ) -> None:
        self.hub = hub
        self.service = service
        self.directory = Path(directory)
        self.max_connections = max_connections
        self.server_state: Any = None  # uvicorn's ServerState (its connections), once known
        self.server: Any = None  # uvicorn's Server, to refuse hand-offs once it is stopping
        self.path: Path | None = None
        self._listener: socket.socket | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def cluster(self) -> Any:
        return self.service.locator.cluster

    def path_of(self, node: str) -> Path:
        return self.directory / f"{node}.sock"

    # -- life ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Listen on this worker's Unix socket (siblings find it by this node's id)."""
        path = self.path_of(self.cluster.node)
        if len(str(path)) > MAX_PATH:
            log.warning("hand-off directory %s: path too long, sockets stay linked", path)
            return
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            os.chmod(path, 0o600)
            listener.listen(128)
            listener.setblocking(False)
        except OSError as error:
            listener.close()
            log.warning("no hand-off socket at %s (%s): sockets stay linked", path, error)
            return
        self._listener, self.path = listener, path
        self._spawn(self._accept())

    async def close(self) -> None:
        """Stop taking sockets (siblings link theirs); what was handed over is served on."""
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _stopping(self) -> bool:
        return self._listener is None or bool(getattr(self.server, "should_exit", False))

    # -- the accepting worker's side ----------------------------------------------------------

    def upgrade(self, http: Any, head: bytes, table_id: str, watch: bool) -> None:
        """A table's WebSocket upgrade (uvicorn's protocol ``http``, its request's ``head``):
        served here if the table is here, else first offered to the table's owner if that is a
        sibling."""
        service = self.service
        local = service.watch_index.get(table_id) if watch else table_id
        if local is not None and local in service.tables:
            hand_over(self.hub, http, head)
            return
        http.transport.pause_reading()  # nothing comes before the handshake's answer anyway
        self._spawn(self._offer(http, head, table_id, watch))

    async def _offer(self, http: Any, head: bytes, table_id: str, watch: bool) -> None:
        transport = http.transport
        handed = False
        try:
            owner = await self._sibling_owner(table_id, watch)
            if owner is not None and not transport.is_closing():
                handed = await self._send(owner, transport, head)
                if not handed:
                    metrics.HANDOFFS.labels("refused").inc()
        except Exception as error:  # any failure before the owner took it: served here
            log.warning("a socket could not be handed to its owner: %s", str(error)[:200])
            metrics.HANDOFFS.labels("refused").inc()
        if handed:  # the owner serves it now, whatever happens here
            transport.close()  # our copy: the owner's keeps the connection open
            metrics.HANDOFFS.labels("sent").inc()
            return
        if transport.is_closing():
            return  # the client left meanwhile
        hand_over(self.hub, http, head)
        transport.resume_reading()

    async def _sibling_owner(self, table_id: str, watch: bool) -> tuple[str, Path] | None:
        """The table id and the owner's Unix socket, if a sibling owns the table."""
        cluster, service = self.cluster, self.service
        if self._stopping():
            return None
        real: str | None = table_id
        if watch:
            real = await cluster.resolve_watch(table_id)
        if real is None or real in service.tables or len(real) > 64:
            return None
        owner = await cluster.leases.owner(real)
        if owner is None or owner == cluster.node or owner in cluster.gone:
            return None  # nobody's yet (this worker will take it), or the owner is gone
        path = self.path_of(str(owner))
        return (real, path) if path.exists() else None

    async def _send(self, owner: tuple[str, Path], transport: Any, head: bytes) -> bool:
        """Offer the connection to the owner; True once it took it (then only it serves it)."""
        table_id, path = owner
        tcp = transport.get_extra_info("socket")
        if tcp is None or len(head) > MAX_HEAD:
            return False
        loop = asyncio.get_running_loop()
        tid = table_id.encode()
        message = _PREFIX.pack(len(tid), len(head)) + tid + head
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.setblocking(False)
        try:
            async with asyncio.timeout(TIMEOUT):
                await loop.sock_connect(unix, str(path))
                sent = socket.send_fds(unix, [message], [tcp.fileno()])
                if sent < len(message):
                    await loop.sock_sendall(unix, message[sent:])
                answer = await loop.sock_recv(unix, 1)
            if answer != b"y":
                return False
            # Nothing awaited from here: once the "g" is written the owner serves the socket.
            return unix.send(b"g") == 1
        except (OSError, TimeoutError):
            return False
        finally:
            unix.close()

    # -- the owner's side ---------------------------------------------------------------------

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        listener = self._listener
        while listener is not None and self._listener is listener:
            try:
                conn, _ = await loop.sock_accept(listener)
            except OSError as error:
                if self._listener is None:
                    return
                log.warning("hand-off socket: %s", error)
                await asyncio.sleep(0.1)
                continue
            self._spawn(self._take(conn))

    async def _take(self, conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            conn.setblocking(False)
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
            if _PEERCRED.unpack(creds)[1] != os.getuid():
                log.warning("hand-off socket: a connection from another user, refused")
                return
            async with asyncio.timeout(TIMEOUT):
                table_id, head = await _receive(conn, fds)
            if len(fds) != 1 or not self._may_take(table_id):
                conn.send(b"n")
                return
            conn.send(b"y")
            # The sibling sends "g" at once, or closes (then it serves the socket itself).
            async with asyncio.timeout(GO_WAIT):
                go = await asyncio.get_running_loop().sock_recv(conn, 1)
            if go != b"g":
                return
            fd = fds.pop()
            await self._serve(fd, head)
            metrics.HANDOFFS.labels("taken").inc()
        except (OSError, TimeoutError, ValueError) as error:
            log.warning("a socket handed over could not be taken: %s", str(error)[:200])
        finally:
            for fd in fds:
                os.close(fd)
            conn.close()

    def _may_take(self, table_id: str) -> bool:
        state = self.server_state
        return (
            state is not None
            and not self._stopping()
            and table_id in self.service.tables
            and len(state.connections) < self.max_connections
        )

    async def _serve(self, fd: int, head: bytes) -> None:
        """Serve the connection ``fd`` as one accepted here, its request's ``head`` read."""
        sock = socket.socket(fileno=fd)
        protocol = TableSocketProtocol(self.hub, self.server_state)
        try:
            await asyncio.get_running_loop().connect_accepted_socket(lambda: protocol, sock)
        except BaseException:
            self.server_state.connections.discard(protocol)
            sock.close()
            raise
        protocol.feed(head)


async def _receive(conn: socket.socket, fds: list[int]) -> tuple[str, bytes]:
    """A hand-off's message: the table id and the request's head (the descriptors that came
    with it are added to ``fds``, the caller's to close or use)."""
    loop = asyncio.get_running_loop()
    data = b""
    while True:
        try:
            chunk, got, _, _ = socket.recv_fds(conn, 65536, 2, _CLOEXEC)
        except BlockingIOError:
            await _readable(loop, conn)
            continue
        fds.extend(got)
        if not chunk:
            raise ValueError("the hand-off's message ended early")
        data += chunk
        if len(data) >= _PREFIX.size:
            id_size, head_size = _PREFIX.unpack_from(data)
            if head_size > MAX_HEAD:
                raise ValueError("a hand-off's head is too large")
            end = _PREFIX.size + id_size + head_size
            if len(data) >= end:
                table_id = data[_PREFIX.size : _PREFIX.size + id_size].decode()
                return table_id, data[_PREFIX.size + id_size : end]


async def _readable(loop: asyncio.AbstractEventLoop, conn: socket.socket) -> None:
    """Until ``conn`` has something to read."""
    waiter: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        if not waiter.done():
            waiter.set_result(None)

    loop.add_reader(conn.fileno(), ready)
    try:
        await waiter
    finally:
        loop.remove_reader(conn.fileno())
