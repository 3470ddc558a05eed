"""The layers import only downwards: engine < notation/bots < tabletalk < server < web, and only
the top-level application (cardverse/application.py) knows both the server and the web package.

Every module's imports are read from its syntax tree (module level, inside functions and under
``TYPE_CHECKING`` alike), relative imports resolved to the module they name.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from import_graph import PACKAGE, circles, import_graph, imported, module_name, modules_under


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def offenders(folder: str, forbidden: str) -> list[str]:
    return sorted(
        f"{module_name(path)} imports {name}"
        for path in modules_under(folder)
        for name in set(imported(path))
        if within(name, forbidden)
    )


def test_the_resolver_reads_relative_imports(tmp_path: Path) -> None:
    """The check itself: ``from ..web import x`` in cardverse/server/a.py is cardverse.web."""
    sample = PACKAGE / "server" / "app.py"
    names = set(imported(sample))
    assert "cardverse.server.protocol" in names  # from . import protocol as P
    assert "cardverse.guards" in names  # from ..guards import ...
    tree = ast.parse("from ..web import pages\nfrom ...x import y\n")
    assert isinstance(tree.body[0], ast.ImportFrom) and tree.body[0].level == 2


def test_the_server_imports_nothing_from_the_web_package() -> None:
    assert offenders("server", "cardverse.web") == []
    assert offenders("server", "cardverse.application") == []


def test_the_web_package_imports_nothing_from_the_server() -> None:
    assert offenders("web", "cardverse.server") == []
    assert offenders("web", "cardverse.application") == []


@pytest.mark.parametrize("above", ["cardverse.server", "cardverse.web", "cardverse.application"])
def test_what_both_use_lives_below_both(above: str) -> None:
    assert offenders("tabletalk", above) == []
    assert [o for o in offenders("", above) if o.startswith("cardverse.guards ")] == []


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    outside = sorted(
        f"{module_name(path)} imports {name}"
        for path in modules_under("engine")
        for name in set(imported(path))
        if not within(name, "cardverse.engine")
        and name.split(".")[0] not in sys.stdlib_module_names
        and name != "__future__.annotations"
    )
    assert outside == []


OWNED_HERE = (
    "cardverse.application",
    "cardverse.guards",
    "cardverse.tabletalk",
    "cardverse.web",
    "cardverse.server.app",
    "cardverse.server.answers",
    "cardverse.server.sockets",
    "cardverse.server.cli",
    "cardverse.server.eventlog",
    "cardverse.server.store",
    "cardverse.server.pgstore",
    "cardverse.server.stores",
)


def test_no_import_circle_holds_the_layers_modules() -> None:
    """The application, the shared package, the web package, the server's app, options and
    stores are in no import circle (a package's ``__init__`` counts as a module)."""
    caught = [
        sorted(circle)
        for circle in circles(import_graph())
        if any(within(name, owned) for name in circle for owned in OWNED_HERE)
    ]
    assert caught == []


def package_graph(package: str) -> dict[str, set[str]]:
    """The import graph of ``package``'s own modules (its ``__init__`` among them)."""
    return {
        name: {other for other in imports if within(other, package)}
        for name, imports in import_graph().items()
        if within(name, package)
    }


@pytest.mark.parametrize("package", ["cardverse.engine", "cardverse.bots"])
def test_no_import_circle_inside_the_engine_and_the_bots(package: str) -> None:
    """The rule parts, the options and the referee import one another one way only (the option
    specs live in a leaf module, the parts see the referee through protocols); the bots' modules
    likewise."""
    caught = [sorted(circle) for circle in circles(package_graph(package))]
    assert caught == []


def test_the_option_specs_are_a_leaf_of_the_engine() -> None:
    assert {n for n in import_graph()["cardverse.engine.specs"] if within(n, "cardverse")} == set()


def test_the_parts_words_are_a_leaf_of_the_engine() -> None:
    assert {n for n in import_graph()["cardverse.engine.words"] if within(n, "cardverse")} == set()


def test_the_library_layers_import_nothing_from_the_server_or_the_web() -> None:
    """The environment and the moves' text are library layers (issue 32): no server, no web."""
    for above in ("cardverse.server", "cardverse.web", "cardverse.application"):
        assert offenders("env", above) == []
        assert [o for o in offenders("", above) if o.startswith("cardverse.moves ")] == []
