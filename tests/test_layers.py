"""The layers import only downwards: engine < notation/bots < tabletalk < server < web, and only
the top-level application (cardverse/application.py) knows both the server and the web package.

Every module's imports are read from its syntax tree (module level, inside functions and under
``TYPE_CHECKING`` alike), relative imports resolved to the module they name.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
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


ENGINE = "cardverse.engine"

#: The engine's public modules besides the package itself (docs/engine.md, "The public surface").
#: Every other module of the engine is internal; other layers import only the names in each public
#: module's ``__all__`` (the bots import from the modules, not the package, as they are compiled
#: with the engine and call it directly).
PUBLIC_ENGINE_MODULES = frozenset(
    f"{ENGINE}.{name}"
    for name in (
        "cards",
        "events",
        "exchange",
        "movegen",
        "options",
        "order",
        "parts",
        "plays",
        "positions",
        "reports",
        "rounds",
        "ruleset",
        "scoring",
        "specs",
        "views",
        "words",
    )
)


def engine_module_path(module: str) -> Path:
    relative = Path(*module.split(".")[1:])
    package = PACKAGE / relative / "__init__.py"
    return package if package.exists() else PACKAGE / relative.with_suffix(".py")


def declared_all(module: str) -> set[str]:
    """The names in ``module``'s ``__all__``, read from its syntax tree (empty if it has none)."""
    tree = ast.parse(engine_module_path(module).read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return set(ast.literal_eval(node.value))
    return set()


def engine_imports(source: str, package: str) -> Iterator[tuple[int, str, str | None]]:
    """Each engine name a module of ``package`` with this ``source`` imports: (line, module,
    name), name None for ``import module``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if within(alias.name, ENGINE):
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if within(target, ENGINE):
                for alias in node.names:
                    yield node.lineno, target, alias.name


def surface_offences(where: str, source: str, package: str) -> list[str]:
    """What a module at ``where`` (in ``package``) imports from the engine that is not public."""
    package_names = declared_all(ENGINE)
    found = []
    for line, module, name in engine_imports(source, package):
        if module != ENGINE and module not in PUBLIC_ENGINE_MODULES:
            found.append(f"{where}:{line}: {module} is an internal module of the engine")
        elif name is None or (module == ENGINE and f"{ENGINE}.{name}" in PUBLIC_ENGINE_MODULES):
            continue
        elif name not in (package_names if module == ENGINE else declared_all(module)):
            found.append(f"{where}:{line}: {name} is not in the __all__ of {module}")
    return found


def test_every_public_engine_module_declares_its_public_names() -> None:
    for module in sorted(PUBLIC_ENGINE_MODULES | {ENGINE}):
        names = declared_all(module)
        assert names, f"{module} has no __all__"
        assert not [n for n in names if n.startswith("_")], f"{module}'s __all__ has private names"


def outside_the_engine() -> Iterator[tuple[Path, str]]:
    """Every module that codes against the engine from outside: the other layers of the package,
    the examples and the benchmarks; with the package its relative imports start from."""
    for path in modules_under(""):
        name = module_name(path)
        if not within(name, ENGINE):
            yield path, name if path.name == "__init__.py" else name.rpartition(".")[0]
    for folder in ("examples", "bench"):
        for path in sorted((PACKAGE.parent / folder).glob("*.py")):
            yield path, folder


def test_the_other_layers_import_only_the_engines_public_names() -> None:
    """Issue 32: every name another layer (or an example, or a benchmark) takes from the engine
    is public (the package's ``__all__``, or a public module's), and none reaches into an
    internal module."""
    offences = [
        offence
        for path, package in outside_the_engine()
        for offence in surface_offences(
            str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8"), package
        )
    ]
    assert offences == [], "\n".join(offences)


def test_the_public_surface_check_catches_an_internal_import() -> None:
    """The check itself, on a made-up module of the bots' package."""
    source = (
        "from ..engine.game import Game\n"
        "from ..engine.plays import _private, PASS\n"
        "from ..engine import plays, Game as G\n"
        "import cardverse.engine.dealing\n"
        "from cardverse.engine.rounds import Round, owed_moves\n"
    )
    assert surface_offences("probe.py", source, "cardverse.bots") == [
        "probe.py:1: cardverse.engine.game is an internal module of the engine",
        "probe.py:2: _private is not in the __all__ of cardverse.engine.plays",
        "probe.py:4: cardverse.engine.dealing is an internal module of the engine",
        "probe.py:5: owed_moves is not in the __all__ of cardverse.engine.rounds",
    ]
