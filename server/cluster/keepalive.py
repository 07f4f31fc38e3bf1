"""A node's keep-alive in Redis (``docs/cluster.md``): what it tells the cluster, what it reads back.

Every ``keepalive_seconds`` the node says it is alive (``node:<name>``, expiring after
``lease_seconds``), writes what changed in its lobby entries (people online, rooms, seats held:
per-node hashes that expire with it) and renews their expiry, and reads the other nodes' entries
into its view of the cluster (:attr:`KeepAlive.people`, :attr:`KeepAlive.rooms`,
:attr:`KeepAlive.seats`). A node that stops renewing drops out by itself. The node's lobby composes one beat (:meth:`ClusterLobby._keepalive
<server.cluster.lobby.ClusterLobby._keepalive>`): the leases first, then :meth:`KeepAlive.beat`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from redis.exceptions import RedisError

from server.cluster import wire
from server.cluster.bus import Bus, still_wanted
from server.protocol import JSONObject
from server.storage.names import name_key

if TYPE_CHECKING:
    from redis.asyncio.client import Pipeline
    from redis.typing import EncodableT

    from server.config import Config

log = logging.getLogger("donne.cluster")

Entry = JSONObject
"""A ``who`` entry or a room's summary as the lobby lists them."""


def _fields(mapping: dict[str, str]) -> dict[EncodableT, EncodableT]:
    """A hash's fields as redis-py's typing wants them."""
    return {k: v for k, v in mapping.items()}


