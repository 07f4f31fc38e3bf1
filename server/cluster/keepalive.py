"""A node's keep-alive in Redis (``docs/cluster.md``): what it tells the cluster, what it reads back.

Every ``keepalive_seconds`` the node says it is alive (``node:<name>``, expiring after
``lease_seconds``), writes what changed in its lobby entries (people online, rooms, seats held:
per-node hashes that expire with it) and renews their expiry, renews the leases of its tables, and reads the other nodes' entries into its
view of the cluster. A node that stops renewing drops out by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import orjson
from redis.exceptions import RedisError

from server.cluster import wire
from server.cluster.bus import still_wanted
from server.cluster.lease import Held, LeaseBook, Leases
from server.cluster.proxy import RemoteClient, RemotePlace
from server.cluster.relay import Relay
from server.lobby.lobby import Lobby
from server.people.players import Player
from server.rooms.room import Room
from server.storage.api import Fence, StaleOwner
from server.storage.names import name_key

log = logging.getLogger("donne.cluster")


def _dumps(value: Any) -> str:
    """An entry of this node's lobby hashes: written and read every keep-alive for everyone online
    (orjson, several times faster than the standard library on a thousand people)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class KeepAlive(Relay):
    """The keep-alive part of :class:`~server.cluster.lobby.ClusterLobby` (which makes its state)."""

    book: LeaseBook
    leases: Leases | None
    live: set[str]
    ticks: int
    _rooms: dict[str, tuple[str, dict[str, Any], bool]]
    _people: dict[str, dict[str, Any]]
    _seats: dict[str, tuple[str, str]]
    _healthy_since: float
    _alive_at: float
    given_up: dict[str, Room]
    """Durable tables this node stopped when it lost their lease, until another node takes them."""
    epochs: dict[str, int]
    """The epoch of each table's lease this node holds or held last: its writes' fencing token."""
    _floors: dict[str, int]
    """Tables whose epoch in PostgreSQL is above Redis's counter (Redis lost it): taken above it."""
    _writes_due: set[bool]
    """The rewrites of this node's entries asked for and not started (True: people, False: rooms)."""
    _written: dict[str, dict[str, str]]
    """Each of this node's hashes as Redis holds it after the last write it confirmed."""
    _entries_lock: asyncio.Lock
    """Held from building a write of the hashes to reading its results: writes apply in order."""
    _outages_seen: int

    async def _probe_store(self) -> None:
        raise NotImplementedError

    def _local_people(self, viewer: Player | None = None) -> list[dict[str, Any]]:
        return Lobby.who(self, viewer)

    # -- keep-alive -----------------------------------------------------------------------------------

    def _write_presence_soon(self) -> None:
        self._write_soon(presence=True)

    def _write_rooms_soon(self) -> None:
        self._write_soon(presence=False)

    def _write_soon(self, *, presence: bool) -> None:
        """Rewrite this node's people (or rooms) in Redis at the next turn of the loop: one write
        for every change made until it starts (a thousand logins at once make a few writes, not a
        thousand writes of a thousand people each)."""
        if not self.bus.healthy or self.bus.redis is None or presence in self._writes_due:
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

    def _entries(self, pipe: Any, *, presence: bool = True,
                 rooms: bool = True) -> Callable[[list[Any]], None]:
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
            listed = {str(s["room"]): _dumps([s, free]) for s, free in Lobby.room_list(self)}
            seats = {s.member: room.id for room in self.rooms.values() if not room.closed
                     for s in room.table.seats if s.member is not None}
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
                    pipe.hset(key, mapping=mapping)
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
                pipe.hset(key, mapping=changed)
                pipe.pexpire(key, ttl)  # (a key made again by the line above expires too)

        def confirm(results: list[Any]) -> None:
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

    async def _tick_loop(self) -> None:
        while True:
            still_wanted()  # a cancel lost inside a Redis command ends the loop here (bus.still_wanted)
            await asyncio.sleep(self.config.keepalive_seconds)
            try:
                await self._keepalive()
            except (RedisError, OSError) as exc:
                self.bus._health(False, exc)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: keep-alive failed")

    async def _keepalive(self) -> None:
        """Say this node is alive, rewrite its entries, renew its leases, read the other nodes'."""
        assert self.leases is not None
        self.ticks += 1
        late = self.book.lost()
        if late:  # the rooms are paused while Redis is away; the renewal below says whose they are
            log.warning("cluster: lease(s) of %s not renewed in time", " ".join(late))
        r = self.bus.redis
        for rid in await self.leases.renew():
            holder = await self.leases.holder(rid)
            if holder is None and rid in self.rooms and await self._take_again(rid):
                log.warning("cluster: table %s: its lease had expired; taken again", rid)
                continue
            self._lost(rid, "another node holds its lease" if holder else "its lease could not be taken again")
        ttl = int(self.config.lease_seconds * 1000)
        sent = time.monotonic()
        async with self._entries_lock:
            pipe = r.pipeline(transaction=True)
            pipe.set(wire.node_key(self.node), json.dumps({"pid": os.getpid(), "at": time.time()}), px=ttl)
            confirm = self._entries(pipe)
            self._list_tables(pipe)
            confirm(await pipe.execute())
        self._alive_at = sent
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
        people: dict[str, dict[str, Any]] = {}
        rooms: dict[str, tuple[str, dict[str, Any], bool]] = {}
        seats: dict[str, tuple[str, str]] = {}
        for i, node in enumerate(others):
            for key, raw in found[3 * i].items():
                people[key] = orjson.loads(raw)
            for rid, raw in found[3 * i + 1].items():
                summary, free = orjson.loads(raw)
                rooms[rid] = (node, summary, bool(free))
            for key, rid in found[3 * i + 2].items():
                seats[key] = (node, rid)
        self._people, self._rooms, self._seats = people, rooms, seats
        if time.monotonic() - self._healthy_since < self.config.lease_seconds:
            nodes |= self.live  # just back from an outage: the others may not have written their keep-alive yet
        dead = self.live - nodes
        self.live = nodes
        self.bus._health(True)
        # an outage of PostgreSQL pauses the tables even between two writes (asked last: a slow
        # database must not hold this node's keep-alive back until the others think it dead)
        await self._probe_store()
        if dead:
            log.warning("cluster: node(s) %s stopped answering", ", ".join(sorted(dead)))
        for player in list(self.players.values()):
            session = player.session
            if isinstance(session, RemoteClient) and session.node not in nodes:
                self._front_gone(player)  # their node died: they are away (their grace runs)
            elif isinstance(player.room, RemotePlace) and player.room.owner in dead and session is not None:
                session.notice("server_trouble")  # their table's node died: it resumes elsewhere

    async def _take_again(self, rid: str) -> bool:
        """The lease of a table of this node that expired unrenewed (Redis away, this process paused),
        taken again with a higher epoch, and that epoch put in PostgreSQL's fence: only if the
        table's epoch there is still this node's (nobody else took the table meanwhile)."""
        assert self.leases is not None
        old = self.book.held.get(rid)
        if old is None:
            return False
        held = await self.leases.take(rid, old.epoch)
        if held is None:
            return False
        before = await self._fence_taken(held)
        if before is None or before not in (0, old.epoch):
            await self.leases.release(rid, held)
            return False
        return True

    async def _fence_taken(self, held: Held) -> int | None:
        """The table's fence in PostgreSQL raised to the epoch of a lease just taken, before anything of
        the table is read or written (the former owner's writes are refused from then on): the epoch
        it had, or None when it could not be raised (a higher one is there: the lease is given up)."""
        try:
            before = (await self.store.apply([Fence(held.rid, held.epoch, take=True)]))[0]
        except StaleOwner as exc:
            log.warning("cluster: table %s: epoch %d is behind the database's (%d)", held.rid, held.epoch,
                        exc.current)
            self._floors[held.rid] = exc.current
            return None
        except Exception as exc:
            log.warning("cluster: table %s: its fence could not be raised (%s)", held.rid, exc)
            return None
        self._floors.pop(held.rid, None)
        self.epochs[held.rid] = held.epoch
        return int(before)

    def _list_tables(self, pipe: Any) -> None:
        """Failover (:mod:`server.cluster.takeover`) lists this node's tables."""

    def _lost(self, rid: str, why: str) -> None:
        """This node may no longer own ``rid``: the table stops here at once (a durable one where it
        is, given up to whichever node takes it over: :mod:`server.cluster.takeover`)."""
        self.book.dropped(rid)
        room = self.rooms.get(rid)
        log.error("cluster: table %s stops on node %s: %s", rid, self.node, why)
        if room is not None:
            if room.journal is not None:
                del self.rooms[rid]
                self.given_up[rid] = room
            self._spawn(room.stop())
