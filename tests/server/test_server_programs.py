"""Programs at web tables (docs/uecda.md, section 10): a UECda program connects to the
server's UECda port, names a table by its invite code and plays there next to a person and
computer players, through the same table service (referee, hidden-card filter).

Every test runs a real server on port 0 with its UECda port on port 0, and the protocol client
of ``tests/uecda_client.py``."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uecda_client as uc
from server_support import Client, ServerThread, create_table, play_randomly, run

from cardverse.tabletalk.invites import invite_code_for, show_code

UECDA_RULES = {"preset": "uecda", "players": 5, "rounds": 3}


def program_server(tmp_path: Path, **settings: Any) -> ServerThread:
    options: dict[str, Any] = {"uecda_port": 0, "uecda_keep_sent": True, "uecda_move_timeout": 5.0}
    return ServerThread(tmp_path, **{**options, **settings})


def uecda_port(server: ServerThread) -> int:
    port: int = server.app.state.programs.port
    return port


async def open_table(
    server: ServerThread, bots: int = 3, rounds: int = 3
) -> tuple[dict[str, Any], Client]:
    """A uecda table of five, its host seated and the table opened to programs."""
    table = create_table(server.http, rules={**UECDA_RULES, "rounds": rounds})
    host = await Client(server.ws_url(table["table_id"]), "host").connect()
    assert (await host.join(token=table["token"]))["type"] == "welcome"
    reply = await host.request({"type": "options", "programs": True})
    assert reply["type"] == "ack", reply
    for seat in range(5 - bots, 5):
        reply = await host.request({"type": "add_bot", "level": "easy", "seat": seat})
        assert reply["type"] == "ack", reply
    return table, host


async def wait_until(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


def seated_program(host: Client, seat: int) -> dict[str, Any] | None:
    for message in reversed(host.messages):
        if message["type"] == "table":
            info: dict[str, Any] = message["seats"][seat]
            return info
    return None


def test_a_program_plays_whole_rounds_next_to_a_person_and_computer_players(
    tmp_path: Path,
) -> None:
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server)
            code = show_code(invite_code_for(table["table_id"]))
            program = uc.Client(f"{code}:Rando", uc.random_player, seed=3)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            assert program.number == 1
            await wait_until(lambda: (seated_program(host, 1) or {}).get("program") is True)
            info = seated_program(host, 1)
            assert info is not None and info["name"] == "Rando" and info["kind"] == "human"
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(1), timeout=120)
            await wait_until(program.done.is_set)
            assert program.error is None
            assert program.codes.count(1) == 2 and program.codes[-1] == 2
            starts = [r for r in program.received if r.kind == "start"]
            assert len(starts) == 3
            assert starts[0].table[5][1] == 0  # no exchange before round 1
            assert [s.table[5][1] for s in starts[1:]].count(2) <= 1
            assert program.turns > 0 and set(program.answers) <= {8, 9}
            record_state = host.last_state()
            assert record_state is not None and record_state["view"]["phase"] == "game_over"
            # its game over, the program is gone; the seat stays its own (away) until the host
            # removes it, as a person's who closed the page
            await wait_until(lambda: (seated_program(host, 1) or {}).get("connected") is False)
            assert (await host.request({"type": "remove", "seat": 1}))["type"] == "ack"
            await wait_until(lambda: (seated_program(host, 1) or {}).get("kind") == "empty")


def passes_on_lead(client: uc.Client, hand: uc.Table, board: uc.Table) -> bytes:
    """Passes whenever it is to lead (never leads itself); plays at random otherwise."""
    if hand[5][4]:
        return uc.table_to_bytes(uc.zeros())
    return uc.random_player(client, hand, board)


def test_R8_a_program_that_will_not_lead_is_asked_again_then_led_for(tmp_path: Path) -> None:
    """A pass on lead is refused (R8) and answered 8, the program is asked again, and after
    three refusals the normal computer player's play is made for it; every other pass is a
    pass (answered 8, as the reference answers a pass on a covered trick)."""
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server, rounds=3)
            code = invite_code_for(table["table_id"])
            program = uc.Client(code + ":Passer", passes_on_lead, seed=1)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(6), timeout=120)
            await wait_until(program.done.is_set)
            assert program.error is None and program.codes[-1] == 2
            leads = [answer for hand, _, answer, _ in program.turn_log if hand[5][4]]
            assert leads and set(leads) == {8}, "the program was asked to lead, and refused"
            # after its third refused lead, a play was made in its name (the board after that
            # turn shows a play by its seat, which it did not submit)
            led_for = [
                board
                for hand, _, _, board in program.turn_log
                if hand[5][4] and uc.cards_in(board) and board[5][3] == program.number
            ]
            assert led_for
            assert len(leads) >= 3 * len(led_for)

        run(body, timeout=180)


def test_R26_no_table_sent_to_a_program_holds_a_card_its_seat_may_not_see(
    tmp_path: Path,
) -> None:
    """Every table sent to the program is compared with the game: a hand table holds exactly
    the seat's cards at that moment, a board table only cards played (public)."""
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server)
            code = invite_code_for(table["table_id"])
            program = uc.Client(code, uc.random_player, seed=5)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(2), timeout=120)
            await wait_until(program.done.is_set)
            await wait_until(lambda: server.app.state.programs.finished)
            room = server.service.get(table["table_id"])
            assert room is not None
            sent = _sent_tables(server)
            assert sent, "the program was sent tables"
            assert program.number == 1
            record = json.loads(room.records[-1])
            checked = 0
            for round_number, table_sent in sent:
                if round_number == 0:  # the player number's moment: no game yet
                    continue
                allowed = _may_see(record["rounds"][round_number - 1], 1)
                shown = _cells(table_sent)
                assert shown <= allowed, (round_number, shown - allowed)
                checked += 1
            assert checked == len(sent) and checked > 50

        run(body, timeout=180)


