"""``cardverse uecda client``: one of our computer players as a UECda program (docs/uecda.md,
sections 1 and 11).

It connects to a UECda server (the reference ``tndhms``, ``cardverse uecda serve`` or any other
that speaks protocol 20070), sends its handshake, and plays every game until the server's
all-over code. The server is the referee, and the client plays under the rules the server's
tables show, which for the reference are not quite ours (docs/uecda.md, section 7): it follows
each game from the tables every program receives (its hand and the state cells before each turn,
the board and the player who acted after it), and on its turn

1. lists the plays the reference accepts on the board it was shown (:func:`reference_plays`,
   from the model of ``tndhms`` in :mod:`.check`: the same kind and size, all higher in the order
   in force, inside a lock, the lone joker on one card, only the 3♠ on the lone joker, no pass on
   an empty trick), so it never sends a table the server will refuse;
2. asked to cover its own play (every other player passed), passes: the trick then ends and it
   leads, which offers every choice a cover would;
3. otherwise builds a :class:`~cardverse.engine.PlayerView` of the position for the bot: the game
   so far is replayed through our ``uecda`` referee (the other hands filled with unseen cards;
   what our rules cannot hold, such as a 2 that the reference does not let clear the trick, ends
   the replayed history, and the cards played after it count as seen); when the replay reaches
   the reference's position the view is that position, else the trick is rebuilt from the play
   that stands and the passes since. The bot chooses among the plays both referees accept; where
   no view can be built (a single 2 standing, which only the lone joker covers) the heuristic
   policy of :mod:`cardverse.bots.policy` chooses among the reference's plays.

In the exchange the President and the Vice-President give back what the bot's own give-back
decision chooses. Standard library, the engine and the bots only.
"""

from __future__ import annotations

import random
import socket
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

import cardverse.bots.policy as policy

from ..bots import Bot, make_bot
from ..engine import (
    PASS,
    ExchangeSeen,
    PlayerView,
    PublicView,
    Round,
    Rules,
    SeatView,
    from_move,
    to_move,
)
from ..engine.cards import RED_JOKER, cards_of, deck_mask, parse_card
from ..engine.movegen import give_moves
from ..engine.plays import CARDS_MASK
from ..engine.positions import Known, PositionError, round_from_known
from .check import ReferenceTrick, RefPlay, analyse
from .tables import (
    TABLE_BYTES,
    Table,
    TableError,
    action_from_table,
    hand_from_table,
    read_table,
    table_of_action,
    table_of_hand,
    write_table,
)

PROTOCOL_VERSION = 20070
PLAYERS = 5
DEFAULT_PORT = 42485
GAME_GOES_ON, GAME_OVER, MATCH_OVER = 0, 1, 2
NAME_CELLS = 15
THREE_DIAMONDS = 1 << parse_card("3D")


class ClientError(Exception):
    """The session cannot go on; the message says why (printed by the command)."""


# -- the connection ---------------------------------------------------------------------------


class Connection:
    """Whole ints and tables over one TCP connection (docs/uecda.md, section 1)."""

    def __init__(self, sock: socket.socket, timeout: float | None = None) -> None:
        self.sock = sock
        self.timeout = timeout

    def _read(self, size: int, what: str) -> bytes:
        data = bytearray()
        self.sock.settimeout(self.timeout)
        while len(data) < size:
            try:
                chunk = self.sock.recv(size - len(data))
            except TimeoutError:
                raise ClientError(
                    f"the server sent no {what} within {self.timeout:g} s "
                    f"({len(data)} of {size} bytes came)"
                ) from None
            except OSError as error:
                raise ClientError(f"the connection failed: {error.strerror or error}") from None
            if not chunk:
                if data:
                    raise ClientError(
                        f"the server closed the connection after {len(data)} of the {size} "
                        f"bytes of a {what} (a short message)"
                    )
                raise ClientError(f"the server closed the connection while a {what} was due")
            data += chunk
        return bytes(data)

    def read_int(self, what: str = "number") -> int:
        value: int = struct.unpack(">I", self._read(4, what))[0]
        return value

    def read_table(self, what: str = "table") -> Table:
        return read_table(self._read(TABLE_BYTES, what))

    def send_table(self, table: Table) -> None:
        try:
            self.sock.sendall(write_table(table))
        except OSError as error:
            raise ClientError(f"the connection failed: {error.strerror or error}") from None


