"""Invites (issue 10): the short table code finds its table (typed in any case, with or without
its hyphen, I/L/O read as 1/0), a flood of wrong codes is refused per address and for everyone
together, and codes and watch links find tables unloaded since the server started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from server_support import ServerThread, create_table, running

from cardverse.tabletalk.invites import (
    ALPHABET,
    Directory,
    LookupLimits,
    invite_code_for,
    read_code,
    show_code,
)


def test_a_code_is_eight_characters_without_look_alikes_and_reads_forgivingly() -> None:
    code = invite_code_for("some-table-id-0123456789")
    assert len(code) == 8 and set(code) <= set(ALPHABET)
    assert not set("ILOU") & set(ALPHABET)
    assert read_code(code) == code
    assert read_code(show_code(code).lower()) == code
    assert read_code(" ab cd-ef gh ") == "ABCDEFGH"
    assert read_code("1O1L-I0AB") == "101110AB"
    for wrong in ("", "ABCDEFG", "ABCDEFGHJ", "ABCD-EFGU", "ABCD_EFG"):
        assert read_code(wrong) is None, wrong
    # 40 bits: different tables, different codes (a sample of ids)
    codes = {invite_code_for(f"table-{n}") for n in range(20_000)}
    assert len(codes) >= 19_999


def test_the_short_code_finds_its_table(server: ServerThread) -> None:
    table = create_table(server.http)
    code = invite_code_for(table["table_id"])
    for typed in (code, show_code(code), show_code(code).lower()):
        found = httpx.get(f"{server.http}/api/invites/{typed}", timeout=10)
        assert found.status_code == 200, found.text
        assert found.json() == {"table_id": table["table_id"], "url": f"/t/{table['table_id']}"}
    # The home page's join form takes it too.
    joined = httpx.get(f"{server.http}/join", params={"code": show_code(code)}, timeout=10)
    assert joined.status_code == 303 and joined.headers["location"] == f"/t/{table['table_id']}"


def test_a_flood_of_wrong_codes_is_refused(make_server: Any) -> None:
    # the refill slowed down, so that a slow machine's requests do not earn new tries
    server = make_server(lookup_rate=1e-6)
    table = create_table(server.http)
    right = invite_code_for(table["table_id"])
    wrong = [c for c in (invite_code_for(f"nothing-{n}") for n in range(60)) if c != right]
    answers = [httpx.get(f"{server.http}/api/invites/{c}", timeout=10) for c in wrong[:40]]
    statuses = [a.status_code for a in answers]
    assert statuses[:10] == [404] * 10, statuses
    assert set(statuses[10:]) == {429}, statuses
    refused = answers[-1]
    assert refused.json()["code"] == "too_many_lookups"
    assert int(refused.headers["Retry-After"]) >= 1
    assert server.service.lookups.retry_after() >= 60
    # The home page says so in words, and the right code waits too (from this address).
    page = httpx.get(f"{server.http}/join", params={"code": right}, timeout=10)
    assert page.status_code == 429 and "Wait a minute" in page.text
    assert server.service.lookups.refused >= 30


def test_many_addresses_together_are_limited_too() -> None:
    limits = LookupLimits(per_address=(10, 1 / 6), everyone=(50, 1e-6))
    allowed = 0
    for n in range(200):  # each of 20 addresses guesses 10 times
        address = f"10.0.0.{n % 20}"
        if limits.allowed(address):
            allowed += 1
            limits.failed(address)
    # everyone's burst, then nobody who missed lately (each of the 20 had by then)
    assert allowed == 50
    # Once everyone's misses are spent, an address that has not missed may still look (a
    # person with the right code gets in), once: its miss makes it wait like the others.
    assert limits.allowed("10.0.1.1")
    limits.failed("10.0.1.1")
    assert not limits.allowed("10.0.1.1")
    # An IPv6 subscriber's /64 is one guesser.
    limits = LookupLimits(per_address=(2, 1e-6), everyone=(50, 1e-6))
    for host in ("2001:db8::1", "2001:db8::2"):
        assert limits.allowed(host)
        limits.failed(host)
    assert not limits.allowed("2001:db8::3")
    assert limits.allowed("2001:db8:0:1::1")


def test_a_new_table_never_shares_another_tables_code() -> None:
    directory = Directory()
    directory.add("first", "w1")
    assert not directory.code_taken("first")
    clash = next(f"x{n}" for n in range(10**6) if invite_code_for(f"x{n}")[:2] == "00")
    directory.by_code[invite_code_for(clash)] = "someone-else"
    assert directory.code_taken(clash)


def test_codes_and_watch_links_find_tables_unloaded_since_start_up(tmp_path: Path) -> None:
    import sqlite3

    from cardverse.server.store import DB_NAME

    data = tmp_path / "data"
    with running(data) as first:
        table = create_table(first.http)
        watch_id: Any = first.service.tables[table["table_id"]].watch_id
    # As if it had been unloaded for being idle: the next start does not restore it.
    with sqlite3.connect(data / DB_NAME) as db:
        db.execute("UPDATE tables SET status = 'idle' WHERE id = ?", (table["table_id"],))
    with running(data) as second:
        assert table["table_id"] not in second.service.tables
        watch_page = httpx.get(f"{second.http}/w/{watch_id}", timeout=10)
        assert watch_page.status_code == 200
        assert table["table_id"] not in watch_page.text  # the watch link learns no share link
        code = invite_code_for(table["table_id"])
        found = httpx.get(f"{second.http}/api/invites/{code}", timeout=10)
        assert found.status_code == 200 and found.json()["table_id"] == table["table_id"]