def _sent_tables(server: ServerThread) -> list[tuple[int, list[list[int]]]]:
    tables: list[tuple[int, list[list[int]]]] = []
    for session in server.app.state.programs.finished:
        tables.extend(session.sent_tables)
    return tables


def _cells(table: list[list[int]]) -> set[str]:
    """The card names in rows 0-4 of a table (the joker, wherever it stands, as RJ)."""
    names: set[str] = set()
    ranks = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
    for row in range(5):
        for column in range(15):
            cell = table[row][column]
            if cell == 2:
                names.add("RJ")
            elif cell == 1 and row < 4:
                names.add(ranks[column - 1] + "SHDC"[row])
    return names


def _may_see(round_record: dict[str, Any], seat: int) -> set[str]:
    """What seat ``seat`` may see in one round (R26): its own cards as dealt, the cards of its
    own pair of the exchange (the record lists the Scum's and the Vice-Scum's gifts, then the
    President's and the Vice-President's give-backs: entries k and k + 2 are one pair), and
    every card played in the round."""
    seen = set(round_record["hands"][seat])
    exchange = round_record.get("exchange", []) or []
    assert len(exchange) in (0, 4), exchange
    for gift, back in zip(exchange[:2], exchange[2:], strict=False):
        if seat in (gift["seat"], back["seat"]):
            seen |= set(gift["cards"]) | set(back["cards"])
    for action in round_record.get("actions", []):
        if isinstance(action, dict):
            seen |= set(action.get("cards", []))
    return seen


def test_a_program_that_stalls_is_replaced_by_a_computer_player(tmp_path: Path) -> None:
    with program_server(tmp_path, uecda_move_timeout=0.5) as server:

        async def body() -> None:
            table, host = await open_table(server)
            code = invite_code_for(table["table_id"])
            program = uc.Client(code + ":Sleepy", uc.stall_after(1), seed=1)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(3), timeout=120)
            await wait_until(program.done.is_set)
            assert program.closed_by_server
            # the computer player that took the seat keeps it when the game is over
            info = seated_program(host, 1)
            assert info is not None and info["kind"] == "bot" and not info["program"]

        run(body, timeout=180)


