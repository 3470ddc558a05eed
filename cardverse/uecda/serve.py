"""``cardverse uecda serve``: a UECda-protocol server (docs/uecda.md, sections 1 and 8).

It seats five programs in the order they connect (player numbers 0-4), then plays a match of
``games`` games under CardVerse's ``uecda`` preset with the tournament's structure (the seats
redrawn before games 1, 4, 7, …; the exchange from the second game of every hundred; the
classes forgotten every hundred games) and writes every game as a CardVerse game record.

The referee is CardVerse's engine: each game is one :class:`~cardverse.engine.Game` of one round,
begun from the hands as they stand after the exchange (a record's first round has no exchange;
the match log, ``match.jsonl``, keeps the deal and the exchange). Where the reference server
plays otherwise (docs/uecda.md, section 7) this server plays our rules; a program that cannot
lead (a pass or a refused play on an empty trick) is asked again, and after ``lead_attempts``
refusals a CardVerse computer player leads for it. A program that disconnects, stalls or sends a
short message is replaced by a CardVerse computer player for the rest of the match.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..bots import Bot, make_bot
from ..engine import (
    PASS,
    Action,
    ActionFormatError,
    Game,
    Phase,
    Rules,
    cards_of,
    from_move,
    mask_names,
    player_view,
    ruleset_for,
    to_move,
)
from ..engine.cards import deck_mask
from ..engine.events import TrickEnded, TrickStateChanged
from ..engine.exchange import highest_cards
from ..notation import record_to_json
from .tables import (
    Table,
    TableError,
    action_from_table,
    empty_table,
    hand_from_table,
    handshake_text,
    table_of_action,
    table_of_hand,
)
from .wire import ProgramLost, int_bytes, receive_table, send_bytes, table_bytes

PROTOCOL_VERSION = 20070
PLAYERS = 5
DEFAULT_PORT = 42485
#: games between redraws of the seats, and between resets of the classes (tndhms.cfg)
SEAT_REDRAW_EVERY = 3
CLASSES_RESET_EVERY = 100
#: step 8: a submission accepted, or not (a pass on a covered trick is answered 8 as well)
ACCEPTED, REFUSED = 9, 8
#: step 10
GAME_GOES_ON, GAME_OVER, MATCH_OVER = 0, 1, 2
#: [5][3] of the game-start table
NOBODY_ON_TURN = 6
CLASS_NAMES = ("President", "Vice-President", "Citizen", "Vice-Scum", "Scum")
NAME_CELLS = 15  # characters of a program's name kept (the reference keeps 9)


@dataclass
class ServeConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    games: int = 1000
    seed: int | None = None
    records: Path | None = None
    #: seconds a program has, from its connection, to send its whole handshake table
    handshake_timeout: float = 2.0
    #: seconds a program on turn (or choosing its exchange cards) has to begin its table; 0 = no
    #: limit. Also the time a write to a program may block.
    move_timeout: float = 30.0
    #: seconds the rest of a table may take once its first byte is in
    piece_timeout: float = 2.0
    #: refused submissions on an empty trick before a computer player leads for the program
    lead_attempts: int = 3
    #: the computer player that takes a lost program's seat, or leads for it
    substitute: str = "normal"


@dataclass
class Program:
    """One connected program: its player number, name and connection, or its substitute."""

    number: int
    name: str
    sock: socket.socket | None
    address: str
    lost: str | None = None  # why a computer player took its seat
    lost_in_game: int = 0

    @property
    def connected(self) -> bool:
        return self.sock is not None


@dataclass
class GameReport:
    """What the server reports of one game (the record holds the rest)."""

    number: int
    seats: list[int]  # player number in seat 0-4
    places: list[int]  # player numbers, first to last
    points: list[int]  # by player number
    record: dict[str, Any] = field(default_factory=dict)
    log: dict[str, Any] = field(default_factory=dict)


def lowest(hand: int, count: int) -> int:
    """The ``count`` lowest cards: what CardVerse's computer players give back."""
    mask = 0
    for card in cards_of(hand)[:count]:
        mask |= 1 << card
    return mask


def handshake_name(table: Table) -> str:
    """The name a program gives in its handshake, kept to :data:`NAME_CELLS` characters."""
    return handshake_text(table, NAME_CELLS)


#: a fixed deal for one game: the player number in each seat 0-4, and the hands of players 0-4
#: as dealt (card masks, before the exchange)
FixedDeal = tuple[list[int], list[int]]


