"""Red team, headers and what the server tells strangers: a strict Content-Security-Policy (no
inline script, no framing) and the other security headers on every answer, pages without
inline scripts, and table counts only for the operator."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from server_support import ServerThread, create_table

PAGES = ["/", "/rules", "/rules/jokers", "/rules/sheet", "/join?code=nothing-here", "/t/missing1"]


def _directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def test_every_answer_has_the_security_headers(server: ServerThread) -> None:
    table = create_table(server.http)
    paths = [
        *PAGES,
        f"/t/{table['table_id']}",
        "/api/health",
        f"/api/tables/{table['table_id']}",
        "/static/js/table.js",
        "/static/css/site.css",
        "/cards/AS.svg",
        "/i18n/error?code=not_host",
        "/no/such/page",
    ]
    for path in paths:
        answer = httpx.get(server.http + path, timeout=10)
        headers = answer.headers
        policy = _directives(headers["content-security-policy"])
        assert policy["script-src"] == ["'self'"], path  # no inline script, no eval
        assert policy["frame-ancestors"] == ["'none'"], path
        assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["referrer-policy"] in ("no-referrer", "same-origin"), path
    table_page = httpx.get(f"{server.http}/t/{table['table_id']}", timeout=10)
    assert table_page.headers["referrer-policy"] == "no-referrer"  # the link holds the id


def test_pages_hold_no_inline_script(server: ServerThread) -> None:
    table = create_table(server.http)
    for path in [*PAGES, f"/t/{table['table_id']}"]:
        page = httpx.get(server.http + path, timeout=10, follow_redirects=True).text
        scripts = re.findall(r"<script\b[^>]*>", page)
        assert scripts, path
        for tag in scripts:
            assert "src=" in tag and 'type="application/json"' not in tag, (path, tag)
        assert not re.search(r"\son[a-z]+=", page), path  # no inline event handlers
    table_page = httpx.get(f"{server.http}/t/{table['table_id']}", timeout=10).text
    assert 'id="table-config" data-json=' in table_page


def test_health_tells_no_counts_and_the_operator_endpoint_is_guarded(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(operator_token="s3cret-operator-token")
    create_table(server.http)
    health = httpx.get(f"{server.http}/api/health", timeout=10)
    assert health.json() == {"ok": True, "alive": True, "ready": True}  # no counts
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
        answer = httpx.get(f"{server.http}/api/operator", headers=headers, timeout=10)
        assert answer.status_code == 404 and "tables" not in answer.text
        metrics = httpx.get(f"{server.http}/api/metrics", headers=headers, timeout=10)
        assert metrics.status_code == 404 and "cardverse_" not in metrics.text
    good = {"Authorization": "Bearer s3cret-operator-token"}
    counts = httpx.get(f"{server.http}/api/operator", headers=good, timeout=10).json()
    assert counts["tables"] == 1 and counts["phases"]["lobby"] == 1
    assert counts["durability"] == {"synchronous": "FULL", "group_commit": True}
    metrics = httpx.get(f"{server.http}/api/metrics", headers=good, timeout=10)
    assert metrics.status_code == 200
    assert 'cardverse_tables{phase="lobby"} 1.0' in metrics.text
    for name in ("actions_total", "action_seconds", "lease_moves_total", "store_errors_total"):
        assert f"cardverse_{name}" in metrics.text, name


def test_operator_addresses_see_the_counts(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(operator_addresses=("127.0.0.1",))
    counts = httpx.get(f"{server.http}/api/operator", timeout=10).json()
    assert counts["tables"] == 0 and "connections" in counts


def _raw_get(port: int, path: str) -> bytes:
    """The whole answer to a GET sent as is (httpx refuses addresses over 64 KiB)."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        sock.sendall(head.encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_long_address_is_not_echoed_back(server: ServerThread) -> None:
    # Before: a 64 KiB address was echoed in each language link of the error page: 344 KB.
    normal_404 = len(_raw_get(server.port, "/no/such/page"))
    normal_rules = len(_raw_get(server.port, "/rules"))
    for path, status, normal in [
        ("/" + "a" * 65536, b"404", normal_404),
        ("/t/" + "a" * 65536, b"404", normal_404),
        ("/t/" + "%C3%A9" * 10000, b"404", normal_404),
        ("/rules?x=" + "b" * 65000, b"200", normal_rules),
    ]:
        answer = _raw_get(server.port, path)
        assert answer.split(b" ", 2)[1] == status, answer[:100]
        assert len(answer) < normal + 2048, (path[:20], len(answer), normal)
