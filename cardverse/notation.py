"""Positions and game records in their JSON forms (notation.md): reading, writing, replaying.

Standard library only and no I/O: callers pass parsed JSON (dicts and lists) and get values back.
Malformed input raises :class:`NotationError` (the command line's exit status 2); an illegal action
in a record raises :class:`IllegalRecordAction` (exit status 1), naming the rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .engine import (
    Action,
    ActionFormatError,
    CardError,
    DealError,
    Game,
    IllegalAction,
    OptionsError,
    Phase,
    Refusal,
    Round,
    Rules,
    action_from_json,
    from_move,
    mask_names,
    parse_cards,
    rules_from_dict,
    to_move,
)
from .engine.cards import deck_mask
from .engine.parts import REPORTS
from .engine.plays import (
    CARDS_MASK,
    DISCARD,
    GIVE,
    PASS,
    STRAIGHT,
    play_info,
)
from .engine.positions import Known, PositionError, round_from_known
from .engine.reports import ReportValueError
from .engine.ruleset import ruleset_for

RECORD_FORMAT = "president-record/1"


class NotationError(ValueError):
    """Malformed input: it says what is wrong and where."""


@dataclass
class IllegalRecordAction(Exception):
    """The first illegal action of a record: where it is and which rule refused it."""

    round: int  # 1-based
    part: str  # "actions" or "exchange"
    index: int  # 0-based index in that list
    seat: int | None
    refusal: Refusal

    def __str__(self) -> str:
        seat = f"seat {self.seat}" if self.seat is not None else "no seat"
        return (
            f"illegal action in round {self.round}, {self.part} index {self.index} ({seat}): "
            f"{self.refusal.rule}: {self.refusal.message}"
        )


# -- shared readers ----------------------------------------------------------------------------


def _rules(data: Any, players_hint: int | None) -> Rules:
    if data is None:
        data = {"preset": "standard"}
    if not isinstance(data, dict):
        raise NotationError('"rules" must be a JSON object')
    if "players" not in data and players_hint is not None:
        data = {**data, "players": players_hint}
    try:
        return rules_from_dict(data)
    except OptionsError as error:
        raise NotationError(f"rules: {error}") from None


def _action(data: Any, where: str, need_seat: bool = True) -> Action:
    try:
        return action_from_json(data, need_seat=need_seat)
    except ActionFormatError as error:
        raise NotationError(f"{where}: {error}") from None


def _move(action: Action, where: str) -> int:
    try:
        return to_move(action)
    except ActionFormatError as error:  # pragma: no cover - action_from_json checked it
        raise NotationError(f"{where}: {error}") from None


def _seat(value: Any, players: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise NotationError(f"{where}: a seat must be a whole number from 0 to {players - 1}")
    return value


def _object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise NotationError(f"a {what} must be a JSON object")
    return data


def sorted_moves(moves: list[int]) -> list[int]:
    """Moves in a readable order: sets by size then rank, straights, gives, the pass last."""

    def key(move: int) -> tuple[int, int, int, int, int]:
        if move == PASS:
            return (9, 0, 0, 0, 0)
        if move & (GIVE | DISCARD):
            return (5, 0, 0, 0, move)
        info = play_info(move)
        return (2 if info.straight else 1, info.size, info.bottom, info.rank, move)

    return sorted(moves, key=key)


# -- positions ---------------------------------------------------------------------------------


@dataclass
class Position:
    """A round at one moment (notation.md): rules, hands (None where only a count is known)."""

    rules: Rules
    hands: list[int | None]
    counts: list[int]
    round: Round

    @property
    def turn(self) -> int:
        return self.round.turn

    def legal_moves(self) -> list[int]:
        return self.round.legal_moves()


POSITION_KEYS = frozenset(
    {
        "rules",
        "hands",
        "trick",
        "turn",
        "revolution",
        "finished",
        "owed",
        "out_of_play",
        "from_bottom",
        "previous_president",
        # the parts' trick state (a jack back, a lock): each under its report's name
        *(report.name for report in REPORTS),
    }
)


def read_position(data: Any) -> Position:
    """Read a position; raises :class:`NotationError` when it is malformed or inconsistent.

    This only reads: the round itself comes from the engine's :func:`round_from_known`, which
    replays the trick through the rules of the table's parts.
    """
    data = _object(data, "position")
    unknown = sorted(set(data) - POSITION_KEYS)
    if unknown:
        raise NotationError(f"unknown key {unknown[0]!r} in the position")
    raw_hands = data.get("hands")
    if not isinstance(raw_hands, list) or not raw_hands:
        raise NotationError('"hands" must be a list with one hand per seat')
    rules = _rules(data.get("rules"), len(raw_hands))
    players = rules.players
    if len(raw_hands) != players:
        raise NotationError(
            f"the rules are for {players} players but {len(raw_hands)} hands are given"
        )
    allowed = deck_mask(rules.jokers)
    deck = rules.deck_size
    seen = 0
    hands: list[int | None] = []
    counts: list[int] = []
    # Sizes are checked before anything is built from them: a count sizes a bit set.
    for seat, raw in enumerate(raw_hands):
        if isinstance(raw, dict):
            count = _count(raw, f"hand of seat {seat}: a hidden hand")
            if count > deck:
                raise NotationError(
                    f"hand of seat {seat}: {count} hidden cards, more cards than the deck's {deck}"
                )
            hands.append(None)
            counts.append(count)
            continue
        try:
            hand = parse_cards(raw)
        except CardError as error:
            raise NotationError(f"hand of seat {seat}: {error}") from None
        seen = _place(hand, seen, allowed, f"hand of seat {seat}")
        hands.append(hand)
        counts.append(hand.bit_count())
    revolution = _flag(data, "revolution")
    finished = _seats(data.get("finished", []), players, "finished")
    from_bottom = _seats(data.get("from_bottom", []), players, "from_bottom")
    out_of_play: dict[int, int] = {}
    raw_out = data.get("out_of_play", {})
    if not isinstance(raw_out, dict):
        raise NotationError('"out_of_play" must map seats to {"count": N}')
    for key, value in raw_out.items():
        number = int(key) if isinstance(key, str) and key.isdigit() else key
        seat = _seat(number, players, "out_of_play")
        out_of_play[seat] = _count(value, f"out_of_play of seat {seat}")
        if out_of_play[seat] > deck:
            raise NotationError(f"out_of_play of seat {seat}: more cards than the deck's {deck}")
    turn = _seat(data.get("turn"), players, "turn")
    if hands[turn] is None:
        raise NotationError(f"the hand of seat {turn}, on turn, must be listed card by card")
    trick_raw = data.get("trick") or []
    if not isinstance(trick_raw, list):
        raise NotationError('"trick" must be a list of actions')
    if len(trick_raw) > deck * players:
        raise NotationError(f'"trick" holds at most {deck * players} actions')
    hidden = sum(c for h, c in zip(hands, counts, strict=True) if h is None)
    if seen.bit_count() + hidden > deck:
        raise NotationError(f"the hands hold more cards than the deck's {deck}")
    trick: list[tuple[int, int]] = []
    for index, raw in enumerate(trick_raw):
        where = f"trick[{index}]"
        action = _action(raw, where)
        seat = _seat(action.seat, players, where)
        if action.kind in ("give", "discard"):
            raise NotationError(f"{where}: a trick holds plays and passes, not a {action.kind}")
        move = _move(action, where)
        if move != PASS:
            if move & STRAIGHT and not ruleset_for(rules).plays_straights:
                raise NotationError(f"{where}: straights are not played under these rules")
            seen = _place(move & CARDS_MASK, seen, allowed, where)
        trick.append((seat, move))
    hidden = sum(c for h, c in zip(hands, counts, strict=True) if h is None)
    if seen.bit_count() + hidden + sum(out_of_play.values()) > rules.deck_size:
        raise NotationError(
            f"the hands and the trick hold more cards than the deck's {rules.deck_size}"
        )
    reports: dict[str, int] = {}
    for report in REPORTS:
        if data.get(report.name) is not None:
            try:
                reports[report.name] = report.from_json(data[report.name])
            except ReportValueError as error:
                raise NotationError(str(error)) from None
    owed = _owed(data["owed"], players, turn) if data.get("owed") is not None else None
    previous = data.get("previous_president", -1)
    if previous != -1:
        previous = _seat(previous, players, "previous_president")
    known = Known(
        rules=rules,
        hands=hands,
        counts=counts,
        turn=turn,
        trick=trick,
        revolution=revolution,
        finished=finished,
        from_bottom=from_bottom,
        fallen=sorted(out_of_play),
        out_of_play=out_of_play,
        reports=reports,
        owed=owed,
        previous_president=previous,
    )
    try:
        round_ = round_from_known(known)
    except PositionError as error:
        raise NotationError(str(error)) from None
    return Position(rules=rules, hands=hands, counts=counts, round=round_)


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise NotationError(f'"{key}" must be true or false')
    return value


def _count(raw: Any, where: str) -> int:
    count = raw.get("count") if isinstance(raw, dict) else None
    if (
        not isinstance(raw, dict)
        or set(raw) != {"count"}
        or isinstance(count, bool)
        or not isinstance(count, int)
        or count < 0
    ):
        raise NotationError(f'{where} is {{"count": N}} with N from 0')
    return count


def _seats(raw: Any, players: int, where: str) -> list[int]:
    if not isinstance(raw, list):
        raise NotationError(f'"{where}" must be a list of seats')
    if len(raw) > players:
        raise NotationError(f'"{where}" lists at most the {players} seats')
    seats = [_seat(s, players, where) for s in raw]
    if len(set(seats)) != len(seats):
        raise NotationError(f"{where}: a seat is listed twice")
    return seats


def _owed(raw: Any, players: int, turn: int) -> tuple[str, int]:
    if not isinstance(raw, dict) or set(raw) - {"seat", "kind", "count"}:
        raise NotationError('"owed" is {"seat": S, "kind": "give" or "discard", "count": N}')
    seat = _seat(raw.get("seat"), players, "owed")
    kind = raw.get("kind")
    if kind not in ("give", "discard"):
        raise NotationError('owed: "kind" is "give" or "discard"')
    count = raw.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise NotationError('owed: "count" is a whole number from 1')
    if seat != turn:
        raise NotationError(f"seat {seat} owes a {kind}, so it is on turn, not seat {turn}")
    return str(kind), count


def _place(cards: int, seen: int, allowed: int, where: str) -> int:
    if cards & ~allowed:
        names = mask_names(cards & ~allowed)
        raise NotationError(f"{where}: {names[0]} is not in the deck of these rules")
    if cards & seen:
        raise NotationError(f"{where}: {mask_names(cards & seen)[0]} is in two places")
    return seen | cards


def position_to_json(round_: Round, rules: Rules, own_seat: int | None = None) -> dict[str, Any]:
    """Write a round's position; with ``own_seat``, other hands are given as counts."""
    hands: list[Any] = []
    for seat, hand in enumerate(round_.hands):
        if own_seat is None or seat == own_seat:
            hands.append(mask_names(hand))
        else:
            hands.append({"count": hand.bit_count()})
    out: dict[str, Any] = {
        "rules": rules.changed_options(),
        "hands": hands,
        "trick": [from_move(m, s).to_json() for s, m in round_.trick],
        "turn": round_.turn,
        "revolution": round_.revolution,
        "finished": list(round_.finished),
    }
    if round_.bottom_seats:
        out["from_bottom"] = list(round_.bottom_seats)
    if round_.fallen:
        out["out_of_play"] = {
            str(s): {"count": round_.out_of_play[s].bit_count()}
            for s in range(round_.players)
            if round_.fallen >> s & 1
        }
    if round_.previous_president >= 0 and ruleset_for(rules).reads_previous_president:
        out["previous_president"] = round_.previous_president
    out.update(_reports(rules, round_.marks))
    if round_.owed is not None:
        owed = round_.owed
        out["owed"] = {"seat": owed.seat, "kind": owed.owed, "count": owed.number}
    return out


