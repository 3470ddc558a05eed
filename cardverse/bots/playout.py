"""The hard bot's playouts (R30): a sampled deal finished by every seat with the heuristic policy.

After the move searched, every seat plays :mod:`cardverse.bots.policy`'s rules of thumb (the fast
rank-count path where the rules declare it legal), as the normal bot would, with what normal
does before its rules of thumb: a seat that has a finishing line plays it
(:func:`policy.fast_finish`, and :func:`endgame.sure_win` for small hands off the fast path).
A playout is worth the points of the place the searching seat reaches (R22).

Per-seat opponent models (``models``, ids of :mod:`.models`): a seat the inference judged to play
otherwise (lowest, highest, structure-keeping) is played by that model instead of the policy.
"""

from __future__ import annotations

from typing import Final

import cardverse.bots.fitted as fitted
import cardverse.bots.policy as policy

from ..engine.cards import JOKER_MASK, card_count
from ..engine.plays import DISCARD
from ..engine.rounds import Round
from .endgame import sure_win
from .models import SENSIBLE, model_move

FINISH_HAND: Final = 10  # hand size from which a seat looks for a finishing line (as normal does)
SURE_WIN_HAND: Final = 6  # off the fast path, the general search only for hands this small


def play_out(
    template: Round,
    hands: list[int],
    first: int,
    me: int,
    style: policy.Style,
    strict: bool,
    models: tuple[int, ...] | None = None,
) -> int:
    """Play ``first`` for ``me``, then finish the round; the points ``me`` earns (R22).

    With ``strict``, every action goes through the referee's check (an illegal one raises).
    ``models``: per seat, the opponent model (:mod:`.models`) that plays it (see
    :func:`next_move`); None: the policy plays every seat.
    """
    round_ = template.playout(hands)  # keeps no history: a playout never reads it
    # Direct calls, no bound methods or functions kept in locals: compiled (mypyc), a direct
    # call is a C call, a call through a local a Python one.
    if strict:
        round_.apply(first)
    else:
        round_.apply_unchecked(first)
    held = round_.hands
    fast = style.fast_playouts
    finish = style.plain
    while round_.turn >= 0 and held[me]:
        if models is not None and models[round_.turn] != SENSIBLE:
            move = model_move(round_, models[round_.turn])
        else:
            move = _next_move(round_, style, fast, finish)
        if strict:
            round_.apply(move)
        else:
            round_.apply_unchecked(move)
    return round_.players - round_.places.index(me)  # R22: the place ``me`` took


def next_move(round_: Round, style: policy.Style, models: tuple[int, ...] | None = None) -> int:
    """The playout policy's action for the seat on turn; with ``models`` (per seat, an opponent
    model of :mod:`.models`), a seat whose model is not the policy's is played by that model.
    The searching seat's own entry should be ``SENSIBLE``."""
    if models is not None and models[round_.turn] != SENSIBLE:
        return model_move(round_, models[round_.turn])
    return _next_move(round_, style, style.fast_playouts, style.plain)


def _few(cards: int) -> int:
    """How many cards a hand holds, counted up to 5 only: the policy asks of the others' hand
    sizes only whether they are below a set's size (1 to 4) or 1 or 2 cards, and a few steps of
    clearing the lowest card are cheaper than counting every card."""
    count = 0
    while cards and count < 5:
        cards &= cards - 1
        count += 1
    return count


def _next_move(round_: Round, style: policy.Style, fast_rules: bool, finish: bool) -> int:
    """:func:`next_move`, with the options it reads at every action taken out of ``style``
    (``fast_rules``: the fast path is legal; ``finish``: look for finishing lines). A seat that
    ``style`` gives to the fitted policy (:attr:`policy.Style.fitted_seat`, with few enough
    cards) plays a finishing line when it has one, else the fitted policy's choice, which reads
    the rules of thumb's own choice as one of its features."""
    fitted_seat = style.fitted_seat
    if fitted_seat != -1 and round_.owed is None:
        seat = round_.turn
        if (fitted_seat == -2 or fitted_seat == seat) and card_count(
            round_.hands[seat]
        ) <= style.fitted_hand:
            if finish:
                line = _finishing_line(round_, style, fast_rules)
                if line >= 0:
                    return line
            rules_move = _rules_move(round_, style, fast_rules, False)
            return fitted.choose(round_, style, rules_move, fitted.weights_at(style.fitted_weights))
    return _rules_move(round_, style, fast_rules, finish)


