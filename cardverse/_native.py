"""Which code runs: the mypyc-compiled engine and bots, or their pure-Python source.

``scripts/build_compiled.py`` (run by ``make``) compiles the modules of :data:`COMPILED_MODULES`
into :data:`BUILD_FOLDER` (``cardverse/_mypyc/engine/rounds….so`` and so on, never beside the
``.py`` files) and writes :data:`MANIFEST` with the hash of each source. This module, imported
first by :mod:`cardverse`, decides once whether that build is used: only when the manifest
matches every source (a build older than its source would run old code). Then
:func:`compiled_path` gives the folder that ``cardverse.engine`` and ``cardverse.bots`` put in
front of their ``__path__``, so the extension modules are found before the ``.py`` files by
Python's ordinary import system; otherwise nothing is added and the ``.py`` files run (all of
them: compiled modules call each other directly). No import hook is installed. Why the
pure-Python code runs is in :data:`REASON` (and said once on standard error when the build is
stale). ``CARDVERSE_PURE=1`` asks for the pure-Python code.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys

# Only cheap imports here: every ``cardverse`` command starts by importing this module.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(PACKAGE_DIR)
MANIFEST = "cardverse/_compiled.json"
GROUP = "cardverse._compiled"  # the shared library: cardverse/_mypyc/_compiled__mypyc*.so
#: where the build leaves its extension modules, one folder per compiled package
BUILD_FOLDER = os.path.join(PACKAGE_DIR, "_mypyc")
PURE_ENV = "CARDVERSE_PURE"

#: the packages whose modules the build compiles (their ``__init__`` files stay interpreted)
COMPILED_PACKAGES = ("engine", "bots")
#: the packages whose modules stay interpreted: a bot's view check raises a subclass of TypeError,
#: which mypyc cannot compile; the rule parts are subclassed from each other with class-level
#: option specs, which mypyc's native classes do not take
INTERPRETED: frozenset[str] = frozenset({"cardverse.bots.base"})


def _modules() -> tuple[str, ...]:
    names = []
    for package in COMPILED_PACKAGES:
        folder = os.path.join(PACKAGE_DIR, *package.split("/"))
        for file in sorted(os.listdir(folder)):
            stem, dot, suffix = file.rpartition(".")
            name = "cardverse." + package.replace("/", ".") + "." + stem
            if dot and suffix == "py" and stem != "__init__" and name not in INTERPRETED:
                names.append(name)
    return tuple(names)


#: the modules the build compiles
COMPILED_MODULES: tuple[str, ...] = _modules()


def source_path(module: str) -> str:
    """The ``.py`` file of one of :data:`COMPILED_MODULES`."""
    return os.path.join(ROOT, *module.split(".")) + ".py"


def source_digest(module: str) -> str:
    import hashlib

    with open(source_path(module), "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def source_stamp(module: str) -> list[int]:
    """Size and modification time of a source: the quick check before its hash."""
    info = os.stat(source_path(module))
    return [info.st_size, info.st_mtime_ns]


def stray_builds() -> list[str]:
    """Extension modules that an older build left beside the sources (it compiled in place):
    Python loads them before the ``.py`` files, so they are said, and ``make`` removes them."""
    found = []
    for package in COMPILED_PACKAGES:
        folder = os.path.join(PACKAGE_DIR, package)
        found += [
            f"cardverse/{package}/{file}"
            for file in sorted(os.listdir(folder))
            if file.endswith((".so", ".pyd"))
        ]
    return found


def _decide() -> tuple[bool, str]:
    stray = stray_builds()
    if stray:
        reason = (
            f"an older build left {stray[0]} beside the sources; it runs instead of its .py "
            "until `make` (or scripts/build_compiled.py --clean) removes it"
        )
        print(f"cardverse: {reason}", file=sys.stderr)
        return False, reason
    if os.environ.get(PURE_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return False, f"{PURE_ENV} is set: the pure-Python engine and bots run"
    try:
        with open(os.path.join(ROOT, MANIFEST), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return False, "not compiled (run make): the pure-Python engine and bots run"
    if not data.get("compiled"):
        return False, str(data.get("reason", "not compiled"))
    if data.get("python") != importlib.machinery.EXTENSION_SUFFIXES[0]:
        return False, "compiled for another Python: the pure-Python engine and bots run"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for module in COMPILED_MODULES:
        package, _, stem = module.removeprefix("cardverse.").rpartition(".")
        if not os.path.exists(os.path.join(BUILD_FOLDER, package, stem + suffix)):
            return False, "the compiled files are missing (run make): the pure-Python code runs"
    sources = data.get("sources", {})
    stamps = data.get("stamps", {})
    for module in COMPILED_MODULES:
        try:
            same = stamps.get(module) == source_stamp(module)
            same = same or sources.get(module) == source_digest(module)
        except OSError:
            same = False
        if not same:
            name = os.path.relpath(source_path(module), ROOT)
            reason = (
                f"the compiled engine is older than its source ({name} changed): the "
                "pure-Python engine and bots run until `make` rebuilds it"
            )
            print(f"cardverse: {reason}", file=sys.stderr)
            return False, reason
    return True, "compiled with mypyc"


COMPILED, REASON = _decide()


def compiled_path(package: str) -> list[str]:
    """The folder of ``package``'s compiled modules (``"engine"`` or ``"bots"``), to put in front
    of its ``__path__``; empty when the pure-Python code runs."""
    return [os.path.join(BUILD_FOLDER, package)] if COMPILED else []


if COMPILED:  # the compiled modules' shared library, ``cardverse._compiled__mypyc``
    _package = sys.modules.get("cardverse")
    if _package is not None and BUILD_FOLDER not in _package.__path__:
        _package.__path__.append(BUILD_FOLDER)


def running_compiled() -> bool:
    """Whether the engine and bots imported so far run as compiled extension modules."""
    import cardverse.engine.rounds as rounds

    return not (rounds.__file__ or "").endswith(".py")
