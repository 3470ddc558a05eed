"""The client's address behind load balancers: which proxies are trusted, and the address every
per-address limit counts.

A load balancer connects to the server itself and names the client in ``X-Forwarded-For``
(``client, proxy1, proxy2``: each proxy appends the address it was connected from). A client
can write anything in that header, so it is read only when the connection comes from a trusted
proxy (``cardverse serve --trusted-proxies``), and then from the right: the hops that are
trusted proxies are skipped, and the first one that is not is the client (what a client wrote
further left is never believed). With no trusted proxy (the default) the header is ignored,
even from 127.0.0.1.

:class:`TrustedProxies` is an ASGI middleware that puts that address in the scope's ``client``
(and the scheme of ``X-Forwarded-Proto``, from a trusted proxy only), so every part of the app
(table creation, WebSocket and invite look-up limits, replays, the operator's addresses) reads
one and the same address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def read_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or networks (``10.0.0.5``, ``10.0.0.0/8``, ``::1``); ValueError names a
    bad one."""
    networks = []
    for entry in entries:
        text = entry.strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise ValueError(
                f"{text!r} is not an IP address or network (such as 10.0.0.5 or 10.0.0.0/8)"
            ) from None
    return tuple(networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def is_trusted(host: str, networks: tuple[Network, ...]) -> bool:
    address = _address(host)
    return address is not None and any(address in network for network in networks)


def client_address(peer: str, forwarded_for: list[str], networks: tuple[Network, ...]) -> str:
    """The client's address: ``peer`` (the connection's own) unless it is a trusted proxy;
    then the right-most hop of ``X-Forwarded-For`` that is not a trusted proxy (the left-most
    when all are; ``peer`` when the header is missing). A hop that is not an IP address stops
    the walk: it is what the client sent, and the hop right of it is the client."""
    if not networks or not is_trusted(peer, networks):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    client = peer
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            break
        client = str(address)
        if not any(address in network for network in networks):
            break
    return client


class TrustedProxies:
    """ASGI middleware: the scope's ``client`` is the address :func:`client_address` finds."""

    def __init__(self, app: ASGIApp, networks: tuple[Network, ...] = ()) -> None:
        self.app = app
        self.networks = networks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if (
            self.networks
            and scope["type"] in ("http", "websocket")
            and client is not None
            and is_trusted(client[0], self.networks)
        ):
            scope = _forwarded(scope, self.networks)
        await self.app(scope, receive, send)


def _forwarded(scope: Scope, networks: tuple[Network, ...]) -> Scope:
    forwarded: list[str] = []
    proto: str | None = None
    for name, value in scope.get("headers", ()):
        if name == b"x-forwarded-for":
            forwarded.append(value.decode("latin-1"))
        elif name == b"x-forwarded-proto":
            proto = value.decode("latin-1").split(",")[-1].strip().lower()
    peer = scope["client"][0]
    changed: dict[str, Any] = {}
    host = client_address(peer, forwarded, networks)
    if host != peer:
        changed["client"] = (host, 0)
    if proto in ("http", "https"):
        secure = proto == "https"
        if scope["type"] == "websocket":
            changed["scheme"] = "wss" if secure else "ws"
        else:
            changed["scheme"] = proto
    return {**scope, **changed} if changed else scope
