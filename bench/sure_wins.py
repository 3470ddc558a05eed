"""How often the ``normal`` bot throws away a sure win (issue 14), with and without its
finishing-line check.

Plays whole games of four normal bots (each deal once) and, at every decision of a seat holding
at most ``--hand`` cards, asks two sound oracles whether the seat has a sure win: the finishing
line of :func:`cardverse.bots.endgame.sure_win` with the others' hand sizes (plays nobody can
beat ending with the last card; every such first play is listed), and, when the unseen cards
allow at most ``--deals`` deals, the exact AND-OR search of :mod:`cardverse.bots.proof` (every
winning first move, against every deal and answer). A decision *throws a sure win away* when
some oracle proves a win and the move played is proven winning by neither. The same games are
replayed with normal's rules of thumb alone (the policy without the check) for comparison.

    python -m bench.sure_wins --games 300 --preset cardverse
"""

from __future__ import annotations

import argparse
import json
import sys

from cardverse.arena import turns
from cardverse.bots import make_bot
from cardverse.bots.endgame import _SureWin, holders_of
from cardverse.bots.knowledge import Knowledge
from cardverse.bots.normal import view_context
from cardverse.bots.policy import Style, choose
from cardverse.bots.positions import round_of_view
from cardverse.bots.proof import deals_of, winning_moves
from cardverse.engine import DISCARD, GIVE, PASS, Game, PlayerView
from cardverse.engine.options import rules_from_dict
from cardverse.engine.plays import CARDS_MASK
from cardverse.engine.ruleset import ruleset_for


def finishing_moves(view: PlayerView, last_move: int | None) -> set[int]:
    """Every legal first play of a finishing line (empty under house rules)."""
    if ruleset_for(view.rules).house_rules:
        return set()
    knowledge = Knowledge.of(view)
    holders = holders_of(knowledge.unseen, knowledge.counts, knowledge.pinned, view.seat)
    search = _SureWin(view.rules, knowledge.unseen, 20000, holders)
    out: set[int] = set()
    for move in view.legal_moves:
        if move == PASS:
            continue
        if move & CARDS_MASK == view.hand:
            out.add(move)
            continue
        safe, after = search.holds(move, view.reversed_order)
        if safe and search.lead(view.hand & ~move, after) is not None:
            out.add(move)
    return out


def proven_moves(view: PlayerView, deals_limit: int) -> set[int]:
    knowledge = Knowledge.of(view)
    deals = deals_of(knowledge, deals_limit)
    if deals is None:
        return set()
    won = winning_moves(round_of_view(view), view.seat, deals, 50000)
    return set(won or [])


def measure(preset: str, games: int, hand: int, deals: int, checked: bool) -> dict[str, float]:
    rules = rules_from_dict({"preset": preset, "players": 4})
    style = Style.of(rules)
    bots = [make_bot("normal") for _ in range(4)]
    positions = 0
    thrown = 0
    for number in range(games):
        game = Game(rules, seed=number)
        for seat, view in turns(game):
            last_move, opponent_min, last_count = view_context(view)
            if checked:
                move = bots[seat].choose(view)
            elif len(view.legal_moves) == 1:
                move = view.legal_moves[0]
            else:
                move = choose(
                    view.hand,
                    view.legal_moves,
                    last_move,
                    view.reversed_order,
                    style,
                    opponent_min,
                    last_count,
                )
            if (
                len(view.legal_moves) > 1
                and not view.legal_moves[0] & (GIVE | DISCARD)
                and view.hand.bit_count() <= hand
            ):
                winners = finishing_moves(view, last_move) | proven_moves(view, deals)
                if winners:
                    positions += 1
                    thrown += move not in winners
            game.apply(move, seat)
    return {
        "sure_win_positions": positions,
        "thrown_away": thrown,
        "rate": round(thrown / positions, 4) if positions else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cardverse")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--hand", type=int, default=10, help="largest hand checked (cards)")
    parser.add_argument("--deals", type=int, default=200, help="most deals for the exact search")
    args = parser.parse_args(argv)
    report = {
        "preset": args.preset,
        "games": args.games,
        "with_check": measure(args.preset, args.games, args.hand, args.deals, True),
        "rules_of_thumb_only": measure(args.preset, args.games, args.hand, args.deals, False),
    }
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