# -- records -----------------------------------------------------------------------------------


@dataclass
class Replay:
    """The result of replaying a record: the game and the players' entries."""

    game: Game
    players: list[dict[str, Any]]


def replay_record(data: Any) -> Replay:
    """Replay a game record through the engine.

    Raises :class:`NotationError` when malformed and :class:`IllegalRecordAction` at the first
    action the rules refuse (or when a given ``result`` does not match).
    """
    data = _object(data, "record")
    unknown = sorted(set(data) - {"format", "rules", "players", "rounds", "result"})
    if unknown:
        raise NotationError(f"unknown key {unknown[0]!r} in the record")
    fmt = data.get("format", RECORD_FORMAT)
    if fmt != RECORD_FORMAT:
        raise NotationError(f"unknown record format {fmt!r}: expected {RECORD_FORMAT!r}")
    rounds_raw = data.get("rounds")
    if not isinstance(rounds_raw, list) or not rounds_raw:
        raise NotationError('"rounds" must be a non-empty list')
    players_raw = data.get("players")
    hint = None
    if isinstance(players_raw, list):
        hint = len(players_raw)
    elif isinstance(rounds_raw[0], dict) and isinstance(rounds_raw[0].get("hands"), list):
        hint = len(rounds_raw[0]["hands"])
    rules = _rules(data.get("rules"), hint)
    players = _players(players_raw, rules.players)
    if len(rounds_raw) > rules.rounds:
        raise NotationError(
            f"the record has {len(rounds_raw)} rounds but the rules play {rules.rounds}"
        )
    game: Game | None = None
    for number, raw_round in enumerate(rounds_raw, start=1):
        raw_round = _object(raw_round, f"round {number}")
        unknown = sorted(set(raw_round) - {"hands", "exchange", "actions"})
        if unknown:
            raise NotationError(f"round {number}: unknown key {unknown[0]!r}")
        hands = _deal(raw_round.get("hands"), rules, number)
        exchange_raw = raw_round.get("exchange", [])
        if not isinstance(exchange_raw, list):
            raise NotationError(f'round {number}: "exchange" must be a list of actions')
        exchange = [_action(a, f"round {number} exchange[{i}]") for i, a in enumerate(exchange_raw)]
        for i, action in enumerate(exchange):
            if action.kind != "give":
                raise NotationError(f"round {number} exchange[{i}]: only give actions belong here")
            _seat(action.seat, rules.players, f"round {number} exchange[{i}]")
        if game is not None and game.phase is not Phase.ROUND_OVER:
            raise NotationError(f"round {number} is listed, but round {number - 1} is not finished")
        gifts, givebacks = _split_exchange(game, exchange, rules, number)
        try:
            if game is None:
                game = Game(rules, seed=0, hands=hands)
            else:
                game.start_next_round(hands, gifts)
        except DealError as error:
            raise NotationError(f"round {number} hands: {error}") from None
        except IllegalAction as illegal:
            bad = illegal.refusal.params.get("seat")
            index = next(i for i, a in enumerate(exchange) if a.seat in gifts and a.seat == bad)
            raise IllegalRecordAction(
                number, "exchange", index, exchange[index].seat, illegal.refusal
            ) from None
        for index, action in givebacks:
            _apply(game, action, number, "exchange", index)
        actions_raw = raw_round.get("actions", [])
        if not isinstance(actions_raw, list):
            raise NotationError(f'round {number}: "actions" must be a list')
        for index, raw in enumerate(actions_raw):
            action = _action(raw, f"round {number} actions[{index}]")
            _seat(action.seat, rules.players, f"round {number} actions[{index}]")
            _apply(game, action, number, "actions", index)
    assert game is not None
    if "result" in data:
        _compare_result(game, data["result"], len(rounds_raw))
    return Replay(game=game, players=players)


