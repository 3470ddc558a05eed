"""The heuristic play policy (R29): the ``normal`` bot's mind and the ``hard`` bot's playouts.

It works on bare values (a hand bit set, the legal moves, the play on top of the trick, the order
in force: each ``revolution`` parameter below means "the order in force is reversed", by a
revolution or a jack back, R32), never on a view or a game, so the ``hard`` bot can run it for
every seat of a sampled deal thousands of times per move. The rules of thumb:

- **Control cards** take back the lead and are kept for that: clearing plays, as the ruleset
  answers (:meth:`~cardverse.engine.ruleset.Ruleset.clears`: sets of the clearing rank, 2s or 3s
  during a revolution, R14, and whatever the table's parts add), sets holding jokers, sets made
  only of jokers, and fours while revolutions are played (a four reverses the order, R15).
- **Groups** (all the natural cards of one rank) are not broken up when they need not be: a pair
  is not split to cover a single, a triple not split to cover a pair.
- **On lead** it plays the whole of its weakest group (or, with straights, a straight made of
  single cards), goes out when it can, plays a clearing play first when only one group would be
  left after it, starts a revolution when its hand is stronger reversed, and leads a set rather
  than a single card when an opponent holds one card.
- **Following**, it covers with the weakest group that fits exactly; it spends a control card only
  when that leaves a hand it can finish with its other control cards, or when the player on top
  of the trick is about to go out; otherwise it passes.
- **Giving back** in the exchange, and in a seven pass (R36), it gives its weakest single cards
  (normal order, R38) and keeps control cards; in a ten discard (R37) it throws the cards that
  break no group, weakest first.
- **Forbidden finishes** (R34): it does not go out on a play that would take the lowest place
  while it has another play.
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine.cards import (
    JOKER_MASK,
    NATURAL_MASK,
    NIBBLE_COUNT,
    NUM_RANKS,
    RANK_2,
    cards_of,
)
from ..engine.options import Rules
from ..engine.order import rank_strength as _rank_strength
from ..engine.order import strength as play_strength
from ..engine.order import weakest_card_strength as _weakest_card_strength
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, PASS, play_info
from ..engine.ruleset import Ruleset, ruleset_for


class Style(NamedTuple):
    """The options that change the policy's judgement (a cut of :class:`Rules`); what clears
    and which ranks take control it asks the ruleset (:meth:`Ruleset.clears`,
    :meth:`Ruleset.control_ranks`), never its own copy."""

    ruleset: Ruleset
    revolution_rule: bool
    plays_straights: bool  # the ruleset's (R6)
    ties_cover: bool  # the ruleset's (R10)
    low_finishes: bool = False  # some going out takes the lowest free place (R34)
    fast_playouts: bool = True  # the rules in force declare the rank-count shortcut legal
    plain: bool = True  # no house rule of section 10 is in force
    #: the hard bot's playouts only: the seat (-2: every seat, -1: none) that, following, spends
    #: a control card on a player about to go out (one card left), whatever it leaves
    block_seat: int = -1
    #: the hard bot's playouts only: the seat (-2: every seat, -1: none) played by the fitted
    #: policy (:mod:`.fitted`) while its hand holds at most ``fitted_hand`` cards, greedy or
    #: (``fitted_sample``) drawn from the softmax
    fitted_seat: int = -1
    fitted_hand: int = 0
    fitted_sample: bool = False
    fitted_weights: int = -1  # which weights (:func:`.fitted.weights_index`; -1: the shipped)

    @staticmethod
    def of(rules: Rules) -> Style:
        ruleset = ruleset_for(rules)
        return Style(
            ruleset,
            rules.revolution,
            ruleset.plays_straights,
            ruleset.ties_cover,
            bool(ruleset.low_finishers),
            ruleset.fast_playouts,
            not ruleset.house_rules,
        )


def rank_counts(hand: int) -> list[int]:
    """How many natural cards of each rank (index 0 = the 3) a hand holds."""
    return [NIBBLE_COUNT[(hand >> (r << 2)) & 15] for r in range(NUM_RANKS)]


rank_strength = _rank_strength  # the engine's order in force (R3), shared by every bot


def _is_control_rank(rank: int, revolution: bool, style: Style) -> bool:
    return bool(style.ruleset.control_ranks(revolution) >> rank & 1)


def weak_groups(counts: list[int], revolution: bool, style: Style) -> tuple[int, int]:
    """(groups that cannot take the lead back, control groups) of a hand's natural cards."""
    weak = 0
    control = 0
    for rank in range(NUM_RANKS):
        count = counts[rank]
        if not count:
            continue
        if _is_control_rank(rank, revolution, style) or (style.revolution_rule and count == 4):
            control += 1
        else:
            weak += 1
    return weak, control


