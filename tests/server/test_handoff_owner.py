"""The owner's side of a socket hand-off (cardverse/server/handoff.py), spoken to directly over
its Unix socket: a sibling that says ``y``-then-nothing cannot pin a descriptor and a task for
ever, a table the owner does not hold (never, or no longer: moved since the sibling looked its
owner up) is refused, and so is a connection from another user. The whole hand-off between two real
workers is tests/server/test_cluster_handoff.py."""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cardverse.server import handoff
from cardverse.server.handoff import Handoff

WAIT = 30.0  # seconds any state below is waited for (a loaded machine is slow, never this slow)


def _owner(directory: Path, tables: set[str]) -> Handoff:
    """A worker's hand-off listener holding ``tables`` (the service's parts it reads)."""
    service: Any = SimpleNamespace(
        tables=dict.fromkeys(tables),
        watch_index={},
        locator=SimpleNamespace(cluster=SimpleNamespace(node="owner-node")),
    )
    owner = Handoff(hub=None, service=service, directory=str(directory), max_connections=10)
    owner.server_state = SimpleNamespace(connections=set())
    return owner


def _open_fds() -> set[str]:
    """This process's open descriptors (less the one the listing itself used)."""
    listed = os.listdir("/proc/self/fd")
    return {fd for fd in listed if _is_open(int(fd))}


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


async def _offer(path: Path, table_id: str, fd: int) -> tuple[socket.socket, bytes]:
    """Offer descriptor ``fd`` for ``table_id`` as a sibling does; the owner's answer."""
    loop = asyncio.get_running_loop()
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.setblocking(False)
    await loop.sock_connect(unix, str(path))
    head = b"GET /ws/table/" + table_id.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    tid = table_id.encode()
    message = handoff._PREFIX.pack(len(tid), len(head)) + tid + head
    assert socket.send_fds(unix, [message], [fd]) == len(message)
    async with asyncio.timeout(WAIT):
        answer = await loop.sock_recv(unix, 1)
    return unix, answer


def _run(body: Any) -> None:
    with tempfile.TemporaryDirectory(prefix="cvo-", dir="/tmp") as directory:
        asyncio.run(body(Path(directory)))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_a_sibling_that_never_says_go_cannot_pin_the_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(handoff, "GO_WAIT", 0.2)

    async def body(directory: Path) -> None:
        owner = _owner(directory, {"T1"})
        owner.start()
        assert owner.path is not None
        client, other_end = socket.socketpair()  # stands for the client's TCP connection
        try:
            before = _open_fds()
            unix, answer = await _offer(owner.path, "T1", client.fileno())
            assert answer == b"y"  # the owner holds T1 and would take it
            # ... and the sibling never sends "g": the owner gives up and closes the exchange.
            async with asyncio.timeout(WAIT):
                assert await asyncio.get_running_loop().sock_recv(unix, 1) == b""
            assert _open_fds() - before == {str(unix.fileno())}  # its copy of fd: closed
            assert owner.server_state.connections == set()  # nothing was served
            with pytest.raises(OSError):  # a late "g" fails: the sibling links the socket
                for _ in range(2):
                    unix.send(b"g")
            unix.close()
            # The client's connection is still whole (the sibling still holds it).
            other_end.sendall(b"ping")
            assert client.recv(4) == b"ping"
        finally:
            client.close()
            other_end.close()
            await owner.close()

    _run(body)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_a_table_the_owner_does_not_hold_is_refused_and_its_descriptor_let_go() -> None:
    async def body(directory: Path) -> None:
        owner = _owner(directory, {"T1"})
        owner.start()
        assert owner.path is not None
        client, other_end = socket.socketpair()
        try:
            before = _open_fds()
            unix, answer = await _offer(owner.path, "T2", client.fileno())
            assert answer == b"n"
            async with asyncio.timeout(WAIT):
                assert await asyncio.get_running_loop().sock_recv(unix, 1) == b""
            assert _open_fds() - before == {str(unix.fileno())}
            unix.close()
            assert owner.server_state.connections == set()
        finally:
            client.close()
            other_end.close()
            await owner.close()

    _run(body)


def _offer_as_nobody(path: Path) -> bytes:
    """In a child process running as the 'nobody' user: offer a descriptor for T1 over the
    owner's socket at ``path``; the owner's answer (b"" when it closed or reset the connection
    without one)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: blocking calls only, then out
        code = 1
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            unix.settimeout(WAIT)
            unix.connect(str(path))
            client, _ = socket.socketpair()
            head = b"GET /ws/table/T1 HTTP/1.1\r\nHost: x\r\n\r\n"
            message = handoff._PREFIX.pack(2, len(head)) + b"T1" + head
            try:  # (the owner may close before reading: a reset, or a broken pipe)
                socket.send_fds(unix, [message], [client.fileno()])
                answer = unix.recv(1)
            except (ConnectionResetError, BrokenPipeError):
                answer = b""
            os.write(write_end, b"<" + answer + b">")
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        answer = b""
        while chunk := os.read(read_end, 16):
            answer += chunk
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child could not make its offer"
    assert answer.startswith(b"<") and answer.endswith(b">"), answer
    return answer[1:-1]


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to act as another user"
)
def test_a_connection_from_another_user_is_refused_even_if_the_socket_lets_it_in() -> None:
    """The Unix socket is the owner's user's only (mode 0600 in a 0700 directory); should the
    modes let another user connect, ``SO_PEERCRED`` still refuses it: nothing is answered and
    nothing served (the 'nobody' user stands for the other user)."""

    async def body(directory: Path) -> None:
        owner = _owner(directory, {"T1"})
        owner.start()
        assert owner.path is not None
        os.chmod(directory, 0o755)  # as if an operator had opened the modes up
        os.chmod(owner.path, 0o666)
        try:
            answer = await asyncio.to_thread(_offer_as_nobody, owner.path)
            assert answer == b""  # closed without a "y" (or an "n")
            assert owner.server_state.connections == set()
        finally:
            await owner.close()

    _run(body)
