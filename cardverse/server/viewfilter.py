"""The one view filter: every message the server sends to a connection passes through
:func:`render` (rules R26, R27).

It does two things:

1. It resolves the private parts of a message. An event may carry ``"_private": {"seats":
   [a, b], "cards": [...]}``: only seats ``a`` and ``b`` (the two seats of an exchange pair) get
   those fields; everyone else gets the event without them.
2. It checks the text that will go on the wire: every card string in it must be one the seat may
   see now: its own hand and deal this round, the cards that passed between it and its exchange
   partner, and every card played this round (plus, in a reply to the seat's own message, the
   cards that message named). A message that fails is not sent; an ``internal`` error goes
   instead, and the failure is counted in :data:`STATS` and logged. A connection holding no
   seat (a spectator) may see only the cards played this round.

A state message's view is built by :mod:`cardverse.server.wire` as the engine's
``player_view(game, seat).to_json()`` would be, in two parts (a :class:`SeatView`): the seat's own
part, checked here for that seat like any message, and the part all seats share (rules, trick,
history, counts…), built once per change and checked once by :func:`share` against the cards
played this round, the only cards every seat may see. Both checks go through this module; the
views hold only what a seat may see by construction, and this filter is the last line that makes
the promise hold whatever a future message carries.

A ``change`` message (what changed since the last state a connection holds) is made of parts
in the same way (:func:`render_parts`): the members every recipient shares (the events without
private cards, the public view fields that changed), checked once by :func:`share`, and the
parts of one recipient (its own view fields that changed, events resolved for it), checked here
for that recipient.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, NamedTuple

from ..engine import Game
from ..engine.cards import card_name
from ..engine.plays import CARDS_MASK, GIVE, PASS
from .jsontext import compact

log = logging.getLogger("cardverse.server.viewfilter")

# Card strings as they appear in JSON text: "7H", "10S", "RJ", "BJ".
_CARD_TEXT = re.compile(r'"(?:10|[2-9JQKA])[CDHS]"|"[RB]J"')
_CARD_INDEX: dict[str, int] = {f'"{card_name(c)}"': c for c in range(54)}
_FREE_TEXT_KEYS = frozenset({"name", "message"})  # people's names and English text
#: the keys of a play's ``jokers`` map: the value under one is what that joker stands for (a
#: rank, or under R44 a card such as "7H" naming a suit), a declaration, not a card shown
_JOKER_KEYS = frozenset({"RJ", "BJ"})

STATS: dict[str, int] = {"messages": 0, "violations": 0}

_dumps = compact
_WITHHELD = _dumps(
    {
        "type": "error",
        "code": "internal",
        "message": "the server withheld a message it may not send you",
        "params": {},
    }
)


def played_cards(game: Game | None) -> int:
    """Every card played or discarded in the current round (public to every seat, R39)."""
    if game is None or game.round is None:
        return 0
    mask = game.round.discarded
    for _, _, move in game.round.history:
        if move != PASS and not move & GIVE:
            mask |= move
    return mask & CARDS_MASK


def visible_cards(game: Game | None, seat: int | None, played: int | None = None) -> int:
    """The cards seat ``seat`` may see now (R26): own deal and hand, own exchange, played.
    No seat (a spectator): only the cards played this round."""
    if game is None:
        return 0
    mask = played_cards(game) if played is None else played
    if seat is None:
        return mask
    if game.deals:
        mask |= game.deals[-1][seat]
    mask |= game.hand(seat)
    for giver, receiver, cards in game.exchange_log:
        if seat in (giver, receiver):
            mask |= cards
    round_ = game.round
    if round_ is not None:
        for index, receiver in round_.give_receivers:  # a seven pass: its two seats (R36)
            _, giver, move = round_.history[index]
            if seat in (giver, receiver):
                mask |= move & CARDS_MASK
    return mask


class Shared(NamedTuple):
    """JSON object members (no braces) that every seat may receive; made by :func:`share`.
    (Named tuples: made several times per change, cheaper than frozen dataclasses.)"""

    text: str
    ok: bool


class SeatView(NamedTuple):
    """A view in two parts: ``own`` (JSON object members for one seat) and the shared part."""

    own: str
    shared: Shared


def share(text: str, game: Game | None, played: int | None = None, skip: int = 0) -> Shared:
    """Check once that ``text`` holds no card but those played this round (seen by all).

    ``skip``: a prefix of ``text`` that an earlier call checked in this round (the history so
    far; what was played stays played until the round ends).
    """
    public = played_cards(game) if played is None else played
    for match in _CARD_TEXT.finditer(text, skip):
        if not public >> _CARD_INDEX[match.group()] & 1:
            found: list[str] = []
            _cards_in(json.loads("{" + text + "}"), found)
            bad = [c for c in found if not public >> _CARD_INDEX[f'"{c}"'] & 1]
            if bad:
                STATS["violations"] += 1
                log.error("view filter stopped a shared view part holding %s", bad)
                return Shared(text, False)
            break
    return Shared(text, True)


def render_parts(
    head: Shared | str,
    own: str,
    view: Shared,
    seat: int | None,
    game: Game | None,
    played: int | None = None,
) -> str:
    """The JSON text ``{head,"view":{own,view}}`` as seat ``seat`` may receive it.

    ``head`` holds the message's members before its view: a :class:`Shared` part (checked once
    for every recipient by :func:`share`) or text made for this recipient alone, checked here
    with ``own`` (the recipient's own view members) against what ``seat`` may see."""
    STATS["messages"] += 1
    if not view.ok or (isinstance(head, Shared) and not head.ok):
        return _WITHHELD
    if isinstance(head, Shared):
        head_text, mine = head.text, own
    else:
        head_text, mine = head, head + ("," + own if own else "")
    allowed: int | None = None
    for match in _CARD_TEXT.finditer(mine):
        if allowed is None:
            allowed = visible_cards(game, seat, played)
        if not allowed >> _CARD_INDEX[match.group()] & 1:
            bad = forbidden_cards(json.loads("{" + mine + "}"), allowed)
            if bad:
                STATS["violations"] += 1
                log.error("view filter stopped a change to seat %s holding %s", seat, bad)
                return _WITHHELD
            break  # the hit was inside free text
    comma = "," if own and view.text else ""
    return "{" + head_text + ',"view":{' + own + comma + view.text + "}}"


def resolve_private(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """``events`` as seat ``seat`` may receive them (private parts resolved)."""
    return _resolve_private({"events": events}, seat)["events"]  # type: ignore[no-any-return]


def _resolve_private(message: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """Resolve the private parts of the events of ``events`` and of ``log`` (the round's
    events sent again with a full state)."""
    for key in ("events", "log"):
        events = message.get(key)
        if not events or not any("_private" in e for e in events):
            continue
        resolved = []
        for event in events:
            private = event.get("_private")
            if private is None:
                resolved.append(event)
                continue
            public = {k: v for k, v in event.items() if k != "_private"}
            if seat is not None and seat in private["seats"]:
                public.update({k: v for k, v in private.items() if k != "seats"})
            resolved.append(public)
        message = {**message, key: resolved}
    return message


def _cards_in(value: Any, found: list[str]) -> None:
    """Card strings in a JSON value, outside the free-text fields (names, messages) and the
    joker declarations of a play (``"jokers": {"RJ": "7H"}``: the card a joker stands for)."""
    if isinstance(value, str):
        if f'"{value}"' in _CARD_INDEX:
            found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _cards_in(key, found)
            if key not in _FREE_TEXT_KEYS and key not in _JOKER_KEYS:
                _cards_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _cards_in(item, found)


def named_cards(value: Any) -> int:
    """The cards a client's own message names anywhere (its strings and keys, at any depth):
    an answer to that client may repeat them, since they are its own words. The walk keeps
    its own stack (the message's nesting is bounded before, but need not be)."""
    mask = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            card = _CARD_INDEX.get(f'"{item}"') if len(item) <= 3 else None
            if card is not None:
                mask |= 1 << card
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return mask


def forbidden_cards(message: dict[str, Any], allowed: int) -> list[str]:
    """Card strings in ``message`` (outside free text) that are not in ``allowed``."""
    found: list[str] = []
    _cards_in(message, found)
    return [c for c in found if not allowed >> _CARD_INDEX[f'"{c}"'] & 1]


def render(
    message: dict[str, Any],
    seat: int | None,
    game: Game | None,
    *,
    played: int | None = None,
    echo: int = 0,
) -> str:
    """The JSON text of ``message`` as seat ``seat`` (None: no seat) may receive it.

    ``played`` may pass :func:`played_cards` computed once for several seats; ``echo`` holds the
    cards named by the client message this one answers.
    """
    STATS["messages"] += 1
    message = _resolve_private(message, seat)
    view = message.get("view")
    if isinstance(view, SeatView):
        if not view.shared.ok:
            return _WITHHELD
        head = _dumps({k: v for k, v in message.items() if k != "view"})
        checked = head + view.own
        text = head[:-1] + ',"view":{' + view.own + "," + view.shared.text + "}}"
    else:
        text = checked = _dumps(message)
    allowed: int | None = None
    for match in _CARD_TEXT.finditer(checked):
        if allowed is None:
            allowed = visible_cards(game, seat, played) | echo
        if not allowed >> _CARD_INDEX[match.group()] & 1:
            bad = forbidden_cards(json.loads(text), allowed)
            if bad:
                STATS["violations"] += 1
                log.error(
                    "view filter stopped a %s message to seat %s holding %s",
                    message.get("type"),
                    seat,
                    bad,
                )
                return _WITHHELD
            break  # the hit was inside free text (a name such as "AS")
    return text
