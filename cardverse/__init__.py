"""CardVerse: President (Dai Fugō) on the web: rules engine, notation, bots, server, client."""

from . import _native as _native  # compiled engine, or its pure-Python source

__version__ = "0.1.0"
