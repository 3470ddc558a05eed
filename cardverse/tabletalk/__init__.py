"""What the server and the web client both say about a table, below both layers.

- :mod:`.narrate`: the protocol's ``event`` objects, told from the engine's events;
- :mod:`.story`: the round's events for the log, the score sheet, final titles, the away list;
- :mod:`.invites`: the short invite code of a table, its directory and the look-up limits;
- :mod:`.heartbeat`: the timings that find a dead connection within 5 s at both ends;
- :mod:`.finder`: what the pages may ask of the tables (:class:`~.finder.TableFinder`).

Layers: engine < notation/bots < tabletalk < server < web; this package imports only the
engine, the notation and the standard library (tests/test_layers.py checks it).
"""
