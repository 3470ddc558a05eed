"""A playout policy fitted offline (issue 14): a linear score over features of each candidate move.

In a playout the seat on turn sees its own hand, the play on top of the trick (or the lead), the
others' hand sizes and, in the sampled deal, the cards the others hold together (what the rules
of thumb of :mod:`.policy` read too). :func:`features` describes one candidate move in those
terms (:data:`FEATURES` names them); :func:`choose` scores every candidate with the weights of a
:class:`FittedWeights` and plays the best (greedy) or draws one from the softmax of the scores.
The weights were fitted (``python -m bench.fit_policy``) to the choices of a longer search, and
one feature is whether the rules of thumb chose this very move, so the fit learns when to depart
from them. The file of weights ships next to this module (:data:`WEIGHTS_FILE`), plain JSON;
nothing here needs more than the standard library.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Final

import cardverse.bots.policy as policy

from ..engine.cards import JOKER_MASK, NIBBLE_COUNT, NUM_RANKS
from ..engine.order import strength as play_strength
from ..engine.order import weakest_card_strength
from ..engine.plays import CARDS_MASK, PASS, play_info
from ..engine.rounds import Round

VERSION: Final = 1
WEIGHTS_FILE: Final = "fitted_policy.json"
#: the features of a candidate move, in the order :func:`features` returns them
FEATURES: Final[tuple[str, ...]] = (
    "rules",  # the rules of thumb chose this very move
    "pass",  # the move is the pass
    "pass_top_size",  # pass: cards of the play on top, over 4
    "pass_top_one",  # pass: the player on top has one card left
    "pass_top_two",  # pass: the player on top has two cards left
    "pass_top_strength",  # pass: the strength of the play on top, over 13
    "lead_weakest",  # on lead: the weakest of the hand's plays (by the order in force)
    "strength",  # the play's strength in the order in force, over 13 (all jokers: 1)
    "lead_strength",  # on lead: the same
    "cards",  # cards the play uses, over the hand's
    "set_size",  # cards the play uses, over 4
    "breaks",  # it leaves part of a natural group behind
    "control",  # it spends a control card (a clearing play, a joker, a four)
    "jokers",  # jokers it uses
    "clears",  # it clears the trick by rule (the ruleset's answer, R14)
    "unbeatable",  # the others' cards (and hand sizes) cannot cover it
    "out",  # it plays the last card(s)
    "groups_after",  # groups left after it, over 5
    "weak_after",  # groups left that cannot take the lead back, over 5
    "safe_after",  # groups left that the others cannot cover, over 5
    "low_after",  # strength of the weakest group left, over 13 (1 when none)
    "single_vs_one",  # a single card that can be covered while an opponent holds one card
    "set_vs_one",  # a set of two or more while an opponent holds one card
    "small_strength",  # the hand holds 5 cards or fewer: the play's strength, over 13
    "small_rules",  # the same and the rules' choice
    "small_pass",  # the same and the pass
    "small_control",  # the same and a control card
    "small_unbeatable",  # the same and unbeatable
    "revolution",  # a four that reverses the order (revolutions played)
    "rules_pass",  # the rules' choice, and it is the pass
    "rules_lead",  # the rules' choice, on lead
    "rules_big",  # the rules' choice, with more than 8 cards in hand
    "block",  # following, a play on a player left with 1 or 2 cards
    "control_top",  # a control card spent on a play on top: that play's strength, over 13
)
COUNT: Final = len(FEATURES)
SMALL: Final = 5


class WeightsError(ValueError):
    """A weights file that does not fit this code (missing, malformed, another version)."""


class FittedWeights:
    """The weights of the fitted policy, one per feature of :data:`FEATURES`."""

    def __init__(self, weights: list[float], temperature: float = 1.0) -> None:
        if len(weights) != COUNT:
            raise WeightsError(f"the fitted policy needs {COUNT} weights, not {len(weights)}")
        if not temperature > 0:
            raise WeightsError(f"the temperature must be positive, not {temperature!r}")
        self.weights = weights
        self.temperature = temperature


def parse_weights(data: object, source: str = "the weights") -> FittedWeights:
    """The weights of a decoded weights file; :class:`WeightsError` names what is wrong."""
    if not isinstance(data, dict):
        raise WeightsError(f"{source}: a JSON object is needed, not {type(data).__name__}")
    version = data.get("version")
    if version != VERSION:
        raise WeightsError(f"{source}: version {version!r}, this code reads version {VERSION}")
    names = data.get("features")
    if not isinstance(names, list) or tuple(names) != FEATURES:
        raise WeightsError(
            f"{source}: the features {names!r} are not this code's ({', '.join(FEATURES)})"
        )
    values = data.get("weights")
    if not isinstance(values, list) or len(values) != COUNT:
        raise WeightsError(f"{source}: 'weights' must be a list of {COUNT} numbers")
    weights: list[float] = []
    for name, value in zip(names, values, strict=True):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise WeightsError(f"{source}: the weight of {name!r} is not a number: {value!r}")
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            raise WeightsError(f"{source}: the weight of {name!r} is not finite: {value!r}")
        weights.append(number)
    temperature = data.get("temperature", 1.0)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise WeightsError(f"{source}: the temperature is not a number: {temperature!r}")
    return FittedWeights(weights, float(temperature))


def load_weights(path: str | None = None) -> FittedWeights:
    """The weights in ``path`` (by default the file shipped next to this module)."""
    if path is None:
        # The package's folder (compiled, a module's own ``__file__`` names its source as built).
        path = str(resources.files("cardverse.bots").joinpath(WEIGHTS_FILE))
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except OSError as error:
        raise WeightsError(f"cannot read the fitted policy's weights {path}: {error}") from error
    except ValueError as error:
        raise WeightsError(f"{path} is not valid JSON: {error}") from error
    return parse_weights(data, path)


_SHIPPED: list[FittedWeights] = []
_LOADED: list[FittedWeights] = []  # weights files read in this process, by index
_PATHS: dict[str, int] = {}


def shipped_weights() -> FittedWeights:
    """The shipped weights, read once per process."""
    if not _SHIPPED:
        _SHIPPED.append(load_weights())
    return _SHIPPED[0]


def weights_index(path: str) -> int:
    """The index (for :attr:`policy.Style.fitted_weights`) of the weights in ``path``, read
    once per process; -1 for the shipped weights (``path`` empty)."""
    if not path:
        shipped_weights()
        return -1
    index = _PATHS.get(path)
    if index is None:
        _LOADED.append(load_weights(path))
        index = len(_LOADED) - 1
        _PATHS[path] = index
    return index


def weights_at(index: int) -> FittedWeights:
    """The weights of :func:`weights_index` (-1: the shipped ones)."""
    return shipped_weights() if index < 0 else _LOADED[index]


def _few(cards: int) -> int:
    count = 0
    while cards and count < 5:
        cards &= cards - 1
        count += 1
    return count


def _weakest_in(hand: int, revolution: bool) -> int:
    """The strength of the weakest natural card of ``hand`` (13 with none)."""
    low = 13
    for rank in range(NUM_RANKS):
        if (hand >> (rank << 2)) & 15:
            strength = policy.rank_strength(rank, revolution)
            if strength < low:
                low = strength
    return low


def _is_control(rank: int, count: int, revolution: bool, style: policy.Style) -> bool:
    return bool(style.ruleset.control_ranks(revolution) >> rank & 1) or (
        style.revolution_rule and count == 4
    )


def features(
    move: int,
    hand: int,
    top: int | None,
    top_count: int,
    revolution: bool,
    style: policy.Style,
    others: int,
    widest: int,
    fewest: int,
    rules_move: int,
) -> list[float]:
    """The features of ``move`` (see :data:`FEATURES`): ``hand`` is the seat's, ``top`` the play
    on top (None on lead) whose player holds ``top_count`` cards, ``others`` the cards the other
    seats hold together, ``widest`` and ``fewest`` the largest and smallest of their hand sizes
    (counted up to 5), ``rules_move`` the rules of thumb's choice."""
    out = [0.0] * COUNT
    size = hand.bit_count()
    small = size <= SMALL
    if move == rules_move:
        out[0] = 1.0
    counts = policy.rank_nibble_counts(others)
    other_jokers = NIBBLE_COUNT[(others >> 52) & 3]
    if move == rules_move:
        if small:
            out[24] = 1.0
        if move == PASS:
            out[29] = 1.0
        if top is None:
            out[30] = 1.0
        if size > 8:
            out[31] = 1.0
    top_strength = 0.0
    if top is not None:
        top_strength = play_strength(top, revolution) / 13.0
    if move == PASS:
        out[1] = 1.0
        if top is not None:
            info = play_info(top)
            out[2] = info.size / 4.0
            out[5] = top_strength
        if top_count == 1:
            out[3] = 1.0
        elif top_count == 2:
            out[4] = 1.0
        if small:
            out[25] = 1.0
        rest = hand
    else:
        cards = move & CARDS_MASK
        info = play_info(move)
        used = cards.bit_count()
        strength = play_strength(move, revolution) / 13.0
        out[7] = strength
        if top is None:
            out[8] = strength
            if weakest_card_strength(move, revolution) == _weakest_in(hand, revolution):
                out[6] = 1.0
        out[9] = used / size if size else 0.0
        out[10] = used / 4.0
        hand_counts = policy.rank_counts(hand)
        if policy._breaks(move, hand_counts):
            out[11] = 1.0
        control = policy.is_control_play(move, revolution, style)
        if control:
            out[12] = 1.0
            out[33] = top_strength
        if top is not None and top_count <= 2:
            out[32] = 1.0
        out[13] = float((cards & JOKER_MASK).bit_count())
        clears = policy._keeps_lead(move, revolution, style)
        if clears:
            out[14] = 1.0
        unbeatable = clears
        if not unbeatable and not info.straight and not info.all_jokers:
            if used <= 4:
                unbeatable = policy._keeps(
                    info.rank,
                    used,
                    revolution,
                    style.ruleset,
                    style.ties_cover,
                    counts,
                    other_jokers,
                    widest,
                )
            else:
                unbeatable = widest < used
        if info.all_jokers and used > other_jokers and not style.ties_cover:
            unbeatable = True
        if unbeatable:
            out[15] = 1.0
        if cards == hand:
            out[16] = 1.0
        if fewest == 1:
            if used == 1 and not unbeatable:
                out[21] = 1.0
            elif used > 1:
                out[22] = 1.0
        if small:
            out[23] = strength
            if control:
                out[26] = 1.0
            if unbeatable:
                out[27] = 1.0
        if (
            style.revolution_rule
            and not info.straight
            and info.size == 4
            and not cards & JOKER_MASK
        ):
            out[28] = 1.0
            revolution = not revolution
        rest = hand & ~cards
    # What is left after the move (the order after a revolution).
    groups = 0
    weak = 0
    safe = 0
    low = 13
    for rank in range(NUM_RANKS):
        count = NIBBLE_COUNT[(rest >> (rank << 2)) & 15]
        if not count:
            continue
        groups += 1
        strength_left = policy.rank_strength(rank, revolution)
        if strength_left < low:
            low = strength_left
        if not _is_control(rank, count, revolution, style):
            weak += 1
        if policy._keeps(
            rank,
            count,
            revolution,
            style.ruleset,
            style.ties_cover,
            counts,
            other_jokers,
            widest,
        ):
            safe += 1
    if rest & JOKER_MASK:
        groups += 1
        safe += 1
    out[17] = groups / 5.0
    out[18] = weak / 5.0
    out[19] = safe / 5.0
    out[20] = low / 13.0
    return out


