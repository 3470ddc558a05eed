"""The hard bot's playouts (R30): a sampled deal finished by every seat with the heuristic policy.

After the move searched, every seat plays :mod:`cardverse.bots.policy`'s rules of thumb (the fast
rank-count path where the rules declare it legal), as the normal bot would, with what normal
does before its rules of thumb: a seat that has a finishing line plays it
(:func:`policy.fast_finish`, and :func:`endgame.sure_win` for small hands off the fast path).
A playout is worth the points of the place the searching seat reaches (R22).
"""

from __future__ import annotations

import os

from ..engine.cards import JOKER_MASK, card_count
from ..engine.order import strength
from ..engine.plays import DISCARD, PASS
from ..engine.rounds import Round
from . import policy
from .endgame import sure_win

FINISH_HAND = 10  # hand size from which a seat looks for a finishing line (as normal does)
SURE_WIN_HAND = 6  # off the fast path, the general search only for hands this small

_EXPERIMENT = os.environ.get("CARDVERSE_PLAYOUT_EXP", "finish")
FINISH = "finish" in _EXPERIMENT
STOP_ONE = "stop1" in _EXPERIMENT


def play_out(
    template: Round, hands: list[int], first: int, me: int, style: policy.Style, strict: bool
) -> int:
    """Play ``first`` for ``me``, then finish the round; the points ``me`` earns (R22).

    With ``strict``, every action goes through the referee's check (an illegal one raises).
    """
    round_ = template.playout(hands)  # keeps no history: a playout never reads it
    # Direct calls, no bound methods or functions kept in locals: compiled (mypyc), a direct
    # call is a C call, a call through a local a Python one.
    if strict:
        round_.apply(first)
    else:
        round_.apply_unchecked(first)
    held = round_.hands
    while round_.turn >= 0 and held[me]:
        move = next_move(round_, style)
        if strict:
            round_.apply(move)
        else:
            round_.apply_unchecked(move)
    return round_.players - round_.places.index(me)  # R22: the place ``me`` took


def next_move(round_: Round, style: policy.Style) -> int:
    """The playout policy's action for the seat on turn."""
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
    fast = style.fast_playouts and not hand & JOKER_MASK
    if FINISH and style.plain and card_count(hand) <= FINISH_HAND:
        others = 0
        widest = 0
        for other in range(players):
            if other != seat:
                cards = held[other]
                others |= cards
                count = card_count(cards)
                if count > widest:
                    widest = count
        if fast:
            found = policy.fast_finish(hand, last, reversed_order, style, others, widest)
            if found >= 0:
                return found
        elif card_count(hand) <= SURE_WIN_HAND:
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
        fewest = 99
        for other in range(players):
            if other != seat and held[other]:
                count = card_count(held[other])
                if count < fewest:
                    fewest = count
        if fast:
            return policy.fast_lead(hand, reversed_order, style, fewest)
        return policy.lead_play(hand, round_.legal_moves(), reversed_order, style, fewest)
    last_count = card_count(held[round_.last_seat])
    if fast:
        move = policy.fast_follow(hand, last, reversed_order, style, last_count)
        if move == PASS and STOP_ONE and last_count == 1:
            move = policy.fast_lowest_cover(hand, last, reversed_order, style)
        return move
    legal = round_.legal_moves()
    if len(legal) == 1:
        return legal[0]
    move = policy.follow_play(hand, legal, reversed_order, style, last_count, last)
    if move == PASS and STOP_ONE and last_count == 1:
        plays = [m for m in legal if m != PASS]
        if plays:
            move = min(plays, key=lambda m: strength(m, reversed_order))
    return move