def handshake_table(name: str, version: int = PROTOCOL_VERSION) -> Table:
    """[0][0] the protocol version, the name from [1][0] (printable ASCII, ended by a 0)."""
    table = [[0] * 15 for _ in range(8)]
    table[0][0] = version
    cleaned = "".join(ch if 32 < ord(ch) < 127 else "_" for ch in name)[: NAME_CELLS - 1]
    for index, char in enumerate(cleaned):
        table[1][index] = ord(char)
    return table


# -- the reference's plays --------------------------------------------------------------------


@dataclass(frozen=True)
class Board:
    """What the server's hand table says of the trick, and the play that stands."""

    top: RefPlay | None
    top_move: int | None  # the standing play as a CardVerse move (None: none, or no such move)
    revolution: bool
    locked: bool


def _lead_candidates(hand: int, rules: Rules) -> list[int]:
    """Every play of ``hand`` on an empty trick under our rules (sets, sets of five, straights,
    the lone joker; the joker's namings each once)."""
    other = next(c for c in range(54) if not hand >> c & 1)  # any card not in the hand
    hands = [hand] + [1 << other] * (rules.players - 1)
    round_ = Round(rules, hands, 0)
    return [move for move in round_.legal_moves() if move != PASS]


def reference_plays(hand: int, board: Board, rules: Rules) -> list[int]:
    """The plays (and the pass, on a covered trick) the reference accepts from ``hand`` on this
    board, as CardVerse moves: only tables the reference's checks let through (docs/uecda.md,
    section 2); a joker beyond a straight's end is never among them (we have no such move)."""
    model = ReferenceTrick(
        hands=[hand],
        actor=0,
        revolution=board.revolution,
        top=board.top,
        lock=board.top.suits if board.top is not None and board.locked else None,
    )
    out: list[int] = []
    for move in _lead_candidates(hand, rules):
        try:
            table = table_of_action(from_move(move))
        except TableError:
            continue
        play = analyse(table)
        if not isinstance(play, RefPlay) or play.cards & ~hand:
            continue
        if model.covers(play):
            continue
        out.append(move)
    if board.top is not None:
        out.append(PASS)
    return out


# -- one game, followed from the tables -------------------------------------------------------


@dataclass
class GameState:
    """One game as this program sees it: its hand, the public cells, and every action."""

    number: int
    me: int  # our player number
    start: Table  # the game-start table
    seats: list[int] = field(default_factory=lambda: list(range(PLAYERS)))  # player in seat
    counts: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # by player
    classes: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # by player
    hand: int = 0
    first_hand: int | None = None  # the hand of the first turn (after the exchange)
    given: int = 0  # the cards we gave back (President, Vice-President)
    #: every action in order: (player, CardVerse move or None when we have none, cards)
    events: list[tuple[int, int | None, int]] = field(default_factory=list)
    played: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # cards, by player
    finished: list[int] = field(default_factory=list)  # players, in the order they went out
    top: RefPlay | None = None
    top_player: int = -1
    top_move: int | None = None
    passed: list[int] = field(default_factory=list)  # players passed in this trick
    revolution: bool = False
    locked: bool = False
    empty: bool = True

    @property
    def seat_of(self) -> dict[int, int]:
        return {player: seat for seat, player in enumerate(self.seats)}

    def read_hand_table(self, table: Table) -> None:
        self.hand = hand_from_table(table)
        if self.first_hand is None:
            self.first_hand = self.hand
        state, public = table[5], table[6]
        self.counts = list(public[0:5])
        self.classes = list(public[5:10])
        seats = list(public[10:15])
        if sorted(seats) == list(range(PLAYERS)):
            self.seats = seats
        self.revolution = bool(state[6])
        self.locked = bool(state[7])
        if state[4] == 1 and not self.empty:
            self._new_trick()
        self.empty = state[4] == 1

    def _new_trick(self) -> None:
        self.top, self.top_player, self.top_move = None, -1, None
        self.passed = []

    def read_board(self, table: Table) -> None:
        """The board after a turn: a play when its cards differ from the play that stood."""
        actor = table[5][3]
        if not 0 <= actor < PLAYERS:
            return
        cells = [row[:] for row in table[:5]]
        standing = _cells_of(self.top)
        if cells == standing:
            self.events.append((actor, PASS, 0))
            if actor not in self.passed:
                self.passed.append(actor)
            return
        board = [row[:] for row in table[:5]] + [[0] * 15 for _ in range(3)]
        play = analyse(board)
        if not isinstance(play, RefPlay):
            raise ClientError(f"game {self.number}: the server's board is no play ({play})")
        try:
            move: int | None = to_move(action_from_table(board))
        except (TableError, ValueError):
            move = None  # a joker beyond a straight's end: the reference has it, we do not
        self.events.append((actor, move, play.cards))
        self.played[actor] |= play.cards
        self.top, self.top_player, self.top_move = play, actor, move
        self.empty = False
        left = self.counts[actor] - play.size
        if left <= 0 and actor not in self.finished:
            self.finished.append(actor)

    def board(self) -> Board:
        return Board(self.top, self.top_move, self.revolution, self.locked)


