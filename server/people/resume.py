"""A guest's resume code: what proves, after a lost connection or a restart, that a held seat is theirs.

A guest has no password, so a bare name proves nothing. Each guest login gets a short code
(:func:`new_code`, two groups of four characters, about 40 bits); only its hash
(:func:`hash_code`, scrypt with its own salt) is kept: on the :class:`~server.people.players.Player`,
in the seat the guest takes, and so in the table's durable log, where a restart or another
node of a cluster finds it. Logging in under a guest name that holds a seat (or is connected)
then needs the code (:func:`check`); a guest who lost it loses the seat to a bot when the
grace ends, as if they had left.

Guessing is bounded by :class:`Attempts`: a few wrong codes per name and per address in a
window, each answered after a growing pause, then refused without checking. The code itself is
never written to a log or the store.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from server.storage import passwords as _pw

ALPHABET = _pw.RESET_ALPHABET  # no 0/O, 1/I/L: read, copied and typed by hand
GROUPS = 2  # of 4 characters: 31^8, about 2^40
SCRYPT_N = 2**10  # a few ms for each hash (one per guest login); 2^40 codes times that for a stolen hash


def new_code() -> str:
    """A fresh code as shown: ``K7QX-M2PD``."""
    groups = ["".join(secrets.choice(ALPHABET) for _ in range(4)) for _ in range(GROUPS)]
    return "-".join(groups)


def normalize(text: str) -> str:
    """A typed code as hashed: upper case, without dashes or spaces (``k7qx m2pd``)."""
    return _pw.normalize_code(text)


def looks_like_code(text: str) -> bool:
    """Whether ``text`` could be a code at all (the right length and letters): anything else is
    refused without spending a hash."""
    code = normalize(text)
    return len(code) == 4 * GROUPS and all(ch in ALPHABET for ch in code)


async def hash_code(code: str) -> str:
    """The stored form of ``code`` (computed off the event loop)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, _pw.hash_password, normalize(code), SCRYPT_N)


async def matches(code: str, stored: str | None) -> bool:
    """Whether ``code`` is the one ``stored`` was made from (None: no code was ever given)."""
    if stored is None or not looks_like_code(code):
        return False
    loop = asyncio.get_running_loop()
    return bool(await loop.run_in_executor(None, _pw.verify_password, normalize(code), stored))


@dataclass
class Attempts:
    """Wrong codes per guest name and per address: at most ``limit`` in ``window`` seconds, each
    answered after ``base * 2**(n-1)`` seconds (at most ``maximum``)."""

    limit: int = 5
    window: float = 900.0
    base: float = 0.5
    maximum: float = 4.0
    clock: Callable[[], float] = time.monotonic
    _fails: dict[str, list[float]] = field(default_factory=dict)

    def _recent(self, key: str) -> list[float]:
        now = self.clock()
        kept = [t for t in self._fails.get(key, []) if now - t < self.window]
        if kept:
            self._fails[key] = kept
        else:
            self._fails.pop(key, None)
        return kept

    def blocked(self, name_key: str, address: str, *, by_name: bool = True) -> bool:
        """Too many wrong codes lately for this name (``by_name``: the guest's own address is not
        held back by the codes others tried) or from this address."""
        return ((by_name and len(self._recent("n:" + name_key)) >= self.limit)
                or (bool(address) and len(self._recent("a:" + address)) >= self.limit))

    def fail(self, name_key: str, address: str) -> float:
        """Count a wrong code; the seconds to wait before answering."""
        now = self.clock()
        counts = []
        for key in ("n:" + name_key, *(("a:" + address,) if address else ())):
            recent = self._recent(key)
            recent.append(now)
            self._fails[key] = recent
            counts.append(len(recent))
        if len(self._fails) > 10_000:  # a flood of names: forget the oldest
            for key in list(self._fails)[:5_000]:
                del self._fails[key]
        return float(min(self.maximum, self.base * 2 ** (max(counts) - 1)))

    def succeed(self, name_key: str) -> None:
        self._fails.pop("n:" + name_key, None)