def revolution_gain(counts: list[int], revolution: bool, skip: int) -> int:
    """How much stronger the other cards get (card by card) if the order reverses now."""
    gain = 0
    for rank in range(NUM_RANKS):
        if rank != skip and counts[rank]:
            gain += counts[rank] * (
                _rank_strength(rank, not revolution) - _rank_strength(rank, revolution)
            )
    return gain


def is_control_play(move: int, revolution: bool, style: Style) -> bool:
    """Whether a play spends a card kept to take back the lead (see the module's doc)."""
    if move & JOKER_MASK:
        return True
    if style.revolution_rule:
        info = play_info(move)
        if info.size == 4 and not info.straight:
            return True
    return style.ruleset.clears(move, revolution, None)


def _breaks(move: int, counts: list[int]) -> bool:
    """Whether a play leaves part of a natural group behind (splits a pair, triple or four)."""
    naturals = move & NATURAL_MASK
    info = play_info(move)
    if info.straight:
        return any(counts[card >> 2] > 1 for card in cards_of(naturals))
    if info.all_jokers:
        return False
    return counts[info.rank] > naturals.bit_count()


def lead_play(
    hand: int,
    legal: list[int] | tuple[int, ...],
    revolution: bool,
    style: Style,
    opponent_min: int,
) -> int:
    """The policy's lead (``legal`` holds no pass)."""
    for move in legal:
        if move & CARDS_MASK == hand and not _forbidden(move, revolution, None, style):
            return move  # the whole hand in one play: go out
    if style.low_finishes and len(legal) > 1:
        # A play that would end on a forbidden finish waits while another one is possible.
        kept = [m for m in legal if not _forbidden(m, revolution, None, style, hand)]
        if kept and len(kept) < len(legal):
            legal = kept
    counts = rank_counts(hand)
    weak: list[int] = []
    control: list[int] = []
    for move in legal:
        if move & JOKER_MASK:
            control.append(move)
            continue
        info = play_info(move)
        if info.straight:
            if not _breaks(move, counts):
                (control if is_control_play(move, revolution, style) else weak).append(move)
            continue
        if counts[info.rank] != info.size:
            continue  # a part of a group: lead the whole group instead
        (control if is_control_play(move, revolution, style) else weak).append(move)
    # A revolution when the rest of the hand is stronger reversed (R15).
    if style.revolution_rule:
        for move in control:
            info = play_info(move)
            if (
                not info.straight
                and info.size == 4
                and not move & JOKER_MASK
                and revolution_gain(counts, revolution, info.rank) > 0
            ):
                return move
    weak_count = len({_group_key(m) for m in weak})
    if control and weak_count <= 1:
        # Finish: clearing plays keep the lead, so they go first, then the last group.
        clearing = [m for m in control if _keeps_lead(m, revolution, style)]
        if clearing:
            return min(clearing, key=lambda m: play_strength(m, revolution))
        if not weak:
            return min(control, key=lambda m: play_strength(m, revolution))
    if not weak:
        clearing = [m for m in control if _keeps_lead(m, revolution, style)]
        pool = clearing or control or list(legal)
        return min(
            pool, key=lambda m: (play_strength(m, revolution), -(m & CARDS_MASK).bit_count())
        )
    if opponent_min == 1:
        sets = [m for m in weak if (m & CARDS_MASK).bit_count() > 1]
        if sets:
            return min(sets, key=lambda m: _weakest_card_strength(m, revolution))
        return max(weak, key=lambda m: play_strength(m, revolution))
    return min(
        weak,
        key=lambda m: (_weakest_card_strength(m, revolution), -(m & CARDS_MASK).bit_count(), m),
    )


