"""Compact JSON text, made with one encoder kept for the process.

``json.JSONEncoder.encode`` builds a new C encoder object for every call it makes; a message
or an event of a few members then spends as long in that set-up as in the encoding. The
encoder here is made once, with the settings every frame and stored event uses (``","`` and
``":"`` without spaces, text as it is rather than ``\\u`` escapes, no key sorting). It keeps no
record of the containers it has entered, so a value that contains itself is not caught as
``ValueError`` but ends in ``RecursionError``: the values given here are built fresh from the
table's state, never cyclic.
"""

from __future__ import annotations

import json
from json import encoder as _encoder
from typing import Any

_STANDARD = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# CPython's C encoder (None where the interpreter has no ``_json`` accelerator)
_make: Any = getattr(_encoder, "c_make_encoder", None)
_chunks: Any = (
    None
    if _make is None
    else _make(
        None,  # no record of the containers entered (see above)
        _STANDARD.default,
        _encoder.encode_basestring,
        None,  # no indentation
        ":",
        ",",
        False,  # keys in their own order
        False,  # a key that is not text is an error
        True,  # NaN and the infinities as JavaScript writes them (json's default)
    )
)


def compact(value: Any) -> str:
    """``value`` as compact JSON text (the same text as ``json.dumps(value,
    separators=(",", ":"), ensure_ascii=False)``)."""
    if _chunks is None or value.__class__ is str:
        return _STANDARD.encode(value)
    return "".join(_chunks(value, 0))