@pytest.mark.parametrize("misbehaviour", ["disconnect", "short", "garbage"])
def test_a_program_that_disconnects_or_sends_bad_tables_harms_no_one(
    tmp_path: Path, misbehaviour: str
) -> None:
    strategies = {
        "disconnect": uc.disconnect_after(2),
        "short": uc.short_message_after(2),
        "garbage": uc.garbage,
    }
    with program_server(tmp_path, uecda_move_timeout=2.0) as server:

        async def body() -> None:
            table, host = await open_table(server)
            code = invite_code_for(table["table_id"])
            program = uc.Client(code, strategies[misbehaviour], seed=2)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(4), timeout=150)
            await wait_until(program.done.is_set)
            if misbehaviour == "garbage":
                assert 8 in program.answers and program.codes[-1] == 2
            else:
                info = seated_program(host, 1)
                assert info is not None and info["kind"] == "bot" and not info["program"]

        run(body, timeout=200)


def test_bad_connections_on_the_uecda_port_are_closed_and_other_tables_play_on(
    tmp_path: Path,
) -> None:
    """Garbage handshakes, a short one, one that never comes, an unknown code, a closed
    table, and 1,000 connections from one address: each is closed, and a program at another
    table plays its whole game meanwhile."""
    with program_server(tmp_path, uecda_handshake_timeout=1.0) as server:
        port = uecda_port(server)

        async def body() -> None:
            table, host = await open_table(server, rounds=1)
            closed = create_table(server.http, rules=UECDA_RULES)  # not open to programs
            code = invite_code_for(table["table_id"])
            program = uc.Client(code, uc.random_player, seed=7)
            program.start(port)
            await wait_until(program.seated.is_set)
            assert (await host.request({"type": "start"}))["type"] == "ack"

            def closed_without_a_number(payload: bytes | None) -> bool:
                sock = socket.create_connection(("127.0.0.1", port), timeout=20)
                if payload is not None:
                    sock.sendall(payload)
                data = sock.recv(16)
                sock.close()
                return data == b""

            cases = [
                b"\xff" * 480,  # garbage: version 0xffffffff
                uc.handshake("ABCD")[:200],  # a short handshake
                None,  # a client that never sends
                uc.handshake("ZZZZ-ZZZZ"),  # a code that finds no table
                uc.handshake(invite_code_for(closed["table_id"])),  # closed to programs
                uc.handshake(code, version=20060),
            ]
            results = await asyncio.gather(
                *(asyncio.to_thread(closed_without_a_number, case) for case in cases)
            )
            assert all(results), results

            def flood() -> int:
                socks = []
                refused = 0
                for _ in range(1000):
                    try:
                        socks.append(socket.create_connection(("127.0.0.1", port), timeout=20))
                    except OSError:
                        refused += 1
                open_ones = 0
                for sock in socks:
                    sock.settimeout(20)
                    try:
                        if sock.recv(16) == b"":
                            continue
                    except TimeoutError:
                        open_ones += 1
                    except OSError:
                        continue
                for sock in socks:
                    sock.close()
                return open_ones

            await asyncio.to_thread(flood)
            await play_randomly([host], __import__("random").Random(5), timeout=150)
            await wait_until(program.done.is_set)
            assert program.error is None and program.codes[-1] == 2
            assert server.app.state.programs.refused > 900  # at most 4 open at once

        run(body, timeout=240)


def test_programs_only_where_the_protocol_can_express_the_table(tmp_path: Path) -> None:
    """Five seats and the uecda preset's rules (the rounds aside), else programs_unavailable;
    a rules change that the protocol cannot express closes the table to programs again; a
    join as a program is refused at a closed table (programs_closed)."""
    with program_server(tmp_path) as server:

        async def body() -> None:
            table = create_table(server.http)  # the cardverse preset, four seats
            host = await Client(server.ws_url(table["table_id"]), "host").connect()
            assert (await host.join(token=table["token"]))["type"] == "welcome"
            refused = await host.request({"type": "options", "programs": True})
            assert refused["type"] == "error" and refused["code"] == "programs_unavailable"
            assert refused["params"]["why"] == "players"
            reply = await host.request({"type": "options", "rules": UECDA_RULES})
            assert reply["type"] == "ack"
            assert (await host.request({"type": "options", "programs": True}))["type"] == "ack"
            await wait_until(lambda: _programs(host)["open"] is True)
            assert _programs(host) == {
                "open": True,
                "port": uecda_port(server),
                "unavailable": None,
            }
            reply = await host.request({"type": "options", "rules": {"rounds": 5}})
            assert reply["type"] == "ack" and _programs(host)["open"] is True
            reply = await host.request({"type": "options", "rules": {"jack_back": True}})
            assert reply["type"] == "ack"
            await wait_until(lambda: _programs(host)["unavailable"] == "rules")
            assert _programs(host)["open"] is False
            guest = await Client(server.ws_url(table["table_id"]), "guest").connect()
            reply = await guest.join(name="Bot", program=True)
            assert reply["type"] == "error" and reply["code"] == "programs_closed"

        run(body, timeout=60)


