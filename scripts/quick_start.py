"""`make run`: start the server at once, compiling the engine in the background when needed.

The compiled engine and bots (mypyc, ``scripts/build_compiled.py``) take about two minutes to
build on a new machine. A new user should not stare at a silent terminal meanwhile, so when the
build is missing or older than its source this starts the compile in the background (its output
in ``.venv/compile.log``) and the server at once on the pure-Python code, saying so. The next
``make run`` after the compile has finished uses the compiled build. When the build is current,
or when it records why it cannot be made (no C compiler), the server simply starts.

    python scripts/quick_start.py --host 127.0.0.1 --port 8000 --data-dir data
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILE_LOG = ROOT / ".venv" / "compile.log"


def say(message: str) -> None:
    print(f"make run: {message}", file=sys.stderr, flush=True)


def build_state() -> tuple[bool, str, bool]:
    """Whether the compiled build is current, why not (cardverse._native's own answer), and
    whether the build was tried on these very sources and could not be made (no C compiler, a
    failed build): then it is not tried again until a source changes, as with ``make``.

    Read in a child process: importing the package here would decide for this process, and
    this process is replaced by the server below.
    """
    probe = (
        "import json, cardverse._native as n\n"
        "try:\n"
        "    data = json.load(open(n.MANIFEST))\n"
        "except (OSError, ValueError):\n"
        "    data = {}\n"
        "same = bool(data) and all(\n"
        "    data.get('sources', {}).get(m) == n.source_digest(m) for m in n.COMPILED_MODULES)\n"
        "print(json.dumps([n.COMPILED, n.REASON, same and not data.get('compiled')]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CARDVERSE_PURE"}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    compiled, reason, failed_here = json.loads(out.stdout)
    return bool(compiled), str(reason), bool(failed_here)


def start_compile() -> subprocess.Popen[bytes]:
    """The compile in the background: the development tools first if mypyc is missing."""
    steps = []
    if importlib.util.find_spec("mypy") is None:
        steps.append(f'"{sys.executable}" -m pip install --quiet -e ".[dev]"')
    steps.append(f'"{sys.executable}" scripts/build_compiled.py')
    COMPILE_LOG.parent.mkdir(parents=True, exist_ok=True)
    log = COMPILE_LOG.open("wb")
    return subprocess.Popen(
        ["sh", "-c", " && ".join(steps)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", required=True)
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    env = dict(os.environ)
    if env.get("CARDVERSE_PURE"):
        say("CARDVERSE_PURE is set: the pure-Python engine and bots run")
    else:
        compiled, reason, failed_here = build_state()
        if compiled:
            say("the compiled engine and bots are current")
        elif failed_here:
            say(f"{reason}; the pure-Python engine and bots run")
        else:
            start_compile()
            say(
                "compiling the engine and bots with mypyc in the background (about two "
                f"minutes; log: {COMPILE_LOG.relative_to(ROOT)}). The server starts now on the "
                "pure-Python code; run `make run` again once the compile has finished to use "
                "the compiled build."
            )
            env["CARDVERSE_PURE"] = "1"  # the server and its workers: one kind of code
    say(f"starting the server on http://{args.host}:{args.port} (Ctrl-C stops it)")
    command = [
        sys.executable,
        "-m",
        "cardverse",
        "serve",
        "--host",
        args.host,
        "--port",
        str(args.port),
        "--data-dir",
        args.data_dir,
    ]
    os.chdir(ROOT)
    os.execve(sys.executable, command, env)


if __name__ == "__main__":
    main()