def _group_key(move: int) -> int:
    info = play_info(move)
    return -1 - info.bottom if info.straight else info.rank


def _forbidden(
    move: int, revolution: bool, top: int | None, style: Style, hand: int | None = None
) -> bool:
    """Whether ``move`` would go out on a forbidden finish (R34); with ``hand``, only when it
    is the hand's last play."""
    if not style.low_finishes:
        return False
    if hand is not None and move & CARDS_MASK != hand:
        return False
    return style.ruleset.finishes_low(move, revolution, top)


def _keeps_lead(move: int, revolution: bool, style: Style) -> bool:
    """A clearing play (R14): it ends the trick and its player leads again."""
    return style.ruleset.clears(move, revolution, None)


def follow_play(
    hand: int,
    legal: list[int] | tuple[int, ...],
    revolution: bool,
    style: Style,
    last_count: int,
    top: int | None = None,
    block: bool = False,
) -> int:
    """The policy's answer to a trick in progress (``legal`` ends with the pass).

    ``last_count`` is how many cards the player on top of the trick still holds; ``top`` is the
    play on top (for the spade three and forbidden finishes). With ``block`` (playouts only,
    :attr:`Style.block_seat`), it spends its cheapest control on a player with one card left.
    """
    if style.low_finishes:
        legal = [m for m in legal if m == PASS or not _forbidden(m, revolution, top, style, hand)]
    best = -1
    best_key = 99
    controls: list[int] = []
    breaking: list[int] = []
    counts: list[int] | None = None
    for move in legal:
        if move == PASS:
            continue
        cards = move & CARDS_MASK
        if cards == hand:
            return move  # go out
        if counts is None:
            counts = rank_counts(hand)
        if is_control_play(move, revolution, style):
            controls.append(move)
            continue
        if _breaks(move, counts):
            breaking.append(move)
            continue
        key = play_strength(move, revolution)
        if key < best_key or (key == best_key and move < best):
            best, best_key = move, key
    if best >= 0:
        return best
    if breaking:
        # No play keeps every group whole: split the weakest group that can cover.
        return min(breaking, key=lambda m: (play_strength(m, revolution), m))
    if not controls:
        return PASS
    assert counts is not None
    _, control_groups = weak_groups(counts, revolution, style)
    jokers = (hand & JOKER_MASK).bit_count()
    cheapest = min(
        controls,
        key=lambda m: (
            not _keeps_lead(m, revolution, style),
            (m & JOKER_MASK).bit_count(),
            play_strength(m, revolution),
        ),
    )
    rest = hand & ~cheapest
    weak_after, control_after = weak_groups(rank_counts(rest), revolution, style)
    control_after += (rest & JOKER_MASK).bit_count()
    if weak_after <= control_after + 1 or (last_count <= 2 and control_groups + jokers >= 2):
        return cheapest
    if block and last_count == 1:
        return cheapest
    return PASS


def give_back(hand: int, legal: list[int] | tuple[int, ...]) -> int:
    """The exchange give-back (R25) and the seven pass (R36): the weakest single cards (normal
    order, R38), keeping 2s and jokers."""
    count = (legal[0] & CARDS_MASK).bit_count()
    counts = rank_counts(hand)

    def key(card: int) -> tuple[int, int, int]:
        if card >= 52:
            return (2, 13, card)
        rank = card >> 2
        return (1 if rank == RANK_2 else 0, rank + (4 if counts[rank] > 1 else 0), card)

    chosen = sorted(cards_of(hand), key=key)[:count]
    move = GIVE
    for card in chosen:
        move |= 1 << card
    return move if move in legal else legal[0]


