"""The table page's state has one writer: table-state.js (its `dispatch(action)`).

A static scan of the page's JavaScript: no other module assigns to the state object `S`, adds
or removes a field, mutates one of its collections in place, or takes it under another name.
"""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "cardverse" / "web" / "static" / "js"
WRITER = "table-state.js"

# a path into the state: S.a, S.a.b, S["a"], S.a[0].b
_PATH = r"\bS(?:\.[A-Za-z_$][\w$]*|\[[^\]\n]+\])+"
_WRITES = [
    # S.a = …, S.a.b += …, S.a ||= … (not ==, ===, =>)
    re.compile(_PATH + r"\s*(?:[-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=(?![=>])"),
    re.compile(_PATH + r"\s*(?:\+\+|--)"),
    re.compile(r"(?:\+\+|--)\s*" + _PATH),
    re.compile(r"\bdelete\s+" + _PATH),
    # an in-place change of one of its arrays, sets or maps
    re.compile(
        _PATH
        + r"\.(?:push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin|set|add|delete|clear)"
        + r"\s*\("
    ),
    re.compile(r"\bObject\.(?:assign|defineProperty|defineProperties)\(\s*S\b"),
    # the state under another name, where a write could hide
    re.compile(r"\bimport\s*\{[^}]*\bS\s+as\b"),
    re.compile(r"(?:\bconst|\blet|\bvar)\s+[\w$]+\s*=\s*S\s*[;,]"),
]


def state_writes(source: str) -> list[str]:
    """The lines of `source` that write the state object (comments aside)."""
    found = []
    for line in source.splitlines():
        code = re.sub(r"//.*$", "", line)
        if any(pattern.search(code) for pattern in _WRITES):
            found.append(line.strip())
    return found


def test_only_table_state_writes_the_page_state() -> None:
    sources = sorted(JS.glob("*.js"))
    assert any(path.name == WRITER for path in sources)
    writes = {
        path.name: state_writes(path.read_text(encoding="utf-8"))
        for path in sources
        if path.name != WRITER
    }
    assert {name: lines for name, lines in writes.items() if lines} == {}


def test_the_scan_finds_each_kind_of_write() -> None:
    for line in [
        "  S.busy = true;",
        "  S.table.seats[2].auto = message.auto;",
        'S["seat"] = 3;',
        "S.optionsRefused += 1;",
        "S.autoPasses ||= 0;",
        "S.autoPasses++;",
        "++S.noteAsked;",
        "delete S.away;",
        "S.selected.add(code);",
        "S.reactionLog.push(entry);",
        "Object.assign(S, { seat: 1 });",
        "Object.assign(S.view, delta);",
        'import { S as state } from "./table-state.js";',
        "const page = S;",
    ]:
        assert state_writes(line) == [line.strip()], line
    for line in [
        "if (S.seat === null) return;",
        "const rows = S.view.hand.map((code) => code);",
        "S.selected.has(code)",
        "dispatch({ type: 'left' }); // S.seat = null",
        "const taken = S.taken;",
        "S.state && S.state.v !== message.v",
    ]:
        assert state_writes(line) == [], line


def test_the_writer_is_one_dispatch_without_late_bound_hooks() -> None:
    writer = (JS / WRITER).read_text(encoding="utf-8")
    assert "export function dispatch(action)" in writer
    for path in JS.glob("*.js"):
        assert not re.search(r"\bhooks\b", path.read_text(encoding="utf-8")), path.name