def _cells_of(play: RefPlay | None) -> list[list[int]]:
    cells = [[0] * 15 for _ in range(5)]
    if play is not None:
        for row, column, value in play.cells:
            cells[row][column] = value
    return cells


# -- the view for the bot ---------------------------------------------------------------------


@dataclass
class Position:
    """Our referee at (or near) the reference's position, for the view."""

    round: Round
    history: list[tuple[int, int, int]]
    discarded: int


def _fake_hands(game: GameState, rules: Rules) -> list[int] | None:
    """Every seat's hand now: ours, and the unseen cards dealt out by the counts (any deal will
    do: only the course of the replay is read, and every other hand is hidden in the view)."""
    seat_of = game.seat_of
    seen = game.hand
    for cards in game.played:
        seen |= cards
    unseen = cards_of(deck_mask(rules.jokers) & ~seen)
    hands = [0] * PLAYERS
    position = 0
    for player in range(PLAYERS):
        if player == game.me:
            hands[seat_of[player]] = game.hand
            continue
        count = game.counts[player]
        chunk = unseen[position : position + count]
        if len(chunk) != count:
            return None
        for card in chunk:
            hands[seat_of[player]] |= 1 << card
        position += count
    if position != len(unseen):
        return None
    return hands


def replay(game: GameState, rules: Rules) -> Position | None:
    """The game's actions replayed through our referee, in seat terms, as far as our rules hold
    them (passes on a trick our rules have already ended are left out)."""
    now = _fake_hands(game, rules)
    if now is None or not game.events:
        return None
    seat_of = game.seat_of
    hands = [now[seat_of[p]] | game.played[p] for p in range(PLAYERS)]
    start = [hands[p] for p in game.seats]  # by seat
    first = seat_of[game.events[0][0]]
    round_ = Round(rules, start, first)
    done = 0
    for player, move, _ in game.events:
        seat = seat_of[player]
        if move is None:
            break
        if move == PASS and round_.last_move is None:
            done += 1  # our trick is over already (an own-cover pass, a pass after a 2)
            continue
        if round_.over or round_.turn != seat or round_.check(seat, move) is not None:
            break
        round_.apply_unchecked(move)
        done += 1
    discarded = 0
    for _, move, cards in game.events[done:]:
        if move != PASS:
            discarded |= cards
    return Position(round_, list(round_.history), discarded if done < len(game.events) else 0)