def discard(hand: int, legal: list[int] | tuple[int, ...]) -> int:
    """The ten discard (R37): cards that break no group (single cards) first, weakest first;
    then from the smallest groups; 2s and jokers last."""
    count = (legal[0] & CARDS_MASK).bit_count()
    counts = rank_counts(hand)

    def key(card: int) -> tuple[int, int, int, int]:
        if card >= 52:
            return (3, 0, 13, card)
        rank = card >> 2
        return (2 if rank == RANK_2 else 0 if counts[rank] == 1 else 1, counts[rank], rank, card)

    chosen = sorted(cards_of(hand), key=key)[:count]
    move = DISCARD
    for card in chosen:
        move |= 1 << card
    return move if move in legal else legal[0]


def choose(
    hand: int,
    legal: list[int] | tuple[int, ...],
    last_move: int | None,
    revolution: bool,
    style: Style,
    opponent_min: int,
    last_count: int,
) -> int:
    """The policy's action for any decision (lead, follow, give-back, seven pass, ten discard).

    ``revolution`` is the order in force (reversed or not).
    """
    if legal[0] & GIVE:
        return give_back(hand, legal)
    if legal[0] & DISCARD:
        return discard(hand, legal)
    if last_move is None:
        return lead_play(hand, legal, revolution, style, opponent_min)
    return follow_play(hand, legal, revolution, style, last_count, last_move)


# -- the fast path: sets only, no jokers in hand -------------------------------------------------
#
# With straights off and no joker in the hand, suits never matter and every play is a natural
# set, so the same decisions can be made from the rank counts without listing the legal moves.
# These functions give exactly the moves of :func:`lead_play` and :func:`follow_play` (tests
# check it on random positions); the hard bot's playouts use them when they apply.


def _take(nibble: int, size: int) -> int:
    """The ``size`` lowest suits of a 4-bit suit pattern."""
    out = 0
    while size:
        low = nibble & -nibble
        out |= low
        nibble ^= low
        size -= 1
    return out


def set_shape(move: int) -> tuple[int, int]:
    """(rank, size) of a set (straights off), rank -1 for a set of jokers only. A joker-free set
    is read from its cards (one rank's nibble), which is cheaper than the cache of plays."""
    cards = move & CARDS_MASK
    if cards and not cards & JOKER_MASK:
        rank = 0
        while not cards & 0xFFF:  # three ranks at a time, then one
            cards >>= 12
            rank += 3
        while not cards & 15:
            cards >>= 4
            rank += 1
        return rank, NIBBLE_COUNT[cards & 15]
    info = play_info(move)
    return (-1 if info.all_jokers else info.rank), info.size


def fast_lead(hand: int, revolution: bool, style: Style, opponent_min: int) -> int:
    """:func:`lead_play` for a joker-free hand with straights off (in one pass over the ranks,
    keeping the few groups it may choose rather than lists of them)."""
    control_ranks = style.ruleset.control_ranks(revolution)  # a bitset of ranks
    four_control = style.revolution_rule
    groups = 0
    fours = False
    weak = 0  # groups that cannot take the lead back, and the ones of them the rules may lead
    weakest, weakest_strength = -1, 99
    strongest, strongest_strength = -1, -1
    weakest_set, weakest_set_strength = -1, 99
    controls = 0  # control groups, and the weakest of them (that clear, and at all), as ranks
    low_clear, low_clear_strength = -1, 99
    low_control, low_control_strength = -1, 99
    for rank in range(NUM_RANKS):
        nibble = (hand >> (rank << 2)) & 15
        if not nibble:
            continue
        groups += 1
        size = NIBBLE_COUNT[nibble]
        strength = _rank_strength(rank, revolution)
        clears = (control_ranks >> rank) & 1 != 0
        if clears or (four_control and size == 4):
            controls += 1
            if size == 4:
                fours = True
            if strength < low_control_strength:
                low_control, low_control_strength = rank, strength
            if clears and strength < low_clear_strength:
                low_clear, low_clear_strength = rank, strength
            continue
        weak += 1
        move = nibble << (rank << 2)
        if strength < weakest_strength:
            weakest, weakest_strength = move, strength
        if strength > strongest_strength:
            strongest, strongest_strength = move, strength
        if size > 1 and strength < weakest_set_strength:
            weakest_set, weakest_set_strength = move, strength
    if groups == 1:
        return hand  # one group: go out
    if four_control and fours:
        # A revolution when the rest of the hand is stronger reversed (R15), lowest four first.
        for rank in range(NUM_RANKS):
            four = (hand >> (rank << 2)) & 15 == 15
            if four and revolution_gain(rank_counts(hand), revolution, rank) > 0:
                return hand & (15 << (rank << 2))
    if controls and weak <= 1:
        # Finish: clearing plays keep the lead, so they go first, then the last group (with no
        # weak group left, the weakest control group).
        if low_clear >= 0:
            return hand & (15 << (low_clear << 2))
        if not weak:
            return hand & (15 << (low_control << 2))
    if opponent_min == 1:
        return weakest_set if weakest_set >= 0 else strongest
    return weakest


