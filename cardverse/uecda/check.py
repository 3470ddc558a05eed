"""``cardverse uecda check``: the reference server's recorded games as a conformance test
(docs/uecda.md, section 9).

A ``tndhms`` log (tests/data/uecda/README.md) holds, per game, the classes, the seats, the hands as
dealt and every submission in order, but no accept codes and no exchange choices. The check:

1. rebuilds each game's exchange: the automatic gifts (the giver's highest cards, as the
   reference gives them) and the two choices, inferred from the cards the players later submit
   (the Scum and the Vice-Scum submit cards they were not dealt; a chooser never submits what
   it gave). A choice the game does not reveal is taken as the chooser's lowest candidates and
   counted as ``exchange_inferred`` (nothing depends on it: those cards are never submitted);
2. follows the game with a model of the reference's referee (:class:`ReferenceTrick`, built from
   docs/uecda.md sections 2 and 3 on the tables' cells), which says for each submission whether
   the reference accepted it, whether the trick ended or cleared and who acts next. The log checks
   the model: the next submitter must be the one it names, and the places at the end those the
   log gives; any mismatch is an ``unexplained`` disagreement and ends that game's comparison;
3. before every submission, rebuilds CardVerse's ``uecda`` referee (the engine's
   :func:`round_from_known`) at the reference's position (hands, the trick's plays and passes,
   the revolution, who has gone out, the seat on turn) and lets it judge the same submission:
   accepted or refused, the trick's end and clearing, who acts next, the places when the game
   ends. So after a documented divergence the engine follows the reference's state (the
   resynchronisation); where our rules cannot represent that state (a trick led by a pass, a
   player covering their own play, a 2 left standing, a joker beyond a straight's end) the
   submission is not compared and is counted under the divergence that caused it, until the
   reference's next trick begins.

Every disagreement falls in a category of docs/uecda.md section 7 (``lead_pass`` R8,
``own_cover`` R13, ``rank_clear`` R14, ``joker_beyond_end`` R6, ``twenty_passes`` R49) or is
``unexplained``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import PASS, ActionFormatError, Rules, to_move
from ..engine.cards import parse_card
from ..engine.events import TrickEnded
from ..engine.exchange import highest_cards
from ..engine.positions import Known, PositionError, round_from_known
from ..engine.rounds import Round
from .tables import COLUMNS, Table, TableError, action_from_table, empty_table

PLAYERS = 5
LOG_LINE = re.compile(r"^%(-----|\d{5})%(\w+)% ?(.*)$")
GAME_KEYS = ("mibun", "seat", "palyer_cards", "play", "result")
SUIT_ROWS = "SHDC"
JOKER_ROWS = "KLMNJ"  # a joker written in row 0 … 4 of a play
RANKS = "3456789TJQKA2"  # columns 1 … 13
EIGHT_COLUMN = 6
TWENTY = 20
#: the categories of docs/uecda.md section 7, with the rule each concerns
CATEGORIES = {
    "lead_pass": "R8",
    "own_cover": "R13",
    "rank_clear": "R14",
    "joker_beyond_end": "R6",
    "twenty_passes": "R49",
}
UNEXPLAINED = "unexplained"


class LogError(ValueError):
    """A log that is not in the format of tests/data/uecda/README.md; names the line."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.line = line


# -- reading the log ------------------------------------------------------------------------------


@dataclass
class Submission:
    player: int | None  # None where the log does not say (FujiGokoro's): the seat on turn
    table: Table  # rows 0-4 as the program sent them
    text: str  # as logged


@dataclass
class LoggedGame:
    number: int
    line: int  # the line of its first entry
    classes: list[int] | None  # class of players 0-4, None in a game without classes
    seats: list[int]  # the player in seat 0-4
    dealt: list[int]  # by player, before the exchange
    submissions: list[Submission]
    result: list[int]  # players, first to last
    after: list[int] | None = None  # by player, after the exchange, where the log gives them


def _digits(value: str, where: tuple[str, int], what: str, permutation: bool = True) -> list[int]:
    if not re.fullmatch(r"[0-4]{5}", value) or (permutation and len(set(value)) != 5):
        raise LogError(*where, f"{what} is five digits 0-4, each once, not {value!r}")
    return [int(digit) for digit in value]


