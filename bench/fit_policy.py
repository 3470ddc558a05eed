"""A playout policy fitted offline (issue 14): labels from a longer search, then a softmax fit.

``labels`` plays seeded one-round games (cardverse preset unless ``--preset``, 4 players; the
hard bot at ``--play-playouts`` on one or two seats, normal on the others) and, at decisions
with more than one candidate move, asks a hard bot of ``--label-playouts`` (3,000 by default)
for its choice on that seat's view: the label. Each record keeps the view, the true hands, the
label and why the labeller chose it (search, sure, proof, duel), pickled one batch per game.

``fit`` reads the labels, computes the features of every candidate move of each position
(:mod:`cardverse.bots.fitted`, on the round with the true hands, as a playout sees it), fits a
multinomial logit over the candidates with an L2 penalty (numpy, a dev tool only), reports the
held-out accuracy of predicting the label next to the rules policy's, and writes the weights
file that the bots read at run time (plain Python).

    python -m bench.fit_policy labels --games 400 --seed 1 --out /work/runs/fit/labels-1.pkl
    python -m bench.fit_policy fit --labels /work/runs/fit/labels-1.pkl \\
        --out cardverse/bots/fitted_policy.json

Both are deterministic for their seed and arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

from cardverse.bots import fitted, policy
from cardverse.bots.endgame import solve_duel
from cardverse.bots.hard import HardBot
from cardverse.bots.knowledge import Knowledge, PlausibleDeals
from cardverse.bots.normal import NormalBot, view_context
from cardverse.bots.playout import _finishing_line, _rules_move, play_out
from cardverse.bots.positions import round_of_view
from cardverse.engine import Game, Phase, player_view, rules_from_dict
from cardverse.engine.plays import DISCARD, GIVE

LABELS_DIR = Path("/work/runs/fit")


def _lineup(number: int) -> list[str]:
    """The seats' kinds in game ``number``: one hard seat or two, moving round the table."""
    lineup = ["normal"] * 4
    lineup[number % 4] = "hard"
    if number % 2:
        lineup[(number + 2) % 4] = "hard"
    return lineup


def make_labels(args: argparse.Namespace) -> int:
    rules = rules_from_dict({"preset": args.preset, "players": 4, "rounds": 1})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    started = time.process_time()
    total = 0
    reasons: dict[str, int] = {}
    with out.open("wb") as stream:
        for number in range(args.games):
            game = Game(rules, seed=args.seed * 1_000_003 + number)
            lineup = _lineup(number)
            bots: list[Any] = [
                HardBot(seed=args.seed * 7919 + number * 4 + s, playouts=args.play_playouts)
                if kind == "hard"
                else NormalBot(seed=s)
                for s, kind in enumerate(lineup)
            ]
            batch: list[dict[str, Any]] = []
            while not game.over and game.phase is not Phase.ROUND_OVER:
                seat = game.turn
                assert seat is not None
                view = player_view(game, seat)
                legal = view.legal_moves
                size = view.hand.bit_count()
                rate = args.endgame_rate if size <= args.endgame_hand else args.rate
                if (
                    game.phase is Phase.PLAY
                    and len(legal) > 1
                    and not legal[0] & (GIVE | DISCARD)
                    and rng.random() < rate
                ):
                    labeller = HardBot(
                        seed=args.seed * 104_729 + number * 1000 + len(batch),
                        playouts=args.label_playouts,
                    )
                    values: list[int] = []
                    if args.source == "truth":
                        label, reason = truth_label(labeller, view, list(game.hands))
                    elif args.source == "rollout":
                        label, reason, values = rollout_label(labeller, view, list(game.hands))
                    else:
                        label = labeller.decide(view)
                        reason = labeller.last_reason
                    batch.append(
                        {
                            "view": view,
                            "hands": list(game.hands),
                            "label": label,
                            "reason": reason,
                            "kind": lineup[seat],
                            "game": number,
                            "values": values,
                        }
                    )
                    reasons[reason] = reasons.get(reason, 0) + 1
                game.apply(bots[seat].decide(view), seat)
            pickle.dump(batch, stream)
            stream.flush()
            total += len(batch)
            spent = time.process_time() - started
            print(
                f"game {number + 1}/{args.games}: {total} labels, {spent:.0f} CPU-s, {reasons}",
                flush=True,
            )
            if args.cpu_minutes and spent > args.cpu_minutes * 60:
                print(f"stopped after {number + 1} games (CPU budget)", flush=True)
                break
    return 0