def fast_follow(
    hand: int,
    last_move: int,
    revolution: bool,
    style: Style,
    last_count: int,
    block: bool = False,
) -> int:
    """:func:`follow_play` for a joker-free hand with straights off (the trick is a set)."""
    old, size = set_shape(last_move)
    if old < 0:
        return PASS
    # The ranks that beat ``old``, weakest first, as a counted loop (compiled, a stored range
    # would be iterated as Python objects).
    if revolution:
        first, step = (old if style.ties_cover else old - 1), -1
        steps = first + 1
    else:
        first, step = (old if style.ties_cover else old + 1), 1
        steps = NUM_RANKS - first
    controls = style.ruleset.control_ranks(revolution)
    four_control = style.revolution_rule and size == 4
    breaking = -1
    # The cheapest control that covers: one that keeps the lead first, then the weakest.
    control = -1
    control_keeps = False
    control_strength = 0
    for index in range(steps):
        rank = first + index * step
        shift = rank << 2
        nibble = (hand >> shift) & 15
        count = NIBBLE_COUNT[nibble]
        if count < size:
            continue
        if count == size and nibble << shift == hand:
            return hand  # go out
        keeps = (controls >> rank) & 1 != 0
        if keeps or four_control:
            strength = _rank_strength(rank, revolution)
            if (
                control < 0
                or (keeps and not control_keeps)
                or (keeps == control_keeps and strength < control_strength)
            ):
                control, control_keeps, control_strength = rank, keeps, strength
        elif count > size:
            if breaking < 0:
                breaking = rank
        else:
            return nibble << shift
    if breaking >= 0:
        return _take((hand >> (breaking << 2)) & 15, size) << (breaking << 2)
    if control < 0:
        return PASS
    weak = 0
    control_groups = 0
    rev_rule = style.revolution_rule
    for rank in range(NUM_RANKS):
        count = NIBBLE_COUNT[(hand >> (rank << 2)) & 15]
        if count:
            if (controls >> rank) & 1 or (rev_rule and count == 4):
                control_groups += 1
            else:
                weak += 1
    rank = control
    nibble = (hand >> (rank << 2)) & 15
    # Spending part of a control group leaves it a control group; all of it, one fewer.
    control_after = control_groups - (1 if NIBBLE_COUNT[nibble] == size else 0)
    if weak <= control_after + 1 or (last_count <= 2 and control_groups >= 2):
        return _take(nibble, size) << (rank << 2)
    if block and last_count == 1:
        return _take(nibble, size) << (rank << 2)
    return PASS