def _card_mask(hand: str, where: tuple[str, int]) -> int:
    if len(hand) % 2:
        raise LogError(*where, f"a hand is cards of two characters each: {hand!r}")
    mask = 0
    for at in range(0, len(hand), 2):
        text = hand[at : at + 2]
        if text == "J3":
            name = "RJ"
        elif text[0] in SUIT_ROWS and text[1] in RANKS:
            name = ("10" if text[1] == "T" else text[1]) + text[0]
        else:
            raise LogError(*where, f"{text!r} is no card of a hand")
        card = parse_card(name)
        if mask >> card & 1:
            raise LogError(*where, f"{text} twice")
        mask |= 1 << card
    return mask


def _submission(entry: str, where: tuple[str, int]) -> Submission:
    match = re.fullmatch(r"([0-4])((?:[SHDCKLMNJ][x3-9TJQKA2])*)EE", entry)
    if match is None:
        raise LogError(*where, f"{entry!r} is no submission (<player><cards>EE)")
    cards = match.group(2)
    cells: list[tuple[int, str, int]] = []  # row, rank letter, value
    for at in range(0, len(cards), 2):
        letter, rank = cards[at], cards[at + 1]
        if letter in SUIT_ROWS:
            if rank == "x":
                raise LogError(*where, f"{entry}: a natural card in column 0 or 14")
            cells.append((SUIT_ROWS.index(letter), rank, 1))
        else:
            cells.append((JOKER_ROWS.index(letter), rank, 2))
    table = empty_table()
    naturals = [RANKS.index(rank) + 1 for _, rank, _ in cells if rank != "x"]
    for row, rank, value in cells:
        if rank != "x":
            column = RANKS.index(rank) + 1
        else:  # the joker beyond a straight's end: below its lowest card or above its highest
            column = 14 if naturals and max(naturals) == 13 and min(naturals) > 1 else 0
        if table[row][column]:
            raise LogError(*where, f"{entry}: two cards in one cell")
        table[row][column] = value
    return Submission(int(match.group(1)), table, entry)


