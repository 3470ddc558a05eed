"""Invites: a short table code that can be typed, and the directory that finds a table by it.

- :func:`invite_code_for`: 8 characters of Crockford's base 32 (digits and capitals without
  I, L, O and U, so nothing looks like something else) from a one-way hash of the table id:
  40 bits. Shown as ``ABCD-EFGH``; read back by :func:`read_code`, which ignores case, spaces
  and hyphens and reads I and L as 1, O as 0 (Crockford's rule).
- :class:`Directory`: invite code → table id and watch id → table id for *every* table in the
  store (not only those loaded since start-up), built once at start and kept as tables are
  created. A new table whose code is already taken gets another id, so a code finds one table.
- :class:`LookupLimits`: failed look-ups of a code are limited per client address (a burst of
  10, then 10 a minute; IPv6 addresses count per /64 network, what one subscriber gets) and for
  the whole server (a burst of 300, then 300 a minute), so that guessing is slow from one
  address and from many together. Only misses count; a look-up is refused before it is made
  (a refused guess must not tell whether it would have hit), but only from an address that
  missed itself: one that spent its own misses, or, while everyone's misses are spent, one
  that missed in the last minute. So guessers from many addresses cannot lock a correct code
  out for everyone else: a person who types a code right gets in whatever others do. With 2^40
  codes and N tables, guessers that keep the server-wide limit spent get 300 misses a minute
  plus one a minute from each further address; 300 × 60 × 24 misses a day give N × 432,000 /
  2^40 expected hits (about 0.008 with 20,000 tables), and 1,000 more addresses guessing once
  a minute about 0.03 more. A hit only opens the table's lobby, like its share link.
"""

from __future__ import annotations

import hashlib
import ipaddress
import time
from dataclasses import dataclass, field

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
CODE_LENGTH = 8
_READ_AS = {"I": "1", "L": "1", "O": "0"}


def invite_code_for(table_id: str) -> str:
    """The table's invite code (8 characters, 40 bits of a hash of its id)."""
    digest = hashlib.sha256(b"cardverse-invite:" + table_id.encode("utf-8")).digest()
    number = int.from_bytes(digest[:5], "big")
    return "".join(ALPHABET[(number >> shift) & 31] for shift in range(35, -1, -5))


def show_code(code: str) -> str:
    """A code as people read it: two groups of four (``ABCD-EFGH``)."""
    return f"{code[:4]}-{code[4:]}"


def read_code(text: str) -> str | None:
    """The invite code typed in ``text`` (case, spaces and hyphens ignored; I, L read as 1 and
    O as 0), or None when it is not one."""
    cleaned = "".join(text.split()).replace("-", "").upper()
    cleaned = "".join(_READ_AS.get(ch, ch) for ch in cleaned)
    if len(cleaned) != CODE_LENGTH or any(ch not in ALPHABET for ch in cleaned):
        return None
    return cleaned


class TooManyLookups(Exception):
    """A look-up refused: the address (or everyone) missed too often lately; ``retry_after``
    is the seconds to wait."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("too many table codes that find no table: wait a minute and try again")
        self.retry_after = retry_after


class Directory:
    """Invite codes and watch ids of every stored table, to find its id."""

    def __init__(self) -> None:
        self.by_code: dict[str, str] = {}
        self.by_watch: dict[str, str] = {}

    def add(self, table_id: str, watch_id: str) -> None:
        self.by_code.setdefault(invite_code_for(table_id), table_id)
        self.by_watch[watch_id] = table_id

    def code_taken(self, table_id: str) -> bool:
        """Whether another table already has this table id's code."""
        owner = self.by_code.get(invite_code_for(table_id))
        return owner is not None and owner != table_id


@dataclass
class _Bucket:
    rate: float  # tokens a second
    burst: float
    tokens: float
    last: float = field(default_factory=time.monotonic)
    last_miss: float = float("-inf")  # when its address last missed (monotonic)

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


def _guesser(address: str) -> str:
    """Whose misses a look-up from ``address`` counts: the address, or its /64 for IPv6."""
    if ":" not in address:
        return address
    try:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    except ValueError:
        return address


class LookupLimits:
    """How many failed code look-ups an address, and everyone together, may make."""

    def __init__(
        self,
        per_address: tuple[int, float] = (10, 10 / 60),
        everyone: tuple[int, float] = (300, 300 / 60),
        recent: float = 60.0,
    ) -> None:
        """Each limit is (burst, failures a second once the burst is spent); while everyone's
        failures are spent, an address that failed in the last ``recent`` seconds waits."""
        self.per_address = per_address
        self.everyone = _Bucket(everyone[1], everyone[0], everyone[0])
        self.recent = recent
        self.addresses: dict[str, _Bucket] = {}
        self.refused = 0  # look-ups refused so far (an operator figure)

    def allowed(self, address: str) -> bool:
        """Whether this address may look a code up now: it has failures of its own left, and
        either everyone together has too or it has not failed lately itself."""
        now = time.monotonic()
        bucket = self.addresses.get(_guesser(address))
        if bucket is not None:
            bucket.tokens = min(bucket.burst, bucket.tokens + (now - bucket.last) * bucket.rate)
            bucket.last = now
            if bucket.tokens < 1.0:
                self.refused += 1
                return False
        self.everyone.tokens = min(
            self.everyone.burst,
            self.everyone.tokens + (now - self.everyone.last) * self.everyone.rate,
        )
        self.everyone.last = now
        spent = self.everyone.tokens < 1.0
        if spent and bucket is not None and now - bucket.last_miss < self.recent:
            self.refused += 1
            return False
        return True

    def failed(self, address: str) -> None:
        """A look-up from this address found no table: it uses one of its failures."""
        now = time.monotonic()
        key = _guesser(address)
        bucket = self.addresses.get(key)
        if bucket is None:
            if len(self.addresses) > 100_000:  # forget the addresses that are full again
                self.addresses = {
                    a: b
                    for a, b in self.addresses.items()
                    if b.tokens < b.burst or now - b.last_miss < self.recent
                }
            burst, rate = self.per_address
            bucket = self.addresses[key] = _Bucket(rate, burst, burst, now)
        bucket.take(now)
        bucket.last_miss = now
        self.everyone.take(now)

    def retry_after(self) -> int:
        """Seconds until a refused address may try again (at most)."""
        rate = min(self.per_address[1], self.everyone.rate)
        return max(1, round(1 / rate))
