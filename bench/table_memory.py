"""Memory of a live table, measured in-process with tracemalloc.

``python -m bench.table_memory --tables 200 --moves 12`` makes that many tables with a
:class:`~cardverse.server.tables.TableService` on a temporary SQLite store, seats four people
at each (four connections that drop what they are sent, so only the server's memory counts),
starts the game and plays ``--moves`` legal moves at each, then reports the memory the tables
hold: traced bytes after minus before, per table, and the biggest allocation sites.

The same script measures an older tree (one without ``cardverse/server/table``, whose tables
are not broken down part by part): ``cd OLD && PYTHONPATH=$PWD python /path/to/table_memory.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

from cardverse.engine import player_view
from cardverse.server.protocol import parse_client_message
from cardverse.server.tables import Settings, TableService


class QuietConn:
    """A connection that keeps nothing it is sent."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.table: Any = None
        self.standby = False
        self.synced: Any = None

    def send(self, text: str) -> None:
        pass

    def close(self, code: int, reason: str) -> None:
        pass


def deep_size(root: Any, seen: set[int]) -> int:
    """Bytes of ``root`` and everything it refers to that ``seen`` does not hold yet (modules,
    classes and functions are shared by every table: not counted)."""
    import sys
    import types

    shared = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    size = 0
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, shared):
            continue
        seen.add(id(item))
        size += sys.getsizeof(item)
        stack.extend(gc.get_referents(item))
    return size


def breakdown(table: Any, conns: list[QuietConn]) -> dict[str, int]:
    """What one live table holds, part by part (each part without what earlier ones hold)."""
    seen: set[int] = {id(table.service), id(table.settings)}
    seen |= {id(v) for v in vars(table.service).values()}
    seen |= {id(c) for c in conns}  # the bench's own connection objects
    parts: dict[str, Any] = {
        "rules": table.state.rules,
        "game (engine)": table.state.game,
        "story (round's events)": table.state.story,
        "away log": table.state.away,
        "records": (table.state.recent_records,),
        "wire caches": getattr(table.outbox, "_wire", None),
        "what each connection holds (synced)": [c.synced for c in conns],
        "seats": table.state.seats,
    }
    out = {name: deep_size(part, seen) for name, part in parts.items()}
    out["the rest of the table"] = deep_size(table, seen)
    return out


def _play(service: TableService, moves: int, rng: random.Random) -> list[QuietConn]:
    table, token = service.create("Ann", {"preset": "standard"})
    conns = [QuietConn() for _ in range(4)]
    for conn in conns:
        table.attach(conn)
    seqs = [0, 0, 0, 0]

    def send(index: int, message: dict[str, Any]) -> None:
        seqs[index] += 1
        text = json.dumps({**message, "seq": seqs[index]})
        table.handle(conns[index], parse_client_message(text))

    table.handle(conns[0], parse_client_message(json.dumps({"type": "join", "token": token})))
    for index in (1, 2, 3):
        table.handle(
            conns[index], parse_client_message(json.dumps({"type": "join", "name": f"P{index}"}))
        )
    send(0, {"type": "start"})
    for _ in range(moves):
        game = table.game
        if game is None or game.turn is None:
            break
        legal = player_view(game, game.turn).to_json()["legal_moves"]
        if not legal:
            break
        move = dict(rng.choice(legal))
        kind = move.pop("action")
        send(game.turn, {"type": kind, **move})
    return conns


async def measure(tables: int, moves: int, top: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(
            data_dir=Path(folder), turn_timer=None, grace=None, bot_delay=0, bot_processes=0
        )
        service = TableService(settings)
        rng = random.Random(7)
        _play(service, moves, rng)  # warm: imports, caches of the engine and the encoder
        service.store.commit()
        gc.collect()
        tracemalloc.start(8)
        before = tracemalloc.take_snapshot()
        start_bytes = tracemalloc.get_traced_memory()[0]
        held = [_play(service, moves, rng) for _ in range(tables)]
        table = held[-1][0].table
        parts = breakdown(table, held[-1]) if hasattr(table, "state") else {}
        service.store.commit()
        gc.collect()
        used = tracemalloc.get_traced_memory()[0] - start_bytes
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        sites = after.compare_to(before, "lineno")[:top]
        service.close()
        del held
    return {
        "tables": tables,
        "moves": moves,
        "bytes_per_table": round(used / tables),
        "kib_per_table": round(used / tables / 1024, 1),
        "parts": parts,
        "top": [
            f"{stat.size_diff / tables / 1024:7.2f} KiB/table  {stat.traceback[0]}"
            for stat in sites
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    result = asyncio.run(measure(args.tables, args.moves, args.top))
    print(f"{result['tables']} live tables, {result['moves']} moves each:")
    print(f"  {result['kib_per_table']} KiB per table ({result['bytes_per_table']} bytes)")
    print("  one table, part by part (bytes, sys.getsizeof of everything reached):")
    for name, size in result["parts"].items():
        print(f"    {size:7d}  {name}")
    print("  where tracemalloc saw the memory allocated:")
    for line in result["top"]:
        print("  " + line)


if __name__ == "__main__":
    main()
