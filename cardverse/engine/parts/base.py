"""The shape of a rule part: its option's description and the hooks the referee calls.

Every hook has a do-nothing default; :class:`~cardverse.engine.ruleset.Ruleset` calls only the
hooks a part overrides, so an option that is off (or a rule that needs no hook) costs nothing.
Hooks receive the round they judge as a :class:`RoundState` (what a part may read and change of
:class:`~cardverse.engine.rounds.Round`), and the composed rules as a :class:`Rulebook`: the
parts import neither the referee nor the options, so no import circle runs through them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..events import Event
from ..exchange import ExchangePair
from ..plays import PlayInfo
from ..refusals import Refusal
from ..reports import FLAG, SUITS, Report
from ..specs import BOOL, CHOICE, INT, SWITCH, OptionSpec
from ..words import (
    BEAT,
    CLEARING,
    EXCHANGE,
    FOLLOW,
    JOKERS,
    LEAD,
    LONE_JOKER,
    MAY,
    N_,
    NP_,
    REVOLUTION,
    REVOLUTION_STARTS,
    SheetLine,
    Words,
)

__all__ = [
    "BEAT",
    "BOOL",
    "CHOICE",
    "CLEARING",
    "EXCHANGE",
    "FLAG",
    "FOLLOW",
    "INT",
    "JOKERS",
    "LEAD",
    "LONE_JOKER",
    "MAY",
    "NP_",
    "N_",
    "REVOLUTION",
    "REVOLUTION_STARTS",
    "SUITS",
    "SWITCH",
    "OptionSpec",
    "Part",
    "Report",
    "RoundState",
    "Rulebook",
    "SheetLine",
    "Words",
]


class Rulebook(Protocol):
    """The composed rules' answers a part may ask (:class:`~cardverse.engine.ruleset.Ruleset`)."""

    def clears(self, move: int, reversed_before: bool, top: int | None) -> bool: ...

    def control_ranks(self, reversed_order: bool) -> int: ...

    def starts_revolution(self, info: PlayInfo) -> bool: ...

    @property
    def straights_reverse(self) -> bool: ...

    def free_of_lock(self, round_: RoundState, move: int) -> bool: ...


class RoundState(Protocol):
    """What a part reads and changes of the round in play (a
    :class:`~cardverse.engine.rounds.Round`)."""

    rules: Any  # the table's options (:class:`~cardverse.engine.options.Rules`)
    hands: list[int]
    turn: int
    last_move: int | None
    #: the parts' state of the trick, each :class:`Report` at its own bits; 0 as a trick starts
    marks: int
    revolution: bool
    reversed_now: bool
    #: a play may equal the one it covers (R10; :attr:`Ruleset.ties_cover`)
    ties_cover: bool
    previous_president: int
    log: list[Event] | None

    @property
    def ruleset(self) -> Rulebook: ...

    def fall(self, seat: int, how: str) -> None: ...


