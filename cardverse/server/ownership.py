"""Table ownership through leases in Redis: one process at a time owns (holds in memory,
changes, and writes the log of) a table.

A lease is the key ``cardverse:lease:<table id>`` holding the owner's node id, set with
``NX`` and a time to live (``lease_ttl``); the owner renews all its leases every
``lease_renew`` seconds in one script. A lease that expires (its owner died, or was paused longer
than the time to live) can be taken by any other process, which first *claims* the table in the
store (:meth:`cardverse.server.eventlog.EventStore.claim`: the table's next fencing number) and only
then restores it from the log. The fencing number, not the lease, is what keeps the log safe:
an old owner that wakes up after losing its lease has a lower number, and the store refuses its
writes.

When Redis itself restarts, every lease is gone at once: each owner sets its own leases again at
its next renewal (the store's fencing numbers go on from where they were, so nothing is lost if
another process got there first).
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("cardverse.server.ownership")

PREFIX = "cardverse:lease:"

# Renew each of KEYS held by ARGV[1] for ARGV[2] ms; a key that vanished (Redis restarted) is
# set again. Returns, per key, 1 (held) or 0 (another process holds it: lost).
RENEW = """
local held = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    held[i] = 1
  elseif not owner then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
    held[i] = 1
  else
    held[i] = 0
  end
end
return held
"""

# Delete KEYS[1] if ARGV[1] holds it (release, or take over from a node known to be gone).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases:
    """This process's leases on tables (``node``: its id), on a redis-py asyncio client."""

    def __init__(self, redis: Any, node: str, ttl: float, renew_every: float) -> None:
        self.redis = redis
        self.node = node
        self.ttl_ms = max(1, round(ttl * 1000))
        self.renew_every = renew_every
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)
        self.moves = 0  # leases taken over from another (dead or stalled) process

    @staticmethod
    def key(table_id: str) -> str:
        return PREFIX + table_id

    async def acquire(self, table_id: str) -> bool:
        """Take the table's lease if nobody holds it."""
        return bool(await self.redis.set(self.key(table_id), self.node, nx=True, px=self.ttl_ms))

    async def owner(self, table_id: str) -> str | None:
        value = await self.redis.get(self.key(table_id))
        return None if value is None else _text(value)

    async def owners(self, table_ids: list[str]) -> list[str | None]:
        if not table_ids:
            return []
        values = await self.redis.mget([self.key(t) for t in table_ids])
        return [None if v is None else _text(v) for v in values]

    async def renew(self, table_ids: list[str]) -> list[str]:
        """Renew the leases of these tables; returns the tables whose lease another holds."""
        if not table_ids:
            return []
        held = await self._renew(
            keys=[self.key(t) for t in table_ids], args=[self.node, self.ttl_ms]
        )
        return [t for t, h in zip(table_ids, held, strict=True) if not int(h)]

    async def release(self, table_id: str, holder: str | None = None) -> bool:
        """Give the lease up (``holder``: delete it only if that node holds it)."""
        done = await self._release(keys=[self.key(table_id)], args=[holder or self.node])
        return bool(done)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