def truth_label(bot: HardBot, view: Any, hands: list[int]) -> tuple[int, str]:
    """The hard bot's search run on the true deal (every playout on the real hands, its tree
    over its own later decisions, the others played by the policy as in a playout): the best
    mean, a tie to the policy's order. Exact wins first when only two seats hold cards."""
    import time as clock

    style = policy.Style.of(view.rules)
    last_move, opponent_min, last_count = view_context(view)
    fallback = policy.choose(
        view.hand, view.legal_moves, last_move, view.reversed_order, style, opponent_min, last_count
    )
    template = round_of_view(view)
    if sum(1 for h in hands if h) == 2:
        duel = template.clone()
        duel.hands = list(hands)
        solved = solve_duel(duel, view.seat)
        if solved is not None:
            return (solved[0] if solved[1] else fallback), "duel"
    candidates = bot._candidates(view, fallback, style)
    if len(candidates) == 1:
        return candidates[0], "policy"
    # A pool of deals holding the true deal alone (surprise 1: no chain is run).
    deals = PlausibleDeals(view, Knowledge.of(view), bot.rng, pool=1, surprise=1.0)
    deals.deals = [list(hands)]
    move = bot._search(view, deals, template, candidates, style, clock.perf_counter())
    return move, "truth"


def rollout_label(bot: HardBot, view: Any, hands: list[int]) -> tuple[int, str, list[int]]:
    """One step of policy improvement on the true deal: each candidate move (the hard bot's
    candidates, the policy's order) followed by the playout policy for every seat, one playout
    each (the policy is deterministic, so one is exact); the label is the best place, a tie to
    the policy's order. Also every candidate's points (all equal: the move did not matter)."""
    style = policy.Style.of(view.rules)
    last_move, opponent_min, last_count = view_context(view)
    fallback = policy.choose(
        view.hand, view.legal_moves, last_move, view.reversed_order, style, opponent_min, last_count
    )
    template = round_of_view(view)
    candidates = bot._candidates(view, fallback, style)
    values = [play_out(template, list(hands), move, view.seat, style, False) for move in candidates]
    best = values.index(max(values))
    return candidates[best], "rollout", values


