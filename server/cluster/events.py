"""Tournaments in a cluster: one node runs each open event (``docs/tournaments.md``, "One node runs
a tournament").

:class:`Events` is the part of :class:`~server.cluster.lobby.ClusterLobby` the lobby's hall sees as
its :class:`~server.lobby.tournaments.host.HallCluster`:

* **Ownership.** An event is owned as a table is: a Redis lease ``donne:lease:tour:<id>`` (its key
  in the lease book is the event's fence key, ``tour:<id>``) with its fencing epoch, renewed with
  the node's tables' leases. Every write of the event carries ``Fence(fence_key(tid), epoch)`` first
  (the hall's ``write``), and the hall writes nothing once the lease is not surely held by the node's
  monotonic clock. A lease lost, or a write refused by the fence (``StaleOwner``), stops the event
  here at once (``Hall.stale``). ``donne:tournaments`` lists the open events and their owner.
* **Any node.** A ``tournament_*`` command of a person on another node is forwarded to the owner
  (``tcmd``) and answered with ``reply`` as a table's command is; ``tournaments`` asks every node that
  runs events. The announcements go as any lobby news and tell do (the lobby channel).
* **Seats.** An event's tables open on its owner. A person of another node is seated by their own
  node (``tseat``): it joins them as a person joins another node's table (a ``RemotePlace``).
* **Failover.** At each keep-alive a node takes over the listed events whose owner is gone and
  whose lease nobody holds: a new lease, the fence raised in PostgreSQL (``take=True``) before the
  journal is read, then the restart's code (``Hall.adopt``): the event rebuilt from its journal and
  reconciled with its tables. A table another node holds is followed from the store
  (``Hall.follow_far``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from redis.exceptions import RedisError

from server.cluster import wire
from server.cluster.proxy import BOOT, until_answered
from server.cluster.relay import Relay
from server.cluster.takeover import NodeParts
from server.lobby.tournaments.acts import ACTS, act
from server.lobby.tournaments.hall import Hall
from server.protocol import Args, CommandError, JSONValue, Result
from server.rooms.room import Room
from server.storage.api import Fence, StaleOwner, Store, first_result
from server.storage.api_tournaments import fence_key
from server.storage.names import name_key

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.typing import EncodableT

    from server.config import Config

log = logging.getLogger("donne.cluster")

KINDS = frozenset({"tcmd", "tseat"})
"""The messages this part handles (its answers are the relay's ``reply``)."""

PREFIX = "tour:"
"""An event's key in the lease book and in ``table_fences`` (``fence_key``)."""

LIST_WAIT = 2.0
"""Seconds ``tournaments`` waits for another node's list of its events."""

_requests = itertools.count(1)


def event_of(key: str) -> str | None:
    """The event id of a lease book's key (``tour:e12`` → ``e12``), None for a table's."""
    return key[len(PREFIX):] if key.startswith(PREFIX) else None


class EventsHost(NodeParts, Protocol):
    """What the events' part needs of its node's lobby."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> Store: ...
    @property
    def hall(self) -> Hall: ...


class Events:
    """A node's side of the cluster's tournaments (see the module)."""

    def __init__(self, lobby: EventsHost, node: str, relay: Relay, *, live: Callable[[], set[str]],
                 fenced: set[str], just_back: Callable[[], bool]) -> None:
        self.lobby = lobby
        self.node = node
        self.relay = relay
        self._live = live  # the nodes alive at the last keep-alive
        self._fenced = fenced  # the keys whose writes the node's store refuses (FencedStore)
        self._just_back = just_back
        self.epochs: dict[str, int] = {}
        """Each event this node owns: its lease's epoch, its writes' fencing token."""
        self.floors: dict[str, int] = {}
        self._taking: set[str] = set()
        self.scan_store = True
        """Look in the store for open events Redis does not list (at start, after an outage)."""

    @property
    def hall(self) -> Hall:
        return self.lobby.hall

    @property
    def redis(self) -> Redis:
        return self.lobby.bus.redis

    # -- HallCluster: ownership ------------------------------------------------------------------

    def fence(self, tid: str) -> Fence | None:
        epoch = self.epochs.get(tid)
        return Fence(fence_key(tid), epoch) if epoch else None

    def acting(self, tid: str) -> bool:
        return self.lobby.book.surely(fence_key(tid))

    async def own(self, tid: str) -> None:
        leases = self.lobby.leases
        if not self.lobby.healthy or leases is None:
            raise CommandError("server_trouble")
        try:
            held = await leases.take(fence_key(tid))
        except (RedisError, OSError):
            raise CommandError("server_trouble") from None
        if held is None:
            raise CommandError("server_trouble")
        self.epochs[tid] = held.epoch  # a new event: its first write sets its fence
        self._fenced.discard(fence_key(tid))
        try:
            await self.redis.hset(wire.TOURNAMENTS_KEY, tid, self.node)
        except (RedisError, OSError):
            self.over(tid)
            raise CommandError("server_trouble") from None

    def over(self, tid: str) -> None:
        self.epochs.pop(tid, None)
        self.lobby.spawn(self._drop(tid, listed=True))

    def gone(self, tid: str) -> None:
        self.epochs.pop(tid, None)
        self._fenced.add(fence_key(tid))
        self.lobby.spawn(self._drop(tid, listed=False))

    async def _drop(self, tid: str, *, listed: bool) -> None:
        leases = self.lobby.leases
        with contextlib.suppress(RedisError, OSError):
            if listed:
                await self.redis.hdel(wire.TOURNAMENTS_KEY, tid)
            if leases is not None:
                await leases.release(fence_key(tid))

    def lost(self, key: str) -> None:
        """The lease book's ``key`` was lost (not renewed in time, or another node holds it): if it is
        an event's, the event stops here at once."""
        tid = event_of(key)
        if tid is not None and self.epochs.pop(tid, None) is not None:  # (not one over here, its lease let go)
            self.hall.stale(tid)

    # -- HallCluster: the other nodes' events ------------------------------------------------------

    async def owner(self, tid: str) -> str | None:
        try:
            node = await self.redis.hget(wire.TOURNAMENTS_KEY, tid)
        except (RedisError, OSError):
            raise CommandError("server_trouble") from None
        if not isinstance(node, str) or node == self.node:
            return None
        if node not in self._live():
            raise CommandError("server_trouble")  # its node died: another takes it over in a moment
        return node

    async def forward(self, node: str, cmd: str, args: Args, name: str, staff: bool) -> dict[str, JSONValue]:
        answer = await self._ask(node, {"t": "tcmd", "cmd": cmd, "args": dict(args), "name": name, "staff": staff})
        if not isinstance(answer, Mapping):
            raise CommandError("server_trouble")
        return dict(answer)

    async def listing(self, asker: str | None) -> list[dict[str, JSONValue]]:
        """Every other live node's events (those over lately too), each node asked at once. The open
        events of a node that does not answer within :data:`LIST_WAIT` seconds are listed as their
        journals leave them (``as_stored``)."""
        nodes = sorted(self._live() - {self.node})

        async def one(node: str) -> list[dict[str, JSONValue]] | None:
            try:
                answer = await self._ask(node, {"t": "tcmd", "cmd": "tournaments", "args": {}, "name": asker or "",
                                                "staff": False}, LIST_WAIT)
            except CommandError:
                return None
            if not isinstance(answer, Mapping):
                return None
            found = answer.get("tournaments")
            return [dict(s) for s in found if isinstance(s, dict)] if isinstance(found, list) else None

        parts = dict(zip(nodes, await asyncio.gather(*(one(n) for n in nodes)), strict=True))
        out = [s for part in parts.values() if part is not None for s in part]
        silent = {node for node, part in parts.items() if part is None}
        if silent:
            try:
                listed = await self.redis.hgetall(wire.TOURNAMENTS_KEY)
            except (RedisError, OSError):
                listed = {}
            for tid, node in listed.items():
                if node in silent and isinstance(tid, str):
                    stored = await self.hall.stored_summary(tid, asker)
                    if stored is not None:
                        out.append(stored)
        return out

    async def _ask(self, node: str, msg: dict[str, JSONValue], wait: float | None = None) -> Result | None:
        """``msg`` sent to ``node``, its ``reply`` awaited (``wait``, by default ``remote_timeout``:
        then ``server_trouble``). Sent again each :data:`~server.cluster.proxy.RESEND` seconds
        unanswered (a message can be lost while a node subscribes again after an outage of Redis):
        the node runs it once and answers each copy."""
        req = f"{self.node}.{BOOT}.t{next(_requests)}"
        future: asyncio.Future[Result | None] = asyncio.get_running_loop().create_future()
        self.relay.pending[req] = future
        sent = {**msg, "req": req}
        try:
            await until_answered(lambda: self.relay.send(node, sent), future,
                                 self.lobby.config.remote_timeout if wait is None else wait)
            return future.result()
        finally:
            self.relay.pending.pop(req, None)
            if not future.done():
                future.cancel()

    # -- HallCluster: people of other nodes seated here ----------------------------------------------

    async def seat(self, room: Room, name: str, finished: Sequence[str]) -> bool:
        node = await self._node_of(name_key(name))
        if node is None:
            return False
        try:
            await self._ask(node, {"t": "tseat", "rid": room.id, "key": name_key(name), "free": list(finished)})
        except CommandError as exc:
            log.info("%s could not sit at %s from node %s (%s)", name, room.id, node, exc.code)
            return False
        return True

    async def _node_of(self, key: str) -> str | None:
        """The live node ``key`` is online at (asked of Redis now), other than this one."""
        nodes = sorted(self._live() - {self.node})
        try:
            pipe = self.redis.pipeline(transaction=False)
            for node in nodes:
                pipe.hexists(wire.presence_key(node), key)
            found = await pipe.execute() if nodes else []
        except (RedisError, OSError):
            return None
        return next((node for node, there in zip(nodes, found, strict=True) if there), None)

    # -- messages ------------------------------------------------------------------------------------

    def handle(self, msg: wire.Message, sender: str) -> None:
        req = msg.get("req")
        if not isinstance(req, str):
            return
        if self.relay.answered_before(req, sender):  # a copy (sent again after a lost message)
            return
        self.relay.expect(req)
        if msg["t"] == "tcmd":
            self.lobby.spawn(self._run(msg, sender, req))
        elif msg["t"] == "tseat":
            self.lobby.spawn(self._seat_here(msg, sender, req))

    def _answer(self, node: str, req: str, result: Result | None = None, error: CommandError | None = None) -> None:
        answer: wire.Message
        if error is not None:
            answer = {"t": "reply", "req": req, "err": error.code, "params": dict(error.params)}
        else:
            answer = {"t": "reply", "req": req, "ok": dict(result) if result is not None else None}
        self.relay.reply(node, req, answer)

    async def _run(self, msg: wire.Message, sender: str, req: str) -> None:
        """On the owner: a person of ``sender`` asks one of the events this node runs."""
        cmd, args, name = msg.get("cmd"), msg.get("args"), msg.get("name")
        if not isinstance(cmd, str) or cmd not in ACTS or not isinstance(args, dict) or not isinstance(name, str):
            self._answer(sender, req, error=CommandError("bad_command"))
            return
        try:
            result = await act(self.hall, cmd, args, name, msg.get("staff") is True)
        except CommandError as exc:
            self._answer(sender, req, error=exc)
        except Exception:
            log.exception("cluster: %s for %s failed", cmd, name)
            self._answer(sender, req, error=CommandError("internal_error"))
        else:
            self._answer(sender, req, result)

    async def _seat_here(self, msg: wire.Message, sender: str, req: str) -> None:
        """On a person's front: the event's owner ``sender`` seats them at its table ``rid``; they
        leave the room they watch (or the finished table they sit at) and join it."""
        rid, key = msg.get("rid"), msg.get("key")
        found = self.relay.local_session(key) if isinstance(key, str) else None
        if found is None or not isinstance(rid, str):
            self._answer(sender, req, error=CommandError("not_online"))
            return
        player = found[0]
        free = msg.get("free")
        here = player.room
        try:
            if here is not None and here.id != rid:
                finished = (isinstance(here, Room) and here.table.status == "over") or \
                    (isinstance(free, list) and here.id in free)
                if player.seat is not None and not finished:
                    raise CommandError("already_in_room", room=here.id)  # at another table: absent
                await here.step_out(player)
            place = self.relay.place(rid, sender)
            if player.room is not place:
                joined = await place.submit(player, "join", {})
                if player.room is not place:  # a state of the table that came before was not theirs yet
                    seat = joined.get("seat") if isinstance(joined, Mapping) else None
                    player.room, player.seat = place, seat if isinstance(seat, int) else None
                    place.refresh(player)  # its state sent again
        except CommandError as exc:
            self._answer(sender, req, error=exc)
        except Exception:
            log.exception("cluster: %s could not be seated at %s", key, rid)
            self._answer(sender, req, error=CommandError("internal_error"))
        else:
            self._answer(sender, req, {"room": rid})

    # -- failover (at every keep-alive) ----------------------------------------------------------------

    async def beat(self) -> None:
        """List this node's events again (Redis may have lost them), follow their tables held by
        other nodes, then take over the events whose owner is gone."""
        mine: dict[EncodableT, EncodableT] = {tid: self.node for tid in self.epochs if tid in self.hall.events}
        if mine:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.hset(wire.TOURNAMENTS_KEY, mapping=mine)
        try:
            await self.hall.follow_far()
        except Exception:
            log.exception("cluster: the tables of this node's events could not be read")
        await self.claim()

    async def claim(self) -> None:
        lobby = self.lobby
        if lobby.closing or not lobby.healthy or lobby.leases is None or self._just_back():
            return
        listed = {tid: node for tid, node in (await self.redis.hgetall(wire.TOURNAMENTS_KEY)).items()
                  if isinstance(tid, str) and isinstance(node, str)}
        if self.scan_store:
            self.scan_store = False
            for brief in await lobby.store.tournaments.events("open"):
                listed.setdefault(brief.tournament_id, "")
        candidates = [tid for tid, node in listed.items() if tid not in self.hall.events and tid not in self._taking
                      and (node not in self._live() or node == self.node)]
        if not candidates:
            return
        random.shuffle(candidates)  # nodes claiming at once spread the events between them
        found = await self.redis.mget([wire.lease_key(fence_key(tid)) for tid in candidates])
        for tid, held in zip(candidates, found, strict=True):
            if held is None and not lobby.closing:
                await self.take_over(tid)

    async def take_over(self, tid: str) -> None:
        """Event ``tid``'s lease taken, its fence raised before its journal is read, the event rebuilt
        here by the restart's code."""
        leases = self.lobby.leases
        assert leases is not None
        key = fence_key(tid)
        self._taking.add(tid)
        try:
            held = await leases.take(key, self.floors.get(tid, 0))
            if held is None:
                return  # another node was quicker
            try:
                first_result(await self.lobby.store.apply([Fence(key, held.epoch, take=True)]), int)
            except StaleOwner as exc:
                log.warning("cluster: tournament %s: epoch %d is behind the database's (%d)", tid, held.epoch,
                            exc.current)
                self.floors[tid] = exc.current
                await leases.release(key)
                return
            self.floors.pop(tid, None)
            self.epochs[tid] = held.epoch
            self._fenced.discard(key)
            stored = await self.lobby.store.tournaments.get(tid)
            if stored is None or stored.status != "open":
                self.epochs.pop(tid, None)
                await self.redis.hdel(wire.TOURNAMENTS_KEY, tid)
                await leases.release(key)
                return
            if not await self.hall.adopt(stored):  # its record does not replay: set aside
                self.epochs.pop(tid, None)
                await self.redis.hdel(wire.TOURNAMENTS_KEY, tid)
                await leases.release(key)
                return
            await self.redis.hset(wire.TOURNAMENTS_KEY, tid, self.node)
            log.warning("cluster: node %s took tournament %s over (epoch %d)", self.node, tid, held.epoch)
        except (RedisError, OSError) as exc:
            log.warning("cluster: taking tournament %s over failed: %s", tid, exc)
        except Exception:
            log.exception("cluster: tournament %s could not be taken over", tid)
            self.epochs.pop(tid, None)
            with contextlib.suppress(RedisError, OSError):
                await leases.release(key)
        finally:
            self._taking.discard(tid)