class Part:
    """A rule: its option and the hooks it needs (defaults do nothing)."""

    spec: OptionSpec
    #: its label, help and rules-sheet lines (msgids the web layer translates)
    words: Words
    #: the table-driven set generator stays exact under this rule (no generic filter needed)
    fast_tables: bool = True
    #: the bots' rank-count playout shortcut (sets only, suits ignored) stays legal
    fast_playouts: bool = True
    #: a house rule of rules.md section 10 (the classic search models of tricks do not hold)
    house_rule: bool = False
    #: its state of the trick, kept in the round's ``marks`` and shown to everyone (R39): views,
    #: positions, the notation, the protocol and the page show it from these schemas alone
    reports: tuple[Report, ...] = ()
    #: ranks (a 13-bit set) whose every set, and every straight through them, clears the pile
    #: whatever the order (R14's eight stop); read once by the ruleset, no call per play
    clearing_ranks: int = 0
    #: its :meth:`refuse_cover` narrows another part's (asked first)
    refusal_first: bool = False
    #: the kind of give or discard its :meth:`owes` makes owed (``give``, ``discard``), if any
    owes_kind: str = ""
    #: every card leaves a hand by a play everyone sees (not with a give, a discard or a fall):
    #: a round's history, replayed with other hands, stays possible
    cards_leave_by_plays: bool = True
    #: going out may take the lowest free place: places fill from the bottom too (R34, R35)
    places_from_bottom: bool = False
    #: the ``how`` of a going out this part causes (the ``went_out`` event's), if any
    finish_how: str = ""
    #: it reads the previous round's President, and may make a seat fall out of the round (R35)
    reads_previous_president: bool = False
    #: the most cards a set may hold while it is in force (R5: 4; R43: 5)
    largest_set: int = 4
    #: some straights start a revolution under it (R42; R18 says none do)
    reverses_straights: bool = False
    #: it plays straights (R6): the set tables then generate them too, on every path
    plays_straights: bool = False
    #: under it a play may not equal the one it covers (R10): it must beat it
    forbids_ties: bool = False

    def active(self, options: Mapping[str, Any]) -> bool:
        """Whether the rule is in force at a table with these option values."""
        return bool(options[self.spec.name])

    # -- plays --------------------------------------------------------------------------------

    def extra_plays(self, round_: RoundState, hand: int, old: PlayInfo | None) -> list[int]:
        """Plays this rule adds to the sets of R5–R10 (straights, a 3♠ on a joker)."""
        return []

    def generic_now(self, round_: RoundState) -> bool:
        """Whether, in this state, the rule needs the generic path (its extra plays or filter);
        rules with ``fast_tables`` off say when, so the table path serves every other state."""
        return True

    def filter_plays(self, round_: RoundState, plays: list[int]) -> list[int]:
        """The plays this rule lets be made now (the generic filter over generated plays)."""
        return plays

    def refuse_off(self, round_: RoundState, move: int) -> Refusal | None:
        """Why ``move``, a play of this rule's kind, is refused while the rule is *off* (a
        straight where straights are not played): asked of the parts that are not active, on
        the refusal path only, before the play's shape is read."""
        return None

    def refuse(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> Refusal | None:
        """Why this rule forbids ``move`` now (the single-action check's twin of :meth:`allows`)."""
        return None

    def covers(self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo) -> bool:
        """Whether this rule lets ``move`` cover ``old`` although R10 alone would not."""
        return False

    def refuse_cover(
        self, round_: RoundState, move: int, info: PlayInfo, old: PlayInfo
    ) -> Refusal | None:
        """Why ``move`` does not cover ``old``, when this rule is the one to say it (asked only
        on the refusal path, after no part let the play cover)."""
        return None

    def reverses(self, rules: Any, info: PlayInfo) -> bool:
        """Whether ``info`` starts (or ends) a revolution by this rule (R15, R42, R43)."""
        return False

    def free_of_lock(self, round_: RoundState, move: int) -> bool:
        """Whether ``move`` may be made now whatever lock is in force (R45)."""
        return False

    def names_set_joker_suits(self, options: Mapping[str, Any]) -> bool:
        """Whether, at a table with these option values, a joker in a set names the suit of the
        card it stands for (R44); where no active part says so, a declared suit is refused."""
        return False

    def exchange_pairs(self, previous_order: list[int]) -> list[ExchangePair]:
        """Who gives cards to whom before a round after the first, from the previous round's
        places (R25: :class:`~cardverse.engine.exchange.ExchangePair` s); none by default."""
        return []

    def round_leader(self, rules: Any, hands: list[int]) -> int | None:
        """Who leads a round after the first, once the exchange is over (R46), if this rule
        says; else R24's previous Scum."""
        return None

    def clears(self, move: int, top: int | None, reversed_before: bool) -> bool:
        """Whether this rule makes ``move``, played on ``top``, a clearing play (R14), by the
        order before it (rules whose clearing depends on more than :attr:`clearing_ranks`)."""
        return False

    # -- what follows a play -----------------------------------------------------------------

    def after_play(self, round_: RoundState, seat: int, move: int, info: PlayInfo) -> None:
        """Change the trick's state after ``move`` (the top of the trick is still the old one)."""

    def owes(self, round_: RoundState, seat: int, move: int) -> tuple[str, int] | None:
        """An owed give or discard after ``move``: (kind, natural cards counted)."""
        return None

    def finish_from_bottom(
        self, round_: RoundState, seat: int, move: int, info: PlayInfo, reversed_before: bool
    ) -> bool:
        """Whether going out with ``move`` takes the lowest free place instead (R34)."""
        return False

    def finishes_low(
        self, rulebook: Rulebook, move: int, reversed_before: bool, top: int | None
    ) -> bool:
        """Whether going out with ``move`` on ``top`` would take the lowest free place by this
        rule (R34): what a player weighs ahead, from the play alone (the referee asks
        :meth:`finish_from_bottom`)."""
        return False

    def after_place(self, round_: RoundState, seat: int, place: int) -> None:
        """React to ``seat`` taking ``place`` (R35)."""

    def end_trick(self, round_: RoundState, marks: int) -> None:
        """The trick ended with these ``marks`` (the round has already cleared them and set the
        order back to the revolution's): tell the log what of this part's state ended."""
