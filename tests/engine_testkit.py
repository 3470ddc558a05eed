"""Small helpers shared by the rules-engine tests (not a test module itself).

Cards and plays are written as in notation.md (``"7H"``, ``"RJ"``) so that a test reads like the
rule it checks. Nothing here decides what is legal: that is always the engine under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cardverse.engine import (
    PASS,
    Action,
    CardError,
    Game,
    Round,
    Rules,
    from_move,
    mask_names,
    parse_card,
    parse_cards,
    to_move,
)

ROOT = Path(__file__).parent.parent

RANK_ORDER = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def hand(*names: str) -> int:
    """A bit set of cards from their text forms."""
    return parse_cards(list(names))


def play(*names: str, **jokers: str) -> int:
    """The move of playing ``names``; ``jokers`` declares straight ranks (``RJ="7"``)."""
    return to_move(Action("play", tuple(names), dict(jokers)))


def give(*names: str) -> int:
    return to_move(Action("give", tuple(names)))


def rules(preset: str = "standard", **options: Any) -> Rules:
    return Rules.make(preset, **options)


def make_round(
    hands: list[Iterable[str]],
    leader: int = 0,
    *,
    in_revolution: bool = False,
    preset: str = "standard",
    **options: Any,
) -> Round:
    """A round with these hands (partial deals are fine), ``leader`` on lead.

    ``in_revolution`` is the state (a revolution in force now); ``options`` are the rules'.
    """
    options.setdefault("players", max(3, len(hands)))  # a two-seat round is a test harness
    return Round(
        Rules.make(preset, **options),
        [parse_cards(list(h)) for h in hands],
        leader,
        revolution=in_revolution,
    )


def do(round_: Round, seat: int, *cards: str, **jokers: str) -> None:
    """Seat ``seat`` plays ``cards`` (or passes when none are given); must be legal."""
    move = PASS if not cards else play(*cards, **jokers)
    refusal = round_.check(seat, move)
    assert refusal is None, f"seat {seat} {cards or 'pass'} refused: {refusal}"
    round_.apply(move)


def canon(action: dict[str, Any]) -> str:
    """A canonical text for an action object, ignoring its seat and the order of its cards."""
    out: dict[str, Any] = {"action": action["action"]}
    if action["action"] != "pass":
        out["cards"] = sorted(str(c).upper() for c in action.get("cards", []))
    jokers = action.get("jokers") or {}
    if jokers:
        out["jokers"] = {str(k).upper(): str(v).upper() for k, v in jokers.items()}
    return json.dumps(out, sort_keys=True)


def move_texts(moves: Iterable[int]) -> list[str]:
    """Canonical texts of move integers (see :func:`canon`), in the given order."""
    return [canon(from_move(m).to_json()) for m in moves]


def expect(*actions: str | tuple[str, dict[str, str]]) -> set[str]:
    """Canonical texts of expected actions written briefly.

    ``"7H 7S"`` is a play, ``"pass"`` a pass, ``("5H 6H RJ", {"RJ": "7"})`` a play declaring jokers.
    """
    out: set[str] = set()
    for item in actions:
        text, jokers = (item, {}) if isinstance(item, str) else item
        if text == "pass":
            out.add(canon({"action": "pass"}))
        else:
            out.add(canon({"action": "play", "cards": text.split(), "jokers": jokers}))
    return out


def legal(round_: Round) -> set[str]:
    """Canonical texts of the legal moves of the seat on turn (asserting no duplicates)."""
    texts = move_texts(round_.legal_moves())
    assert len(texts) == len(set(texts)), "the legal move list holds a duplicate"
    return set(texts)


def names(mask: int) -> list[str]:
    return mask_names(mask)


def play_out(game: Game, choose: Any) -> None:
    """Play ``game`` to its end, ``choose(game, moves)`` picking each move."""
    from cardverse.engine import Phase

    while not game.over:
        if game.phase is Phase.ROUND_OVER:
            game.start_next_round()
            continue
        game.apply(choose(game, game.legal_moves()))


# The examples of notation.md, used by several test modules.
SPEC_POSITION: dict[str, Any] = {
    "rules": {"preset": "standard", "players": 3},
    "hands": [["3C", "7D", "7S"], ["9H", "9S", "2C"], ["4D", "KH"]],
    "trick": [
        {"seat": 2, "action": "play", "cards": ["6C", "6D"]},
        {"seat": 0, "action": "pass"},
    ],
    "turn": 1,
    "revolution": False,
    "finished": [],
}

SPEC_RECORD: dict[str, Any] = {
    "format": "president-record/1",
    "rules": {"preset": "cardverse", "players": 3, "rounds": 2},
    "players": [{"name": "Ann"}, {"name": "Bot", "ai": "hard"}, {"name": "Li"}],
    "rounds": [
        {
            "hands": [["3C", "9H"], ["5D", "KS"], ["7C", "8C"]],
            "actions": [
                {"seat": 0, "action": "play", "cards": ["3C"]},
                {"seat": 1, "action": "play", "cards": ["5D"]},
                {"seat": 2, "action": "play", "cards": ["7C"]},
                {"seat": 0, "action": "play", "cards": ["9H"]},
                {"seat": 1, "action": "play", "cards": ["KS"]},
            ],
        },
        {
            "hands": [["4H", "6H", "JD"], ["10S", "QS"], ["AC", "2S", "5C"]],
            "exchange": [
                {"seat": 2, "action": "give", "cards": ["2S", "AC"]},
                {"seat": 0, "action": "give", "cards": ["4H", "6H"]},
            ],
            "actions": [
                {"seat": 2, "action": "play", "cards": ["4H"]},
                {"seat": 0, "action": "play", "cards": ["JD"]},
                {"seat": 1, "action": "play", "cards": ["QS"]},
                {"seat": 2, "action": "pass"},
                {"seat": 0, "action": "play", "cards": ["AC"]},
                {"seat": 1, "action": "pass"},
                {"seat": 0, "action": "play", "cards": ["2S"]},
                {"seat": 1, "action": "play", "cards": ["10S"]},
            ],
        },
    ],
    "result": {"places": [[0, 1, 2], [0, 1, 2]], "points": [6, 4, 2]},
}


def card_strings(data: Any) -> set[str]:
    """Every string in a JSON value (keys too) that reads as a card, but for what a joker of a
    play stands for (``"jokers": {"RJ": "7H"}``, R44: a declaration, not a card shown)."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            found |= card_strings(key)
            if not (key in ("RJ", "BJ") and isinstance(value, str)):
                found |= card_strings(value)
    elif isinstance(data, list):
        for item in data:
            found |= card_strings(item)
    elif isinstance(data, str):
        try:
            parse_card(data)
        except CardError:
            return found
        found.add(data.upper())
    return found


def cli(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run `python -m cardverse ARGS` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "cardverse", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