# -- finishing lines in playouts -----------------------------------------------------------------
#
# In the hard bot's playouts every seat first looks for a finishing line, as the normal bot does
# (:func:`cardverse.bots.normal.finishing_line`), but from the rank counts only: a seat knows the
# cards the others hold together (``others``) and the largest of their hand sizes (``widest``).
# Only for joker-free hands with straights off and no house rule in force (``plain``), where a
# play is a set and the order changes only by a four (R15). A set keeps the lead when it clears
# the trick (R14) or no holding of ``others`` lets a hand of ``widest`` cards cover it; a line is
# sets that keep the lead, then the last group. Such a set can go first in any line (nothing
# else depends on it), so only fours, which reverse the order, ask for a choice.


FOUR_BITS = 0x1111111111111  # the lowest bit of each rank's nibble


def has_four(hand: int) -> bool:
    """Whether a hand holds all four cards of some rank."""
    return bool(hand & (hand >> 1) & (hand >> 2) & (hand >> 3) & FOUR_BITS)


def _ranks_that_cover(rank: int, revolution: bool, equal: bool) -> tuple[int, int, int]:
    """The ranks a set of ``rank`` can be covered by, as (first, step, count): higher ranks in
    the normal order, lower in a revolution, and ``rank`` itself when equal plays are allowed."""
    if revolution:
        first = rank if equal else rank - 1
        return first, -1, first + 1
    first = rank if equal else rank + 1
    return first, 1, NUM_RANKS - first


RANK_ONES = 0x1111111111111  # 1 in each rank's nibble (the 13 ranks of the natural cards)


def rank_nibble_counts(cards: int) -> int:
    """How many natural cards of each rank ``cards`` holds, as a number per 4-bit nibble (the
    rank's own), counted for all ranks at once; :func:`_keeps` reads the others' cards so."""
    naturals = cards & NATURAL_MASK
    pairs = naturals - ((naturals >> 1) & 0x5555555555555)
    return (pairs & 0x3333333333333) + ((pairs >> 2) & 0x3333333333333)


def _keeps(
    rank: int,
    size: int,
    revolution: bool,
    rulebook: Ruleset,
    equal: bool,
    counts: int,
    jokers: int,
    widest: int,
) -> bool:
    """Whether a set of ``size`` (1 to 4) natural cards of ``rank`` keeps the lead (see above):
    it clears the trick, no other hand is wide enough to cover it, or no set the others can make
    outranks it (``counts``: :func:`rank_nibble_counts` of their cards, ``jokers`` of them
    jokers). ``rulebook`` says which ranks clear (:meth:`Ruleset.control_ranks`); ``equal`` is the
    equal_plays option."""
    if rulebook.control_ranks(revolution) >> rank & 1:
        return True
    if widest < size:
        return True
    if jokers >= size:
        return False  # an all-joker set outranks every natural set of its size (R5)
    # The ranks where the others hold at least ``size - jokers`` natural cards (at least one):
    # the high bit of each such nibble, by adding 8 - needed to every count (0 to 4).
    # (Constants, not ``(8 - needed) * RANK_ONES``: compiled, a product this wide is a slow
    # Python multiplication.)
    needed = size - jokers
    if needed == 1:
        makes = counts + 0x7777777777777
    elif needed == 2:
        makes = counts + 0x6666666666666
    elif needed == 3:
        makes = counts + 0x5555555555555
    else:
        makes = counts + 0x4444444444444
    makes &= 0x8888888888888
    if revolution:  # covered by a lower rank (or the same one, with equal plays)
        below = (rank + 1 if equal else rank) << 2
        return not makes & ((1 << below) - 1)
    above = (rank if equal else rank + 1) << 2  # covered by a higher rank (or the same one)
    return not makes >> above


