"""Red team, origins: a WebSocket or a table creation from another site's page is refused, a
text/plain body too (no cross-site "simple" request); the site itself and the origins the
operator allows are accepted. Nothing changes and the server stays responsive."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable

import httpx
import pytest
import websockets
from redteam_support import snapshot, under_probe
from server_support import ServerThread, create_table, run

from cardverse.server.protocol import CLOSE_BAD_ORIGIN


async def _ws_first(url: str, origin: str | None) -> tuple[list[dict[str, object]], int | None]:
    """The messages a WebSocket gets with this Origin, and its close code."""
    headers = {"Origin": origin} if origin else None
    messages: list[dict[str, object]] = []
    async with websockets.connect(url, additional_headers=headers, compression=None) as ws:
        with contextlib.suppress(websockets.ConnectionClosed):
            while len(messages) < 2:
                messages.append(json.loads(await ws.recv()))
    return messages, ws.close_code


@pytest.mark.timeout(60)
def test_websockets_from_other_sites_are_refused(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(allowed_origins=("https://cardverse.example",))
    table = create_table(server.http)
    url = server.ws_url(table["table_id"])

    async def attack() -> None:
        before = snapshot(server, table["table_id"])
        for origin in ("http://evil.example", "null", f"http://127.0.0.1:{server.port + 1}"):
            messages, code = await _ws_first(url, origin)
            assert code == CLOSE_BAD_ORIGIN, (origin, messages)
            assert [m["type"] for m in messages] == ["error"]
            assert messages[0]["code"] == "bad_origin"
        for origin in (None, f"http://127.0.0.1:{server.port}", "https://cardverse.example"):
            messages, _ = await _ws_first(url, origin)
            assert [m["type"] for m in messages] == ["hello", "table"], origin
        assert snapshot(server, table["table_id"]) == before

    run(lambda: under_probe(server, attack))


@pytest.mark.timeout(60)
def test_table_creation_from_other_sites_is_refused(server: ServerThread) -> None:
    async def attack() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=server.http, timeout=5) as http:
            body = json.dumps({"name": "Eve"})
            plain = {"Content-Type": "text/plain"}
            return [
                # A form or fetch without preflight can send text/plain across sites.
                await http.post("/api/tables", content=body, headers=plain),
                await http.post("/api/tables", content=body),
                await http.post(
                    "/api/tables",
                    content=body,
                    headers={"Content-Type": "application/json", "Origin": "http://evil.example"},
                ),
                await http.post(
                    "/api/tables",
                    content=body,
                    headers={
                        "Content-Type": "application/json",
                        "Origin": f"http://127.0.0.1:{server.port}",
                    },
                ),
            ]

    plain, untyped, evil, own = run(lambda: under_probe(server, attack))
    assert plain.status_code == 415 and plain.json()["code"] == "bad_content_type"
    assert untyped.status_code == 415
    assert evil.status_code == 403 and evil.json()["code"] == "bad_origin"
    assert own.status_code == 201
    names = [t.seats[0].name for t in server.service.tables.values()]
    assert names.count("Eve") == 1  # only the site's own request made a table
