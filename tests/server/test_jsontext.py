"""The compact JSON encoder every frame and stored event goes through (server/jsontext.py)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from cardverse.server.jsontext import compact


def _standard(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(
    "value",
    [
        0,
        -7,
        2**70,
        1.5,
        math.inf,
        "",
        'a "quoted" line\nand a tab\t',
        "Kääk, ジョーカー, Ž",
        "\u2028",
        None,
        True,
        [],
        {},
        (1, 2),
        {"event": "played", "seat": 2, "action": {"action": "play", "cards": ["7H", "RJ"]}},
        {1: "a key that is a number", "b": [None, False, 0.25, {"c": []}]},
        [[[[[["deep"]]]]]],
    ],
)
def test_compact_text_is_the_standard_encoders(value: Any) -> None:
    assert compact(value) == _standard(value)


def test_compact_refuses_what_json_cannot_say() -> None:
    with pytest.raises(TypeError):
        compact({"cards": {1, 2}})
    with pytest.raises(TypeError):
        compact({("a", "tuple"): "as a key"})
