"""Perft counts (issue 32): the number of legal action sequences to depth 1–3 from positions of
every preset, written once to tests/data/perft/ by ``python -m cardverse.perft`` and recounted
here, so that any change to the move generation of the rules (R5–R18, R31–R37) shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cardverse.notation import position_to_json, read_position
from cardverse.perft import DEPTHS, PRESET_OPTIONS, perft

FOLDER = Path(__file__).resolve().parent / "data" / "perft"


def _cases() -> list[tuple[str, int, dict[str, Any]]]:
    cases = []
    for preset in PRESET_OPTIONS:
        entries = json.loads((FOLDER / f"{preset}.json").read_text(encoding="utf-8"))
        cases += [(preset, number, entry) for number, entry in enumerate(entries)]
    return cases


@pytest.mark.parametrize(("preset", "number", "entry"), _cases(), ids=lambda v: str(v)[:12])
def test_perft_counts_to_depth_3(preset: str, number: int, entry: dict[str, Any]) -> None:
    position = read_position(entry["position"])
    assert position.rules.preset == preset
    assert position_to_json(position.round, position.rules) == entry["position"]
    counts = [perft(position.round, depth) for depth in DEPTHS]
    assert counts == entry["perft"], f"{preset} position {number}"
    assert counts[0] == len(set(position.legal_moves()))  # each legal move listed once


def test_every_preset_has_positions_with_real_choices() -> None:
    cases = _cases()
    assert {preset for preset, _, _ in cases} == set(PRESET_OPTIONS)
    assert max(entry["perft"][2] for _, _, entry in cases) > 1000
