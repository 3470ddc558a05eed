"""The parts of one table's options, composed: which hooks the referee calls (R4), and the one
answer to "does this play clear the pile" and "which ranks take control" (R14).

:func:`ruleset_for` builds (once per :class:`Rules`) the tuple of active parts for every hook, and
two declarations the fast paths read: ``fast_tables`` (legal plays come straight from the set
tables and straights, no generic filter) and ``fast_playouts`` (the bots' rank-count shortcut
gives only legal moves), and the two flags the set tables take, ``plays_straights`` and
``ties_cover``, from the straights and equal-plays parts. :meth:`Ruleset.clears` and
:meth:`Ruleset.control_ranks` are asked by the referee, the forbidden finish and every bot
alike; no one else says what clears. The bots see the rules through this object too.
"""

from __future__ import annotations

from .cards import NATURAL_MASK, RANK_2, RANK_3, RANK_8
from .events import DISCARD_OWED, GIVE_OWED
from .exchange import ExchangePair
from .options import Rules
from .parts import PARTS, Part
from .parts.base import RoundState
from .plays import STRAIGHT, PlayInfo, play_info
from .reports import SUITS, Report


def _hooked(parts: tuple[Part, ...], name: str) -> tuple[Part, ...]:
    default = getattr(Part, name)
    return tuple(p for p in parts if getattr(type(p), name) is not default)