def _lead_line(
    hand: int,
    revolution: bool,
    rulebook: Ruleset,
    equal: bool,
    flips: bool,
    counts: int,
    jokers: int,
    widest: int,
) -> int:
    """The first play of a finishing line from the lead, or -1. Groups are judged weakest first,
    so that a hand without a line is told after its two weakest groups, as a rule."""
    fours = flips and has_four(hand)
    groups = 0
    unsafe = 0
    held = -1
    for index in range(NUM_RANKS):
        rank = NUM_RANKS - 1 - index if revolution else index
        nibble = (hand >> (rank << 2)) & 15
        if not nibble:
            continue
        groups += 1
        size = NIBBLE_COUNT[nibble]
        if fours and size == 4:
            continue
        if _keeps(rank, size, revolution, rulebook, equal, counts, jokers, widest):
            if held < 0:
                held = nibble << (rank << 2)
        else:
            unsafe += 1
            if unsafe > 1 and not fours:
                return -1
    if groups == 1:
        return hand
    if not fours:
        return held
    if held >= 0:
        rest = hand & ~held
        line = _lead_line(rest, revolution, rulebook, equal, flips, counts, jokers, widest)
        return held if line >= 0 else -1
    for rank in range(NUM_RANKS):
        if NIBBLE_COUNT[(hand >> (rank << 2)) & 15] == 4 and _keeps(
            rank, 4, revolution, rulebook, equal, counts, jokers, widest
        ):
            four = 15 << (rank << 2)
            rest = hand & ~four
            after = not revolution
            if _lead_line(rest, after, rulebook, equal, flips, counts, jokers, widest) >= 0:
                return four
    return -1


def fast_finish(
    hand: int, last_move: int | None, revolution: bool, style: Style, others: int, widest: int
) -> int:
    """The first play of a finishing line for a joker-free hand with straights off, or -1: sets
    that keep the lead, ending with the last card (see above). Of ``widest`` (the largest of the
    others' hand sizes) it reads only whether it is below 1 to 4: a count up to 5 will do."""
    rulebook = style.ruleset
    equal = style.ties_cover
    flips = style.revolution_rule
    if last_move is None:
        counts = rank_nibble_counts(others)
        jokers = NIBBLE_COUNT[(others >> 52) & 3]
        return _lead_line(hand, revolution, rulebook, equal, flips, counts, jokers, widest)
    old, size = set_shape(last_move)
    if old < 0:
        return -1
    first, step, steps = _ranks_that_cover(old, revolution, equal)
    # No group that covers the trick: no line (a pass is never the first play of one).
    covers = False
    for index in range(steps):
        if NIBBLE_COUNT[(hand >> ((first + index * step) << 2)) & 15] >= size:
            covers = True
            break
    if not covers:
        return -1
    counts = rank_nibble_counts(others)
    jokers = NIBBLE_COUNT[(others >> 52) & 3]
    fours = flips and has_four(hand)
    # The hand's groups (weakest first): how many, how many do not keep the lead.
    groups = 0
    unsafe = 0
    for index in range(NUM_RANKS):
        rank = NUM_RANKS - 1 - index if revolution else index
        count = NIBBLE_COUNT[(hand >> (rank << 2)) & 15]
        if count:
            groups += 1
            if not (fours and count == 4) and not _keeps(
                rank, count, revolution, rulebook, equal, counts, jokers, widest
            ):
                unsafe += 1
                if unsafe > 2 and not fours:
                    return -1  # one cover takes at most one group that does not keep the lead
    for index in range(steps):
        rank = first + index * step
        shift = rank << 2
        nibble = (hand >> shift) & 15
        count = NIBBLE_COUNT[nibble]
        if count < size:
            continue
        move = _take(nibble, size) << shift
        if move == hand:
            return move
        if not _keeps(rank, size, revolution, rulebook, equal, counts, jokers, widest):
            continue
        if fours:
            after = revolution != (flips and size == 4)
            rest = hand & ~move
            if _lead_line(rest, after, rulebook, equal, flips, counts, jokers, widest) >= 0:
                return move
            continue
        # No four: the order stays, so the rest's groups are judged as the hand's were.
        rest_groups = groups - (1 if count == size else 0)
        rest_unsafe = unsafe - (
            0 if _keeps(rank, count, revolution, rulebook, equal, counts, jokers, widest) else 1
        )
        if count > size and not _keeps(
            rank, count - size, revolution, rulebook, equal, counts, jokers, widest
        ):
            rest_unsafe += 1
        if rest_groups <= 1 or rest_unsafe <= 1:
            return move
    return -1