def load_labels(paths: list[str]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in paths:
        with open(path, "rb") as stream:
            while True:
                try:
                    records.extend(pickle.load(stream))
                except EOFError:
                    break
    return records


Sample = tuple[list[list[tuple[int, float]]], int, int, int, int]
# (each candidate's nonzero features, the label's index, the game, the hand size, rules right)


def samples(records: list[dict[str, Any]]) -> tuple[list[Sample], dict[str, int]]:
    """Each labelled position as the fitted policy meets it in a playout: the round with the
    true hands, the rules' choice, the candidates and their features, the label's index.
    Positions where the fitted policy is not asked (one candidate, a finishing line) or whose
    label is not among the candidates are left out, and counted."""
    out: list[Sample] = []
    skipped = {"one candidate": 0, "finishing line": 0, "label not a candidate": 0}
    for record in records:
        view = record["view"]
        style = policy.Style.of(view.rules)
        round_ = round_of_view(view).playout(list(record["hands"]))
        if style.plain and _finishing_line(round_, style, style.fast_playouts) >= 0:
            skipped["finishing line"] += 1
            continue
        rules_move = _rules_move(round_, style, style.fast_playouts, False)
        moves = fitted.candidates(round_, style, rules_move)
        if len(moves) < 2:
            skipped["one candidate"] += 1
            continue
        values = record.get("values") or []
        if values and min(values) == max(values):
            skipped["the move did not matter"] = skipped.get("the move did not matter", 0) + 1
            continue
        label = record["label"]
        if label in moves:
            index = moves.index(label)
        elif style.fast_playouts and fitted._shape(label) in [fitted._shape(m) for m in moves]:
            index = [fitted._shape(m) for m in moves].index(fitted._shape(label))
        else:
            skipped["label not a candidate"] += 1
            continue
        hand = round_.hands[round_.turn]
        others, widest, fewest, top_count = fitted.position(round_)
        rows = []
        for move in moves:
            values = fitted.features(
                move,
                hand,
                round_.last_move,
                top_count,
                round_.reversed_now,
                style,
                others,
                widest,
                fewest,
                rules_move,
            )
            rows.append([(k, v) for k, v in enumerate(values) if v != 0.0])
        out.append((rows, index, record["game"], hand.bit_count(), int(index == 0)))
    return out, skipped


def _probabilities(rows: list[list[tuple[int, float]]], w: list[float]) -> list[float]:
    scores = [sum(w[k] * v for k, v in row) for row in rows]
    top = max(scores)
    shares = [math.exp(s - top) for s in scores]
    total = sum(shares)
    return [s / total for s in shares]


def newton(train: list[Sample], l2: float, iterations: int = 30) -> list[float]:
    """The weights of the multinomial logit over each position's candidates, with the penalty
    ``l2`` times the squared weights per position, by Newton's method (plain Python)."""
    n = len(fitted.FEATURES)
    w = [0.0] * n
    penalty = l2 * len(train)
    previous = math.inf
    for _ in range(iterations):
        grad = [2 * penalty * x for x in w]
        hess = [[0.0] * n for _ in range(n)]
        for k in range(n):
            hess[k][k] = 2 * penalty
        loss = penalty * sum(x * x for x in w)
        for rows, label, _game, _size, _right in train:
            p = _probabilities(rows, w)
            loss -= math.log(max(p[label], 1e-300))
            mean = [0.0] * n
            for share, row in zip(p, rows, strict=True):
                for k, v in row:
                    mean[k] += share * v
            for k, v in rows[label]:
                grad[k] -= v
            for k in range(n):
                grad[k] += mean[k]
            for share, row in zip(p, rows, strict=True):
                for i, vi in row:
                    line = hess[i]
                    for j, vj in row:
                        line[j] += share * vi * vj
            nonzero = [(k, m) for k, m in enumerate(mean) if m != 0.0]
            for i, mi in nonzero:
                line = hess[i]
                for j, mj in nonzero:
                    line[j] -= mi * mj
        step = _solve(hess, grad)
        w = [x - s for x, s in zip(w, step, strict=True)]
        if previous - loss < 1e-6 * len(train):
            break
        previous = loss
    return w


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            continue
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(a[r][r]) < 1e-12:
            continue
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def accuracy(data: list[Sample], w: list[float]) -> dict[str, Any]:
    """Share of positions whose label is the fitted policy's best score, the rules' choice; by
    hand size too; and the mean log loss."""
    parts: dict[str, list[int]] = {}
    loss = 0.0
    for rows, label, _game, size, right in data:
        p = _probabilities(rows, w)
        loss -= math.log(max(p[label], 1e-300))
        best = max(range(len(rows)), key=lambda i: (p[i], -i))
        for part in ("all", "hand<=5" if size <= 5 else "hand 6-8" if size <= 8 else "hand>8"):
            counts = parts.setdefault(part, [0, 0, 0])
            counts[0] += 1
            counts[1] += int(best == label)
            counts[2] += right
    table = {
        part: {
            "positions": c[0],
            "fitted": round(c[1] / c[0], 4),
            "rules": round(c[2] / c[0], 4),
        }
        for part, c in sorted(parts.items())
    }
    return {"log_loss": round(loss / max(1, len(data)), 4), **table}


def fit(args: argparse.Namespace) -> int:
    records = load_labels(args.labels)
    data, skipped = samples(records)
    games = sorted({sample[2] for sample in data})
    rng = random.Random(args.seed)
    held = set(rng.sample(games, int(len(games) * args.held_out)))
    train = [s for s in data if s[2] not in held]
    test = [s for s in data if s[2] in held]
    print(f"{len(records)} labels, {len(data)} positions asked of the fitted policy, {skipped}")
    print(f"train {len(train)} positions ({len(games) - len(held)} games), held out {len(test)}")
    w = newton(train, args.l2)
    fitted_on_train = accuracy(train, w)
    held_out = accuracy(test, w)
    print("train:", json.dumps(fitted_on_train))
    print("held out:", json.dumps(held_out))
    # The shipped weights: fitted again on every position (the held-out figures above are the
    # honest ones).
    final = newton(data, args.l2) if test else w
    for name, value in zip(fitted.FEATURES, final, strict=True):
        print(f"  {name:18} {value:+.3f}")
    files = " ".join(str(p) for p in args.labels)
    command = (
        f"python -m bench.fit_policy fit --labels {files} --l2 {args.l2} "
        f"--held-out {args.held_out} --seed {args.seed}"
    )
    result = {
        "version": fitted.VERSION,
        "features": list(fitted.FEATURES),
        "weights": [round(x, 5) for x in final],
        "temperature": 1.0,
        "command": command,
        "labels": {
            "files": [Path(p).name for p in args.labels],
            "records": len(records),
            "positions": len(data),
            "source": "hard at 3,000 playouts on the seat's view (bench.fit_policy labels)",
        },
        "accuracy": {"train": fitted_on_train, "held_out": held_out},
    }
    out = Path(args.out)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    labels = sub.add_parser("labels", help="label positions of seeded games with a long search")
    labels.add_argument("--preset", default="cardverse")
    labels.add_argument("--games", type=int, default=400)
    labels.add_argument("--seed", type=int, default=1)
    labels.add_argument("--play-playouts", type=int, default=300)
    labels.add_argument("--label-playouts", type=int, default=3000)
    labels.add_argument(
        "--source",
        choices=("view", "truth", "rollout"),
        default="view",
        help="the labeller: hard on the seat's view, hard's search on the true deal, or one "
        "playout per candidate on the true deal",
    )
    labels.add_argument("--rate", type=float, default=0.3, help="share of decisions labelled")
    labels.add_argument("--endgame-rate", type=float, default=0.8)
    labels.add_argument("--endgame-hand", type=int, default=8)
    labels.add_argument("--cpu-minutes", type=float, default=0.0, help="stop after (0: never)")
    labels.add_argument("--out", default=str(LABELS_DIR / "labels.pkl"))
    fitting = sub.add_parser("fit", help="fit the softmax and write the weights file")
    fitting.add_argument("--labels", nargs="+", required=True)
    fitting.add_argument("--l2", type=float, default=1e-3)
    fitting.add_argument("--held-out", type=float, default=0.2, help="share of games held out")
    fitting.add_argument("--seed", type=int, default=0)
    fitting.add_argument("--out", default="cardverse/bots/fitted_policy.json")
    args = parser.parse_args(argv)
    if args.command == "labels":
        return make_labels(args)
    return fit(args)


if __name__ == "__main__":
    sys.exit(main())