def candidates(round_: Round, style: policy.Style, rules_move: int) -> list[int]:
    """The moves the fitted policy chooses from: the legal ones, suit-equivalent plays merged
    when suits never matter (``rules_move`` kept as its choice's representative), the rules'
    choice first."""
    legal = round_.legal_moves()
    if len(legal) == 1:
        return legal
    if not style.fast_playouts:
        moves = [rules_move] + [m for m in legal if m != rules_move]
        return moves if rules_move in legal else legal
    # Suits never matter: one play per (rank, size, jokers), the rules' choice first.
    seen: set[int] = set()
    moves = []
    if rules_move in legal:
        moves.append(rules_move)
        seen.add(_shape(rules_move))
    for move in legal:
        key = _shape(move)
        if key not in seen:
            seen.add(key)
            moves.append(move)
    return moves


def _shape(move: int) -> int:
    """A key of a play that ignores suits: its rank, size and jokers (the pass: -1)."""
    if move == PASS:
        return -1
    info = play_info(move)
    return (info.rank * 8 + info.size) * 4 + ((move & JOKER_MASK).bit_count())


def position(round_: Round) -> tuple[int, int, int, int]:
    """(others' cards together, the widest and the smallest of their hands counted up to 5,
    the cards of the player on top counted up to 5) of the seat on turn."""
    seat = round_.turn
    held = round_.hands
    others = 0
    widest = 0
    fewest = 99
    for other in range(round_.players):
        if other != seat:
            cards = held[other]
            if cards:
                others |= cards
                count = _few(cards)
                if count > widest:
                    widest = count
                if count < fewest:
                    fewest = count
    top_count = _few(held[round_.last_seat]) if round_.last_move is not None else 0
    return others, widest, fewest, top_count


