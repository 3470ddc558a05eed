"""The replay viewer: a game record (notation.md) turned into every step of the game, face up.

The page ``/t/{table_id}/replay/{game}`` (``static/js/replay.js`` draws it) reads the finished
game's record exactly as it is downloaded (``GET /api/tables/{id}/records/{game}``), or a record
file the person picks from disk, and posts it to ``POST /replay``. That endpoint checks the
record with the engine (:func:`cardverse.notation.replay_record`: a malformed record or an action
the rules refuse is answered 400 with what is wrong, in the person's language) and answers with
:func:`replay_steps`: one step per deal, automatic gifts, give-back and action, each with every
hand, the pile, whose turn it is and the events of the live table (the same sentences as its
"What happened"), plus an index of rounds and tricks and the score sheet.

A game being played has no record to download (the server keeps it for finished games only), so
a replay never shows the hands of a game in progress.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..engine import Action, Game, Phase, from_move, mask_names, to_move
from ..notation import IllegalRecordAction, NotationError, replay_record
from ..tabletalk.narrate import protocol_events
from ..tabletalk.story import final_titles, score_sheet
from .i18n import N_, Translator
from .messages import refusal_text

MAX_RECORD_BYTES = 1 << 20  # the longest game (8 players, 20 rounds) has a record of ~110 KB
REPLAYS_BURST = 6  # replays one address may ask for at once ...
REPLAYS_PER_SECOND = 6 / 60  # ... and then this many a second
REPLAYS_AT_ONCE = 2  # replays being made at the same moment, for everyone together
READS_PER_ADDRESS = 2  # record bodies being received from one address at the same moment
READ_SECONDS = 8.0  # a record body must arrive within this (before the 10 s request time-out)

BAD_RECORD = N_("This file is not a game record that CardVerse can read.")
ILLEGAL_RECORD = N_(
    "This record holds an action the rules do not allow (round %(round)s, seat %(seat)s): "
    "%(reason)s"
)
TOO_LARGE = N_("This file is too large to be a game record.")
TOO_MANY = N_("Too many replays were asked for from here: wait a minute, then try again.")
TOO_SLOW = N_("The file took too long to arrive: try again.")


class ReplayLimits:
    """Replaying the longest game takes about half a second of CPU, off the event loop: an
    address may ask for :data:`REPLAYS_BURST` at once and then one every 10 seconds, and at
    most :data:`REPLAYS_AT_ONCE` are made at the same time.

    The record is received first (at most :data:`READS_PER_ADDRESS` at once from one address,
    each within :data:`READ_SECONDS`), holding neither the address's replays nor a slot: a
    slot is taken, with one of the address's replays, only once the whole record is here, and
    held while the replay is made, so a client that sends its record slowly keeps nobody
    else waiting."""

    def __init__(self) -> None:
        self.addresses: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)
        self.running = 0
        self.reading: dict[str, int] = {}  # address -> bodies being received

    def _tokens(self, address: str, now: float) -> float:
        tokens, last = self.addresses.get(address, (float(REPLAYS_BURST), now))
        return min(float(REPLAYS_BURST), tokens + (now - last) * REPLAYS_PER_SECOND)

    def may_send(self, address: str) -> bool:
        """Whether a record may be received from this address now (it has a replay left and
        is not sending too many at once); takes nothing but a reading place
        (:meth:`done_reading` gives it back)."""
        if self._tokens(address, time.monotonic()) < 1.0:
            return False
        if self.reading.get(address, 0) >= READS_PER_ADDRESS:
            return False
        self.reading[address] = self.reading.get(address, 0) + 1
        return True

    def done_reading(self, address: str) -> None:
        left = self.reading.get(address, 0) - 1
        if left > 0:
            self.reading[address] = left
        else:
            self.reading.pop(address, None)

    def take(self, address: str) -> bool:
        """One of the address's replays and a slot (give the slot back by lowering
        :attr:`running`); False when either is missing."""
        now = time.monotonic()
        tokens = self._tokens(address, now)
        if tokens < 1.0 or self.running >= REPLAYS_AT_ONCE:
            self.addresses[address] = (tokens, now)
            return False
        if len(self.addresses) > 100_000:
            self.addresses.clear()
        self.addresses[address] = (tokens - 1.0, now)
        self.running += 1
        return True


LIMITS = ReplayLimits()


def _public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with their private parts told: after the game nothing is hidden."""
    out = []
    for event in events:
        private = event.get("_private")
        if private is None:
            out.append(event)
            continue
        told = {k: v for k, v in event.items() if k != "_private"}
        told.update({k: v for k, v in private.items() if k != "seats"})
        out.append(told)
    return out


def _pile(game: Game) -> list[dict[str, Any]]:
    """The trick on the table (at a round's end, as the last play left it)."""
    if game.phase is Phase.EXCHANGE or game.round is None:
        return []
    return [from_move(move, seat).to_json() for seat, move in game.round.trick]