class Ruleset:
    """The active parts of ``rules``, grouped by the hook they use."""

    __slots__ = (
        "_control_normal",
        "_control_reversed",
        "_set_ranks_normal",
        "_set_ranks_reversed",
        "_straight_ranks",
        "after",
        "cards_leave_by_plays",
        "clearers",
        "cover_refusers",
        "coverers",
        "exchangers",
        "extras",
        "fast_playouts",
        "fast_tables",
        "filters",
        "finishers",
        "follows_play",
        "generic",
        "house_rules",
        "largest_set",
        "lock_free",
        "low_finishers",
        "off_refusers",
        "owed_kinds",
        "owers",
        "parts",
        "placers",
        "places_from_bottom",
        "plays_straights",
        "reads_previous_president",
        "refusers",
        "reports",
        "reversers",
        "round_leaders",
        "rules",
        "set_joker_suits",
        "straights_reverse",
        "ties_cover",
        "trick_enders",
    )

    def __init__(self, rules: Rules) -> None:
        options = rules.to_dict()
        active = tuple(p for p in PARTS if p.active(options))
        self.rules = rules
        self.parts = active
        self.extras = _hooked(active, "extra_plays")
        self.filters = _hooked(active, "filter_plays")
        self.refusers = _hooked(active, "refuse")
        #: the parts *not* in force that say why a play of their kind is refused (straights off)
        self.off_refusers = _hooked(tuple(p for p in PARTS if p not in active), "refuse_off")
        #: straights are played here (R6): the set tables generate them too
        self.plays_straights = any(p.plays_straights for p in active)
        #: a play may equal the one it covers (R10), unless a part in force forbids ties
        self.ties_cover = not any(p.forbids_ties for p in active)
        self.coverers = _hooked(active, "covers")
        #: the parts that say why a play does not cover, the narrower rule first (R33 before R10)
        self.cover_refusers = tuple(
            sorted(_hooked(active, "refuse_cover"), key=lambda p: not p.refusal_first)
        )
        self.clearers = _hooked(active, "clears")
        self.after = _hooked(active, "after_play")
        self.owers = _hooked(active, "owes")
        #: the kinds of give or discard a play may make owed here, by the part that owes it
        self.owed_kinds: dict[str, Part] = {p.owes_kind: p for p in self.owers if p.owes_kind}
        #: no part moves cards but by plays (a history replays with other hands)
        self.cards_leave_by_plays = all(p.cards_leave_by_plays for p in active)
        #: some part may place a seat from the bottom (R34, R35)
        self.places_from_bottom = any(p.places_from_bottom for p in active)
        #: some part reads the previous round's President and may make a seat fall (R35)
        self.reads_previous_president = any(p.reads_previous_president for p in active)
        self.finishers = _hooked(active, "finish_from_bottom")
        #: the parts that say ahead whether going out with a play takes a low place (R34)
        self.low_finishers = _hooked(active, "finishes_low")
        self.placers = _hooked(active, "after_place")
        self.trick_enders = _hooked(active, "end_trick")
        #: the parts that say which plays start a revolution (R15, R42)
        self.reversers = _hooked(active, "reverses")
        #: some straights start a revolution here (R42)
        self.straights_reverse = any(p.reverses_straights for p in active)
        #: the parts whose plays no lock binds (R45)
        self.lock_free = _hooked(active, "free_of_lock")
        #: a joker in a set names the suit it stands for here (R44); elsewhere it names none
        self.set_joker_suits = any(p.names_set_joker_suits(options) for p in active)
        #: the parts that pair givers and receivers between rounds (R25)
        self.exchangers = _hooked(active, "exchange_pairs")
        #: the parts that choose who leads a later round (R46)
        self.round_leaders = _hooked(active, "round_leader")
        #: the most cards a set may hold here (R5, R43)
        self.largest_set = max((p.largest_set for p in active), default=4)
        #: some part acts on plays (changes the trick, owes, places from the bottom)
        self.follows_play = bool(self.after or self.owers or self.finishers)
        self.fast_tables = all(p.fast_tables for p in active)
        #: the parts that may need the generic path, each saying when (``generic_now``)
        self.generic = tuple(p for p in active if not p.fast_tables)
        self.fast_playouts = all(p.fast_playouts for p in active)
        self.house_rules = tuple(p for p in active if p.house_rule)
        #: the trick state the active parts keep, each shown under its own key (R39)
        self.reports: tuple[Report, ...] = tuple(r for p in active for r in p.reports)
        straight_ranks = 0
        for part in active:
            straight_ranks |= part.clearing_ranks
        #: ranks whose straights clear (R14 eight stop), and whose sets clear in each order
        self._straight_ranks = straight_ranks
        self._set_ranks_normal = straight_ranks | 1 << RANK_2
        self._set_ranks_reversed = straight_ranks | 1 << RANK_3
        self._control_normal = self._set_ranks_normal
        self._control_reversed = self._set_ranks_reversed

    def facts(self) -> dict[str, bool]:
        """The answers to :data:`~cardverse.engine.words.FACTS` for these rules (the sheet's
        lines about two rules together ask them), from the parts' declarations alone."""
        return {
            "@gives": GIVE_OWED in self.owed_kinds,
            "@discards": DISCARD_OWED in self.owed_kinds,
            "@eights_clear": bool(self._straight_ranks >> RANK_8 & 1),
            "@low_finish": bool(self.low_finishers),
            "@lock": any(report.kind == SUITS for report in self.reports),
            "@joker_covered": bool(self.coverers),
            "@straights_reverse": self.straights_reverse,
            "@later_leader_named": bool(self.round_leaders),
            "@two_pairs": len(self.exchange_pairs(list(range(self.rules.players)))) > 1,
        }

    def names(self) -> list[str]:
        return [p.spec.name for p in self.parts]

    def report(self, marks: int) -> dict[str, int]:
        """The active parts' trick state in ``marks`` (a round's or a view's), by report name."""
        return {report.name: report.read(marks) for report in self.reports}

    def finishes_low(self, move: int, reversed_before: bool, top: int | None) -> bool:
        """Whether going out with ``move`` on ``top`` would take the lowest free place (R34's
        forbidden finish): the bots weigh it before they play their last cards."""
        for part in self.low_finishers:
            if part.finishes_low(self, move, reversed_before, top):
                return True
        return False

    def starts_revolution(self, info: PlayInfo) -> bool:
        """Whether a play of shape ``info`` reverses the order here (R15: a set of four or
        more, with the revolution on; R42: a long enough straight)."""
        return any(part.reverses(self.rules, info) for part in self.reversers)

    def free_of_lock(self, round_: RoundState, move: int) -> bool:
        """Whether ``move`` may be made now whatever lock is in force (R45)."""
        return any(part.free_of_lock(round_, move) for part in self.lock_free)

    def exchange_pairs(self, previous_order: list[int]) -> list[ExchangePair]:
        """The exchange before a round after the first (R25), from the previous round's places:
        :class:`~cardverse.engine.exchange.ExchangePair` s, none without an exchange."""
        for part in self.exchangers:
            return part.exchange_pairs(previous_order)
        return []

    def round_leader(self, hands: list[int]) -> int | None:
        """Who leads a round after the first, once its exchange is over, when a part says
        (R46); None for R24's previous Scum."""
        for part in self.round_leaders:
            leader = part.round_leader(self.rules, hands)
            if leader is not None:
                return leader
        return None

    def control_ranks(self, reversed_order: bool) -> int:
        """The ranks (a 13-bit set, bit 0 = the 3) whose sets clear the pile in this order: the
        clearing rank (2, or 3 in the reversed order; R14) and the ranks parts add (8s with
        the eight stop). Sets of them, and jokers, are what players keep to take back the
        lead."""
        return self._control_reversed if reversed_order else self._control_normal

    def clears(self, move: int, reversed_before: bool, top: int | None) -> bool:
        """Whether ``move``, played on ``top`` (None on lead) by the order in force before it,
        clears the pile (R14, R17): a set of a control rank (counted by its natural cards, so an
        all-joker set never clears), a straight through a rank a part makes clearing (the eight
        stop's 8s, a joker standing for one too), or a play a part's own rule clears (the 3♠ on
        a lone joker, R33)."""
        naturals = move & NATURAL_MASK
        if naturals:
            if not move & STRAIGHT:
                # a set's rank is its lowest natural card's (no shape lookup on this hot path)
                rank = ((naturals & -naturals).bit_length() - 1) >> 2
                ranks = self._set_ranks_reversed if reversed_before else self._set_ranks_normal
                if ranks >> rank & 1:
                    return True
            elif self._straight_ranks:
                info = play_info(move)
                span = ((1 << (info.rank + 1)) - 1) & ~((1 << info.bottom) - 1)
                if span & self._straight_ranks:
                    return True
        return any(part.clears(move, top, reversed_before) for part in self.clearers)


_CACHE: dict[Rules, Ruleset] = {}


def ruleset_for(rules: Rules) -> Ruleset:
    """The (cached) composed parts of ``rules``."""
    last = _LAST[0]
    if last is not None and last.rules is rules:  # the same object again (search): no hashing
        return last
    found = _CACHE.get(rules)
    if found is None:
        found = _CACHE[rules] = Ruleset(rules)
    _LAST[0] = found
    return found


_LAST: list[Ruleset | None] = [None]  # the last answer of ruleset_for


__all__ = [
    "Ruleset",
    "ruleset_for",
]