class UecdaServer:
    """The listening socket, the five handshakes and the match.

    ``deals``, when given, is asked before each game (numbered from 1) for that game's seats and
    hands; where it answers None (or is not given) the server draws them from its seed. It lets a
    test replay a recorded match's games (tests/test_uecda_golden_server.py); the command line
    has no use for it.
    """

    def __init__(
        self,
        config: ServeConfig,
        out: TextIO | None = None,
        log: Callable[[str], None] | None = None,
        deals: Callable[[int], FixedDeal | None] | None = None,
    ) -> None:
        self.config = config
        self.deals = deals
        self.out = out if out is not None else sys.stdout
        self._log = log
        self.seed = config.seed if config.seed is not None else random.randrange(1 << 32)
        self.rng = random.Random(self.seed)
        self.rules = Rules.make("uecda", players=PLAYERS, rounds=1)
        self.listener: socket.socket | None = None
        self.programs: list[Program] = []
        self.reports: list[GameReport] = []
        self.totals = [0] * PLAYERS

    # -- log and output -----------------------------------------------------------------------

    def log(self, line: str) -> None:
        if self._log is not None:
            self._log(line)
        else:
            print(f"uecda serve: {line}", file=sys.stderr, flush=True)

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    # -- seating ------------------------------------------------------------------------------

    def bind(self) -> int:
        """Listen; returns the port (the one the system chose for port 0)."""
        listener = socket.create_server((self.config.host, self.config.port), backlog=16)
        self.listener = listener
        port: int = listener.getsockname()[1]
        return port

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        for program in self.programs:
            self._disconnect(program)

    def seat_programs(self) -> None:
        """Accept connections until five programs have shaken hands (docs/uecda.md, step 2)."""
        assert self.listener is not None
        while len(self.programs) < PLAYERS:
            sock, address = self.listener.accept()
            # tables and ints go out in small writes that are each answered: no Nagle delay
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            where = f"{address[0]}:{address[1]}"
            program = self._handshake(sock, where)
            if program is not None:
                self.programs.append(program)

    def _handshake(self, sock: socket.socket, where: str) -> Program | None:
        timeout = self.config.handshake_timeout
        try:
            table = receive_table(sock, timeout, None, whole=True)
        except (ProgramLost, TableError) as error:
            self.log(f"connection from {where} {error} as its handshake: connection closed")
            sock.close()
            return None
        version = table[0][0]
        if version != PROTOCOL_VERSION:
            self.log(
                f"connection from {where} asked for protocol version {version}; this server "
                f"speaks {PROTOCOL_VERSION} only: connection closed"
            )
            sock.close()
            return None
        number = len(self.programs)
        name = handshake_name(table) or f"player{number}"
        program = Program(number, name, sock, where)
        try:
            send_bytes(sock, int_bytes(number), self._write_timeout)
        except ProgramLost as error:
            self.log(f"connection from {where} {error} after its handshake: connection closed")
            sock.close()
            return None
        self.log(f"player {number} is {name!r} from {where}")
        return program

    @property
    def _write_timeout(self) -> float | None:
        return self.config.move_timeout or None

    # -- the connections during the match ------------------------------------------------------

    def _disconnect(self, program: Program) -> None:
        if program.sock is not None:
            with contextlib.suppress(OSError):
                program.sock.close()
            program.sock = None

    def _lose(self, program: Program, why: str, game: int) -> None:
        if program.sock is None:
            return
        self._disconnect(program)
        program.lost = why
        program.lost_in_game = game
        self.log(
            f"player {program.number} ({program.name!r}) {why}: a CardVerse "
            f"{self.config.substitute} computer player takes its seat for the rest of the match"
        )

    def send_to(self, program: Program, data: bytes, game: int) -> None:
        if program.sock is None:
            return
        try:
            send_bytes(program.sock, data, self._write_timeout)
        except ProgramLost as error:
            self._lose(program, str(error), game)

    def read_from(self, program: Program, game: int) -> Table | None:
        """The program's next table, or None once it is lost (a computer player acts instead)."""
        if program.sock is None:
            return None
        try:
            return receive_table(
                program.sock, self.config.move_timeout or None, self.config.piece_timeout
            )
        except ProgramLost as error:
            self._lose(program, str(error), game)
            return None

    # -- the match ----------------------------------------------------------------------------

    def run(self) -> list[GameReport]:
        """Seat five programs and play the match; returns each game's report."""
        if self.listener is None:
            self.bind()
        self.seat_programs()
        self.log(f"five programs seated; {self.config.games} games, seed {self.seed}")
        if self.config.records is not None:  # this match's log, not the last one's
            self.config.records.mkdir(parents=True, exist_ok=True)
            (self.config.records / "match.jsonl").write_text("", encoding="utf-8")
        seats: list[int] = []
        classes: list[int] | None = None  # player numbers from President to Scum
        try:
            for number in range(1, self.config.games + 1):
                if (number - 1) % SEAT_REDRAW_EVERY == 0:
                    seats = list(range(PLAYERS))
                    self.rng.shuffle(seats)
                if (number - 1) % CLASSES_RESET_EVERY == 0:
                    classes = None
                fixed = self.deals(number) if self.deals is not None else None
                if fixed is not None:
                    seats = list(fixed[0])
                report = GameRunner(self, number, seats, classes, fixed).play()
                classes = report.places
                self._finish_game(report)
        finally:
            self.close()
        self._say_totals()
        return self.reports

    def _finish_game(self, report: GameReport) -> None:
        self.reports.append(report)
        for player, points in enumerate(report.points):
            self.totals[player] += points
        places = " ".join(str(p) for p in report.places)
        self.say(f"game {report.number}: places {places} (player numbers, first to last)")
        records = self.config.records
        if records is not None:
            records.mkdir(parents=True, exist_ok=True)
            name = self.record_name(report.number)
            (records / name).write_text(json.dumps(report.record) + "\n", encoding="utf-8")
            with (records / "match.jsonl").open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(report.log) + "\n")

    def record_name(self, number: int) -> str:
        width = max(4, len(str(self.config.games)))
        return f"game-{number:0{width}d}.json"

    def _say_totals(self) -> None:
        self.say(f"match over: {len(self.reports)} games")
        for program in self.programs:
            lost = ""
            if program.lost is not None:
                lost = f" (replaced by a computer player in game {program.lost_in_game})"
            self.say(
                f"player {program.number} {program.name}: {self.totals[program.number]} points"
                + lost
            )


