"""The site as cardverse.application wires it: the server's API and WebSocket with the pages,
which find tables through the TableFinder it hands them (the pages know nothing of the server)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from cardverse.application import ServiceTables, create_app
from cardverse.tabletalk.invites import invite_code_for, show_code


def test_the_site_serves_the_api_and_the_pages_of_its_tables(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, lookup_burst=2, lookup_rate=0.01)) as client:
        assert isinstance(client.app.state.tables, ServiceTables)  # type: ignore[attr-defined]
        made = client.post("/api/tables", json={"name": "Ann"})
        assert made.status_code == 201
        table_id = made.json()["table_id"]
        assert client.get(f"/t/{table_id}").status_code == 200
        assert client.get("/t/AbCdEf123456").status_code == 404  # a well-formed id, no table
        code = show_code(invite_code_for(table_id))
        joined = client.get("/join", params={"code": code}, follow_redirects=False)
        assert joined.status_code == 303 and joined.headers["location"] == f"/t/{table_id}"
        # codes that find no table: the look-up limit refuses the join form too (429)
        unknown = ("0000-0000", "1111-1111", "2222-2222", "3333-3333")
        answers = [client.get("/join", params={"code": c}, follow_redirects=False) for c in unknown]
        assert [a.status_code for a in answers[:2]] == [404, 404]
        refused = answers[-1]
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        # the API and the error pages: JSON for machines, a page for people
        assert client.get("/api/tables/AbCdEf123456").json()["code"] == "no_such_table"
        assert "text/html" in client.get("/no/such/page").headers["content-type"]