def choose(round_: Round, style: policy.Style, rules_move: int, weights: FittedWeights) -> int:
    """The fitted policy's move for the seat on turn (``rules_move``: the rules' choice):
    the best score, or with ``style.fitted_sample`` a draw from the softmax of the scores (a
    deterministic draw, from a hash of the position)."""
    moves = candidates(round_, style, rules_move)
    if len(moves) == 1:
        return moves[0]
    hand = round_.hands[round_.turn]
    others, widest, fewest, top_count = position(round_)
    top = round_.last_move
    revolution = round_.reversed_now
    w = weights.weights
    scores: list[float] = []
    best = 0
    best_score = -1e300
    for index in range(len(moves)):
        values = features(
            moves[index],
            hand,
            top,
            top_count,
            revolution,
            style,
            others,
            widest,
            fewest,
            rules_move,
        )
        score = 0.0
        for k in range(COUNT):
            value = values[k]
            if value != 0.0:
                score += w[k] * value
        scores.append(score)
        if score > best_score:
            best, best_score = index, score
    if not style.fitted_sample:
        return moves[best]
    temperature = weights.temperature
    total = 0.0
    shares: list[float] = []
    for score in scores:
        share = math.exp((score - best_score) / temperature)
        shares.append(share)
        total += share
    pick = _draw(round_, hand, others) * total
    for index in range(len(moves)):
        pick -= shares[index]
        if pick < 0.0:
            return moves[index]
    return moves[best]


def _draw(round_: Round, hand: int, others: int) -> float:
    """A number in [0, 1) from the position (the hands, the seat, the play on top): the same
    position always draws the same, so a playout stays a function of its deal and seed."""
    mixed = (hand * 0x9E3779B97F4A7C15 + others * 0xC2B2AE3D27D4EB4F) & 0xFFFFFFFFFFFFFFFF
    mixed ^= (round_.turn + 1) * 0x165667B19E3779F9 + (round_.last_move or 0)
    mixed &= 0xFFFFFFFFFFFFFFFF
    mixed ^= mixed >> 31
    mixed = (mixed * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    mixed ^= mixed >> 29
    return (mixed >> 11) / float(1 << 53)
