"""UECda tables as CardVerse hands and actions (docs/uecda.md, section 1: "The table").

A table is 8 rows × 15 columns of unsigned 32-bit ints, big endian on the wire. Rows 0–3 are
spades, hearts, diamonds, clubs; columns 1–13 the ranks 3 … 2. A natural card is a 1 in its cell.
The one joker of a UECda deck is CardVerse's ``RJ`` (notation.md: the joker of ``jokers: 1``):

- in a hand it is a 2 at [4][1];
- in a play it is a 2 in the cell of the card it stands for: in a straight the cell of its rank
  in the straight's row; in a set the cell of its rank in the row of the suit it names (R44); in a
  set of five (R43) row 4 of the set's column; alone, any one cell of rows 0–3.

A pass is a table of zeros. What the reference server accepts but CardVerse's rules have no play
for (the joker beyond either end of a straight, in column 0 or 14) is refused here with a
:class:`TableError` that says so, as is any table that is no play at all. Rows 5–7 (the state
cells) are not read by these functions.
"""

from __future__ import annotations

import struct
from typing import Final

from ..engine import Action
from ..engine.cards import RANK_NAMES, RED_JOKER, card_name, cards_of, parse_card

ROWS: Final = 8
COLUMNS: Final = 15
TABLE_BYTES: Final = ROWS * COLUMNS * 4
#: the suit letter of rows 0–3
SUIT_ROWS: Final = ("S", "H", "D", "C")
JOKER_ROW: Final = 4
JOKER: Final = "RJ"
NATURAL: Final = 1
JOKER_CELL: Final = 2

Table = list[list[int]]


class TableError(ValueError):
    """A table that is no hand or no CardVerse action; the message says what is wrong."""


def empty_table() -> Table:
    return [[0] * COLUMNS for _ in range(ROWS)]


def read_table(data: bytes) -> Table:
    """A table from its 480 bytes on the wire."""
    if len(data) != TABLE_BYTES:
        raise TableError(f"a table is {TABLE_BYTES} bytes, not {len(data)}")
    values = struct.unpack(f">{ROWS * COLUMNS}I", data)
    return [list(values[row * COLUMNS : (row + 1) * COLUMNS]) for row in range(ROWS)]


def write_table(table: Table) -> bytes:
    """A table's 480 bytes on the wire (each cell an unsigned big-endian int)."""
    _check_shape(table)
    cells = [cell for row in table for cell in row]
    if any(not 0 <= cell < 1 << 32 for cell in cells):
        raise TableError("a table's cells are unsigned 32-bit numbers")
    return struct.pack(f">{ROWS * COLUMNS}I", *cells)


def _check_shape(table: Table) -> None:
    if len(table) != ROWS or any(len(row) != COLUMNS for row in table):
        raise TableError(f"a table has {ROWS} rows of {COLUMNS} cells")


def _card(row: int, column: int) -> str:
    return f"{RANK_NAMES[column - 1]}{SUIT_ROWS[row]}"


def _cell_of(name: str) -> tuple[int, int]:
    card = parse_card(name)
    rank, suit = card >> 2, card & 3  # suits of CardVerse: 0 clubs … 3 spades
    return 3 - suit, rank + 1


def hand_from_table(table: Table) -> int:
    """The cards of a hand table (the joker at [4][1]) as a CardVerse card set."""
    _check_shape(table)
    hand = 0
    for row in range(JOKER_ROW):
        for column in range(COLUMNS):
            cell = table[row][column]
            if not cell:
                continue
            if cell != NATURAL or not 1 <= column <= 13:
                raise TableError(f"no card of a hand stands at [{row}][{column}] as {cell}")
            hand |= 1 << parse_card(_card(row, column))
    joker = table[JOKER_ROW]
    if any(cell for column, cell in enumerate(joker) if column != 1) or joker[1] not in (0, 2):
        raise TableError("a hand's joker is a 2 at [4][1], and row 4 holds nothing else")
    if joker[1]:
        hand |= 1 << RED_JOKER
    return hand


def table_of_hand(hand: int) -> Table:
    """A hand table of a CardVerse card set (one joker at most, written at [4][1])."""
    table = empty_table()
    for card in cards_of(hand):
        if card >= RED_JOKER:
            if table[JOKER_ROW][1]:
                raise TableError("a UECda hand holds one joker at most")
            table[JOKER_ROW][1] = JOKER_CELL
            continue
        row, column = _cell_of(card_name(card))
        table[row][column] = NATURAL
    return table


