"""The UECda protocol (docs/uecda.md): the computer Dai Fugō tournament's 8×15 tables, read and
written as CardVerse actions. The bridge that serves the protocol (issue 31) builds on this."""

from .tables import (
    COLUMNS,
    ROWS,
    TABLE_BYTES,
    TableError,
    action_from_table,
    empty_table,
    hand_from_table,
    read_table,
    table_of_action,
    table_of_hand,
    write_table,
)

__all__ = [
    "COLUMNS",
    "ROWS",
    "TABLE_BYTES",
    "TableError",
    "action_from_table",
    "empty_table",
    "hand_from_table",
    "read_table",
    "table_of_action",
    "table_of_hand",
    "write_table",
]
