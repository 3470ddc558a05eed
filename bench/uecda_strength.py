"""Our players against the UECda community's programs (issue 31, item 5; docs/uecda.md §12).

It builds the reference server ``tndhms`` and its sample client from the UECda dev kit's
sources, in a temporary folder (the sources are copied there, the committed binaries and
``.o`` files deleted, the server bound to 127.0.0.1), and plays matches on the reference server:

- ``hard`` (``cardverse uecda client --bot hard``) and four sample clients;
- ``normal`` and four sample clients;
- with FujiGokoro's sources given: ``hard``, FujiGokoro and three sample clients.

For each match it reports, per program of ours (and FujiGokoro), the mean points a game (5 for
first place … 1 for last, as the server counts them), the first-place rate with its 95% Wilson
interval, and the games played, from the server's own log. Nothing of the sources enters this
repository; they are built and run in the temporary folder only.

Environment:

- ``CARDVERSE_UECDA_SOURCES``: the folder ``tndhm_devkit_c-20180826`` of the repository
  ``coldTOUFU/uecDA`` (with ``server/`` and ``client/``). Without it the bench says what it
  needs and exits 0 (skipped).
- ``CARDVERSE_FUJIGOKORO_SOURCES`` (optional): a checkout of ``YuriCat/FujiGokoroUECda``; its
  learned parameter files are Git LFS pointers in the public repository, so the program plays
  without them (``make out/client`` builds it all the same).

    CARDVERSE_UECDA_SOURCES=/path/to/tndhm_devkit_c-20180826 \\
    CARDVERSE_FUJIGOKORO_SOURCES=/path/to/FujiGokoroUECda \\
        python -m bench.uecda_strength --games 500 --time-limit 0.2

Results go to ``bench/results/uecda-strength.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

SOURCES_VARIABLE = "CARDVERSE_UECDA_SOURCES"
FUJI_VARIABLE = "CARDVERSE_FUJIGOKORO_SOURCES"
ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POINTS = (5, 4, 3, 2, 1)
#: the handshake names of our programs, by label (the sample clients use their label)
NAME_OF = {"hard": "cvhard", "normal": "cvnormal"}


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def run(command: list[str], cwd: Path, log: Path) -> None:
    with log.open("ab") as out:
        done = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"uecda_strength: {' '.join(command)} failed in {cwd}; see {log}")


def build_reference(sources: Path, work: Path) -> tuple[Path, Path]:
    """The server and the sample client, built from a copy of the dev kit."""
    kit = work / "devkit"
    shutil.copytree(sources, kit, symlinks=True)
    server, client = kit / "server", kit / "client"
    for stale in [*kit.rglob("*.o"), server / "src" / "tndhms", client / "client"]:
        stale.unlink(missing_ok=True)
    daihu = server / "src" / "daihu.c"
    text = daihu.read_text(encoding="latin-1")
    # the server listens on all interfaces (htons(INADDR_ANY), which is 0 either way)
    text = re.sub(r"hton[sl]\(INADDR_ANY\)", "htonl(INADDR_LOOPBACK)", text)
    if "INADDR_LOOPBACK" not in text:
        raise SystemExit(f"uecda_strength: cannot bind the server to 127.0.0.1 in {daihu}")
    daihu.write_text(text, encoding="latin-1")
    log = work / "build.log"
    run(["sh", "./configure", "--without-x"], server, log)
    run(["make"], server, log)
    run(["make", "CFLAGS=-g -O2 -fcommon"], client, log)
    return server / "src" / "tndhms", client / "client"


def build_fujigokoro(sources: Path, work: Path) -> Path:
    fuji = work / "fujigokoro"
    shutil.copytree(sources, fuji, symlinks=True, ignore=shutil.ignore_patterns(".git", "out"))
    run(["make", "-j2", "out/client"], fuji, work / "build.log")
    return fuji / "out" / "client"


def write_config(template: Path, folder: Path, games: int, port: int) -> Path:
    settings = {
        "WINDOW_TYPE": "console",
        "GRAPH_WINDOW": "none",
        "FLAG_LOGGER": "yes",
        "GAME_NUMBER": str(games),
        "PORT_NUMBER": str(port),
    }
    lines = []
    for line in template.read_text(encoding="latin-1").splitlines():
        key = line.split()[0] if line.split() else ""
        lines.append(f"{key}\t{settings[key]}" if key in settings else line)
    config = folder / "tndhms.cfg"
    config.write_text("\n".join(lines) + "\n", encoding="latin-1")
    return config


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


Program = tuple[str, Callable[[int], list[str]]]  # a label, and its command for a port


def play_match(
    name: str,
    programs: list[Program],
    server: Path,
    work: Path,
    games: int,
) -> dict[str, Any]:
    """One match on the reference server: ``programs`` connect in this order (player numbers
    0-4). Returns the results per label."""
    folder = work / name
    (folder / "logs").mkdir(parents=True)
    port = free_port()
    config = write_config(server.parent / "tndhms.cfg", folder, games, port)
    started = time.monotonic()
    with (folder / "server.out").open("wb") as out:
        tndhms = subprocess.Popen(
            [str(server), "-c", str(config)], cwd=folder, stdout=out, stderr=subprocess.STDOUT
        )
    clients: list[subprocess.Popen[bytes]] = []
    try:
        # The server takes its connections one at a time and numbers the players in that
        # order; a probe would be taken for a player, so the start is waited for by time.
        time.sleep(0.5)
        for number, (_, command) in enumerate(programs):
            with (folder / f"player{number}.out").open("wb") as out:
                clients.append(
                    subprocess.Popen(
                        command(port), cwd=folder, stdout=out, stderr=subprocess.STDOUT
                    )
                )
            time.sleep(0.4)  # one at a time: the player numbers follow this order
        tndhms.wait()
        for client in clients:
            client.wait(timeout=60)
    finally:
        for process in [tndhms, *clients]:
            if process.poll() is None:
                process.kill()
    seconds = time.monotonic() - started
    logs = sorted((folder / "logs").glob("*.log"))
    if not logs:
        raise SystemExit(f"uecda_strength: the server wrote no log in {folder / 'logs'}")
    text = logs[-1].read_text(encoding="latin-1")
    places = read_places(text)
    labels = player_labels(read_names(text), [label for label, _ in programs])
    results: dict[str, Any] = {}
    for number, label in enumerate(labels):
        if label.startswith("sample"):
            continue
        got = [order.index(number) for order in places]
        firsts = sum(1 for place in got if place == 0)
        low, high = wilson(firsts, len(got))
        points = [POINTS[p] for p in got]
        mean = sum(points) / max(len(points), 1)
        spread = math.sqrt(sum((x - mean) ** 2 for x in points) / max(len(points) - 1, 1))
        margin = 1.96 * spread / math.sqrt(max(len(points), 1))
        results[label] = {
            "player": number,
            "games": len(got),
            "mean_points": round(mean, 4),
            "mean_points_95": [round(mean - margin, 4), round(mean + margin, 4)],
            "first_rate": round(firsts / max(len(got), 1), 4),
            "first_rate_95": [round(low, 4), round(high, 4)],
            "places": [sum(1 for p in got if p == k) for k in range(5)],
        }
    samples = [n for n, label in enumerate(labels) if label.startswith("sample")]
    sample_points = [POINTS[order.index(n)] for order in places for n in samples]
    results["samples"] = {
        "mean_points": round(sum(sample_points) / max(len(sample_points), 1), 4),
        "players": samples,
    }
    return {"match": name, "games": len(places), "seconds": round(seconds, 1), "results": results}


def read_names(log: str) -> list[str]:
    """The names of players 0-4 as the server logged them (its header line)."""
    found = re.search(r"^%-----%palyer_name%\s*(.*)$", log, re.MULTILINE)
    return found.group(1).split() if found else []


def player_labels(names: list[str], labels: list[str]) -> list[str]:
    """Each player number's label: ours and the sample clients are told by the name they gave
    (the server numbers players in the order it accepts them, which a slow start may change);
    the one program that names itself (FujiGokoro) takes the number left."""
    by_name = {NAME_OF.get(label, label): label for label in labels}
    out = [by_name.get(name[:9], "") for name in names]
    if len(out) != len(labels):
        return labels
    left = [label for label in labels if label not in out]
    for index, label in enumerate(out):
        if not label and left:
            out[index] = left.pop(0)
    return out


def read_places(log: str) -> list[list[int]]:
    """Each game's finishing order (player numbers) from the server's log (``result`` lines)."""
    orders = []
    for match in re.finditer(r"^%\d+%result%\s*(\d{5})", log, re.MULTILINE):
        orders.append([int(d) for d in match.group(1)])
    return orders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per match (500)")
    parser.add_argument(
        "--time-limit", type=float, default=0.2, help="hard: seconds per decision (0.2)"
    )
    parser.add_argument(
        "--matches",
        default="hard,normal,fujigokoro",
        help="which matches: hard, normal, fujigokoro (comma-separated; all by default)",
    )
    parser.add_argument("--jobs", type=int, default=3, help="matches run at once (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/uecda-strength.json")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    sources = os.environ.get(SOURCES_VARIABLE)
    if not sources:
        print(
            f"uecda_strength: skipped: set {SOURCES_VARIABLE} to the folder "
            "tndhm_devkit_c-20180826 of github.com/coldTOUFU/uecDA (and optionally "
            f"{FUJI_VARIABLE} to a checkout of github.com/YuriCat/FujiGokoroUECda) to measure "
            "our players against the UECda reference programs"
        )
        return 0
    wanted = [m.strip() for m in args.matches.split(",") if m.strip()]
    fuji_sources = os.environ.get(FUJI_VARIABLE)
    if "fujigokoro" in wanted and not fuji_sources:
        print(f"uecda_strength: no {FUJI_VARIABLE}: the match against FujiGokoro is skipped")
        wanted.remove("fujigokoro")
    work = Path(tempfile.mkdtemp(prefix="uecda-strength-"))
    print(f"uecda_strength: building in {work}", flush=True)
    server, sample = build_reference(Path(sources), work)
    fuji = build_fujigokoro(Path(fuji_sources), work) if "fujigokoro" in wanted else None

    def ours(level: str, seed: int) -> Program:
        command = [PYTHON, "-m", "cardverse", "uecda", "client", "--bot", level]
        command += ["--name", NAME_OF[level], "--seed", str(seed), "--host", "127.0.0.1"]
        if level == "hard":
            command += ["--time-limit", str(args.time_limit)]
        return level, lambda port: [*command, "--port", str(port)]

    def c_program(label: str, command: list[str]) -> Program:
        return label, lambda port: [*command, "-h", "127.0.0.1", "-p", str(port)]

    def samples(count: int) -> list[Program]:
        return [c_program(f"sample{n}", [str(sample), "-n", f"sample{n}"]) for n in range(count)]

    matches: list[tuple[str, list[Program]]] = []
    for level in ("hard", "normal"):
        if level in wanted:
            matches.append((f"{level}-vs-4-samples", [ours(level, args.seed), *samples(4)]))
    if fuji is not None:
        # one search thread: the machine's cores are shared with the other matches
        fuji_program = c_program("fujigokoro", [str(fuji), "-s", str(args.seed), "-th", "1"])
        matches.append(
            (
                "hard-vs-fujigokoro-3-samples",
                [ours("hard", args.seed), fuji_program, *samples(3)],
            )
        )
    started = datetime.datetime.now(datetime.UTC)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(
            pool.map(lambda m: play_match(m[0], m[1], server, work, args.games), matches)
        )
    report = {
        "bench": "uecda_strength",
        "date": started.strftime("%Y-%m-%d"),
        "games": args.games,
        "hard_time_limit": args.time_limit,
        "seed": args.seed,
        "reference": "tndhms 0.29 (coldTOUFU/uecDA, tndhm_devkit_c-20180826) and its sample client",
        "fujigokoro": "YuriCat/FujiGokoroUECda, without its learned parameters (Git LFS pointers)"
        if fuji is not None
        else None,
        "matches": outcomes,
    }
    for outcome in outcomes:
        print(f"{outcome['match']}: {outcome['games']} games in {outcome['seconds']} s")
        for label, figures in outcome["results"].items():
            if label == "samples":
                print(f"  sample clients: mean points {figures['mean_points']}")
                continue
            low, high = figures["first_rate_95"]
            m_low, m_high = figures["mean_points_95"]
            print(
                f"  {label} (player {figures['player']}): mean points {figures['mean_points']} "
                f"(95%: {m_low:.2f}-{m_high:.2f}), "
                f"first {figures['first_rate']:.1%} (95%: {low:.1%}-{high:.1%}), "
                f"places {figures['places']}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"uecda_strength: wrote {args.out}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