def _finishing_line(round_: Round, style: policy.Style, fast_rules: bool) -> int:
    """The first play of the seat on turn's finishing line, as the rules of thumb look for it
    (see :func:`_rules_move`), or -1."""
    seat = round_.turn
    held = round_.hands
    hand = held[seat]
    fast = fast_rules and not hand & JOKER_MASK
    size = card_count(hand)
    if size > FINISH_HAND or not (fast or size <= SURE_WIN_HAND):
        return -1
    players = round_.players
    others = 0
    widest = 0
    for other in range(players):
        if other != seat:
            cards = held[other]
            if cards:
                others |= cards
                count = _few(cards)
                if count > widest:
                    widest = count
    if fast:
        return policy.fast_finish(
            hand, round_.last_move, round_.reversed_now, style, others, widest
        )
    won = sure_win(
        round_.rules,
        hand,
        round_.legal_moves(),
        round_.last_move,
        round_.reversed_now,
        others,
        budget=200,
        holders=[(others, 0, card_count(held[o])) for o in range(players) if o != seat and held[o]],
    )
    return -1 if won is None else won


def _rules_move(round_: Round, style: policy.Style, fast_rules: bool, finish: bool) -> int:
    """The rules of thumb's action (with ``finish``, a finishing line first)."""
    seat = round_.turn
    held = round_.hands
    hand = held[seat]
    last = round_.last_move
    reversed_order = round_.reversed_now
    if round_.owed is not None:
        legal = round_.legal_moves()
        if legal[0] & DISCARD:
            return policy.discard(hand, legal)
        return policy.give_back(hand, legal)
    players = round_.players
    fast = fast_rules and not hand & JOKER_MASK
    size = card_count(hand)
    fewest = -1  # the smallest of the others' hands, when counted
    if finish and size <= FINISH_HAND and (fast or size <= SURE_WIN_HAND):
        # The others' cards together and the widest of their hands (what a seat knows; sizes
        # counted up to 5, all that the finishing lines and the rules of thumb read of them).
        others = 0
        widest = 0
        fewest = 99
        for other in range(players):
            if other != seat:
                cards = held[other]
                if cards:
                    others |= cards
                    count = _few(cards)
                    if count > widest:
                        widest = count
                    if count < fewest:
                        fewest = count
        if fast:
            found = policy.fast_finish(hand, last, reversed_order, style, others, widest)
            if found >= 0:
                return found
        else:
            won = sure_win(
                round_.rules,
                hand,
                round_.legal_moves(),
                last,
                reversed_order,
                others,
                budget=200,
                holders=[
                    (others, 0, card_count(held[o]))
                    for o in range(players)
                    if o != seat and held[o]
                ],
            )
            if won is not None:
                return won
    if last is None:
        if fewest < 0:
            fewest = 99
            for other in range(players):
                if other != seat and held[other]:
                    count = _few(held[other])
                    if count < fewest:
                        fewest = count
        if fast:
            return policy.fast_lead(hand, reversed_order, style, fewest)
        return policy.lead_play(hand, round_.legal_moves(), reversed_order, style, fewest)
    last_count = _few(held[round_.last_seat])
    block = style.block_seat == seat or style.block_seat == -2
    if fast:
        return policy.fast_follow(hand, last, reversed_order, style, last_count, block)
    legal = round_.legal_moves()
    if len(legal) == 1:
        return legal[0]
    return policy.follow_play(hand, legal, reversed_order, style, last_count, last, block)
