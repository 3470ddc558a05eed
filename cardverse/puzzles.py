"""Sure-win puzzles for the computer players (issue 14): generate, verify, and pose them.

A puzzle is a position (notation.md) with every hand listed card by card: the seat on turn sees
its own hand, the others' hand sizes and the trick; the hidden cards are exactly those of the
other hands (every other card of the deck is out of the round, as if discarded). The puzzle has a
*sure win*: some first move after which the seat on turn goes out before every other seat that
holds cards, whatever the hidden cards are and whatever the others do. :func:`solutions`
finds every such first move by the exact AND-OR search of :mod:`cardverse.bots.proof` over
every deal of the hidden cards into the hand sizes; a puzzle is kept only when some legal move
does not win (so there is something to get wrong).

:func:`puzzle_view` is the seat's :class:`~cardverse.engine.views.PlayerView` of a puzzle, what
a bot is given. ``python -m cardverse.puzzles generate`` writes a suite; ``verify`` checks one.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bots.knowledge import Knowledge
from .bots.normal import finishing_line
from .bots.policy import Style, choose
from .bots.proof import deals_of, winning_moves
from .engine import PASS, PlayerView, PublicView, Rules, SeatView, from_move, rules_from_dict
from .engine.cards import cards_of, deck_mask
from .engine.movegen import legal_plays
from .engine.plays import CARDS_MASK
from .engine.positions import Known, PositionError, round_from_known
from .engine.rounds import Round
from .engine.ruleset import ruleset_for
from .engine.views import public_history
from .notation import position_to_json, read_position

MAX_DEALS = 20000  # the most deals of the hidden cards a verification goes through
BUDGET = 400000  # its node budget

#: the option sets puzzles are generated under (name, rules object)
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("cardverse", {"preset": "cardverse"}),
    ("standard", {"preset": "standard"}),
    ("jokers", {"preset": "standard", "jokers": 2}),
    ("straights", {"preset": "standard", "straights": True, "jokers": 1}),
    ("eight_stop", {"preset": "standard", "eight_stop": True}),
    ("revolution", {"preset": "standard", "revolution": True}),
    ("no_equal_plays", {"preset": "standard", "equal_plays": False}),
)


class PuzzleError(ValueError):
    """A puzzle that is not one: malformed, or its stored solutions are not the true ones."""


@dataclass(frozen=True)
class Puzzle:
    name: str
    position: dict[str, Any]
    solutions: tuple[dict[str, Any], ...]  # every winning first action (action objects)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "position": self.position, "solutions": list(self.solutions)}


def puzzle_round(position: dict[str, Any]) -> tuple[Round, Rules]:
    """The round of a puzzle's position; every hand must be listed."""
    read = read_position(position)
    if any(hand is None for hand in read.hands):
        raise PuzzleError("a puzzle lists every hand card by card")
    return read.round, read.rules


def puzzle_view(position: dict[str, Any]) -> PlayerView:
    """The view of the seat on turn: its hand, the public play, the others' hand sizes; every
    card in no hand and not in the trick is out of the round (seen as discarded)."""
    round_, rules = puzzle_round(position)
    players = rules.players
    in_hands = 0
    for hand in round_.hands:
        in_hands |= hand
    played = 0
    for _, _, move in round_.history:
        if move != PASS:
            played |= move & CARDS_MASK
    outside = deck_mask(rules.jokers) & ~in_hands & ~played
    seat = round_.turn
    public = PublicView(
        rules=rules,
        round_number=1,
        phase="play",
        hand_counts=tuple(h.bit_count() for h in round_.hands),
        turn=seat,
        leader=seat,
        trick=tuple(round_.trick),
        history=public_history(round_.history),
        passed=tuple(s for s in range(players) if round_.passed >> s & 1),
        finished=tuple(round_.finished),
        round_places=tuple(round_.places),
        from_bottom=tuple(round_.bottom_seats),
        fallen=(),
        out_of_play=(0,) * players,
        discarded=round_.discarded | outside,
        revolution=round_.revolution,
        reversed_order=round_.reversed_now,
        marks=round_.marks,
        owed=round_.owed,
        points=(0,) * players,
        places=(),
        exchange_pairs=(),
    )
    own = SeatView(
        seat=seat,
        hand=round_.hands[seat],
        exchange=(),
        gives=(),
        legal_moves=tuple(round_.legal_moves()),
    )
    return PlayerView(public, own)


def solutions(position: dict[str, Any]) -> list[int] | None:
    """Every winning first move of the seat on turn (legal-move order), by the exhaustive
    search over every deal of the hidden cards; None when it is too big to decide."""
    round_, _ = puzzle_round(position)
    view = puzzle_view(position)
    deals = deals_of(Knowledge.of(view), MAX_DEALS)
    if deals is None:
        return None
    return winning_moves(round_, round_.turn, deals, BUDGET)


def action_json(move: int) -> dict[str, Any]:
    return from_move(move).to_json(with_seat=False)


def verify(puzzle: Puzzle) -> list[int]:
    """The winning first moves, after checking they are exactly the puzzle's stored ones and
    that some legal move loses; raises :class:`PuzzleError` otherwise."""
    won = solutions(puzzle.position)
    if won is None:
        raise PuzzleError(f"{puzzle.name}: too big to verify exhaustively")
    got = sorted(json.dumps(action_json(m), sort_keys=True) for m in won)
    want = sorted(json.dumps(a, sort_keys=True) for a in puzzle.solutions)
    if got != want:
        raise PuzzleError(f"{puzzle.name}: the winning first moves are {got}, not {want}")
    legal = puzzle_view(puzzle.position).legal_moves
    if not won or len(won) == len(legal):
        raise PuzzleError(f"{puzzle.name}: every move or no move wins, nothing to solve")
    return won


