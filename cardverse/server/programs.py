"""Programs at web tables: the UECda port (docs/uecda.md, section 10).

A program written for the UECda tournament's protocol (8×15 int tables, docs/uecda.md section 1)
connects to the server's UECda port (``cardverse serve --uecda-port N``; off by default) and
names a table in its handshake: the name it gives is the table's invite code, optionally followed
by ``:`` (or ``/``) and the name people see (``ABCD-EFGH:mybot``). If the host opened the table to
programs (the table option ``programs``, only where the protocol can express the table: five
seats and the ``uecda`` preset's rules), the program takes the first empty seat.

From then on the program is one more connection of the table, exactly like a browser's: a
:class:`~cardverse.server.sockets.WsConnection` on a :class:`ProgramSocket` (this module's
stand-in for a WebSocket) found and attached by the WebSocket endpoint's own code, so the rate
limits, the referee, the hidden-card filter and the linking to a table another process owns all
apply. The bridge (:class:`ProgramSession`) writes JSON client messages (``join``, ``play``,
``pass``, ``give``, ``suggest``, ``leave``) into that connection and reads the messages the
table sends it back; it keeps the seat's view (a ``state``, then each ``change`` applied) and
builds every UECda table from that filtered view only, never from the game.

Each round of the table is one UECda game: the game-start table (step 4) when the round is dealt
(with the number of cards to give back, [5][1], from the second round), a hand table to the
program before every action at the table (step 6), the answer to its own submission (step 8),
the board after every action (step 9) and 0, 1 (the round is over) or 2 (the table's game is
over) after it (step 10). A refused play is answered 8 and counts as a pass (a ``pass`` is sent
for it); a refused lead is asked again, and after ``uecda_lead_attempts`` refusals the play
the ``normal`` computer player suggests (``suggest``; the lowest legal play when hints are off)
is made for it. A program that stalls (no table within ``uecda_move_timeout`` seconds of its
turn), sends a short or malformed message, or disconnects is logged and leaves its seat (a
``leave``): a computer player takes over as for a person who leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import struct
from typing import Any

from ..engine import Action, ActionFormatError
from ..engine.cards import CardError, mask_names
from ..uecda.tables import (
    TABLE_BYTES,
    Table,
    TableError,
    action_from_table,
    empty_table,
    hand_from_table,
    table_of_action,
    write_table,
)
from .programlink import (
    DEFAULT_NAME,
    NOBODY_ON_TURN,
    ProgramLost,
    ProgramReader,
    ProgramSocket,
    apply_change,
    bind_port,
    board_table,
    hand_table,
    handshake_text,
    read_handshake_name,
)
from .protocol import ProtocolError
from .settings import Settings

log = logging.getLogger("cardverse.server.programs")

PROTOCOL_VERSION = 20070
ACCEPTED, REFUSED = 9, 8  # step 8
GAME_GOES_ON, GAME_OVER, MATCH_OVER = 0, 1, 2  # step 10
PROGRAM_GONE = ""  # in a session's inbox: the program's side of the connection is gone


class ProgramSession:
    """One program's connection, from its handshake to its last table."""

    def __init__(self, port: ProgramPort, reader: asyncio.StreamReader, writer: Any) -> None:
        self.port = port
        self.service = port.service
        self.settings: Settings = port.service.settings
        self.writer = writer
        #: what the table writes to the program's connection (None: it closed; PROGRAM_GONE:
        #: the program's side closed, noticed at once even when it is not its turn)
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.reader = ProgramReader(
            reader, self.settings, lambda: self.inbox.put_nowait(PROGRAM_GONE)
        )
        peer = writer.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "unknown"
        self.where = f"{peer[0]}:{peer[1]}" if peer else "unknown"
        self.sock: ProgramSocket | None = None
        self.seat: int | None = None
        self.name = DEFAULT_NAME
        self.seq = 0
        self.state: dict[str, Any] | None = None
        self.table_info: dict[str, Any] | None = None
        self.board: Table = empty_table()
        self.prompted: int | None = None  # the seat the last step 6 put on turn (to act yet)
        self.lead_refusals = 0
        self.over = False  # step 10 said 2: the table's game is over
        self.refusal = ""  # why the table refused the last message (its error's words)
        #: every table sent (with the round it was sent in), kept when ``keep_sent`` is set
        self.sent_tables: list[tuple[int, Table]] = []
        self.keep_sent = port.keep_sent

    # -- the program's side ------------------------------------------------------------------

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        try:
            await asyncio.wait_for(self.writer.drain(), self.settings.uecda_move_timeout)
        except TimeoutError:
            raise ProgramLost(
                f"read nothing of what was sent for {self.settings.uecda_move_timeout:g} s"
            ) from None
        except OSError as error:
            raise ProgramLost(f"connection failed: {error}") from None

    async def send_table(self, table: Table) -> None:
        if self.keep_sent:
            round_number = int(self.view["round"]) if self.state is not None else 0
            self.sent_tables.append((round_number, [list(row) for row in table]))
        await self.write(write_table(table))

    async def send_int(self, value: int) -> None:
        await self.write(struct.pack(">I", value))

    # -- the table's side --------------------------------------------------------------------

    def post(self, message: dict[str, Any]) -> None:
        """A client message to the table, as a browser sends it."""
        assert self.sock is not None
        if "seq" in message:
            self.seq += 1
            message["seq"] = self.seq
        self.sock.deliver(json.dumps(message))

    async def next_message(self, timeout: float | None = None) -> dict[str, Any]:
        text = await asyncio.wait_for(self.inbox.get(), timeout)
        if text is None:
            raise ProgramLost("the table closed the connection")
        if text == PROGRAM_GONE:
            raise ProgramLost(self.reader.closed or "closed its connection")
        message: dict[str, Any] = json.loads(text)
        return message

    # -- the whole session -------------------------------------------------------------------

    async def run(self) -> None:
        try:
            await self._run()
            if self.over:  # its seat stays its own, away, as a person's who closes the page
                log.info("program %r at seat %s: the game is over", self.name, self.seat)
        except ProgramLost as lost:
            self._lost(str(lost))
        except Exception as failure:  # never harms the table or the server
            log.error("program %s (%s) failed", self.where, self.name, exc_info=failure)
            self._lost("the bridge failed")
        finally:
            self.close()

    def _lost(self, why: str) -> None:
        if self.seat is None:
            log.info("UECda connection from %s %s: connection closed", self.where, why)
            return
        log.info(
            "program %r at seat %d from %s %s: it leaves the seat (a computer player takes over)",
            self.name,
            self.seat,
            self.where,
            why,
        )
        with contextlib.suppress(Exception):
            self.post({"type": "leave", "seq": 0})

    def close(self) -> None:
        self.reader.close()
        if self.sock is not None and not self.sock.gone:
            self.sock.deliver(None)
        with contextlib.suppress(Exception):
            self.writer.close()

    async def _run(self) -> None:
        settings = self.settings
        try:
            handshake = await self.reader.table(settings.uecda_handshake_timeout)
        except ProgramLost as lost:
            raise ProgramLost(f"{lost} as its handshake") from None
        if handshake[0][0] != PROTOCOL_VERSION:
            raise ProgramLost(
                f"asked for protocol version {handshake[0][0]}; this server speaks "
                f"{PROTOCOL_VERSION} only"
            )
        code, self.name = read_handshake_name(handshake_text(handshake))
        if code is None:
            raise ProgramLost("gave no table code as its name (CODE or CODE:NAME)")
        try:
            table_id = self.service.id_by_code(code, self.address)
        except ProtocolError as error:
            raise ProgramLost(error.message) from None
        if table_id is None:
            raise ProgramLost(f"named the table code {code}, which finds no table")
        await self._attach(table_id)
        self.post({"type": "join", "name": self.name, "program": True})
        while self.seat is None:
            message = await self.next_message(settings.uecda_handshake_timeout)
            if message["type"] == "welcome":
                self.seat = int(message["seat"])
            elif message["type"] == "error":
                raise ProgramLost(f"could not take a seat: {message['message']}")
            else:
                self._keep(message)
        log.info("program %r from %s takes seat %d", self.name, self.where, self.seat)
        await self.send_int(self.seat)  # step 3: the player number is the seat
        await self._play()

    async def _attach(self, table_id: str) -> None:
        from .sockets import WsConnection, _serve_socket

        self.sock = ProgramSocket(self.inbox, table_id, self.address)
        conn = WsConnection(self.sock, self.service)  # type: ignore[arg-type]
        task = asyncio.get_running_loop().create_task(
            _serve_socket(self.sock, conn, self.service)  # type: ignore[arg-type]
        )
        self.port.tasks.add(task)
        task.add_done_callback(self.port.tasks.discard)
        message = await self.next_message(settings_timeout(self.settings))
        while message["type"] != "table":
            if message["type"] == "error":
                raise ProgramLost(f"could not open the table: {message['message']}")
            message = await self.next_message(settings_timeout(self.settings))
        self.table_info = message
        if not message["programs"]["open"]:
            raise ProgramLost("named a table whose host has not opened it to programs")

    def _keep(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """Take a message into the view held; returns the game's events it tells."""
        kind = message["type"]
        if kind == "table":
            self.table_info = message
        elif kind == "state":
            self.state = message
            return list(message.get("events") or [])
        elif kind == "change":
            if self.state is None or message["from"] != self.state["v"]:
                self.post({"type": "sync"})  # a gap: the full state comes again
                return []
            self.state = apply_change(self.state, message)
            return list(message.get("events") or [])
        elif kind in ("seat_lost", "replaced"):
            raise ProgramLost("lost its seat")
        elif kind == "moved":  # its player number (step 3) cannot change: it leaves
            self.seat = int(message["seat"])
            raise ProgramLost("was moved to another seat by the host")
        return []

    # -- the game ------------------------------------------------------------------------------

    @property
    def view(self) -> dict[str, Any]:
        assert self.state is not None
        view: dict[str, Any] = self.state["view"]
        return view

    async def _play(self) -> None:
        # the connection's idle limit counts messages from the program's side: a program that
        # waits (in the lobby, or between its turns) pings the table now and then
        keepalive = (self.settings.ws_idle_timeout or 300.0) / 3
        while not self.over:
            try:
                message = await self.next_message(keepalive)
            except TimeoutError:
                self.post({"type": "ping"})
                continue
            events = self._keep(message)
            if await self._tell(events):
                return
            await self._prompt()

    async def _tell(self, events: list[dict[str, Any]]) -> bool:
        """Steps 4, 9 and 10 for the events of one change; True when the table's game is
        over (step 10 said 2)."""
        kinds = [event.get("event") for event in events]
        over = "game_over" in kinds or "game_abandoned" in kinds
        for index, event in enumerate(events):
            kind = event.get("event")
            if kind in ("played", "passed"):
                if self.prompted != event["seat"]:  # its step 6 was not sent (a full state)
                    table = self._hand_table()
                    table[5][2] = int(event["seat"] == self.seat)
                    table[5][3] = int(event["seat"])
                    await self.send_table(table)
                self.prompted = None
                later = kinds[index + 1 :]
                if "played" in later or "passed" in later:
                    code = GAME_GOES_ON
                elif over:
                    code = MATCH_OVER
                elif "round_over" in later:
                    code = GAME_OVER
                else:
                    code = GAME_GOES_ON
                await self._board(event)
                await self.send_int(code)
                if code != GAME_GOES_ON:
                    self.board = empty_table()
            elif kind == "trick_ended":
                self.board = empty_table()
            elif kind == "round_started":
                self.prompted = None
                self.lead_refusals = 0
                self.board = empty_table()
        if over:
            self.over = True
            return True
        if "round_started" in kinds:
            await self._game_start()
        return False

    def _hand_table(self) -> Table:
        assert self.seat is not None
        return hand_table(self.view, self.seat)

    async def _game_start(self) -> None:
        """Step 4: the hand as dealt (with the gifts a President receives), [5][1] the number
        of cards this seat gives back."""
        view = self.view
        table = self._hand_table()
        table[5][0] = 1
        table[5][2] = 0
        table[5][3] = NOBODY_ON_TURN
        for pair in view.get("exchange_pairs") or []:
            if pair.get("receiver") == self.seat and pair.get("count") in (1, 2):
                table[5][1] = int(pair["count"])
        self.prompted = None
        await self.send_table(table)

    async def _board(self, event: dict[str, Any]) -> None:
        """Step 9: the play that stands (the one just made, or the one before a pass) and the
        seat that acted."""
        if event["event"] == "played":
            action = Action("play", tuple(event["cards"]), dict(event.get("jokers") or {}))
            with contextlib.suppress(TableError, ActionFormatError, CardError):
                self.board = table_of_action(action)
        assert self.seat is not None
        await self.send_table(board_table(self.board, self.view, self.seat, int(event["seat"])))

    async def _prompt(self) -> None:
        """Step 6 when someone is to act and the program has not been told; on its own turn,
        its table (or, in the exchange, step 5's cards)."""
        while self.state is not None and self.seat is not None and not self.over:
            view = self.view
            turn = view.get("turn")
            if view["phase"] == "exchange":
                if turn != self.seat or not view.get("legal_moves"):
                    return
                await self._give_back()
                continue
            if view["phase"] != "play" or turn is None or self.prompted is not None:
                return
            self.prompted = int(turn)
            await self.send_table(self._hand_table())
            if turn != self.seat:
                return
            await self._move()

    async def _give_back(self) -> None:
        """Step 5: the cards the President (Vice-President) gives back."""
        table = await self.reader.table(self.settings.uecda_move_timeout)
        cards, why = give_back_cards(table, self.view["legal_moves"])
        if why:
            log.info("program %r gave back %s: its lowest cards go", self.name, why)
        self.post({"type": "give", "seq": 0, "cards": cards})
        await self._answer()

    async def _move(self) -> None:
        view = self.view
        leading = not view.get("trick")
        table = await self.reader.table(self.settings.uecda_move_timeout)
        try:
            action = action_from_table(table)
        except TableError as error:
            await self._refused(leading, str(error))
            return
        message: dict[str, Any] = {"type": action.kind, "seq": 0}
        if action.kind == "play":
            message["cards"] = list(action.cards)
            if action.jokers:
                message["jokers"] = dict(action.jokers)
        self.post(message)
        answer = await self._answer()
        if answer is None:
            await self._refused(leading, self.refusal)
            return
        await self.send_int(REFUSED if action.kind == "pass" else ACCEPTED)  # step 8
        self.lead_refusals = 0
        await self._tell(answer)

    async def _answer(self) -> list[dict[str, Any]] | None:
        """The table's answer to the message just posted: the events of the change that
        acknowledges it, or None when it was refused."""
        seq = self.seq
        while True:
            message = await self.next_message(settings_timeout(self.settings))
            if message["type"] == "error" and message.get("seq") == seq:
                self.refusal = str(message.get("message") or message.get("code"))
                return None
            if message["type"] == "ack" and message.get("seq") == seq:
                return []
            events = self._keep(message)
            if message.get("ack") == seq:
                return events
            if await self._tell(events):
                raise ProgramLost("the game ended")

    async def _refused(self, leading: bool, why: str) -> None:
        """A submission the referee refused: answered 8; on a covered trick it counts as a
        pass; on lead the program is asked again, and after the lead attempts a computer
        player's play is made for it."""
        last = leading and self.lead_refusals + 1 >= self.settings.uecda_lead_attempts
        then = "a computer player leads for it" if last else "it is asked again"
        log.info(
            "program %r at seat %s: submission refused (%s); %s",
            self.name,
            self.seat,
            why,
            then if leading else "it counts as a pass",
        )
        await self.send_int(REFUSED)
        if not leading:
            self.post({"type": "pass", "seq": 0})
            events = await self._answer()
            if events is not None:
                await self._tell(events)
            return
        self.lead_refusals += 1
        if self.lead_refusals < self.settings.uecda_lead_attempts:
            await self._board_repeat()
            self.prompted = None  # step 6 again, and its table
            return
        self.lead_refusals = 0
        move = await self._suggested()
        self.post(
            {key: value for key, value in move.items() if key != "action"}
            | {"type": move["action"], "seq": 0}
        )
        events = await self._answer()
        if events is not None:
            await self._tell(events)

    async def _board_repeat(self) -> None:
        """After a refused lead: the board (unchanged) and 0, then the program is asked again."""
        assert self.seat is not None
        await self.send_table(board_table(self.board, self.view, self.seat, self.seat))
        await self.send_int(GAME_GOES_ON)

    async def _suggested(self) -> dict[str, Any]:
        legal = [m for m in self.view.get("legal_moves") or [] if m.get("action") != "pass"]
        fallback = dict(legal[0]) if legal else {"action": "pass"}
        self.post({"type": "suggest"})
        while True:
            message = await self.next_message(settings_timeout(self.settings))
            if message["type"] == "suggestion":
                move: dict[str, Any] = dict(message["action"])
                return move
            if message["type"] == "error":
                return fallback
            if await self._tell(self._keep(message)):
                raise ProgramLost("the game ended")


def give_back_cards(table: Table, legal: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The cards a give-back table gives, when they are one of the seat's legal gives; else
    the lowest legal give (as a computer player gives) and why."""
    try:
        chosen = mask_names(hand_from_table(table))
    except TableError as error:
        return list(legal[0]["cards"]), f"no hand ({error})"
    if any(sorted(move["cards"]) == sorted(chosen) for move in legal):
        return chosen, ""
    return list(legal[0]["cards"]), "cards it may not give: " + " ".join(chosen)


def settings_timeout(settings: Settings) -> float:
    """How long the bridge waits for the table's answer to a message of its own."""
    return max(30.0, settings.uecda_move_timeout * 3)


class ProgramPort:
    """The UECda listening socket of one server process and its sessions."""

    def __init__(self, service: Any, keep_sent: bool = False) -> None:
        self.service = service
        self.settings: Settings = service.settings
        self.server: asyncio.Server | None = None
        self.port: int | None = None
        self.per_address: dict[str, int] = {}
        self.sessions: set[ProgramSession] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.keep_sent = keep_sent  # tests: every table sent to each program is kept
        self.refused = 0  # connections refused over the per-address limit
        self.finished: list[ProgramSession] = []  # ended sessions, kept with ``keep_sent``

    async def start(self, sock: socket.socket | None = None) -> int:
        settings = self.settings
        if sock is None:
            sock = bind_port(settings.uecda_host, settings.uecda_port or 0)
        self.server = await asyncio.start_server(self._accept, sock=sock, limit=TABLE_BYTES)
        self.port = int(sock.getsockname()[1])
        settings.uecda_port = self.port
        log.info("UECda programs may connect on %s port %d", settings.uecda_host, self.port)
        return self.port

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if peer else "unknown"
        count = self.per_address.get(address, 0)
        if count >= self.settings.uecda_connections_per_address:
            self.refused += 1
            if self.refused % 100 == 1:
                log.warning(
                    "UECda connection from %s refused: %d open from that address already",
                    address,
                    count,
                )
            writer.close()
            return
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.per_address[address] = count + 1
        session = ProgramSession(self, reader, writer)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)
            if self.keep_sent:
                self.finished.append(session)
            left = self.per_address.get(address, 1) - 1
            if left > 0:
                self.per_address[address] = left
            else:
                self.per_address.pop(address, None)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for session in list(self.sessions):
            session.close()
        for task in list(self.tasks):
            task.cancel()
