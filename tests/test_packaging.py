"""CardVerse as a library (issue 32): ``pip install cardverse`` installs the engine, notation,
bots and command line with no dependency at all; the server stack is the ``server`` extra and the
environment the ``env`` extra; ``import cardverse`` installs no import hook.

The wheel test builds a wheel from this checkout and installs it, offline and without
dependencies, into a fresh virtual environment that has no other package: there the engine, a
bot game and the command line run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# Imports the base layers, plays a game between bots and runs the command line, then prints
# every module outside the standard library that was imported, and the import finders.
BASE_PROBE = r"""
import io, json, sys
from contextlib import redirect_stdout
import cardverse
from cardverse import _native
from cardverse.arena import turns
from cardverse.bots import make_bot
from cardverse.engine import Game, Rules
from cardverse.moves import Move
import cardverse.notation, cardverse.cli

game = Game(Rules.make("cardverse", players=4), seed=3)
bots = [make_bot("normal", seed=seat) for seat in range(4)]
moves = 0
for seat, view in turns(game):
    game.apply(bots[seat].choose(view))
    moves += 1
out = io.StringIO()
try:
    with redirect_stdout(out):
        code = cardverse.cli.main(["--version"])
except SystemExit as exit:
    code = exit.code
# (dunder names: __main__, __mp_main__ and an editable install's own finder)
outside = sorted({name.partition(".")[0] for name in sys.modules} - set(sys.stdlib_module_names)
                 - {"cardverse", "_distutils_hack"})
outside = [name for name in outside if not name.startswith("__")]
finders = [type(f).__module__ for f in sys.meta_path]
print(json.dumps({"outside": outside, "over": game.is_terminal, "moves": moves,
                  "returns": game.returns(), "cli": code, "version": out.getvalue().strip(),
                  "finders": finders, "compiled": _native.COMPILED, "reason": _native.REASON,
                  "move": str(Move.parse("9s 9h"))}))
"""


def test_the_base_install_depends_on_nothing() -> None:
    project = PYPROJECT["project"]
    assert project["dependencies"] == []
    extras = project["optional-dependencies"]
    assert any(r.startswith("starlette") for r in extras["server"])
    assert {r.split(">")[0] for r in extras["env"]} == {"pettingzoo", "gymnasium", "numpy"}
    assert "cardverse[server,env]" in extras["dev"]  # make test installs both


def test_the_base_layers_import_nothing_outside_the_standard_library() -> None:
    result = subprocess.run(
        [sys.executable, "-c", BASE_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["outside"] == []
    assert seen["over"] is True and seen["moves"] > 20
    assert sorted(seen["returns"]) == [1, 2, 3, 4]  # R22: 4, 3, 2, 1 points for one round
    assert seen["move"] == "9H 9S"
    assert not any(f.startswith("cardverse") for f in seen["finders"]), seen["finders"]


def _build_wheel(folder: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(folder),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    (wheel,) = folder.glob("cardverse-*.whl")
    return wheel


@pytest.mark.slow
def test_the_wheel_installs_alone_and_plays(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [
            line
            for line in archive.read(metadata).decode().splitlines()
            if line.startswith("Requires-Dist:")
        ]
    assert requires, "the extras are listed"
    assert all("extra ==" in line for line in requires), requires  # nothing unconditional
    assert "cardverse/env/president.py" in names and "cardverse/moves.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))], "the wheel is pure Python"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARDVERSE_PURE")}
    listed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m;"
         "print(sorted(d.metadata['Name'] for d in m.distributions()))"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert listed.stdout.strip() == "['cardverse']"
    probe = subprocess.run(
        [str(python), "-c", BASE_PROBE],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    assert seen["outside"] == [] and seen["over"] is True
    assert seen["compiled"] is False and "not compiled" in seen["reason"]  # said, not hidden
    assert seen["version"].endswith(PYPROJECT["project"]["version"])
    command = venv / "bin" / "cardverse"
    arena = subprocess.run(
        [str(command), "arena", "--lineup", "normal,easy,easy,easy", "--deals", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert arena.returncode == 0, arena.stderr
    serve = subprocess.run(
        [str(command), "serve"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert serve.returncode == 2
    assert "pip install 'cardverse[server]'" in serve.stderr


def test_an_older_in_place_build_beside_the_sources_is_said(tmp_path: Path) -> None:
    """Builds used to sit beside the sources, where Python loads them first: one left there
    is named on standard error and in the reason (no import hook hides it any more)."""
    import shutil

    copy = tmp_path / "checkout"
    shutil.copytree(
        ROOT / "cardverse", copy / "cardverse", ignore=shutil.ignore_patterns("__pycache__", "web")
    )
    (copy / "cardverse" / "engine" / "scoring.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    result = subprocess.run(
        [sys.executable, "-c", "from cardverse import _native; print(_native.REASON)"],
        cwd=copy,
        env={**os.environ, "PYTHONPATH": str(copy)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "cardverse/engine/scoring.cpython-311-x86_64-linux-gnu.so" in result.stdout
    assert "older build" in result.stderr