def load(path: Path) -> list[Puzzle]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Puzzle(p["name"], p["position"], tuple(p["solutions"])) for p in data["puzzles"]]


# -- generating ---------------------------------------------------------------------------------


def _random_position(rng: random.Random, variant: dict[str, Any]) -> dict[str, Any] | None:
    players = rng.choice([3, 4, 4, 5])
    rules = rules_from_dict({**variant, "players": players})
    deck = cards_of(deck_mask(rules.jokers))
    rng.shuffle(deck)
    me = rng.randrange(players)
    sizes = [0] * players
    finished: list[int] = []
    for seat in range(players):
        if seat == me:
            sizes[seat] = rng.randint(2, 6)
        elif rng.random() < 0.15 and len(finished) < players - 2:
            finished.append(seat)
        else:
            sizes[seat] = rng.randint(1, 3)
    hands = [0] * players
    position = 0
    for seat in range(players):
        for card in deck[position : position + sizes[seat]]:
            hands[seat] |= 1 << card
        position += sizes[seat]
    if sum(sizes) - sizes[me] > 9:
        return None
    trick: list[tuple[int, int]] = []
    holders = [s for s in range(players) if s not in finished]
    if rng.random() < 0.5:
        # A trick in progress: the seat before ``me`` led from cards it no longer holds.
        index = holders.index(me)
        leader = holders[index - 1]
        extra = 0
        for card in deck[position : position + 3]:
            extra |= 1 << card
        ruleset = ruleset_for(rules)
        plays = legal_plays(extra, None, False, ruleset.ties_cover, ruleset.plays_straights)
        if not plays:
            return None
        trick.append((leader, rng.choice(plays)))
    known = Known(
        rules=rules,
        hands=list(hands),
        counts=sizes,
        turn=me,
        trick=trick,
        revolution=False,
        finished=finished,
        from_bottom=[],
        fallen=[],
        out_of_play={},
        owed=None,
        previous_president=-1,
    )
    try:
        round_ = round_from_known(known)
    except PositionError:
        return None
    if round_.turn != me or len(round_.legal_moves()) < 2:
        return None
    return position_to_json(round_, rules)


def generate(count_per_variant: int, seed: int, only: str | None = None) -> list[Puzzle]:
    """Puzzles with a sure win and a move that loses, the naive choices (the first legal move,
    the heuristic policy's move) losing as often as they can be made to."""
    rng = random.Random(seed)
    out: list[Puzzle] = []
    for name, variant in VARIANTS:
        if only is not None and name != only:
            continue
        found = 0
        tries = 0
        while found < count_per_variant and tries < 4000:
            tries += 1
            position = _random_position(rng, variant)
            if position is None:
                continue
            won = solutions(position)
            view = puzzle_view(position)
            legal = view.legal_moves
            if not won or len(won) == len(legal):
                continue
            style = Style.of(view.rules)
            last = next((m for _, m in reversed(view.trick) if m != PASS), None)
            others = [c for s, c in enumerate(view.hand_counts) if s != view.seat and c]
            policy_move = choose(
                view.hand, legal, last, view.reversed_order, style, min(others), others[0]
            )
            naive_wins = legal[0] in won and policy_move in won
            if naive_wins and rng.random() < 0.8:
                continue  # mostly keep the puzzles a naive player gets wrong
            if finishing_line(view, last) is not None and rng.random() < 0.6:
                continue  # and mostly those that need the others' answers to be read
            found += 1
            out.append(
                Puzzle(
                    f"{name}-{found:02d}",
                    position,
                    tuple(action_json(m) for m in won),
                )
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardverse.puzzles", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("generate", help="write a puzzle suite")
    make.add_argument("--per-variant", type=int, default=10)
    make.add_argument("--seed", type=int, default=14)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument(
        "--only", choices=[name for name, _ in VARIANTS], help="one option set's puzzles only"
    )
    check = sub.add_parser("verify", help="check every puzzle of a suite exhaustively")
    check.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.command == "generate":
        puzzles = generate(args.per_variant, args.seed, args.only)
        document = {
            "about": (
                "Sure-win puzzles (issue 14), made by python -m cardverse.puzzles generate "
                f"--per-variant {args.per_variant} --seed {args.seed}"
                + (f" --only {args.only}" if args.only else "")
                + "; each verified by an "
                "exhaustive search over every deal of the hidden cards."
            ),
            "puzzles": [p.to_json() for p in puzzles],
        }
        lines = ",\n  ".join(json.dumps(p.to_json()) for p in puzzles)
        text = f'{{"about": {json.dumps(document["about"])},\n "puzzles": [\n  {lines}\n ]}}\n'
        args.out.write_text(text, encoding="utf-8")
        print(f"{len(puzzles)} puzzles written to {args.out}")
        return 0
    failed = 0
    puzzles = load(args.path)
    for puzzle in puzzles:
        try:
            verify(puzzle)
        except PuzzleError as error:
            failed += 1
            print(error, file=sys.stderr)
    print(f"{len(puzzles) - failed} of {len(puzzles)} puzzles verified")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
