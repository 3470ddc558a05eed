"""CardVerse: President (Dai Fugō) on the web: rules engine, notation, bots, server, client."""

__version__ = "0.1.0"
