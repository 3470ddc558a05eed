"""Compile the rules engine and the bots with mypyc (``make`` runs it).

The pure-Python modules stay the source: this writes one extension module for each of them into
``cardverse/_mypyc/`` (``engine/``, ``bots/``, and the shared library ``_compiled__mypyc*.so``),
never beside the ``.py`` files, and a manifest,
``cardverse/_compiled.json``, holding the hash of every compiled source. At import,
:mod:`cardverse._native` compares the manifest with the sources and runs the pure-Python code
when they differ (a stale build), when ``CARDVERSE_PURE=1`` is set, or when there is no build.

With no C compiler, or when the build fails, the manifest records why and the pure-Python code
runs; ``make`` still succeeds.

    python scripts/build_compiled.py            # build (or rebuild)
    python scripts/build_compiled.py --clean    # remove the compiled files
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["CARDVERSE_PURE"] = "1"  # this process only reads the sources

from cardverse._native import (  # noqa: E402
    BUILD_FOLDER,
    COMPILED_MODULES,
    GROUP,
    MANIFEST,
    source_digest,
    source_path,
    source_stamp,
)

BUILD_DIR = ROOT / "build" / "mypyc"


def compiled_files() -> list[Path]:
    """Every extension module inside the package (the build's, and any an older in-place build
    left beside the sources)."""
    suffixes = (".so", ".pyd")
    return [p for p in (ROOT / "cardverse").rglob("*") if p.suffix in suffixes]


def clean() -> None:
    for path in compiled_files():
        path.unlink()
    shutil.rmtree(BUILD_FOLDER, ignore_errors=True)
    manifest = ROOT / MANIFEST
    if manifest.exists():
        manifest.unlink()


def compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) or shutil.which("cc") or shutil.which("gcc")


def sources_now() -> dict[str, dict[str, object]]:
    """The hash and stamp of every source, taken before compiling (an edit during the build
    then shows as a stale build)."""
    return {
        "sources": {name: source_digest(name) for name in COMPILED_MODULES},
        "stamps": {name: source_stamp(name) for name in COMPILED_MODULES},
    }


def write_manifest(compiled: bool, reason: str, sources: dict[str, dict[str, object]]) -> None:
    data = {
        "compiled": compiled,
        "reason": reason,
        "python": sysconfig.get_config_var("EXT_SUFFIX"),
        **sources,
    }
    (ROOT / MANIFEST).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def build() -> int:
    clean()
    sources = sources_now()
    if compiler() is None:
        write_manifest(False, "no C compiler found: the pure-Python engine runs", sources)
        print("cardverse: no C compiler found, the engine and bots run as pure Python")
        return 0
    paths = [os.path.relpath(source_path(name), ROOT) for name in COMPILED_MODULES]
    # Type-checked with them, not compiled: the packages' other modules (the rule parts, the
    # __init__ files). As roots of the check, they make mypy order the import cycle through the
    # engine's package the way a check of the whole package does; with the compiled modules
    # alone as roots, a fresh check (no cache) stops at "Cannot determine type" in the parts.
    checked = sorted(
        os.path.relpath(path, ROOT)
        for package in ("engine", "bots")
        for path in (ROOT / "cardverse" / package).rglob("*.py")
        if os.path.relpath(path, ROOT) not in paths
    )
    started = time.perf_counter()
    # setuptools' build_ext in a child process, so that a failed build leaves a clean manifest.
    code = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"paths = {paths!r}\n"
        "setup(name='cardverse-compiled', packages=[], script_args=['build_ext',"
        f" '--build-lib', {str(BUILD_DIR / 'lib')!r}, '--build-temp', {str(BUILD_DIR / 'temp')!r}],"
        f" ext_modules=mypycify(paths + {checked!r}, only_compile_paths=paths, opt_level='3',"
        f" group_name={GROUP!r},"
        f" target_dir={str(BUILD_DIR)!r}))\n"
    )
    env = dict(os.environ, MYPY_CACHE_DIR=str(BUILD_DIR / "mypy_cache"))
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        clean()
        tail = (result.stdout + result.stderr).strip().splitlines()[-30:]
        print("\n".join(tail), file=sys.stderr)
        write_manifest(False, "the mypyc build failed: the pure-Python engine runs", sources)
        print("cardverse: the mypyc build failed; the engine and bots run as pure Python")
        return 0
    # build/mypyc/lib/cardverse/engine/x.so -> cardverse/_mypyc/engine/x.so, and so on
    built = BUILD_DIR / "lib" / "cardverse"
    for path in built.rglob("*"):
        if path.suffix in (".so", ".pyd"):
            target = Path(BUILD_FOLDER) / path.relative_to(built)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), target)
    write_manifest(True, "compiled with mypyc", sources)
    seconds = time.perf_counter() - started
    print(f"cardverse: compiled {len(paths)} modules with mypyc in {seconds:.0f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled files")
    args = parser.parse_args(argv)
    if args.clean:
        clean()
        return 0
    return build()


if __name__ == "__main__":
    raise SystemExit(main())