def build_view(
    game: GameState,
    rules: Rules,
    legal_ref: list[int],
    seen: tuple[ExchangeSeen, ...],
    paths: Counter[str] | None = None,
) -> PlayerView | None:
    """The view of our turn for the bot, with the plays both referees accept; None when our
    rules cannot hold the position. ``paths`` counts how the view was made: ``replayed`` (the
    whole game replayed to this position), ``rebuilt`` (the trick rebuilt from the play that
    stands) or ``none``."""
    paths = paths if paths is not None else Counter()
    seat_of = game.seat_of
    me = seat_of[game.me]
    counts = [game.counts[p] for p in game.seats]
    finished = [seat_of[p] for p in game.finished if game.counts[p] == 0]
    for seat in range(PLAYERS):
        if counts[seat] == 0 and seat not in finished:
            finished.append(seat)
    position = replay(game, rules)
    history: list[tuple[int, int, int]] = []
    discarded = 0
    round_: Round | None = None
    if position is not None:
        history, discarded = position.history, position.discarded
        candidate = position.round
        top_seat = seat_of[game.top_player] if game.top is not None else -1
        if (
            not discarded
            and not candidate.over
            and candidate.turn == me
            and candidate.last_move == (game.top_move if game.top is not None else None)
            and candidate.last_seat == top_seat
        ):
            round_ = candidate
            paths["replayed"] += 1
    else:
        for _, move, cards in game.events:
            if move != PASS:
                discarded |= cards
    if round_ is None:
        if game.top is not None and game.top_move is None:
            paths["none"] += 1
            return None
        trick: list[tuple[int, int]] = []
        if game.top is not None and game.top_move is not None:
            top_seat = seat_of[game.top_player]
            trick.append((top_seat, game.top_move))
            for player in game.passed:
                if player != game.top_player and game.counts[player]:
                    trick.append((seat_of[player], PASS))
        hands: list[int | None] = [None] * PLAYERS
        hands[me] = game.hand
        try:
            round_ = round_from_known(
                Known(
                    rules,
                    hands=hands,
                    counts=counts,
                    turn=me,
                    trick=trick,
                    revolution=game.revolution,
                    finished=finished,
                )
            )
        except PositionError:
            paths["none"] += 1
            return None
        paths["rebuilt"] += 1
        # the replayed history keeps only what our referee could follow: the rest is seen
        history_cards = 0
        for _, _, move in history:
            if move != PASS:
                history_cards |= move & CARDS_MASK
        discarded = 0
        for cards in game.played:
            discarded |= cards
        discarded &= ~history_cards
    ours = set(round_.legal_moves()) if round_.turn == me else set()
    legal = tuple(move for move in legal_ref if move in ours)
    if not legal:
        paths["none"] += 1
        return None
    places = [-1] * PLAYERS
    for index, seat in enumerate(finished):
        places[index] = seat
    public = PublicView(
        rules=rules,
        round_number=game.number,
        phase="play",
        hand_counts=tuple(counts),
        turn=me,
        leader=round_.trick[0][0] if round_.trick else me,
        trick=tuple(round_.trick),
        history=tuple(history),
        passed=tuple(s for s in range(PLAYERS) if round_.passed >> s & 1),
        finished=tuple(finished),
        round_places=tuple(places),
        from_bottom=(),
        fallen=(),
        out_of_play=(0,) * PLAYERS,
        discarded=discarded,
        revolution=round_.revolution,
        reversed_order=round_.reversed_now,
        marks=round_.marks,
        owed=None,
        points=(0,) * PLAYERS,
        places=_previous_places(game),
        exchange_pairs=(),
    )
    return PlayerView(public, SeatView(me, game.hand, seen, (), legal))


def _previous_places(game: GameState) -> tuple[tuple[int, ...], ...]:
    """The previous game's places in this game's seats, from the classes (none: no classes)."""
    classes = game.classes
    if sorted(classes) != list(range(PLAYERS)):
        return ()
    seat_of = game.seat_of
    order = sorted(range(PLAYERS), key=lambda player: classes[player])
    return (tuple(seat_of[player] for player in order),)


# -- the player -------------------------------------------------------------------------------


