"""Red team, the client's address behind a load balancer (issue 28, item 1): X-Forwarded-For is
believed only from a trusted proxy (``--trusted-proxies``), read from the right, and every
per-address limit counts the address found so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest
import websockets
from redteam_support import tables_besides_probes, under_probe
from server_support import ServerThread, run

from cardverse.server.proxies import client_address, read_networks


def test_the_client_is_the_right_most_untrusted_hop() -> None:
    trusted = read_networks(["10.0.0.0/8", "127.0.0.1"])
    # Not from a trusted proxy: the header is not read.
    assert client_address("198.51.100.7", ["203.0.113.1"], trusted) == "198.51.100.7"
    assert client_address("127.0.0.1", ["203.0.113.1"], ()) == "127.0.0.1"
    # From a trusted proxy: the hop it was connected from, whatever the client wrote before.
    assert client_address("127.0.0.1", ["203.0.113.1"], trusted) == "203.0.113.1"
    assert client_address("10.1.2.3", ["1.2.3.4, 203.0.113.1, 10.9.9.9"], trusted) == (
        "203.0.113.1"
    )
    assert client_address("10.1.2.3", ["1.2.3.4", "203.0.113.1"], trusted) == "203.0.113.1"
    # Only proxies in the header: the left-most; no header: the proxy itself.
    assert client_address("10.1.2.3", ["10.0.0.9, 10.0.0.8"], trusted) == "10.0.0.9"
    assert client_address("10.1.2.3", [], trusted) == "10.1.2.3"
    # A hop that is no address stops the walk: the hop right of it is the client.
    assert client_address("10.1.2.3", ["junk, 203.0.113.1"], trusted) == "203.0.113.1"
    assert client_address("10.1.2.3", ["203.0.113.1, junk"], trusted) == "10.1.2.3"
    assert client_address("::1", ["2001:db8::1"], read_networks(["::1"])) == "2001:db8::1"
    with pytest.raises(ValueError, match="not an IP address"):
        read_networks(["10.0.0.0/8", "proxy.example"])


@pytest.mark.timeout(60)
def test_forwarded_for_from_loopback_is_not_believed_by_default(
    make_server: Callable[..., ServerThread],
) -> None:
    # Before: uvicorn believed the header from 127.0.0.1: 30 of these 40 tables were created
    # past a burst of 10 by writing another address in X-Forwarded-For each time.
    server = make_server(create_burst=10, create_rate=0.001)

    async def attack() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.http, timeout=10) as http:
            return [
                await http.post(
                    "/api/tables",
                    json={"name": "Flood"},
                    headers={"X-Forwarded-For": f"198.51.100.{n}"},
                )
                for n in range(40)
            ]

    answers = run(lambda: under_probe(server, attack))
    assert [a.status_code for a in answers].count(201) == 10
    assert {a.status_code for a in answers[10:]} == {429}
    assert tables_besides_probes(server) == 10


@pytest.mark.timeout(60)
def test_behind_a_trusted_proxy_each_client_has_its_own_limits(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(
        create_burst=2,
        create_rate=0.001,
        max_connections_per_address=2,
        trusted_proxies=("127.0.0.1",),
        operator_addresses=("203.0.113.50",),
    )

    def create(forwarded: str) -> int:
        answer = httpx.post(
            f"{server.http}/api/tables",
            json={"name": "Ann"},
            headers={"X-Forwarded-For": forwarded},
            timeout=10,
        )
        return answer.status_code

    # Two people behind the balancer: each has a burst of 2.
    assert [create("203.0.113.1") for _ in range(3)] == [201, 201, 429]
    assert [create("203.0.113.2") for _ in range(2)] == [201, 201]
    # What a client writes left of its own hop is not believed.
    assert create("192.0.2.77, 203.0.113.1") == 429
    table_id = next(iter(server.service.tables))

    async def sockets() -> list[str]:
        url = server.ws_url(table_id)
        opened = []
        results = []
        for forwarded in ("203.0.113.1", "203.0.113.1", "203.0.113.1", "203.0.113.2"):
            ws = await websockets.connect(
                url, additional_headers={"X-Forwarded-For": forwarded}, compression=None
            )
            opened.append(ws)
            first = await asyncio.wait_for(ws.recv(), 30)
            results.append("refused" if '"too_many_connections"' in str(first) else "open")
        for ws in opened:
            await ws.close()
        return results

    assert run(sockets) == ["open", "open", "refused", "open"]
    # The operator's address is the client's too, not the balancer's.
    operator = httpx.get(
        f"{server.http}/api/operator", headers={"X-Forwarded-For": "203.0.113.50"}, timeout=10
    )
    assert operator.status_code == 200
    balancer = httpx.get(f"{server.http}/api/operator", timeout=10)
    assert balancer.status_code == 404