class GameRunner:
    """One game of the match: deal, exchange, play, on the wire and through the engine."""

    def __init__(
        self,
        server: UecdaServer,
        number: int,
        seats: list[int],
        classes: list[int] | None,
        fixed: FixedDeal | None = None,
    ) -> None:
        self.server = server
        self.fixed = fixed
        self.config = server.config
        self.programs = server.programs
        self.number = number
        self.seats = seats  # player number in each seat
        self.seat_of = {player: seat for seat, player in enumerate(seats)}
        self.classes = classes
        self.last_game = number == self.config.games
        self.bots: dict[int, Bot] = {}
        self.replaced_at: dict[int, int] = {}  # player -> record action index
        self.refused = [0] * PLAYERS  # submissions answered 8 that were not a pass, by player
        self.led_for = [0] * PLAYERS  # leads a computer player made after refusals, by player
        self.log_entry: dict[str, Any] = {}

    # -- tables -------------------------------------------------------------------------------

    def _class_row(self) -> list[int]:
        row = [0] * PLAYERS
        if self.classes is not None:
            for rank, player in enumerate(self.classes):
                row[player] = rank
        return row

    def _state(self, counts: list[int]) -> list[list[int]]:
        """Rows 5 and 6 of a table from the server, as zeros and row 6's public facts."""
        row5 = [0] * 15
        row6 = [*counts, *self._class_row(), *self.seats]
        return [row5, row6]

    def _table(self, cards: Table, state: list[list[int]]) -> Table:
        table = [list(row) for row in cards[:5]]
        table.append(list(state[0]))
        table.append(list(state[1]))
        table.append([0] * 15)
        return table

    def _send_all(self, tables: dict[int, Table] | Table) -> None:
        for program in self.programs:
            table = tables[program.number] if isinstance(tables, dict) else tables
            self.server.send_to(program, table_bytes(table), self.number)

    def _send_int_all(self, value: int) -> None:
        for program in self.programs:
            self.server.send_to(program, int_bytes(value), self.number)

    # -- the game -----------------------------------------------------------------------------

    def play(self) -> GameReport:
        dealt = self._deal()  # by player
        hands = list(dealt)
        exchange = self._exchange(hands, dealt)
        game = Game(self.server.rules, hands=[hands[player] for player in self.seats])
        self._play(game)
        order = game.places[-1]
        places = [self.seats[seat] for seat in order]
        points = [0] * PLAYERS
        for place, player in enumerate(places):
            points[player] = PLAYERS - place
        record = record_to_json(game, self._record_players())
        self.log_entry = {
            "game": self.number,
            "record": self.server.record_name(self.number),
            "seats": list(self.seats),
            "classes_before": list(self.classes) if self.classes is not None else None,
            "dealt": [mask_names(hand) for hand in dealt],
            "exchange": exchange,
            "places": places,
            "points": points,
            "refused_plays": self.refused,
            "led_for": self.led_for,
            "replaced": {str(p): a for p, a in sorted(self.replaced_at.items())},
        }
        return GameReport(self.number, list(self.seats), places, points, record, self.log_entry)

    def _record_players(self) -> list[dict[str, Any]]:
        out = []
        for player in self.seats:
            program = self.programs[player]
            entry: dict[str, Any] = {"name": f"{program.name} (player {player})"}
            if program.lost is not None and program.lost_in_game < self.number:
                entry["ai"] = self.config.substitute
            elif player in self.replaced_at:
                entry["name"] += (
                    f", a {self.config.substitute} computer player from action "
                    f"{self.replaced_at[player]}"
                )
            out.append(entry)
        return out

    def _deal(self) -> list[int]:
        """53 cards one at a time in seat order, from the previous President's seat (a random
        seat in the first game of each hundred), as the reference server deals; or the fixed
        deal the server was given for this game."""
        if self.fixed is not None:
            hands = list(self.fixed[1])
            if sorted(self.fixed[0]) != list(range(PLAYERS)) or len(hands) != PLAYERS:
                raise ValueError(f"game {self.number}: a fixed deal needs five seats and hands")
            everything = 0
            for hand in hands:
                if hand & everything:
                    raise ValueError(f"game {self.number}: a card is dealt twice")
                everything |= hand
            if everything != deck_mask(1):
                raise ValueError(f"game {self.number}: the fixed deal is not the whole deck")
            return hands
        rng = self.server.rng
        cards = cards_of(deck_mask(1))
        rng.shuffle(cards)
        if self.classes is not None:
            start = self.seat_of[self.classes[0]]
        else:
            start = rng.randrange(PLAYERS)
        dealt = [0] * PLAYERS
        for index, card in enumerate(cards):
            dealt[self.seats[(start + index) % PLAYERS]] |= 1 << card
        return dealt

    def _exchange(self, hands: list[int], dealt: list[int]) -> list[dict[str, Any]]:
        """Steps 4 and 5: the gifts, the game-start tables, the two choices (section 3, point 4).
        Changes ``hands`` (by player) to the hands after the exchange; returns its log."""
        counts = [hand.bit_count() for hand in dealt]
        state = self._state(counts)
        state[0][0] = 1
        state[0][3] = NOBODY_ON_TURN
        exchanging = self.classes is not None and self.server.rules.exchange
        log: list[dict[str, Any]] = []
        if not exchanging:
            for program in self.programs:
                self.server.send_to(
                    program,
                    table_bytes(self._table(table_of_hand(dealt[program.number]), state)),
                    self.number,
                )
            return log
        assert self.classes is not None
        president, vice, _, vice_scum, scum = self.classes
        for giver, receiver, count in ((scum, president, 2), (vice_scum, vice, 1)):
            gift = highest_cards(hands[giver], count)
            hands[giver] &= ~gift
            hands[receiver] |= gift
            log.append(
                {"giver": giver, "receiver": receiver, "cards": mask_names(gift), "how": "gift"}
            )
        for rank, player in enumerate(self.classes):
            shown = hands[player] if rank < 3 else dealt[player]  # the givers see their deal
            table = self._table(table_of_hand(shown), state)
            table[5][1] = max(2 - rank, 0)
            self.server.send_to(self.programs[player], table_bytes(table), self.number)
        for chooser, receiver, count in ((president, scum, 2), (vice, vice_scum, 1)):
            cards, how = self._choice(chooser, hands[chooser], count)
            hands[chooser] &= ~cards
            hands[receiver] |= cards
            log.append(
                {"giver": chooser, "receiver": receiver, "cards": mask_names(cards), "how": how}
            )
        return log

    def _choice(self, player: int, hand: int, count: int) -> tuple[int, str]:
        program = self.programs[player]
        table = self.server.read_from(program, self.number)
        if table is None:
            return lowest(hand, count), f"{self.config.substitute} computer player"
        try:
            cards = hand_from_table(table)
        except TableError as error:
            why = str(error)
        else:
            if cards & ~hand:
                why = "gave cards it does not hold: " + " ".join(mask_names(cards & ~hand))
            elif cards.bit_count() != count:
                why = f"gave {cards.bit_count()} cards, not {count}"
            else:
                return cards, "chosen"
        self.server.log(
            f"game {self.number}: player {player} ({program.name!r}) {why}; its {count} highest "
            "cards are given back instead, as the reference server does"
        )
        return highest_cards(hand, count), "highest (the choice was refused)"

    # -- play ---------------------------------------------------------------------------------

    def _bot(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            bot = make_bot(self.config.substitute, seed=self.server.rng.randrange(1 << 30))
            self.bots[seat] = bot
        return bot

    def _bot_move(self, game: Game, seat: int) -> int:
        return self._bot(seat).choose(player_view(game, seat))

    def _play(self, game: Game) -> None:
        rules = self.server.rules
        ruleset = ruleset_for(rules)
        board: Table = empty_table()  # rows 0-4: the play that stands
        lead_refusals = 0
        while game.phase is Phase.PLAY:
            assert game.round is not None
            seat = game.turn
            assert seat is not None
            player = self.seats[seat]
            program = self.programs[player]
            leading = not game.round.trick
            counts = [0] * PLAYERS
            for s, hand in enumerate(game.hands):
                counts[self.seats[s]] = hand.bit_count()
            state = self._state(counts)
            state[0][3] = player
            state[0][4] = int(leading)
            state[0][6] = int(game.revolution)
            state[0][7] = int(bool(ruleset.report(game.marks).get("lock", 0)))
            tables = {}
            for other in self.programs:
                table = self._table(table_of_hand(game.hands[self.seat_of[other.number]]), state)
                table[5][2] = int(other.number == player)
                tables[other.number] = table
            self._send_all(tables)  # step 6
            marks_before = game.marks
            move: int | None
            answer: int | None
            submitted = self.server.read_from(program, self.number) if program.connected else None
            if submitted is None:
                if player not in self.replaced_at and program.lost is not None:
                    self.replaced_at[player] = len(game.round.history)
                move = self._bot_move(game, seat)
                shown = table_of_action(from_move(move))
                answer = None
            else:
                move, shown, answer = self._judge(game, seat, submitted, leading)
                if move is None:
                    lead_refusals += 1
                    if lead_refusals >= self.config.lead_attempts:
                        self.server.log(
                            f"game {self.number}: player {player} ({program.name!r}) did not "
                            f"lead in {lead_refusals} tries; a {self.config.substitute} computer "
                            "player leads for it"
                        )
                        move = self._bot_move(game, seat)
                        shown = table_of_action(from_move(move))
                        self.led_for[player] += 1
                if answer is not None:
                    self.server.send_to(program, int_bytes(answer), self.number)  # step 8
            trick_ended = False
            lock_after: int | None = None
            if move is not None:
                lead_refusals = 0
                events = game.apply(move, seat)
                for event in events:
                    if isinstance(event, TrickStateChanged) and event.report.name == "lock":
                        lock_after = event.value
                    if isinstance(event, TrickEnded):
                        trick_ended = True
                if move != PASS:
                    board = [list(row) for row in shown[:5]]
            if lock_after is None:
                marks = marks_before if trick_ended or game.phase is not Phase.PLAY else game.marks
                lock_after = ruleset.report(marks).get("lock", 0)
            counts = [0] * PLAYERS
            for s, hand in enumerate(game.hands):
                counts[self.seats[s]] = hand.bit_count()
            state = self._state(counts)
            state[0][3] = player
            state[0][4] = int(not any(any(row) for row in board))
            state[0][6] = int(game.revolution)
            state[0][7] = int(bool(lock_after))
            self._send_all(self._table(board, state))  # step 9
            if game.phase is Phase.PLAY:
                self._send_int_all(GAME_GOES_ON)  # step 10
                if trick_ended:
                    board = empty_table()
            else:
                self._send_int_all(MATCH_OVER if self.last_game else GAME_OVER)

    def _judge(
        self, game: Game, seat: int, submitted: Table, leading: bool
    ) -> tuple[int | None, Table, int]:
        """A program's submission: the move to make (None: refused on lead, ask again), the
        cells the board shows for it, and the answer of step 8."""
        player = self.seats[seat]
        try:
            action: Action = action_from_table(submitted)
            move = to_move(action)
        except (TableError, ActionFormatError) as error:
            why = str(error)
            self.refused[player] += 1
        else:
            refusal = game.check(seat, move)
            if refusal is None:
                if move == PASS:
                    return PASS, submitted, REFUSED  # as the reference answers a covered pass
                return move, submitted, ACCEPTED
            why = f"{refusal.rule}: {refusal.message}"
            if move != PASS:
                self.refused[player] += 1
            else:
                why = "passed on an empty trick, which our rules do not allow (R8)"
        if leading:
            self.server.log(
                f"game {self.number}: player {player} ({self.programs[player].name!r}, seat "
                f"{seat}) submission refused on lead ({why}); it is asked again"
            )
            return None, submitted, REFUSED
        self.server.log(
            f"game {self.number}: player {player} ({self.programs[player].name!r}, seat "
            f"{seat}) play refused ({why}): it counts as a pass"
        )
        return PASS, submitted, REFUSED