class Player:
    """A bot behind the protocol: it decides the give-back and every turn."""

    def __init__(self, bot: Bot, rules: Rules, log: Callable[[str], None] | None = None) -> None:
        self.bot = bot
        self.rules = rules
        self.log = log or (lambda line: None)
        self.fallbacks = 0  # turns the policy decided because no view could be built
        self.paths: Counter[str] = Counter()  # how each view was built (build_view)
        self.decisions = 0

    def give_back(self, game: GameState, count: int) -> int:
        """The cards the President (2) or Vice-President (1) gives back: the bot's choice."""
        hand = game.hand
        legal = tuple(give_moves(hand, count))
        classes = game.classes
        seat_of = game.seat_of
        by_class = {c: seat_of[p] for p, c in enumerate(classes)}
        me = seat_of[game.me]
        counts = [0] * PLAYERS
        dealt = list(game.start[6][0:5])
        for player in range(PLAYERS):
            counts[seat_of[player]] = dealt[player]
        moved = {0: 2, 1: 1, 3: -1, 4: -2}
        for player in range(PLAYERS):
            counts[seat_of[player]] += moved.get(classes[player], 0)
        counts[me] = hand.bit_count()
        pairs = ((by_class[4], by_class[0], 2), (by_class[3], by_class[1], 1))
        public = PublicView(
            rules=self.rules,
            round_number=game.number,
            phase="exchange",
            hand_counts=tuple(counts),
            turn=me,
            leader=me if hand & THREE_DIAMONDS else by_class[4],
            trick=(),
            history=(),
            passed=(),
            finished=(),
            round_places=(-1,) * PLAYERS,
            from_bottom=(),
            fallen=(),
            out_of_play=(0,) * PLAYERS,
            discarded=0,
            revolution=False,
            reversed_order=False,
            marks=0,
            owed=None,
            points=(0,) * PLAYERS,
            places=_previous_places(game),
            exchange_pairs=pairs,
        )
        view = PlayerView(public, SeatView(me, hand, (), (), legal))
        try:
            move = self.bot.choose(view)
        except Exception as error:
            self.log(f"game {game.number}: the bot failed on the exchange ({error}); policy")
            move = policy.give_back(hand, list(legal))
        if move not in legal:
            move = policy.give_back(hand, list(legal))
        return move & CARDS_MASK

    def play(self, game: GameState) -> int:
        """Our move on this turn: a play the reference accepts, or a pass on a covered trick."""
        self.decisions += 1
        board = game.board()
        legal_ref = reference_plays(game.hand, board, self.rules)
        if not legal_ref:  # nothing at all on an empty trick cannot be; a lead pass is legal
            return PASS
        if len(legal_ref) == 1:
            return legal_ref[0]
        if board.top is not None and game.top_player == game.me:
            return PASS  # asked to cover our own play: passing ends the trick and we lead
        view = build_view(game, self.rules, legal_ref, self._seen(game), self.paths)
        if view is not None:
            try:
                move = self.bot.choose(view)
                if move in view.legal_moves:
                    return move
            except Exception as error:
                self.log(f"game {game.number}: the bot failed ({error}); the policy decides")
        self.fallbacks += 1
        return self._policy(game, legal_ref, board)

    def _policy(self, game: GameState, legal: list[int], board: Board) -> int:
        others = [c for p, c in enumerate(game.counts) if p != game.me and c]
        last = board.top_move if board.top is not None else None
        if board.top is not None and last is None:
            last = _stand_in(board.top)
        top_count = game.counts[game.top_player] if game.top is not None else 0
        try:
            move = policy.choose(
                game.hand,
                legal,
                last,
                board.revolution,
                policy.Style.of(self.rules),
                min(others) if others else 0,
                top_count,
            )
        except Exception:
            move = legal[0]
        return move if move in legal else legal[0]

    def _seen(self, game: GameState) -> tuple[ExchangeSeen, ...]:
        """The exchange as we saw it: what we gave back, or (Scum, Vice-Scum) what we lost and
        received, told by our start table and our first hand."""
        seat_of = game.seat_of
        classes = game.classes
        if sorted(classes) != list(range(PLAYERS)) or game.first_hand is None:
            return ()
        by_class = {c: seat_of[p] for p, c in enumerate(classes)}
        me = seat_of[game.me]
        mine = classes[game.me]
        if mine in (0, 1) and game.given:
            partner = by_class[4 if mine == 0 else 3]
            return (ExchangeSeen(me, partner, game.given, False),)
        if mine in (3, 4):
            before = hand_from_table(game.start)
            lost = before & ~game.first_hand
            got = game.first_hand & ~before
            partner = by_class[0 if mine == 4 else 1]
            out: list[ExchangeSeen] = []
            if lost:
                out.append(ExchangeSeen(me, partner, lost, True))
            if got:
                out.append(ExchangeSeen(partner, me, got, False))
            return tuple(out)
        return ()


