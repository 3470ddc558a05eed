"""What a rule part says to players, as message ids: a leaf module.

A part names its own words (:class:`Words`): the option's label and help text, and the lines
it adds to a table's rules sheet. They are gettext msgids (the English text), marked with
:func:`N_` so that the web layer's catalog extraction (``python -m cardverse.web.i18n update``)
finds them in the parts; the engine never translates them, the web layer does where it shows
them. A line names the options it needs on (or off) and the sheet section it belongs to, so
the sheet mentions no option that is off.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the sheet section a line joins by default: the house rules (section 10)
HOUSE: str = "house"
#: the section on what clears the pile (R14)
CLEARING: str = "clearing"
#: the section on what a player may play (R5–R10)
MAY: str = "may"
#: how a revolution starts (R15), said before the reversed order it makes
REVOLUTION_STARTS: str = "revolution_starts"
#: the section on the revolution (R15–R18), after the reversed order
REVOLUTION: str = "revolution"
#: the section on who leads (R24)
LEAD: str = "lead"
#: the section on the card exchange between rounds (R25)
EXCHANGE: str = "exchange"
#: a joker in a set, and what covers jokers alone (R5, R10, R33), said where the jokers are
LONE_JOKER: str = "lone_joker"
#: what may follow a play (R9), said first among what a player may play
FOLLOW: str = "follow"
#: what beats a set (R10), said after what may follow
BEAT: str = "beat"
#: what a joker may stand for beyond a set (R6), said after the lone joker
JOKERS: str = "jokers"


def N_(message: str) -> str:
    """Mark a msgid for the catalogs; it is translated where it is shown."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a singular/plural msgid pair for the catalogs."""
    return (singular, plural)


@dataclass(frozen=True)
class SheetLine:
    """One rules-sheet sentence of a part (a msgid) and when it shows.

    ``needs`` is a condition on other options: "" always, "a|b" either on, "a&b" all of them,
    a name written "!a" means that option is off, and "a=v" that its value, written as text,
    is ``v`` ("a=True": on, and not in one of its further ways). A name written "@fact" is one
    of :data:`FACTS`, what the table's rules do whichever option makes them do it, so that a
    line about two rules together names only its own. ``params`` names options whose values
    fill the line's ``%(name)s`` placeholders.
    """

    msg: str
    needs: str = ""
    section: str = HOUSE
    params: tuple[str, ...] = ()

    def shows(self, options: dict[str, object]) -> bool:
        """Whether the line applies at a table with these option values."""
        if not self.needs:
            return True
        if "|" in self.needs:
            return any(_on(options, name) for name in self.needs.split("|"))
        return all(_on(options, name) for name in self.needs.split("&"))


#: what a sheet line may ask of the table's rules as a whole (``"@gives"``), each answered by
#: the composed rules (:meth:`cardverse.engine.ruleset.Ruleset.facts`), never by an option's name
FACTS: tuple[str, ...] = (
    "@gives",  # a give may be owed during a round (R36)
    "@discards",  # a discard may be owed during a round (R37)
    "@eights_clear",  # a set of 8s clears the pile (R14)
    "@low_finish",  # going out on some plays takes the lowest place (R34)
    "@lock",  # a trick may be locked to suits (R31)
    "@joker_covered",  # a lone joker can be covered by a natural card (R33)
    "@straights_reverse",  # some straights start a revolution (R42; R18 says none do)
    "@later_leader_named",  # a part names who leads the rounds after the first (R46)
    "@two_pairs",  # the exchange has a second pair, the Vice-Scum and the Vice-President (R25)
)


def _on(options: dict[str, object], name: str) -> bool:
    if name.startswith("!"):
        return not _on(options, name[1:])
    if "=" in name:
        key, value = name.split("=", 1)
        return str(options[key]) == value
    return bool(options[name])


@dataclass(frozen=True)
class Words:
    """A part's words: its option's label and help, its rules-sheet lines, its trick state's
    words (what :meth:`~cardverse.engine.parts.base.Part.report` shows, by report key)."""

    label: str
    help: str
    sheet: tuple[SheetLine, ...] = ()
    #: how the log tells a seat going out the part's way (its ``finish_how``): the seat's own
    #: sentence and everyone else's, with ``%(place)s`` (and ``%(name)s`` in the second)
    went_out: tuple[str, ...] = ()
    #: the words of the option's values that are not plain on/off or numbers, as (value, msgid)
    values: tuple[tuple[object, str], ...] = ()
    #: a whole-number value in words, as a singular and plural msgid pair with ``%(num)s``
    count: tuple[str, str] | None = None
    #: the texts of the refusal codes the part gives, as (code, msgid), with the refusal's
    #: params as placeholders (``%(need)s``, ``%(got)s``: ranks); a text that depends on the
    #: equal plays is a mapping of that option's value to its msgid
    refusals: tuple[tuple[str, object], ...] = ()

    def value_label(self, value: object) -> str | None:
        """The msgid naming ``value`` of the option, if the part names it."""
        for known, label in self.values:
            if known == value and type(known) is type(value):
                return label
        return None


__all__ = [
    "BEAT",
    "CLEARING",
    "EXCHANGE",
    "FACTS",
    "FOLLOW",
    "HOUSE",
    "JOKERS",
    "LEAD",
    "LONE_JOKER",
    "MAY",
    "NP_",
    "N_",
    "REVOLUTION",
    "REVOLUTION_STARTS",
    "SheetLine",
    "Words",
]
