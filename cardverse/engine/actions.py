"""Actions in their readable form (notation.md) and their move integers.

An :class:`Action` is what a person, a record or a client says: play these cards (with the ranks
jokers stand for in a straight, or the cards they stand for in a set under the suit lock with
jokers, R44), pass, give cards (an exchange give-back or a seven pass, R36), or
discard cards (a ten discard, R37). :func:`to_move` and :func:`from_move`
convert between it and the engine's move integers; :func:`action_from_json` reads the JSON form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import (
    BLACK_JOKER,
    NATURAL_MASK,
    RANK_NAMES,
    RED_JOKER,
    CardError,
    card_name,
    cards_of,
    parse_card,
    parse_rank,
)
from .pickling import by_constructor
from .plays import (
    CARDS_MASK,
    DECLARATIONS_MASK,
    DISCARD,
    GIVE,
    HIDDEN,
    PASS,
    STRAIGHT,
    declare,
    declare_suit,
    declared_rank,
    declared_suit,
    hidden_count,
)

PLAY: Final = "play"
PASS_ACTION: Final = "pass"
GIVE_ACTION: Final = "give"
DISCARD_ACTION: Final = "discard"
ACTION_KINDS: Final = (PLAY, PASS_ACTION, GIVE_ACTION, DISCARD_ACTION)


class ActionFormatError(ValueError):
    """An action that cannot be read at all (malformed, as opposed to illegal)."""


@dataclass(frozen=True)
class Action:
    """A readable action: ``kind`` is play, pass, give or discard; ``jokers`` maps a joker to
    the rank it stands for in a straight (``{"RJ": "7"}``) or the card it stands for in a set
    (``{"RJ": "7H"}``, a suit named under R44).

    ``count`` is set only for a give whose cards the reader may not see (then ``cards`` is empty).
    """

    kind: str
    cards: tuple[str, ...] = ()
    jokers: Mapping[str, str] = field(default_factory=dict)
    seat: int | None = None
    count: int | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_constructor(self)  # compiled, a frozen dataclass pickles by its constructor

    def to_json(self, with_seat: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if with_seat and self.seat is not None:
            out["seat"] = self.seat
        out["action"] = self.kind
        if self.count is not None:
            out["count"] = self.count
        elif self.kind != PASS_ACTION:
            out["cards"] = list(self.cards)
        if self.jokers:
            out["jokers"] = dict(self.jokers)
        return out


def from_move(move: int, seat: int | None = None) -> Action:
    """The readable form of a move integer."""
    if move == PASS:
        return Action(PASS_ACTION, seat=seat)
    if move & HIDDEN:
        return Action(GIVE_ACTION, (), seat=seat, count=hidden_count(move))
    cards = move & CARDS_MASK
    names = tuple(card_name(c) for c in cards_of(cards))
    if move & GIVE:
        return Action(GIVE_ACTION, names, seat=seat)
    if move & DISCARD:
        return Action(DISCARD_ACTION, names, seat=seat)
    jokers: dict[str, str] = {}
    if move & STRAIGHT:
        for joker in (RED_JOKER, BLACK_JOKER):
            rank = declared_rank(move, joker)
            if rank is not None:
                jokers[card_name(joker)] = RANK_NAMES[rank]
    elif move & DECLARATIONS_MASK and cards & NATURAL_MASK:
        set_rank = ((cards & -cards).bit_length() - 1) >> 2  # the lowest natural card's
        for joker in (RED_JOKER, BLACK_JOKER):
            suit = declared_suit(move, joker)
            if suit is not None and suit < 4:
                jokers[card_name(joker)] = card_name(set_rank * 4 + suit)
    return Action(PLAY, names, jokers, seat=seat)


def to_move(action: Action) -> int:
    """The move integer of a readable action; raises :class:`ActionFormatError` when malformed.

    A play whose natural cards span several ranks, or that declares ranks for its jokers, is a
    straight; otherwise it is a set. A declaration that only repeats a set's own rank is accepted
    as that set. A joker declared as a card (``"7H"``) stands for that card in a set (R44): its
    rank must be the set's, and the move carries its suit (whether a suit may or must be named
    is the rules' question, :meth:`Round.check`).
    """
    if action.kind == PASS_ACTION:
        if action.cards:
            raise ActionFormatError("a pass carries no cards")
        return PASS
    if action.kind not in ACTION_KINDS:
        raise ActionFormatError(
            f"unknown action {action.kind!r}: an action is one of {', '.join(ACTION_KINDS)}"
        )
    mask = 0
    try:
        for text in action.cards:
            card = parse_card(text)
            if mask >> card & 1:
                raise ActionFormatError(f"card {card_name(card)} is listed twice in one action")
            mask |= 1 << card
    except CardError as error:
        raise ActionFormatError(str(error)) from None
    if not mask:
        raise ActionFormatError(f"a {action.kind} action needs at least one card")
    if action.kind in (GIVE_ACTION, DISCARD_ACTION):
        if action.jokers:
            raise ActionFormatError(f"a {action.kind} action declares no joker ranks")
        return mask | (GIVE if action.kind == GIVE_ACTION else DISCARD)
    declarations: dict[int, int] = {}
    stands_for: dict[int, int] = {}  # joker -> the card it stands for in a set (R44)
    for joker_text, rank_text in action.jokers.items():
        try:
            joker = parse_card(joker_text)
        except CardError as error:
            raise ActionFormatError(str(error)) from None
        if joker not in (RED_JOKER, BLACK_JOKER):
            raise ActionFormatError(f"{joker_text!r} is not a joker: only RJ and BJ take a rank")
        if not mask >> joker & 1:
            raise ActionFormatError(
                f"a rank is declared for {card_name(joker)}, which the action does not play"
            )
        try:
            declarations[joker] = parse_rank(rank_text)
            continue
        except CardError:
            pass
        try:
            card = parse_card(rank_text)
        except CardError:
            raise ActionFormatError(
                f"{card_name(joker)} stands for {rank_text!r}: write a rank in a straight "
                '(e.g. "7") or a card of the set in a set (e.g. "7H")'
            ) from None
        if card in (RED_JOKER, BLACK_JOKER):
            raise ActionFormatError(f"{card_name(joker)} cannot stand for a joker")
        stands_for[joker] = card
    naturals = mask & NATURAL_MASK
    natural_ranks = {c >> 2 for c in cards_of(naturals)}
    if stands_for:
        return _set_with_suits(mask, natural_ranks, declarations, stands_for)
    if declarations and len(natural_ranks) == 1 and set(declarations.values()) == natural_ranks:
        declarations = {}  # jokers declared as the set's own rank: a set
    if not declarations and len(natural_ranks) <= 1:
        return mask
    played_jokers = [j for j in (RED_JOKER, BLACK_JOKER) if mask >> j & 1]
    for joker in played_jokers:
        if joker not in declarations:
            raise ActionFormatError(
                f"say which rank {card_name(joker)} stands for in this straight "
                '(for example "jokers": {"' + card_name(joker) + '": "7"})'
            )
    move = mask | STRAIGHT
    for joker, rank in declarations.items():
        move = declare(move, joker, rank)
    return move


def _set_with_suits(
    mask: int, natural_ranks: set[int], ranks: dict[int, int], cards: dict[int, int]
) -> int:
    """A set whose jokers stand for named cards (R44): every joker then names its card, of the
    set's rank; a suit already in the set, or named twice, is the shape check's to refuse."""
    for joker in (RED_JOKER, BLACK_JOKER):
        if joker in ranks:
            raise ActionFormatError(
                f"{card_name(joker)} is given a rank and the other joker a card: in a set "
                'both jokers name the card they stand for (e.g. "7H"), in a straight their ranks'
            )
    if len(natural_ranks) > 1:
        raise ActionFormatError(
            "a joker stands for a card (a rank and a suit) only in a set; in a straight it takes "
            'the straight\'s suit: write its rank alone (e.g. "7")'
        )
    move = mask
    for joker, card in cards.items():
        if natural_ranks and card >> 2 not in natural_ranks:
            raise ActionFormatError(
                f"{card_name(joker)} stands for {card_name(card)}, which is not of the set's "
                f"rank {RANK_NAMES[next(iter(natural_ranks))]}"
            )
        move = declare_suit(move, joker, card & 3)
    return move


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ActionFormatError(message)


def action_from_json(data: object, *, need_seat: bool = False) -> Action:
    """Read an action object of notation.md; raises :class:`ActionFormatError`."""
    _expect(isinstance(data, Mapping), f"an action must be a JSON object, not {data!r}")
    assert isinstance(data, Mapping)
    unknown = sorted(set(data) - {"seat", "action", "cards", "jokers"})
    _expect(not unknown, f"unknown key {unknown[0]!r} in an action" if unknown else "")
    kind = data.get("action")
    _expect(
        kind in ACTION_KINDS,
        f'an action needs "action": one of {", ".join(ACTION_KINDS)} (got {kind!r})',
    )
    seat = data.get("seat")
    if seat is None:
        _expect(not need_seat, 'an action here needs its "seat"')
    else:
        _expect(
            isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0,
            f"seat must be a whole number from 0, not {seat!r}",
        )
    cards = data.get("cards", [])
    if kind == PASS_ACTION:
        _expect(not cards, "a pass carries no cards")
    else:
        _expect(
            isinstance(cards, list) and all(isinstance(c, str) for c in cards),
            f'"cards" must be a list of card strings, not {cards!r}',
        )
    jokers = data.get("jokers", {})
    _expect(
        isinstance(jokers, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in jokers.items()),
        f'"jokers" must map joker names to rank names (a straight) or card names (a set), '
        f"not {jokers!r}",
    )
    action = Action(
        str(kind),
        tuple(str(c) for c in cards),
        {str(k): str(v) for k, v in jokers.items()},
        seat=seat,
    )
    to_move(action)  # reject malformed cards and joker declarations now
    return action