def action_from_table(table: Table) -> Action:
    """The play (or the pass) a program's table makes, as a CardVerse action."""
    _check_shape(table)
    naturals: list[tuple[int, int]] = []
    jokers: list[tuple[int, int]] = []
    for row in range(JOKER_ROW + 1):
        for column in range(COLUMNS):
            cell = table[row][column]
            if cell == NATURAL and row < JOKER_ROW:
                naturals.append((row, column))
            elif cell == JOKER_CELL:
                jokers.append((row, column))
            elif cell:
                raise TableError(f"[{row}][{column}] holds {cell}: a card is 1, the joker 2")
    if not naturals and not jokers:
        return Action("pass")
    if len(jokers) > 1:
        raise TableError("a play holds the one joker at most once")
    if any(not 1 <= column <= 13 for _, column in naturals):
        raise TableError("columns 0 and 14 hold no natural card")
    cards = tuple(_card(row, column) for row, column in naturals)
    if not naturals:
        row, column = jokers[0]
        if row == JOKER_ROW:
            raise TableError("a lone joker stands in rows 0-3, not at row 4")
        return Action("play", (JOKER,))
    rows = {row for row, _ in naturals + jokers}
    columns = {column for _, column in naturals + jokers}
    if len(columns) == 1:
        return _set(cards, jokers, columns.pop())
    if len(rows) == 1 and JOKER_ROW not in rows:
        return _straight(cards, jokers, sorted(columns))
    raise TableError("the cards of a play stand in one column (a set) or in one row (a straight)")


def _set(cards: tuple[str, ...], jokers: list[tuple[int, int]], column: int) -> Action:
    if not jokers:
        return Action("play", cards)
    row = jokers[0][0]
    if row == JOKER_ROW:
        if len(cards) != 4:
            raise TableError("the joker stands at row 4 only in a set of five (R43)")
        return Action("play", (*cards, JOKER))
    # the joker names the card of its cell (R44)
    return Action("play", (*cards, JOKER), {JOKER: _card(row, column)})


def _straight(cards: tuple[str, ...], jokers: list[tuple[int, int]], columns: list[int]) -> Action:
    if columns != list(range(columns[0], columns[0] + len(columns))) or len(columns) < 3:
        raise TableError("a straight is 3 or more neighbouring cells of one row")
    if not jokers:
        return Action("play", cards)
    column = jokers[0][1]
    if not 1 <= column <= 13:
        raise TableError(
            "the joker beyond the end of a straight (column 0 or 14) is no CardVerse play: a "
            "straight runs from 3 to 2 (R6)"
        )
    return Action("play", (*cards, JOKER), {JOKER: RANK_NAMES[column - 1]})


def table_of_action(action: Action) -> Table:
    """The table of a CardVerse play or pass, as a program sends it (one joker, ``RJ``)."""
    table = empty_table()
    if action.kind == "pass":
        return table
    if action.kind != "play":
        raise TableError(f"a {action.kind} has no play table (the exchange has its own)")
    naturals = [name for name in action.cards if name not in ("RJ", "BJ")]
    jokers = [name for name in action.cards if name in ("RJ", "BJ")]
    if len(jokers) > 1:
        raise TableError("a UECda deck has one joker")
    for name in naturals:
        row, column = _cell_of(name)
        table[row][column] = NATURAL
    if not jokers:
        return table
    stands = action.jokers.get(jokers[0])
    ranks = {name[:-1] for name in naturals}
    if not naturals:
        table[0][1] = JOKER_CELL  # a lone joker: any cell of rows 0-3 will do
    elif stands is None:
        if len(naturals) != 4 or len(ranks) != 1:
            raise TableError("a set's joker names its card (R44), but in a set of five (R43)")
        table[JOKER_ROW][_cell_of(naturals[0])[1]] = JOKER_CELL
    elif stands in RANK_NAMES:  # a straight: the joker's rank, in the straight's row
        row = _cell_of(naturals[0])[0]
        table[row][RANK_NAMES.index(stands) + 1] = JOKER_CELL
    else:  # a set: the card the joker names
        row, column = _cell_of(stands)
        table[row][column] = JOKER_CELL
    return table


def handshake_text(table: Table, limit: int) -> str:
    """The name in a handshake table (section 1, step 2): one character code a cell from
    [1][0] on, ended by a 0, at most ``limit`` characters; a code outside printable ASCII reads
    as ``?``."""
    chars: list[str] = []
    for row in table[1:]:
        for cell in row:
            if not cell or len(chars) >= limit:
                return "".join(chars)
            chars.append(chr(cell) if 32 <= cell < 127 else "?")
    return "".join(chars)
