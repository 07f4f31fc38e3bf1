"""A table's one owner: a Redis lease with a fencing epoch.

Taking a table: ``INCR epoch:<rid>`` gives a new epoch, then ``SET lease:<rid> "<node> <epoch>"
NX PX <ttl>`` takes the lease if nobody holds it. The owner renews it every ``renew_every``
seconds with a compare-and-expire script (only while the value is still its own); a node that
could not renew for ``ttl - margin`` seconds stops the table at once (it can no longer be sure
it owns it), before anyone else may take it. The epoch goes with the table: a node that takes a
table over has a higher epoch than the one it took it from, and ``docs/cluster.md`` says how
that fences a late write.

:class:`LeaseBook` is the pure part (which leases are due, which are lost, with any clock);
:class:`Leases` performs it against Redis.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.cluster import wire

if TYPE_CHECKING:
    from redis.asyncio import Redis

RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""

TAKE = """
local epoch = redis.call('incr', KEYS[1])
local floor = tonumber(ARGV[2])
if epoch <= floor then
  epoch = floor + 1
  redis.call('set', KEYS[1], epoch)
end
if redis.call('set', KEYS[2], ARGV[1] .. ' ' .. epoch, 'NX', 'PX', ARGV[3]) then
  return epoch
end
return 0
"""

RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


@dataclass(slots=True)
class Held:
    rid: str
    epoch: int
    renewed: float  # when the lease was last taken or renewed (the book's clock)

    def value(self, node: str) -> str:
        return f"{node} {self.epoch}"


def parse(value: str | bytes | None) -> tuple[str, int] | None:
    """``(node, epoch)`` of a lease's value as Redis answers it (text: the bus decodes), or None."""
    if not value or not isinstance(value, str):
        return None
    node, _, epoch = value.rpartition(" ")
    if not node or not epoch.isdigit():
        return None
    return node, int(epoch)


class LeaseBook:
    """The leases this node holds, and when each must be renewed or given up (no I/O)."""

    def __init__(self, node: str, ttl: float, clock: Callable[[], float], margin: float | None = None) -> None:
        if ttl <= 0:
            raise ValueError("a lease lasts a positive time")
        self.node = node
        self.ttl = ttl
        self.margin = ttl / 5 if margin is None else margin  # given up this long before it may expire
        self.renew_every = ttl / 3
        self.clock = clock
        self.held: dict[str, Held] = {}

    def took(self, rid: str, epoch: int) -> Held:
        held = self.held[rid] = Held(rid, epoch, self.clock())
        return held

    def renewed(self, rid: str, at: float) -> None:
        """A renewal sent at ``at`` succeeded (the lease lasts ``ttl`` from when it was sent)."""
        held = self.held.get(rid)
        if held is not None and at > held.renewed:
            held.renewed = at

    def dropped(self, rid: str) -> Held | None:
        return self.held.pop(rid, None)

    def due(self) -> list[Held]:
        """The leases to renew now (every one a third of its life old)."""
        now = self.clock()
        return [h for h in self.held.values() if now - h.renewed >= self.renew_every]

    def lost(self) -> list[str]:
        """The tables this node must stop: no renewal succeeded for ``ttl - margin``."""
        now = self.clock()
        return [h.rid for h in self.held.values() if now - h.renewed >= self.ttl - self.margin]

    def surely(self, rid: str) -> bool:
        """This node surely holds ``rid``'s lease now: taken or renewed less than ``ttl - margin``
        ago by its own clock (a pause of the process, however long, counts)."""
        held = self.held.get(rid)
        return held is not None and self.clock() - held.renewed < self.ttl - self.margin


class Leases:
    """:class:`LeaseBook` against Redis (``redis``: a ``redis.asyncio.Redis``)."""

    def __init__(self, redis: Redis, book: LeaseBook) -> None:
        self.redis = redis
        self.book = book

    @property
    def ttl_ms(self) -> int:
        return max(1, int(self.book.ttl * 1000))

    async def take(self, rid: str, floor: int = 0) -> Held | None:
        """The lease of ``rid`` if nobody holds it, with a new epoch above ``floor`` (the table's
        epoch in the database: Redis may have lost its counter); None if someone holds it."""
        taken = self.book.clock()
        epoch = int(await self.redis.eval(TAKE, 2, wire.epoch_key(rid), wire.lease_key(rid), self.book.node,
                                          int(floor), self.ttl_ms))
        if not epoch:
            return None
        held = self.book.took(rid, epoch)
        held.renewed = taken  # the lease lasts from when it was asked for
        return held

    async def holder(self, rid: str) -> tuple[str, int] | None:
        raw = await self.redis.get(wire.lease_key(rid))
        return parse(raw)

    async def renew(self, due: Iterable[Held] | None = None) -> list[str]:
        """Renew the leases due; the tables whose lease someone else holds now (give them up)."""
        held = list(self.book.due() if due is None else due)
        if not held:
            return []
        sent = self.book.clock()
        pipe = self.redis.pipeline(transaction=False)
        for h in held:
            pipe.eval(RENEW, 1, wire.lease_key(h.rid), h.value(self.book.node), self.ttl_ms)
        results = await pipe.execute()
        gone = []
        for h, ok in zip(held, results, strict=True):
            if ok:
                self.book.renewed(h.rid, sent)
            else:
                gone.append(h.rid)
        return gone

    async def release(self, rid: str, held: Held | None = None) -> None:
        """Give the lease up (``held``: one already dropped from the book), if it is still this node's."""
        held = self.book.dropped(rid) or held
        if held is not None:
            await self.redis.eval(RELEASE, 1, wire.lease_key(rid), held.value(self.book.node))
