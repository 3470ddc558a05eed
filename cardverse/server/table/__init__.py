"""A table as a pipeline of small parts (the map is in docs/server.md).

- :mod:`.state`: what a table's log folds into (seats, host, options, the game, records).
- :mod:`.decide`: (state, seat, message) → events to store, or a refusal. Pure.
- :mod:`.apply`: (state, event) → the next state; restoring is a fold of the log. Pure.
- :mod:`.log`: where the next event goes in the store (lobby changes coalesced).
- :mod:`.outbox`: frames per connection, spectators, through the hidden-card filter.
- :mod:`.clock`: turn timers, grace periods, computer players' turns, the host's grace.
- :mod:`.seating`: connections taking, leaving and losing seats.
- :mod:`.hints`: the ``suggest`` message (a part handed to the room).
- :mod:`.room`: one table, running decide → store → apply → outbox → clock.
- :mod:`.service`: every table of the process; :mod:`.locator`: where a table lives.

Nothing is imported here, so that importing one part does not import them all.
"""
