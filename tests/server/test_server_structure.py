"""The server's shape (issue 29): no module over 600 lines, no class over 400, and no import
circle inside ``cardverse/server``, every import counted (those inside functions and under
``TYPE_CHECKING`` too), read from the source's syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "cardverse" / "server"
PACKAGE = "cardverse.server"
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted(SERVER.rglob("*.py")):
        parts = path.relative_to(SERVER).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((PACKAGE, *parts))] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the server that ``name`` imports anywhere in its text."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            if node.level:
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            targets = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.add(member)
                if member == node:
                    break
            if len(part) > 1:
                out.append(part)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


def test_no_import_circle_inside_the_server() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = _cycles(graph)
    assert not cycles, [sorted(c) for c in cycles]


def test_the_cycle_finder_sees_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [{"a", "b", "c"}]


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
