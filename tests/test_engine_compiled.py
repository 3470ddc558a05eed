"""The compiled engine and bots (mypyc, built by ``make``) against their pure-Python source.

Both run in child processes (``CARDVERSE_PURE=1`` asks for the source) over the same seeded
games, under several rule sets: every event, every legal-move list, every refusal and every
choice of the bots must be the same. A build older than its source must not run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "cardverse" / "_compiled.json"

# Plays seeded random games (half through Game.apply, half through Game.apply_trusted) and a
# few decisions of each bot, and prints what happened as JSON, with the kind of code that ran.
PROBE = r"""
import json, random, sys
from cardverse import _native
from cardverse.arena import turns
from cardverse.bots import make_bot
from cardverse.engine import Game, Phase, Rules, event_to_json, player_view
from cardverse.engine.rounds import Round

RULES = [
    Rules.make("standard", players=4),
    Rules.make("standard", players=4, revolution=True, straights=True, jokers=2,
               eight_stop=True, equal_plays=True),
    Rules.make("cardverse", players=5),
    Rules.make("daifugo", players=4, straights=True, jokers=2),
    Rules.make("daifugo", players=3, jokers=1),
    Rules.make("uecda"),
    Rules.make("uecda", players=4, jokers=2, straight_revolution=6, spade_three=True),
]
GAMES = int(sys.argv[1])
out = {"compiled": _native.running_compiled(), "games": [], "bots": [], "playouts": []}
for index, rules in enumerate(RULES):
    for number in range(GAMES):
        rng = random.Random(number)
        game = Game(rules, seed=number * 7 + index)
        trusted = number % 2 == 1
        log = [event_to_json(e) for e in game.first_events]
        while not game.over:
            if game.phase is Phase.ROUND_OVER:
                log.extend(event_to_json(e) for e in game.start_next_round())
                continue
            legal = game.legal_moves()
            log.append([hex(m) for m in legal])
            wrong = rng.getrandbits(54)
            refusal = game.check(game.turn, wrong)
            log.append(None if refusal is None else [refusal.code, refusal.rule])
            move = rng.choice(legal)
            events = game.apply_trusted(move) if trusted else game.apply(move)
            log.extend(event_to_json(e) for e in events)
        log.append(list(game.points))
        out["games"].append(log)
    # The bots, two decisions of each level per rule set, and playouts from a sampled deal.
    game = Game(rules, seed=100 + index)
    bots = [make_bot(level, seed=5, playouts=40) for level in ("easy", "normal", "hard")]
    for decisions, (_, view) in enumerate(turns(game)):
        if decisions == 12:
            break
        move = bots[decisions % 3].choose(view)
        out["bots"].append(hex(move))
        game.apply(move)
    if game.round is not None and game.round.turn >= 0:
        copy = game.round.playout(game.round.hands)
        while copy.turn >= 0:
            copy.apply_unchecked(copy.legal_moves()[0])
        out["playouts"].append(copy.order())
# Values that go to the bots' worker processes pickle and come back equal.
import pickle
game = Game(RULES[2], seed=9)
view = player_view(game, game.turn)
refusal = game.check(game.turn, 1 << 53)
values = [RULES[3], view, view.public, view.own, refusal]
out["pickled"] = [pickle.loads(pickle.dumps(value)) == value for value in values]
print(json.dumps(out))
"""


def _run(code: str, *args: str, pure: bool, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CARDVERSE_PURE"}
    if pure:
        env["CARDVERSE_PURE"] = "1"
    env["PYTHONPATH"] = str(cwd)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _require_build() -> None:
    """The checks below need the compiled modules, which ``make`` builds; without a C compiler
    there is nothing to compare (the pure-Python engine is then the only one)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    has_compiler = bool(shutil.which(cc) or shutil.which("cc"))
    if not MANIFEST.exists():
        if not has_compiler:
            pytest.skip("no C compiler: only the pure-Python engine exists here")
        pytest.fail("the engine is not compiled: run `make compiled` (make test does it)")
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    if not data["compiled"]:
        if not has_compiler:
            pytest.skip(data["reason"])
        pytest.fail(f"a C compiler is here but the build did not happen: {data['reason']}")


def test_compiled_and_pure_engine_play_identical_games() -> None:
    _require_build()
    compiled = _run(PROBE, "30", pure=False)
    pure = _run(PROBE, "30", pure=True)
    assert compiled.returncode == 0, compiled.stderr
    assert pure.returncode == 0, pure.stderr
    assert "older than its source" not in compiled.stderr, (
        "the compiled engine is stale: run `make compiled`"
    )
    fast = json.loads(compiled.stdout)
    slow = json.loads(pure.stdout)
    assert fast.pop("compiled") is True
    assert slow.pop("compiled") is False
    assert len(fast["games"]) == 210 and len(fast["bots"]) >= 70
    for number, (one, other) in enumerate(zip(fast["games"], slow["games"], strict=True)):
        assert one == other, f"game {number} differs between the compiled and the pure engine"
    assert fast["pickled"] == [True] * 5
    assert fast == slow


STALE_PROBE = r"""
import json
from cardverse import _native
import cardverse.engine.scoring as scoring
print(json.dumps({"compiled": _native.running_compiled(), "reason": _native.REASON,
                  "marker": getattr(scoring, "STALE_MARKER", None)}))
"""


def test_a_build_older_than_its_source_never_runs(tmp_path: Path) -> None:
    """A changed source makes every compiled module load from its ``.py`` (and says so)."""
    _require_build()
    copy = tmp_path / "checkout"
    shutil.copytree(
        ROOT / "cardverse",
        copy / "cardverse",
        ignore=shutil.ignore_patterns("__pycache__", "web"),
    )
    fresh = _run(STALE_PROBE, pure=False, cwd=copy)
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(fresh.stdout)["compiled"] is True
    assert fresh.stderr == ""

    scoring = copy / "cardverse" / "engine" / "scoring.py"
    scoring.write_text(scoring.read_text(encoding="utf-8") + "\nSTALE_MARKER = 1\n", "utf-8")
    stale = _run(STALE_PROBE, pure=False, cwd=copy)
    assert stale.returncode == 0, stale.stderr
    seen = json.loads(stale.stdout)
    assert seen["compiled"] is False
    assert seen["marker"] == 1  # the changed source is what runs
    assert "cardverse/engine/scoring.py changed" in stale.stderr
    assert "make" in seen["reason"]

    pure = _run(STALE_PROBE, pure=True, cwd=copy)
    assert json.loads(pure.stdout)["compiled"] is False
    assert pure.stderr == ""


def test_R23_the_deal_shuffles_exactly_like_the_library() -> None:
    """The engine's own shuffle (fast compiled) gives random.shuffle's permutation and leaves
    the generator in the same state, so seeded deals and records stay what they were."""
    import random

    from cardverse.engine.dealing import shuffle

    for seed in range(500):
        for size in (0, 1, 2, 52, 53, 54):
            ours, theirs = list(range(size)), list(range(size))
            mine, library = random.Random(seed), random.Random(seed)
            shuffle(ours, mine)
            library.shuffle(theirs)
            assert ours == theirs
            assert mine.getstate() == library.getstate()

    class Counting(random.Random):
        pass

    cards = list(range(54))
    shuffle(cards, Counting(3))  # another generator type shuffles itself
    expected = list(range(54))
    random.Random(3).shuffle(expected)
    assert cards == expected