def test_a_browser_cannot_take_a_seat_as_a_program(tmp_path: Path) -> None:
    """Only a connection on the UECda port joins as a program: a browser's WebSocket that says
    ``"program": true`` at a table open to programs is refused, and no seat is taken; the same
    person joins as a person."""
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server, bots=2)
            guest = await Client(server.ws_url(table["table_id"]), "guest").connect()
            reply = await guest.join(name="Mallory", program=True)
            assert reply["type"] == "error" and reply["code"] == "bad_message"
            assert reply["params"]["field"] == "program"
            assert (seated_program(host, 1) or {}).get("kind") == "empty"
            reply = await guest.join(name="Mallory")
            assert reply["type"] == "welcome" and reply["seat"] == 1
            await wait_until(lambda: (seated_program(host, 1) or {}).get("name") == "Mallory")
            assert (seated_program(host, 1) or {}).get("program") is False

        run(body, timeout=60)


def _programs(client: Client) -> dict[str, Any]:
    for message in reversed(client.messages):
        if message["type"] == "table":
            info: dict[str, Any] = message["programs"]
            return info
    raise AssertionError("no table message")


def test_a_handshake_name_is_the_table_code_and_the_name_people_see() -> None:
    from cardverse.server.programlink import read_handshake_name

    assert read_handshake_name("abcd-efgh") == ("ABCDEFGH", "Program")
    assert read_handshake_name("ABCDEFGH:Deep Blue 2") == ("ABCDEFGH", "Deep Blue 2")
    assert read_handshake_name("ABCD EFGH/<b>x</b>") == ("ABCDEFGH", "bxb")
    assert read_handshake_name("ABCDEFGH:" + "y" * 40)[1] == "y" * 16
    assert read_handshake_name("hello")[0] is None
    assert read_handshake_name("ABCDEFGHJ")[0] is None  # nine characters


def test_a_program_that_hangs_up_in_the_lobby_frees_its_seat_at_once(tmp_path: Path) -> None:
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server)
            sock = socket.create_connection(("127.0.0.1", uecda_port(server)), timeout=20)
            sock.sendall(uc.handshake(invite_code_for(table["table_id"]) + ":Brief"))
            number = await asyncio.to_thread(sock.recv, 4)
            assert number == b"\x00\x00\x00\x01"
            await wait_until(lambda: (seated_program(host, 1) or {}).get("name") == "Brief")
            sock.close()  # not its turn, nothing asked of it: noticed at once all the same
            await wait_until(lambda: (seated_program(host, 1) or {}).get("kind") == "empty", 20)

        run(body, timeout=60)


def test_cardverse_serve_opens_the_uecda_port_only_when_asked(tmp_path: Path) -> None:
    """``--uecda-port 0`` takes a free port and says it on the second line; a program is
    answered there (here: a handshake naming no table is closed). Without the flag the
    tables say there is no port."""
    from server_support import ServerProcess, _readline_with_timeout

    server = ServerProcess(tmp_path / "with", "--uecda-port", "0").start()
    try:
        assert server.proc is not None
        line = _readline_with_timeout(server.proc, 30)
        assert line.startswith("cardverse: UECda programs on 127.0.0.1 port "), line
        port = int(line.split()[-1])
        sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        sock.sendall(uc.handshake("ZZZZ-ZZZZ"))
        assert sock.recv(16) == b""  # the code finds no table: closed
        sock.close()
        table = create_table(server.http, rules=UECDA_RULES)
        info = httpx.get(f"{server.http}/api/tables/{table['table_id']}", timeout=10).json()
        assert info["programs"] == {"open": False, "port": port, "unavailable": None}
    finally:
        server.stop()
    plain = ServerProcess(tmp_path / "without").start()
    try:
        table = create_table(plain.http, rules=UECDA_RULES)
        info = httpx.get(f"{plain.http}/api/tables/{table['table_id']}", timeout=10).json()
        assert info["programs"]["port"] is None and info["programs"]["unavailable"] == "no_port"
    finally:
        plain.stop()