def _players(raw: Any, count: int) -> list[dict[str, Any]]:
    if raw is None:
        return [{"name": f"Seat {seat}"} for seat in range(count)]
    if not isinstance(raw, list) or len(raw) != count:
        raise NotationError(f'"players" must list {count} players')
    out = []
    for seat, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise NotationError(f'players[{seat}] must be an object with a "name"')
        ai = entry.get("ai")
        if ai is not None and ai not in ("easy", "normal", "hard"):
            raise NotationError(f'players[{seat}]: "ai" is easy, normal or hard, not {ai!r}')
        out.append(dict(entry))
    return out


def _deal(raw: Any, rules: Rules, number: int) -> list[int]:
    if not isinstance(raw, list) or len(raw) != rules.players:
        raise NotationError(f'round {number}: "hands" must list {rules.players} hands')
    hands = []
    for seat, cards in enumerate(raw):
        try:
            hands.append(parse_cards(cards))
        except CardError as error:
            raise NotationError(f"round {number} hand of seat {seat}: {error}") from None
    return hands


def _split_exchange(
    game: Game | None, exchange: list[Action], rules: Rules, number: int
) -> tuple[dict[int, int], list[tuple[int, Action]]]:
    """Separate the automatic gifts (checked by the engine) from the give-backs, in order."""
    gifts: dict[int, int] = {}
    givebacks: list[tuple[int, Action]] = []
    if not exchange:
        return gifts, givebacks
    if game is None or not rules.exchange:
        why = "round 1 has no exchange" if game is None else "the exchange option is off"
        raise IllegalRecordAction(
            number,
            "exchange",
            0,
            exchange[0].seat,
            Refusal("no_exchange", "R25", f"no cards are exchanged: {why}", {}),
        )
    order = game.places[-1]
    givers = {order[-1]: order[0]}
    if rules.players >= 4:
        givers[order[-2]] = order[1]
    receivers = {v: k for k, v in givers.items()}
    for index, action in enumerate(exchange):
        seat = action.seat
        assert seat is not None
        if seat in givers and seat not in gifts:
            gifts[seat] = to_move(action) & ~GIVE
        elif seat in receivers:
            if receivers[seat] not in gifts:
                raise IllegalRecordAction(
                    number,
                    "exchange",
                    index,
                    seat,
                    Refusal(
                        "giveback_before_gift",
                        "R25",
                        f"seat {seat} gives back before the gift it answers is listed",
                        {"seat": seat},
                    ),
                )
            givebacks.append((index, action))
        else:
            raise IllegalRecordAction(
                number,
                "exchange",
                index,
                seat,
                Refusal(
                    "not_in_exchange",
                    "R25",
                    f"seat {seat} takes no part in this exchange (or gives twice)",
                    {"seat": seat},
                ),
            )
    return gifts, givebacks