def _stand_in(top: RefPlay) -> int | None:
    """A move of our rules for a standing play we have no move for (a joker beyond a straight's
    end): its natural cards (the policy reads its size and rank only)."""
    naturals = top.cards & ~(1 << RED_JOKER)
    return naturals or None


# -- the session ------------------------------------------------------------------------------


@dataclass
class SessionReport:
    number: int = -1
    games: int = 0
    turns: int = 0
    refused: int = 0  # our submissions answered 8 that were plays
    fallbacks: int = 0


def play_session(
    connection: Connection,
    player: Player,
    name: str,
    *,
    on_game: Callable[[GameState], None] | None = None,
) -> SessionReport:
    """Handshake, then every game until the all-over code (docs/uecda.md, section 1)."""
    report = SessionReport()
    connection.send_table(handshake_table(name))
    try:
        number = connection.read_int("player number")
    except ClientError as error:
        raise ClientError(
            f"{error}: the server took no handshake of protocol {PROTOCOL_VERSION} (a server "
            "that speaks another version, or one that seated five programs already, closes "
            "the connection or says nothing)"
        ) from None
    if not 0 <= number < PLAYERS:
        raise ClientError(
            f"the server answered the handshake with {number}, not a player number 0-4: it "
            f"does not speak protocol {PROTOCOL_VERSION}"
        )
    report.number = number
    game: GameState | None = None
    while True:
        table = connection.read_table("hand table")
        if table[5][0] == 1:
            game = GameState(number=report.games + 1, me=number, start=table)
            game.read_hand_table(table)
            game.first_hand = None
            give = table[5][1]
            if give in (1, 2):
                try:
                    cards = player.give_back(game, give)
                except Exception:
                    cards = sum(1 << c for c in cards_of(game.hand)[:give])
                game.given = cards
                connection.send_table(table_of_hand(cards))
            continue
        if game is None:
            raise ClientError("the server sent a hand table before any game-start table")
        game.read_hand_table(table)
        if table[5][2] == 1:
            move = player.play(game)
            action = from_move(move)
            connection.send_table(table_of_action(action))
            answer = connection.read_int("accept code")
            report.turns += 1
            if answer == 8 and move != PASS:
                report.refused += 1
        board = connection.read_table("board table")
        game.read_board(board)
        code = connection.read_int("game code")
        if code == GAME_GOES_ON:
            continue
        if code not in (GAME_OVER, MATCH_OVER):
            raise ClientError(f"the server sent {code} where 0, 1 or 2 was due")
        report.games += 1
        if on_game is not None:
            on_game(game)
        game = None
        if code == MATCH_OVER:
            report.fallbacks = player.fallbacks
            return report


def connect(host: str, port: int, timeout: float = 10.0) -> socket.socket:
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        raise ClientError(
            f"nothing listens on {host} port {port} (connection refused): start the server first"
        ) from None
    except TimeoutError:
        raise ClientError(f"no answer from {host} port {port} within {timeout:g} s") from None
    except OSError as error:
        why = error.strerror or error
        raise ClientError(f"cannot connect to {host} port {port}: {why}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def run_client(
    host: str,
    port: int,
    name: str,
    level: str,
    *,
    seed: int | None = None,
    time_limit: float | None = None,
    playouts: int | None = None,
    out: TextIO,
    err: TextIO,
) -> SessionReport:
    """Connect, play the match, say how it went; raises :class:`ClientError`."""
    rules = Rules.make("uecda", players=PLAYERS, rounds=1)
    if seed is None:
        seed = random.randrange(1 << 30)
    bot = make_bot(level, seed=seed, time_limit=time_limit, playouts=playouts)

    def log(line: str) -> None:
        print(f"uecda client: {line}", file=err, flush=True)

    player = Player(bot, rules, log)
    sock = connect(host, port)
    try:
        report = play_session(Connection(sock), player, name)
    finally:
        sock.close()
    out.write(
        f"player {report.number}: {report.games} games, {report.turns} turns, "
        f"{report.refused} plays refused, {report.fallbacks} decided by the policy; views "
        f"{dict(sorted(player.paths.items()))}\n"
    )
    out.flush()
    return report
