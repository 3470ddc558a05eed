"""Which code runs: the mypyc-compiled engine and bots, or their pure-Python source.

``scripts/build_compiled.py`` (run by ``make``) compiles the modules of :data:`COMPILED_MODULES`
in place and writes :data:`MANIFEST` with the hash of each source. Python would load an extension
module before the ``.py`` beside it, so a build older than its source would silently run old
code; this module, imported first by :mod:`cardverse`, prevents that. It keeps the compiled
modules only when the manifest matches every source, and otherwise makes those modules load from
their ``.py`` files (all of them: compiled modules call each other directly), saying why once on
standard error when the build is stale. ``CARDVERSE_PURE=1`` asks for the pure-Python code.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Only cheap imports here: every ``cardverse`` command starts by importing this module.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(PACKAGE_DIR)
MANIFEST = "cardverse/_compiled.json"
GROUP = "cardverse._compiled"  # the shared library: cardverse/_compiled__mypyc*.so
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


def _decide() -> tuple[bool, str]:
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


class _SourceOnly:
    """Loads the compiled modules from their ``.py`` files, never from a built extension
    (a finder on ``sys.meta_path``)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _NAMES:
            return None
        import importlib.util

        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


_NAMES = frozenset(COMPILED_MODULES)
COMPILED, REASON = _decide()
if not COMPILED:
    sys.meta_path.insert(0, _SourceOnly())


def running_compiled() -> bool:
    """Whether the engine and bots imported so far run as compiled extension modules."""
    import cardverse.engine.rounds as rounds

    return not (rounds.__file__ or "").endswith(".py")
