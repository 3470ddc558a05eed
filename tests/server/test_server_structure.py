"""The server's shape (issue 29): no module over 600 lines, no class over 400, and no import
circle inside ``cardverse/server``, every import counted (those inside functions and under
``TYPE_CHECKING`` too), read from the source's syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

from import_graph import circles, imported, module_name, modules_under

SERVER = Path(__file__).resolve().parents[2] / "cardverse" / "server"
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400


def server_import_graph() -> dict[str, set[str]]:
    """The server's modules and which of them each imports."""
    paths = {module_name(path): path for path in modules_under("server")}
    return {
        name: {n for n in imported(path) if n in paths and n != name}
        for name, path in paths.items()
    }


def test_no_import_circle_inside_the_server() -> None:
    cycles = circles(server_import_graph())
    assert not cycles, [sorted(c) for c in cycles]


def test_the_cycle_finder_sees_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [{"a", "b", "c"}]


def test_no_server_module_over_600_lines() -> None:
    over = {}
    for path in SERVER.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        name = str(path.relative_to(SERVER))
        if lines > MAX_MODULE_LINES:
            over[name] = lines
    assert not over, over


def test_no_server_class_over_400_lines() -> None:
    over = {}
    for path in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    over[f"{path.relative_to(SERVER)}:{node.name}"] = lines
    assert not over, over
