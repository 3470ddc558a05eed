"""Seats' views as JSON text, built fast: the same content as ``player_view(game,
seat).to_json()``, with the part every seat shares built once per change.

A change of the game is told to every seat. Most of a view is the same for all of them (the
rules, the trick, the round's history, counts, points…); only the seat number, its hand, its own
exchange and its legal moves differ. :class:`WireViews` keeps the history's JSON text as the round
goes (it only grows) and caches the text of each move, so a change costs a few small
serialisations instead of a full view per seat. The shared part is checked once by
:func:`cardverse.server.viewfilter.share` (it may hold only cards played this round, which every
seat sees); each seat's own part is checked by :func:`cardverse.server.viewfilter.render`.
A test compares the result with the engine's ``PlayerView.to_json()`` over many random games.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import PASS, Game, Rules, from_move
from ..engine.cards import card_name, cards_of
from ..engine.plays import CARDS_MASK, GIVE, hidden_give
from ..engine.views import public_view, seat_view
from .viewfilter import SeatView, Shared, share

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

_MOVE_TEXT: dict[tuple[int, int | None], str] = {}
_MOVE_CACHE_LIMIT = 50_000


def move_text(move: int, seat: int | None) -> str:
    """The JSON text of ``from_move(move, seat).to_json()`` (without seat when None)."""
    key = (move, seat)
    text = _MOVE_TEXT.get(key)
    if text is None:
        if len(_MOVE_TEXT) >= _MOVE_CACHE_LIMIT:
            _MOVE_TEXT.clear()
        action = from_move(move, seat)
        text = _dumps(action.to_json(with_seat=seat is not None))
        _MOVE_TEXT[key] = text
    return text


def _names_text(mask: int) -> str:
    return "[" + ",".join(f'"{card_name(c)}"' for c in cards_of(mask)) + "]"


class WireViews:
    """Builds the views of one table's game; keeps the current round's history text."""

    def __init__(self) -> None:
        self._round: object | None = None
        self._history: list[str] = []
        self._rules: Rules | None = None
        self._rules_text = ""
        self._checked = 0  # length of the shared text's prefix the filter already checked
        self._played = 0  # cards played in the history seen so far

    def _history_text(self, game: Game) -> tuple[str, str]:
        round_ = game.round
        if round_ is None:
            self._round = None
            self._history = []
            self._checked = 0
            self._played = 0
            return "[]", "[]"
        if round_ is not self._round:
            self._round = round_
            self._history = []
            self._checked = 0
            self._played = 0
        history = self._history
        entries = round_.history
        for trick, seat, move in entries[len(history) :]:
            if move & GIVE:  # a seven pass: every seat sees how many cards, not which (R39)
                body = move_text(hidden_give((move & CARDS_MASK).bit_count()), seat)
            else:
                body = move_text(move, seat)
                if move != PASS:
                    self._played |= move & CARDS_MASK
            history.append('{"trick":' + str(trick) + "," + body[1:])
        trick_text = "[" + ",".join(move_text(m, s) for s, m in round_.trick) + "]"
        return "[" + ",".join(history) + "]", trick_text

    def played(self, game: Game) -> int:
        """Every card played this round (as :func:`viewfilter.played_cards`), kept as it goes."""
        self._history_text(game)
        return self._played | (game.round.discarded if game.round is not None else 0)

    def shared(self, game: Game, played: int | None = None) -> Shared:
        """The part of every seat's view that is the same for all (checked by the filter)."""
        if game.rules is not self._rules:
            self._rules = game.rules
            self._rules_text = _dumps(game.rules.to_dict())
        history, trick = self._history_text(game)
        # Everything else of the public part comes from the engine's one description of it.
        rest = _dumps(public_view(game, history=False).to_json(history=False))
        # The history comes first: it only grows during a round, so the filter checks only
        # what was added since the last change.
        text = (
            '"history":'
            + history
            + ',"trick":'
            + trick
            + ',"rules":'
            + self._rules_text
            + ","
            + rest[1:-1]
        )
        shared = share(text, game, played, skip=self._checked)
        if shared.ok:
            self._checked = len(history) + len('"history":') - 1  # up to the closing bracket
        return shared

    def seat_view(self, game: Game, seat: int, shared: Shared) -> SeatView:
        """Seat ``seat``'s view: its own part plus the shared one."""
        exchange: list[dict[str, Any]] = []
        automatic = len(game.pairs)
        for index, (giver, receiver, cards) in enumerate(game.exchange_log):
            if seat in (giver, receiver):
                exchange.append(
                    {
                        "giver": giver,
                        "receiver": receiver,
                        "cards": [card_name(c) for c in cards_of(cards)],
                        "automatic": index < automatic,
                    }
                )
        if game.turn == seat:
            legal = "[" + ",".join(move_text(m, None) for m in game.legal_moves()) + "]"
        else:
            legal = "[]"
        gives = "[]"
        if game.round is not None and game.round.give_receivers:
            gives = _dumps(seat_view(game, seat).to_json()["gives"])
        own = (
            '"seat":'
            + str(seat)
            + ',"hand":'
            + _names_text(game.hand(seat))
            + ',"exchange":'
            + (_dumps(exchange) if exchange else "[]")
            + ',"gives":'
            + gives
            + ',"legal_moves":'
            + legal
        )
        return SeatView(own, shared)
