"""Red team, invite look-ups under a guessing flood (issue 28, item 7): guessers from many
addresses cannot lock a correct code out for everyone; only misses count, and an address that
guesses still waits (its refused look-ups tell nothing)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from redteam_support import under_probe
from server_support import ServerThread, create_table, run

from cardverse.tabletalk.invites import invite_code_for, show_code


def _client(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


@pytest.mark.timeout(60)
def test_guessers_from_many_addresses_do_not_lock_a_correct_code_out(
    make_server: Callable[..., ServerThread],
) -> None:
    # Before: once 30 addresses had spent everyone's misses, the correct code was refused
    # (429) from every address, for as long as they kept guessing.
    server = make_server(
        lookup_burst=10, lookup_rate=1e-6, lookup_all_burst=30, lookup_all_rate=1e-6
    )
    table = create_table(server.http)
    right = invite_code_for(table["table_id"])
    wrong = [c for c in (invite_code_for(f"guess-{n}") for n in range(400)) if c != right]

    async def attack() -> list[int]:
        statuses = []
        for n in range(30):  # 30 addresses, 10 guesses each
            with _client(f"127.0.10.{n + 1}") as guesser:
                for k in range(10):
                    code = wrong[n * 10 + k]
                    statuses.append(guesser.get(f"{server.http}/api/invites/{code}").status_code)
        return statuses

    statuses = run(lambda: under_probe(server, attack))
    answered = statuses.count(404)
    assert statuses.count(429) == len(statuses) - answered
    assert answered <= 30 + 30, answered  # everyone's burst, then one from each fresh address
    # A person who types the right code gets in, by the API and by the join form, many times:
    # a look-up that finds its table counts against no limit.
    with _client("127.0.11.1") as person:
        for _ in range(15):
            found = person.get(f"{server.http}/api/invites/{show_code(right)}")
            assert found.status_code == 200, found.text
            assert found.json()["table_id"] == table["table_id"]
        joined = person.get(f"{server.http}/join", params={"code": right})
        assert joined.status_code == 303, joined.status_code
    # A guessing address still waits, right code or not: a refused look-up tells nothing.
    with _client("127.0.10.1") as guesser:
        refused = guesser.get(f"{server.http}/api/invites/{right}")
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_lookups"
        assert int(refused.headers["Retry-After"]) >= 1