def _apply(game: Game, action: Action, number: int, part: str, index: int) -> None:
    move = _move(action, f"round {number} {part}[{index}]")
    seat = action.seat
    assert seat is not None
    refusal = game.check(seat, move)
    if refusal is not None:
        raise IllegalRecordAction(number, part, index, seat, refusal)
    game.apply(move, seat)


def _compare_result(game: Game, raw: Any, rounds: int) -> None:
    if not isinstance(raw, dict):
        raise NotationError('"result" must be an object with "places" and "points"')
    places = summary(game)["places"]
    if "places" in raw and raw["places"] != places:
        raise IllegalRecordAction(
            rounds,
            "result",
            0,
            None,
            Refusal(
                "result_places",
                "R20",
                f"the record's places {raw['places']} differ from the replay's {places}",
                {},
            ),
        )
    if "points" in raw and raw["points"] != game.points:
        raise IllegalRecordAction(
            rounds,
            "result",
            0,
            None,
            Refusal(
                "result_points",
                "R22",
                f"the record's points {raw['points']} differ from the replay's {game.points}",
                {},
            ),
        )


def summary(game: Game) -> dict[str, Any]:
    """The state after the last action, as ``cardverse check`` prints it (notation.md)."""
    places = [list(p) for p in game.places]
    trick: list[dict[str, Any]] = []
    if game.phase is Phase.PLAY:
        assert game.round is not None
        places.append(game.round.order())
        trick = [from_move(m, s).to_json() for s, m in game.round.trick]
    elif game.phase is Phase.EXCHANGE:
        places.append([])
    in_play = game.phase is Phase.PLAY
    out: dict[str, Any] = {
        "round": game.round_number,
        "over": game.over,
        "turn": game.turn,
        "revolution": game.revolution if in_play else False,
        "trick": trick,
        "places": places,
        "points": list(game.points),
    }
    out.update(_reports(game.rules, game.marks))
    return out