def read_log(text: str, path: str = "log") -> tuple[dict[str, str], list[LoggedGame]]:
    """The header and the games of a tndhms log; raises :class:`LogError` naming the line."""
    header: dict[str, str] = {}
    raw: list[tuple[int, int, dict[str, tuple[int, str]]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        match = LOG_LINE.match(line)
        if match is None:
            raise LogError(path, number, "not a log line (%<tag>%<key>% <value>)")
        tag, key, value = match.groups()
        if tag == "-----":
            if raw:
                raise LogError(path, number, "a header line after the first game")
            header[key] = value
            continue
        if key not in GAME_KEYS:
            raise LogError(path, number, f"unknown key {key!r} (one of {', '.join(GAME_KEYS)})")
        if key == GAME_KEYS[0]:
            raw.append((int(tag), number, {}))
        if not raw or raw[-1][0] != int(tag):
            raise LogError(path, number, f"game {tag}'s {key} outside that game's lines")
        entries = raw[-1][2]
        expected = GAME_KEYS[len(entries)] if len(entries) < len(GAME_KEYS) else None
        if key != expected:
            raise LogError(path, number, f"game {tag}: {key} where {expected} is due")
        entries[key] = (number, value)
    games = []
    for game_number, first, entries in raw:
        if len(entries) != len(GAME_KEYS):
            raise LogError(path, first, f"game {game_number:05d} is not whole")
        games.append(_game(game_number, first, entries, path))
    if "palyer_name" not in header:
        raise LogError(path, 1, "no %-----%palyer_name% header line")
    return header, games


def _game(number: int, first: int, entries: dict[str, tuple[int, str]], path: str) -> LoggedGame:
    def at(key: str) -> tuple[str, int]:
        return path, entries[key][0]

    mibun = entries["mibun"][1]
    classes = None if mibun == "22222" else _digits(mibun, at("mibun"), "mibun")
    seats = _digits(entries["seat"][1], at("seat"), "seat")
    hands = entries["palyer_cards"][1].split()
    if len(hands) != PLAYERS:
        raise LogError(*at("palyer_cards"), f"{len(hands)} hands, not 5")
    dealt = [_card_mask(hand, at("palyer_cards")) for hand in hands]
    union = 0
    for hand in dealt:
        if union & hand:
            raise LogError(*at("palyer_cards"), "a card dealt twice")
        union |= hand
    if union.bit_count() != 53:
        raise LogError(*at("palyer_cards"), f"{union.bit_count()} cards dealt, not 53")
    submissions = [_submission(entry, at("play")) for entry in entries["play"][1].split()]
    result = _digits(entries["result"][1], at("result"), "result")
    return LoggedGame(number, first, classes, seats, dealt, submissions, result)


# -- FujiGokoro's match server's log (blaux5.dat; docs/uecda.md section 6) ------------------------

FUJI_SUITS = "shdc"  # rows 0-3
FUJI_RANKS = "3456789tjqka2"  # columns 1-13
FUJI_KEYS = ("game", "score", "class", "seat", "dealt", "changed", "original", "play", "result")


def _fuji_card(text: str, where: tuple[str, int]) -> int:
    if text == "jo":
        return parse_card("RJ")
    if len(text) != 2 or text[0] not in FUJI_SUITS or text[1] not in FUJI_RANKS:
        raise LogError(*where, f"{text!r} is no card")
    rank = RANKS[FUJI_RANKS.index(text[1])]
    return parse_card(("10" if rank == "T" else rank) + SUIT_ROWS[FUJI_SUITS.index(text[0])])


def _fuji_hands(value: str, where: tuple[str, int]) -> list[int]:
    groups = re.findall(r"\{([^{}]*)\}", value)
    if len(groups) != PLAYERS:
        raise LogError(*where, f"{len(groups)} groups {{ … }}, not 5")
    hands = []
    for group in groups:
        mask = 0
        for card in group.split():
            mask |= 1 << _fuji_card(card, where)
        hands.append(mask)
    return hands


def _fuji_move(text: str, where: tuple[str, int]) -> Submission:
    move = re.sub(r"\[\d+\]$", "", text)
    table = empty_table()
    if move == "p":
        return Submission(None, table, text)
    if move == "jk":
        table[0][1] = 2
        return Submission(None, table, text)
    match = re.fullmatch(r"([cdhs]+)-([3-9tjqka2]+)(?:\(([cdhs3-9tjqka2])\))?", move)
    if match is None:
        raise LogError(*where, f"{text!r} is no move")
    suits, ranks, joker = match.groups()
    rows = [FUJI_SUITS.index(suit) for suit in suits]
    columns = [FUJI_RANKS.index(rank) + 1 for rank in ranks]
    if len(columns) == 1:  # a set; the joker takes the suit in parentheses
        for row in rows:
            table[row][columns[0]] = 1
        if joker is not None:
            if joker not in FUJI_SUITS:
                raise LogError(*where, f"{text!r}: a set's joker names a suit")
            table[FUJI_SUITS.index(joker)][columns[0]] = 2
        return Submission(None, table, text)
    if len(rows) != 1:
        raise LogError(*where, f"{text!r}: a straight is of one suit")
    for column in columns:
        table[rows[0]][column] = 1
    if joker is not None:
        if joker not in FUJI_RANKS or FUJI_RANKS.index(joker) + 1 not in columns:
            raise LogError(*where, f"{text!r}: a straight's joker names one of its ranks")
        table[rows[0]][FUJI_RANKS.index(joker) + 1] = 2
    return Submission(None, table, text)


def read_fujigokoro(text: str, path: str = "log") -> list[LoggedGame]:
    """The games of a log of FujiGokoro's match server (blaux5.dat's format, docs/uecda.md)."""
    games: list[LoggedGame] = []
    entries: dict[str, tuple[int, str]] | None = None
    first = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or (number == 1 and line.startswith("player ")):
            continue
        if line == "/*":
            if entries is not None:
                raise LogError(path, number, "a game opened inside a game")
            entries, first = {}, number
            continue
        if entries is None:
            raise LogError(path, number, "a line outside /* … */")
        if line == "*/":
            missing = [key for key in FUJI_KEYS if key not in entries and key != "score"]
            if missing:
                raise LogError(path, number, "game without " + ", ".join(missing))
            games.append(_fuji_game(entries, first, path))
            entries = None
            continue
        key, _, value = line.partition(" ")
        if key not in FUJI_KEYS:
            raise LogError(path, number, f"unknown key {key!r}")
        entries[key] = (number, value)
    if entries is not None:
        raise LogError(path, first, "a game not closed by */")
    return games


def _fuji_game(entries: dict[str, tuple[int, str]], first: int, path: str) -> LoggedGame:
    def at(key: str) -> tuple[str, int]:
        return path, entries[key][0]

    def five(key: str) -> list[int]:
        values = entries[key][1].split()
        if sorted(values) != ["0", "1", "2", "3", "4"]:
            raise LogError(*at(key), f"{key} is the numbers 0-4, each once")
        return [int(v) for v in values]

    if not entries["game"][1].strip().isdigit():
        raise LogError(*at("game"), "the game's number")
    seat_of_player = five("seat")
    seats = [seat_of_player.index(seat) for seat in range(PLAYERS)]
    earned = five("result")
    result = sorted(range(PLAYERS), key=lambda player: earned[player])
    dealt = _fuji_hands(entries["dealt"][1], at("dealt"))
    after = _fuji_hands(entries["original"][1], at("original"))
    if sum(hand.bit_count() for hand in after) != 53:
        raise LogError(*at("original"), "the hands do not hold 53 cards")
    moves = [_fuji_move(m, at("play")) for m in entries["play"][1].split()]
    return LoggedGame(
        int(entries["game"][1]), first, five("class"), seats, dealt, moves, result, after
    )


# -- the reference's referee, modelled -------------------------------------------------------------


@dataclass(frozen=True)
class RefPlay:
    """A submission as the reference analyses it (docs/uecda.md section 2, "Plays")."""

    kind: str  # "set", "straight", "joker" (the lone joker)
    cells: tuple[tuple[int, int, int], ...]  # row, column, value
    size: int
    low: int  # lowest column (a set: its column)
    high: int
    suits: frozenset[int]
    cards: int  # the CardVerse card set it takes from the hand

    @property
    def beyond_end(self) -> bool:
        return self.kind == "straight" and (self.low == 0 or self.high == 14)


def _cell_card(row: int, column: int) -> int:
    rank = RANKS[column - 1]
    return parse_card(("10" if rank == "T" else rank) + SUIT_ROWS[row])


def analyse(table: Table) -> RefPlay | str | None:
    """None for a pass, a :class:`RefPlay`, or the reason the reference refuses the table."""
    cells = [
        (row, column, table[row][column])
        for row in range(5)
        for column in range(COLUMNS)
        if table[row][column]
    ]
    if not cells:
        return None
    jokers = [cell for cell in cells if cell[2] == 2]
    if len(jokers) > 1 or any(value not in (1, 2) for _, _, value in cells):
        return "two jokers or a cell that is no card"
    if any(value == 1 and not 1 <= column <= 13 for _, column, value in cells):
        return "a natural card in column 0 or 14"
    if any(value == 1 and row == 4 for row, _, value in cells):
        return "a natural card in row 4"
    cards = 0
    for row, column, value in cells:
        cards |= 1 << (parse_card("RJ") if value == 2 else _cell_card(row, column))
    rows = {row for row, _, _ in cells}
    columns = sorted({column for _, column, _ in cells})
    if len(cells) == 1 and jokers:
        if rows == {4}:
            return "a lone joker in row 4"
        return RefPlay("joker", tuple(cells), 1, 0, 0, frozenset(), cards)
    if len(columns) == 1:
        if 4 in rows and len(cells) != 5:
            return "row 4 only in a set of five"
        return RefPlay(
            "set", tuple(cells), len(cells), columns[0], columns[0], frozenset(rows), cards
        )
    if len(rows) == 1 and 4 not in rows and len(cells) >= 3:
        if columns != list(range(columns[0], columns[0] + len(columns))):
            return "a straight's cells are neighbours"
        return RefPlay(
            "straight", tuple(cells), len(cells), columns[0], columns[-1], frozenset(rows), cards
        )
    return "neither a set nor a straight"


def is_three_of_spades(play: RefPlay) -> bool:
    return play.kind == "set" and play.cells == ((0, 1, 1),)


@dataclass
class Verdict:
    accepted: bool
    why: str = ""
    cleared: bool = False
    trick_ended: bool = False
    game_over: bool = False
    twenty: bool = False


@dataclass
class ReferenceTrick:
    """The reference server's state of a game (docs/uecda.md sections 2 and 3), by seat."""

    hands: list[int]
    actor: int
    revolution: bool = False
    finished: list[int] = field(default_factory=list)
    top: RefPlay | None = None
    top_seat: int = -1
    given_to: int = 0  # the seat the trick was given to (its leader)
    passed: set[int] = field(default_factory=set)
    lock: frozenset[int] | None = None
    passes_in_a_row: int = 0
    #: the trick's plays and passes as CardVerse moves; None once it holds what we cannot write
    trick: list[tuple[int, int]] | None = field(default_factory=list)
    #: the categories that put the trick beyond what our rules can represent
    beyond: list[str] = field(default_factory=list)

    def holding(self, seat: int) -> bool:
        return bool(self.hands[seat])

    def covers(self, play: RefPlay) -> str:
        """Why ``play`` may not cover the trick's top (empty: it may)."""
        top = self.top
        if top is None:
            return ""
        if top.kind == "joker":
            return "" if is_three_of_spades(play) else "only the 3♠ covers the lone joker"
        if play.kind == "joker":
            return "" if top.kind == "set" and top.size == 1 else "the lone joker covers one card"
        if play.kind != top.kind or play.size != top.size:
            return "not the shape of the play it covers"
        if self.lock is not None and play.suits != self.lock:
            return "outside the lock"
        higher = play.high < top.low if self.revolution else play.low > top.high
        return "" if higher else "not higher"

    def submit(self, seat: int, table: Table) -> Verdict:
        """The reference's answer to ``seat``'s submission, its state then changed."""
        analysed = analyse(table)
        if isinstance(analysed, str) or analysed is None:
            return self._pass(seat, analysed or "")
        play = analysed
        if play.cards & ~self.hands[seat]:
            return self._pass(seat, "cards not held")
        why = self.covers(play)
        if why:
            return self._pass(seat, why)
        top = self.top
        clears = (play.kind == "set" and play.low == EIGHT_COLUMN) or (
            play.kind == "straight" and play.low <= EIGHT_COLUMN <= play.high
        )
        if top is not None and top.kind == "joker":
            clears = True  # the 3♠ on the lone joker
        if play.kind == "joker":
            self.lock = None
        elif top is not None and top.kind != "joker" and play.suits == top.suits:
            self.lock = play.suits
        if (play.kind == "set" and play.size >= 4) or (play.kind == "straight" and play.size >= 5):
            self.revolution = not self.revolution
        self.hands[seat] &= ~play.cards
        self.top, self.top_seat = play, seat
        self.passes_in_a_row = 0
        verdict = Verdict(True, cleared=clears)
        if not self.hands[seat]:
            self.finished.append(seat)
            if len(self.finished) == PLAYERS - 1:
                last = next(s for s in range(PLAYERS) if self.hands[s])
                self.finished.append(last)
                verdict.game_over = True
                return verdict
        if clears:
            self._end_trick(seat)
            verdict.trick_ended = True
        else:
            self._next(seat, verdict)
        return verdict

    def _pass(self, seat: int, why: str) -> Verdict:
        verdict = Verdict(not why, why)
        self.passed.add(seat)
        self.passes_in_a_row += 1
        if self.passes_in_a_row >= TWENTY:
            verdict.game_over = verdict.twenty = True
            return verdict
        self._next(seat, verdict)
        return verdict

    def _next(self, seat: int, verdict: Verdict) -> None:
        holders = [s for s in range(PLAYERS) if self.holding(s)]
        if all(s in self.passed for s in holders):
            self._end_trick(self.top_seat if self.top is not None else self.given_to)
            verdict.trick_ended = True
            return
        turn = seat
        while True:
            turn = (turn + 1) % PLAYERS
            if self.holding(turn) and turn not in self.passed:
                self.actor = turn
                return

    def _end_trick(self, winner: int) -> None:
        leader = winner
        while not self.holding(leader):
            leader = (leader + 1) % PLAYERS
        self.actor = self.given_to = leader
        self.top, self.top_seat = None, -1
        self.passed = set()
        self.lock = None
        self.trick = []
        self.beyond = []


# -- the comparison -------------------------------------------------------------------------------


@dataclass
class Disagreement:
    game: int
    step: int  # the submission's index in the game, from 0
    submission: str
    category: str
    what: str  # "verdict", "trick end", "next", "places", "not compared", "exchange"
    reference: str
    ours: str

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "step": self.step,
            "submission": self.submission,
            "category": self.category,
            "rule": CATEGORIES.get(self.category),
            "what": self.what,
            "reference": self.reference,
            "ours": self.ours,
        }


@dataclass
class CheckReport:
    path: str
    games: int = 0
    submissions: int = 0
    compared: int = 0
    agreements: int = 0
    exchange_inferred: int = 0
    games_cut: list[int] = field(default_factory=list)  # comparison ended by an unexplained case
    #: submissions our rules could not be set up for, by the divergence that caused it
    not_compared: Counter[str] = field(default_factory=Counter)
    disagreements: list[Disagreement] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counts = Counter(d.category for d in self.disagreements)
        return {name: counts.get(name, 0) for name in [*CATEGORIES, UNEXPLAINED]}

    @property
    def unexplained(self) -> list[Disagreement]:
        return [d for d in self.disagreements if d.category == UNEXPLAINED]

    def to_json(self) -> dict[str, Any]:
        return {
            "log": self.path,
            "games": self.games,
            "submissions": self.submissions,
            "compared": self.compared,
            "agreements": self.agreements,
            "exchange_inferred": self.exchange_inferred,
            "categories": self.counts(),
            "not_compared": {name: self.not_compared.get(name, 0) for name in CATEGORIES},
            "games_cut": self.games_cut,
            "disagreements": [d.to_json() for d in self.disagreements],
        }

    def summary(self, shown: int = 5) -> str:
        lines = [
            f"{self.path}: {self.games} games, {self.submissions} submissions, "
            f"{self.compared} compared with our uecda referee, {self.agreements} agreements",
        ]
        for name, count in self.counts().items():
            rule = CATEGORIES.get(name)
            after = self.not_compared.get(name, 0)
            more = f"; {after} later submissions not compared" if after else ""
            lines.append(f"  {name}{f' ({rule})' if rule else ''}: {count}{more}")
        if self.exchange_inferred:
            lines.append(
                f"  exchange choices the game does not reveal (taken as the lowest): "
                f"{self.exchange_inferred}"
            )
        for case in self.unexplained[:shown]:
            lines.append(
                f"  unexplained: game {case.game}, submission {case.step} ({case.submission}), "
                f"{case.what}: the reference {case.reference}; ours {case.ours}"
            )
        if self.games_cut:
            lines.append("  comparison ended early in games " + " ".join(map(str, self.games_cut)))
        return "\n".join(lines)


def infer_exchange(game: LoggedGame) -> tuple[list[int], int]:
    """The hands by player after the exchange, and how many choices were not revealed."""
    hands = list(game.dealt)
    if game.classes is None:
        return hands, 0
    classes = game.classes
    by_class = sorted(range(PLAYERS), key=lambda player: classes[player])
    president, vice, _, vice_scum, scum = by_class
    submitted = [0] * PLAYERS
    for submission in game.submissions:
        analysed = analyse(submission.table)
        if isinstance(analysed, RefPlay) and submission.player is not None:
            submitted[submission.player] |= analysed.cards
    for giver, receiver, count in ((scum, president, 2), (vice_scum, vice, 1)):
        gift = highest_cards(hands[giver], count)
        hands[giver] &= ~gift
        hands[receiver] |= gift
    hidden = 0
    for chooser, receiver, count in ((president, scum, 2), (vice, vice_scum, 1)):
        shown = submitted[receiver] & ~hands[receiver] & hands[chooser]
        candidates = hands[chooser] & ~submitted[chooser]
        chosen = shown
        if chosen.bit_count() < count:
            rest = candidates & ~chosen
            if rest.bit_count() > count - chosen.bit_count():
                hidden += 1
            for card in range(54):
                if chosen.bit_count() >= count:
                    break
                if rest >> card & 1:
                    chosen |= 1 << card
        hands[chooser] &= ~chosen
        hands[receiver] |= chosen
    return hands, hidden


class GameCheck:
    """One game: the reference model and our referee, submission by submission."""

    def __init__(self, game: LoggedGame, rules: Rules, report: CheckReport) -> None:
        self.game = game
        self.rules = rules
        self.report = report
        self.seat_of = {player: seat for seat, player in enumerate(game.seats)}
        if game.after is not None:
            by_player, hidden = list(game.after), 0
        else:
            by_player, hidden = infer_exchange(game)
        report.exchange_inferred += hidden
        hands = [by_player[player] for player in game.seats]
        three_diamonds = 1 << parse_card("3D")
        first = next(seat for seat in range(PLAYERS) if hands[seat] & three_diamonds)
        self.model = ReferenceTrick(hands, first, given_to=first)
        self.step = 0

    def note(self, category: str, what: str, reference: str, ours: str) -> None:
        submission = self.game.submissions[min(self.step, len(self.game.submissions) - 1)]
        self.report.disagreements.append(
            Disagreement(
                self.game.number, self.step, submission.text, category, what, reference, ours
            )
        )

    def _ours(self, seat: int) -> Round | str:
        """Our referee at the reference's position, or the reason it cannot be."""
        model = self.model
        if model.trick is None:
            return model.beyond[0] if model.beyond else UNEXPLAINED
        known = Known(
            self.rules,
            hands=list(model.hands),
            counts=[hand.bit_count() for hand in model.hands],
            turn=seat,
            trick=list(model.trick),
            revolution=model.revolution,
            finished=list(model.finished),
        )
        try:
            return round_from_known(known)
        except PositionError as error:
            return f"{UNEXPLAINED}: {error}"

    def run(self) -> None:
        game = self.game
        for self.step, submission in enumerate(game.submissions):
            model = self.model
            if submission.player is None:
                submission.player = game.seats[model.actor]
            seat = self.seat_of[submission.player]
            if seat != model.actor:
                self.note(
                    UNEXPLAINED,
                    "next",
                    f"asked player {submission.player}",
                    f"the model of the reference asks player {game.seats[model.actor]}",
                )
                self.report.games_cut.append(game.number)
                return
            if self.step and self._over:
                self.note(UNEXPLAINED, "next", "went on", "the model of the reference ended it")
                self.report.games_cut.append(game.number)
                return
            self.report.submissions += 1
            self._compare(seat, submission)
        if not self._over:
            self.note(UNEXPLAINED, "places", "ended the game", "the game goes on in the model")
            self.report.games_cut.append(game.number)
            return
        self._compare_places()

    _over = False

    def _compare(self, seat: int, submission: Submission) -> None:
        model = self.model
        ours = self._ours(seat)
        top_before, top_seat_before = model.top, model.top_seat
        own_turn = top_before is not None and top_seat_before == seat
        leading = top_before is None
        trick_before = None if model.trick is None else list(model.trick)
        verdict = model.submit(seat, submission.table)
        self._over = verdict.game_over
        if verdict.twenty:  # our rules have no such ending: whatever our referee says, noted
            self.note("twenty_passes", "places", "the twentieth pass in a row ends the game", "no")
        analysed = analyse(submission.table)
        play = analysed if isinstance(analysed, RefPlay) else None
        # what the trick becomes for our referee, and which divergence leaves it behind
        move: int | None = None
        try:
            action = action_from_table(submission.table)
            move = to_move(action)
        except (TableError, ActionFormatError):
            move = None
        if isinstance(ours, str):
            category = ours.split(":")[0]
            if category == UNEXPLAINED:
                self.note(UNEXPLAINED, "not compared", "a position", ours)
            else:
                self.report.not_compared[category] += 1
            self._follow(seat, verdict, play, move, own_turn, leading, trick_before)
            return
        self.report.compared += 1
        agreed = self._judge(ours, seat, verdict, play, move, leading)
        if agreed:
            self.report.agreements += 1
        self._follow(seat, verdict, play, move, own_turn, leading, trick_before)

    def _judge(
        self,
        ours: Round,
        seat: int,
        verdict: Verdict,
        play: RefPlay | None,
        move: int | None,
        leading: bool,
    ) -> bool:
        """Compare one submission; True when our referee agrees in everything."""
        model = self.model
        passing = play is None and verdict.accepted
        if move is None:
            if play is not None and play.beyond_end and verdict.accepted:
                self.note("joker_beyond_end", "verdict", "accepted", "no such play (R6)")
                return False
            if verdict.accepted:
                self.note(UNEXPLAINED, "verdict", "accepted", "no play of ours")
                return False
            move = PASS  # both refuse; the refusal counts as a pass for both
        refusal = ours.check(seat, move)
        we_accept = refusal is None
        if passing and leading and not we_accept:
            self.note("lead_pass", "verdict", "a pass on lead, accepted", f"{refusal}")
            return False
        if play is not None and we_accept != verdict.accepted:
            self.note(
                UNEXPLAINED,
                "verdict",
                "accepted" if verdict.accepted else f"refused ({verdict.why})",
                "accepted" if we_accept else f"refused ({refusal})",
            )
            return False
        if not verdict.accepted:
            move = PASS  # a refused play is a pass for both
            if ours.check(seat, PASS) is not None:
                if leading:
                    self.note("lead_pass", "verdict", "a refused lead, counted as a pass", "no")
                    return False
                self.note(UNEXPLAINED, "verdict", "a refusal counted as a pass", "no pass")
                return False
        ours.log = []
        ours.apply(move)
        ended = [event for event in ours.log if isinstance(event, TrickEnded)]
        we_clear = any(event.cleared for event in ended)
        if verdict.twenty:
            return False  # noted by the caller
        if verdict.game_over or ours.over:
            if verdict.game_over != ours.over:
                self.note(
                    UNEXPLAINED,
                    "places",
                    "game over" if verdict.game_over else "game goes on",
                    "game over" if ours.over else "game goes on",
                )
                return False
            theirs = [self.game.seats[s] for s in self.model.finished]
            mine = [self.game.seats[s] for s in ours.places]
            if theirs != mine:
                self.note(UNEXPLAINED, "places", str(theirs), str(mine))
                return False
            return True
        if we_clear and not verdict.cleared:
            if play is not None and clears_by_rank(play, model.revolution):
                self.note("rank_clear", "trick end", "the trick goes on", "cleared (R14)")
            else:
                self.note(UNEXPLAINED, "trick end", "the trick goes on", "cleared")
            return False
        if verdict.cleared and not we_clear:
            self.note(UNEXPLAINED, "trick end", "cleared", "not cleared")
            return False
        if bool(ended) and not verdict.trick_ended:
            if model.actor == model.top_seat:
                self.note(
                    "own_cover",
                    "trick end",
                    f"seat {model.actor} is asked to cover its own play",
                    "the trick ends (R13)",
                )
            else:
                self.note(UNEXPLAINED, "trick end", "the trick goes on", "the trick ends")
            return False
        if verdict.trick_ended and not ended:
            self.note(UNEXPLAINED, "trick end", "the trick ends", "the trick goes on")
            return False
        if ours.turn != model.actor:
            self.note(UNEXPLAINED, "next", f"seat {model.actor}", f"seat {ours.turn}")
            return False
        return True

    def _follow(
        self,
        seat: int,
        verdict: Verdict,
        play: RefPlay | None,
        move: int | None,
        own_turn: bool,
        leading: bool,
        trick_before: list[tuple[int, int]] | None,
    ) -> None:
        """Keep the model's trick in CardVerse moves, or say why our rules cannot hold it."""
        model = self.model
        if verdict.trick_ended or verdict.game_over:
            return  # a new trick (model.trick was reset) or the end
        if trick_before is None:
            return
        beyond: str | None = None
        entry_move = move if verdict.accepted and play is not None and move is not None else PASS
        if leading and (play is None or not verdict.accepted):
            beyond = "lead_pass"
        elif own_turn and verdict.accepted and play is not None:
            beyond = "own_cover"
        elif play is not None and verdict.accepted and move is None:
            beyond = "joker_beyond_end"
        elif play is not None and verdict.accepted and clears_by_rank(play, model.revolution):
            beyond = "rank_clear"
        elif model.actor == model.top_seat and model.top is not None:
            beyond = "own_cover"  # all the others passed: the reference asks the player again
        if beyond is not None:
            model.trick = None
            model.beyond = [beyond]
            return
        model.trick = [*trick_before, (seat, entry_move)]

    def _compare_places(self) -> None:
        model = self.model
        theirs = self.game.result
        finished = [self.game.seats[s] for s in model.finished]
        if theirs[: len(finished)] != finished:
            self.note(UNEXPLAINED, "places", f"places {theirs}", f"the model's {finished}")
            self.report.games_cut.append(self.game.number)


def clears_by_rank(play: RefPlay, revolution_after: bool) -> bool:
    """Whether R14 clears ``play`` (a set of 2s, of 3s in a revolution, by the order before it);
    ``revolution_after`` is the revolution once the play was made."""
    turned = (play.kind == "set" and play.size >= 4) or (play.kind == "straight" and play.size >= 5)
    before = revolution_after != turned
    return play.kind == "set" and play.low == (1 if before else 13)


def check_log(text: str, path: str = "log") -> CheckReport:
    """Compare every game of a tndhms log (or of FujiGokoro's match server, whose first line is
    ``player …``) with our ``uecda`` referee."""
    if text.startswith("player "):
        games = read_fujigokoro(text, path)
    else:
        _, games = read_log(text, path)
    rules = Rules.make("uecda", players=PLAYERS, rounds=1)
    report = CheckReport(path)
    for game in games:
        report.games += 1
        GameCheck(game, rules, report).run()
    return report


def check_file(path: Path) -> CheckReport:
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError as error:
        raise LogError(str(path), text_line(path.read_bytes(), error.start), "not ASCII") from None
    return check_log(text, str(path))


def text_line(data: bytes, offset: int) -> int:
    return data[:offset].count(b"\n") + 1


__all__ = [
    "CATEGORIES",
    "CheckReport",
    "Disagreement",
    "LogError",
    "LoggedGame",
    "ReferenceTrick",
    "check_file",
    "check_log",
    "infer_exchange",
    "read_log",
]