def _dumps(value: object) -> str:
    """An entry of this node's lobby hashes: written and read every keep-alive for everyone online
    (orjson, several times faster than the standard library on a thousand people)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class KeepAlive:
    """What this node tells the cluster, and its view of the other nodes (owned by
    :class:`~server.cluster.lobby.ClusterLobby`, which hands it the node's own lists)."""

    def __init__(self, node: str, config: Config, bus: Bus, *,
                 people: Callable[[], Sequence[Mapping[str, object]]],
                 rooms: Callable[[], Sequence[tuple[Mapping[str, object], bool]]],
                 seats: Callable[[], dict[str, str]],
                 spawn: Callable[[Coroutine[Any, Any, object]], None],
                 just_back: Callable[[], bool]) -> None:
        self.node = node
        self.config = config
        self.bus = bus
        self._local_people = people  # this node's ``who`` entries
        self._local_rooms = rooms  # this node's open rooms: summary, a seat free
        self._local_seats = seats  # name key -> room id, for the people seated here
        self._spawn = spawn
        self._just_back = just_back  # Redis and PostgreSQL came back less than a lease ago
        self.live: set[str] = {node}
        self.ticks = 0
        # what the other nodes wrote at the last keep-alive: people online, rooms, seats held
        self.people: dict[str, Entry] = {}
        self.rooms: dict[str, tuple[str, Entry, bool]] = {}
        self.seats: dict[str, tuple[str, str]] = {}
        self.alive_at = time.monotonic()
        """When the last keep-alive that succeeded was sent."""
        self._writes_due: set[bool] = set()
        """The rewrites of this node's entries asked for and not started (True: people, False: rooms)."""
        self._written: dict[str, dict[str, str]] = {}
        """Each of this node's hashes as Redis holds it after the last write it confirmed."""
        self._entries_lock = asyncio.Lock()
        """Held from building a write of the hashes to reading its results: writes apply in order."""
        self._outages_seen = 0

    # -- this node's entries ----------------------------------------------------------------------

    def write_presence_soon(self) -> None:
        self._write_soon(presence=True)

    def write_rooms_soon(self) -> None:
        self._write_soon(presence=False)

    def _write_soon(self, *, presence: bool) -> None:
        """Rewrite this node's people (or rooms) in Redis at the next turn of the loop: one write
        for every change made until it starts (a thousand logins at once make a few writes, not a
        thousand writes of a thousand people each)."""
        if not self.bus.healthy or not self.bus.started or presence in self._writes_due:
            return
        self._writes_due.add(presence)
        self._spawn(self._write_entries(presence=presence))

    async def _write_entries(self, *, presence: bool) -> None:
        self._writes_due.discard(presence)  # a change from now on is not in this write: it asks for another
        with contextlib.suppress(RedisError, OSError):
            async with self._entries_lock:
                pipe = self.bus.redis.pipeline(transaction=True)
                confirm = self._entries(pipe, presence=presence, rooms=not presence)
                confirm(await pipe.execute())

    def _entries(self, pipe: Pipeline, *, presence: bool = True,
                 rooms: bool = True) -> Callable[[list[object]], None]:
        """This node's people (and/or rooms and seats) into ``pipe``: only what changed since the
        last write Redis confirmed (``_written``), the whole hash when that is unknown (the first
        write, a write that failed, Redis away since: it may have come back empty). The caller
        holds ``_entries_lock`` until it hands the pipeline's results to the function returned."""
        ttl = int(self.config.lease_seconds * 1000)
        tables: list[tuple[str, dict[str, str]]] = []
        if presence:
            people = {name_key(str(p["name"])): _dumps(p) for p in self._local_people()}
            tables.append((wire.presence_key(self.node), people))
        if rooms:
            listed = {str(s["room"]): _dumps([s, free]) for s, free in self._local_rooms()}
            seats = self._local_seats()
            tables += [(wire.rooms_key(self.node), listed), (wire.seats_key(self.node), seats)]
        if self.bus.outages != self._outages_seen:  # Redis was away: it may have lost every key
            self._outages_seen = self.bus.outages
            self._written.clear()
        checks: list[tuple[str, dict[str, str], int]] = []
        for key, mapping in tables:
            before = self._written.pop(key, None)  # unknown until Redis confirms this write
            if before is None or not mapping:
                pipe.delete(key)
                if mapping:
                    pipe.hset(key, mapping=_fields(mapping))
                    pipe.pexpire(key, ttl)
                checks.append((key, mapping, -1))
                continue
            pipe.pexpire(key, ttl)  # 0: the key is gone (Redis lost it, or it expired): rewritten whole
            checks.append((key, mapping, len(pipe) - 1))
            gone = [field for field in before if field not in mapping]
            changed = {field: value for field, value in mapping.items() if before.get(field) != value}
            if gone:
                pipe.hdel(key, *gone)
            if changed:
                pipe.hset(key, mapping=_fields(changed))
                pipe.pexpire(key, ttl)  # (a key made again by the line above expires too)

        def confirm(results: list[object]) -> None:
            lost = False
            for key, mapping, at in checks:
                if at >= 0 and not results[at]:
                    lost = True
                else:
                    self._written[key] = mapping
            if lost:
                self._write_soon(presence=True)
                self._write_soon(presence=False)

        return confirm

    # -- the beat -----------------------------------------------------------------------------------

    async def run(self, beat: Callable[[], Awaitable[None]]) -> None:
        """Call ``beat`` every ``keepalive_seconds`` until cancelled (Redis away: the bus hears it)."""
        while True:
            still_wanted()  # a cancel lost inside a Redis command ends the loop here (bus.still_wanted)
            await asyncio.sleep(self.config.keepalive_seconds)
            try:
                await beat()
            except (RedisError, OSError) as exc:
                self.bus._health(False, exc)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: keep-alive failed")

    async def beat(self, list_tables: Callable[[Pipeline], None]) -> set[str]:
        """Say this node is alive, rewrite its entries (and ``list_tables``' writes), read the other
        nodes'. Returns the nodes that stopped answering since the last beat."""
        r = self.bus.redis
        ttl = int(self.config.lease_seconds * 1000)
        sent = time.monotonic()
        async with self._entries_lock:
            pipe = r.pipeline(transaction=True)
            pipe.set(wire.node_key(self.node), json.dumps({"pid": os.getpid(), "at": time.time()}), px=ttl)
            confirm = self._entries(pipe)
            list_tables(pipe)
            confirm(await pipe.execute())
        self.alive_at = sent
        nodes = {self.node}
        prefix = wire.node_key("")
        async for key in r.scan_iter(match=prefix + "*", count=1000):
            nodes.add(key[len(prefix):])
        others = sorted(nodes - {self.node})
        pipe = r.pipeline(transaction=False)
        for node in others:
            pipe.hgetall(wire.presence_key(node))
            pipe.hgetall(wire.rooms_key(node))
            pipe.hgetall(wire.seats_key(node))
        found = await pipe.execute() if others else []
        people: dict[str, Entry] = {}
        rooms: dict[str, tuple[str, Entry, bool]] = {}
        seats: dict[str, tuple[str, str]] = {}
        for i, node in enumerate(others):
            for key, raw in found[3 * i].items():
                people[key] = orjson.loads(raw)
            for rid, raw in found[3 * i + 1].items():
                summary, free = orjson.loads(raw)
                rooms[rid] = (node, summary, bool(free))
            for key, rid in found[3 * i + 2].items():
                seats[key] = (node, rid)
        self.people, self.rooms, self.seats = people, rooms, seats
        if self._just_back():
            nodes |= self.live  # just back from an outage: the others may not have written their keep-alive yet
        dead = self.live - nodes
        self.live = nodes
        return dead

    def surely_alive(self) -> bool:
        """This node's keep-alive surely stands: written less than ``ttl - ttl/5`` ago, by its clock."""
        ttl = self.config.lease_seconds
        return time.monotonic() - self.alive_at < ttl - ttl / 5