def _step(
    game: Game,
    number: int,
    trick: int,
    kind: str,
    action: dict[str, Any] | None,
    events: list[dict[str, Any]],
    hands: list[int] | None = None,
) -> dict[str, Any]:
    finished: list[int] = []
    if game.round is not None and game.phase is not Phase.EXCHANGE:
        finished = list(game.round.order())
    in_play = game.phase is Phase.PLAY
    revolution = game.revolution if in_play else False
    reversed_order = bool(game.round is not None and game.round.reversed_order and in_play)
    return {
        "round": number,
        "trick": trick,
        "kind": kind,  # deal, gifts, give_back, action
        "action": action,
        "events": _public(events),
        "hands": [mask_names(h) for h in (hands if hands is not None else game.hands)],
        "pile": _pile(game),
        "turn": game.turn,
        "revolution": revolution,
        "reversed_order": reversed_order,  # the order in force (R15, R32)
        "finished": finished,
        "points": list(game.points),
    }


def replay_steps(data: Any) -> dict[str, Any]:
    """Every step of the game of record ``data``, with every hand face up (see the module).

    Raises :class:`NotationError` or :class:`IllegalRecordAction` for a record the engine
    refuses."""
    checked = replay_record(data)  # the whole record is checked before anything is shown
    done = checked.game
    logs = list(done.past_rounds)
    if len(logs) < done.round_number:  # a game that ended in the middle of a round
        history = list(done.round.history) if done.round is not None else []
        logs.append((list(done.exchange_log), history))
    steps: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    game: Game | None = None
    for number, (deal, (exchange, history)) in enumerate(zip(done.deals, logs, strict=True), 1):
        gifts = {giver: cards for giver, _, cards in exchange}  # the engine takes the gifts'
        if game is None:
            game = Game(done.rules, seed=0, hands=list(deal))
            started = game.first_events
        else:
            started = game.start_next_round(list(deal), gifts)
        del started  # the round's start is told as the live table tells it:
        opening: list[dict[str, Any]] = [
            {
                "event": "round_started",
                "round": number,
                "leader": game.leader,
                "exchange": game.phase is Phase.EXCHANGE,
            }
        ]
        if number == 1:
            opening.insert(0, {"event": "game_started", "game": 1})
        entry: dict[str, Any] = {"round": number, "first": len(steps), "tricks": []}
        rounds.append(entry)
        steps.append(_step(game, number, 0, "deal", None, opening, hands=list(deal)))
        gift_events: list[dict[str, Any]] = [
            {
                "event": "gift",
                "seat": giver,
                "to": receiver,
                "count": cards.bit_count(),
                "cards": mask_names(cards),
            }
            for giver, receiver, cards in game.exchange_log[: len(game.pairs)]
        ]
        if gift_events:
            if game.phase is Phase.PLAY:  # nobody had anything to give back
                gift_events.append({"event": "exchange_done", "leader": game.leader})
            steps.append(_step(game, number, 0, "gifts", None, gift_events))
        for giver, _, cards in exchange[len(game.pairs) :]:
            names = mask_names(cards)
            action: dict[str, Any] = {"seat": giver, "action": "give", "cards": names}
            events = protocol_events(
                game.apply(to_move(Action("give", tuple(names))), giver), game.rules.players
            )
            if game.phase is Phase.PLAY:
                events.append({"event": "exchange_done", "leader": game.leader})
            steps.append(_step(game, number, 0, "give_back", action, events))
        for trick, seat, move in history:
            action = from_move(move, seat).to_json()
            if trick + 1 > len(entry["tricks"]):
                entry["tricks"].append(len(steps))
            events = protocol_events(game.apply(move, seat), game.rules.players)
            steps.append(_step(game, number, trick + 1, "action", action, events))
    assert game is not None
    if done.over:
        places, titles = final_titles(list(done.points))
        steps[-1]["events"].append(
            {
                "event": "game_over",
                "game": 1,
                "points": list(done.points),
                "standings": places,
                "titles": titles,
            }
        )
    return {
        "players": checked.players,
        "rules": done.rules.to_dict(),
        "over": done.over,
        "rounds": rounds,
        "steps": steps,
        "score": score_sheet(done),
    }


def replay_answer(body: bytes, t: Translator) -> tuple[dict[str, Any], int]:
    """The answer of ``POST /replay`` to a record's text: (JSON, HTTP status)."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return refused(t.gettext(BAD_RECORD), "the file is not JSON text")
    try:
        return replay_steps(data), 200
    except NotationError as error:
        return refused(t.gettext(BAD_RECORD), str(error))
    except IllegalRecordAction as error:
        refusal = error.refusal
        reason = refusal_text(refusal.code, refusal.params, t)
        seat = "?" if error.seat is None else str(error.seat + 1)
        text = t.gettext(ILLEGAL_RECORD, round=error.round, seat=seat, reason=reason)
        return refused(text, str(error), rule=refusal.rule)


def refused(text: str, detail: str, status: int = 400, **extra: Any) -> tuple[dict[str, Any], int]:
    """A record that cannot be shown: ``text`` for the person, ``detail`` for a developer."""
    return {"error": "bad_record", "text": text, "detail": detail[:500], **extra}, status
