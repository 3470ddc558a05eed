"""The command line starts light: each sub-command imports only what it uses (issue 13).

Timing is for ``make bench`` (bench/cli_bench.py); these tests check the imports themselves.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import contextlib, io, json, sys
from cardverse.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
loaded = sorted(m for m in sys.modules if m.startswith("cardverse"))
print(json.dumps({"help": out.getvalue(), "loaded": loaded}))
"""


def _run(*argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_help_imports_neither_the_engine_nor_the_server() -> None:
    seen = _run("--help")
    loaded = seen["loaded"]
    assert isinstance(loaded, list)
    assert not [m for m in loaded if m.startswith(("cardverse.engine", "cardverse.server"))]
    assert "cardverse.arena" not in loaded and "cardverse.bots" not in loaded
    for command in ("moves", "check", "arena", "serve"):
        assert f"    {command}" in str(seen["help"])


def test_help_lists_each_layer_command_as_its_own_parser_describes_it() -> None:
    """The one-line help of a command that is not loaded is the one its module registers."""
    from cardverse.cli import LAYER_COMMANDS, _load_extra_commands, build_parser

    _load_extra_commands()
    parser = build_parser()
    actions = [a for a in parser._actions if a.dest == "command"]
    helps = {c.dest: c.help for c in actions[0]._choices_actions}  # type: ignore[attr-defined]
    for name, (_, line) in LAYER_COMMANDS.items():
        assert helps[name] == line


def test_a_sub_command_imports_its_own_layer_only() -> None:
    arena = _run("arena", "--help")
    assert "cardverse.arena" in arena["loaded"]  # type: ignore[operator]
    assert not [m for m in arena["loaded"] if m.startswith("cardverse.server")]  # type: ignore[union-attr]
    serve = _run("serve", "--help")
    assert "cardverse.server.cli" in serve["loaded"]  # type: ignore[operator]
    assert "cardverse.arena" not in serve["loaded"]  # type: ignore[operator]
    assert "--data-dir" in str(serve["help"])