def test_a_give_back_table_gives_its_cards_or_the_lowest_legal_ones() -> None:
    from cardverse.server.programs import give_back_cards

    legal = [{"action": "give", "cards": ["3C", "4D"]}, {"action": "give", "cards": ["3C", "AS"]}]
    table = uc.zeros()
    table[0][12] = 1  # AS
    table[3][1] = 1  # 3C
    assert give_back_cards(table, legal) == (["3C", "AS"], "")
    table[0][13] = 1  # 2S as well: three cards, no legal give
    cards, why = give_back_cards(table, legal)
    assert cards == ["3C", "4D"] and "may not give" in why
    table[2][5] = 7  # no hand at all
    cards, why = give_back_cards(table, legal)
    assert cards == ["3C", "4D"] and why.startswith("no hand")


def test_a_program_the_host_moves_leaves_since_its_player_number_cannot_change(
    tmp_path: Path,
) -> None:
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server, bots=2)  # seats 3 and 4 are computers
            code = invite_code_for(table["table_id"])
            program = uc.Client(code + ":Mover", uc.random_player)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            await wait_until(lambda: (seated_program(host, 1) or {}).get("program") is True)
            reply = await host.request({"type": "move_seat", "seat": 1, "to": 2})
            assert reply["type"] == "ack", reply
            await wait_until(program.done.is_set)
            assert program.closed_by_server
            await wait_until(lambda: (seated_program(host, 2) or {}).get("kind") == "empty")

        run(body, timeout=60)


def test_a_program_never_becomes_the_host(tmp_path: Path) -> None:
    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server, bots=2)
            code = invite_code_for(table["table_id"])
            program = uc.Client(code + ":Heir", uc.random_player)
            program.start(uecda_port(server))
            await wait_until(program.seated.is_set)
            guest = await Client(server.ws_url(table["table_id"]), "guest").connect()
            assert (await guest.join(name="Bea"))["type"] == "welcome"  # seat 2
            assert (await host.request({"type": "leave"}))["type"] == "ack"
            changed = await guest.wait_for(lambda m: m["type"] == "host_changed", 20)
            assert changed["host"] == 2  # Bea, not the program in seat 1

        run(body, timeout=60)


def test_our_own_uecda_client_plays_a_whole_game_at_a_web_table(tmp_path: Path) -> None:
    """`cardverse uecda client` (docs/uecda.md, section 11) is a program like any other: at a
    web table it plays every round to the all-over code, and the referee refuses none of its
    plays (it reads the table's rules from what it is shown)."""
    import io
    import threading

    from cardverse.uecda.client import SessionReport, run_client

    with program_server(tmp_path) as server:

        async def body() -> None:
            table, host = await open_table(server, rounds=3)
            code = show_code(invite_code_for(table["table_id"]))
            reports: list[SessionReport] = []
            failures: list[BaseException] = []
            err = io.StringIO()

            def play() -> None:
                try:
                    reports.append(
                        run_client(
                            "127.0.0.1",
                            uecda_port(server),
                            f"{code}:ours",
                            "normal",
                            seed=4,
                            out=io.StringIO(),
                            err=err,
                        )
                    )
                except BaseException as error:  # reported below, with the client's log
                    failures.append(error)

            thread = threading.Thread(target=play, daemon=True)
            thread.start()
            await wait_until(lambda: (seated_program(host, 1) or {}).get("program") is True)
            assert (seated_program(host, 1) or {}).get("name") == "ours"
            assert (await host.request({"type": "start"}))["type"] == "ack"
            await play_randomly([host], __import__("random").Random(2), timeout=150)
            await wait_until(lambda: bool(reports or failures), timeout=60)
            assert not failures, (failures, err.getvalue())
            report = reports[0]
            assert report.number == 1 and report.games == 3 and report.turns > 0
            assert report.refused == 0, err.getvalue()
            last = host.last_state()
            assert last is not None and last["view"]["phase"] == "game_over"

        run(body, timeout=240)