def _reports(rules: Rules, marks: int) -> dict[str, Any]:
    """The trick state the options in force keep, each under its report's name (notation.md
    "House rules")."""
    return {
        report.name: report.to_json(report.read(marks)) for report in ruleset_for(rules).reports
    }


def record_to_json(game: Game, players: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Write a game (finished or in progress) as a game record."""
    rounds: list[dict[str, Any]] = []
    logs = list(game.past_rounds)
    if len(logs) < game.round_number:
        history = (
            list(game.round.history)
            if game.round is not None and game.phase in (Phase.PLAY,)
            else []
        )
        logs.append((list(game.exchange_log), history))
    for deal, (exchange, history) in zip(game.deals, logs, strict=True):
        entry: dict[str, Any] = {"hands": [mask_names(h) for h in deal]}
        if exchange:
            entry["exchange"] = [
                {"seat": giver, "action": "give", "cards": mask_names(cards)}
                for giver, _, cards in exchange
            ]
        entry["actions"] = [from_move(m, s).to_json() for _, s, m in history]
        rounds.append(entry)
    out: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "rules": game.rules.changed_options(),
        "players": players or [{"name": f"Seat {s}"} for s in range(game.rules.players)],
        "rounds": rounds,
    }
    if game.over:
        out["result"] = {"places": [list(p) for p in game.places], "points": list(game.points)}
    return out
