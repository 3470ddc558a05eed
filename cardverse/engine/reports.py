"""A part's trick state as everyone sees it (R39): the schema of one reported value.

A part that keeps state for the trick (the jack back, the suit lock) keeps it in the round's
``marks``, an integer in which each of its :class:`Report` values has its own bits, all 0 when a
trick starts. The report says the rest: the key views, positions and the notation give it under,
its kind (a yes/no, a set of suits) and so its JSON form and schema, its rule, what it means,
the words the page shows while it is on (a msgid) and what is wrong when a position gives a
value the trick's plays do not lead to. Views, positions, the notation, the protocol and the
page loop over the reports; none of them names a part's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import SUIT_NAMES
from .pickling import by_constructor

#: a yes/no: JSON true or false
FLAG: Final = "flag"
#: a set of suits (bit 0 clubs … bit 3 spades): JSON a list of suit letters, e.g. ["H", "S"]
SUITS: Final = "suits"
_WIDTH: Final = {FLAG: 1, SUITS: 4}


class ReportValueError(ValueError):
    """A reported value in a position that is not of its report's kind."""


@dataclass(frozen=True)
class Report:
    """One value of a part's trick state and everything needed to show, read and check it."""

    name: str  # its key in views, positions and the notation
    kind: str  # FLAG or SUITS
    shift: int  # its bits in the round's marks start here
    rule: str
    meaning: str  # English, for the protocol's schema
    text: str  # msgid: what the page shows while it is on ("%(suits)s" for a set of suits)
    symbol: str  # the page's mark beside the text (read aloud by nobody)
    mismatch: str  # English: why a given value that the trick does not lead to cannot be
    told: str  # msgid: the narration of its event as it comes on ("%(suits)s" for suits)
    told_off: str = ""  # msgid: the narration as a flag goes off ("" when it never says so)
    turns_order: bool = False  # its coming on or off turns the order in force (R32)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    @property
    def event_key(self) -> str:
        """The member of its event (``TrickStateChanged``) that holds the value: ``on`` for a
        flag, ``suits`` for a set of suits."""
        return "on" if self.kind == FLAG else "suits"

    @property
    def mask(self) -> int:
        """Its bits in the marks."""
        return ((1 << _WIDTH[self.kind]) - 1) << self.shift

    def read(self, marks: int) -> int:
        """Its value in ``marks``: 0 or 1 for a flag, a 4-bit set for suits."""
        return (marks & self.mask) >> self.shift

    def mark(self, value: int) -> int:
        """``value`` placed at its bits."""
        return (value << self.shift) & self.mask

    def to_json(self, value: int) -> Any:
        if self.kind == FLAG:
            return bool(value)
        return [SUIT_NAMES[s] for s in range(4) if value >> s & 1]

    def from_json(self, data: Any) -> int:
        """The value a position gives; raises :class:`ReportValueError`."""
        if self.kind == FLAG:
            if not isinstance(data, bool):
                raise ReportValueError(f'"{self.name}" must be true or false')
            return int(data)
        if not isinstance(data, list) or not all(isinstance(s, str) for s in data):
            raise ReportValueError(f'"{self.name}" must be a list of suits, e.g. ["H", "S"]')
        value = 0
        for text in data:
            key = text.strip().upper()
            if key not in SUIT_NAMES:
                raise ReportValueError(
                    f"{self.name}: unknown suit {text!r}: a suit is C, D, H or S"
                )
            value |= 1 << SUIT_NAMES.index(key)
        return value

    def schema(self) -> dict[str, Any]:
        """Its JSON schema (the protocol's and the notation's)."""
        if self.kind == FLAG:
            return {"type": "boolean"}
        return {"type": "array", "items": {"enum": list(SUIT_NAMES)}}

    @property
    def doc(self) -> str:
        """What it means, with its rule (the protocol's description)."""
        return f"{self.meaning} ({self.rule})"


__all__ = [
    "FLAG",
    "SUITS",
    "Report",
    "ReportValueError",
]
