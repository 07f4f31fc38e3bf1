"""The lobby of one node of a cluster (``docs/cluster.md``).

It is the one-process :class:`~server.lobby.lobby.Lobby` for the node's own connections and rooms, and
the cluster's directory for the rest. It owns its parts, each given only what it needs: the
:class:`~server.cluster.bus.Bus` (Redis), the :class:`~server.cluster.relay.Relay` (a table's messages
between its owner and its people's fronts), the :class:`~server.cluster.keepalive.KeepAlive` (what
the node tells the cluster, its view of the others), the :class:`~server.cluster.takeover.Takeover`
(failover and fencing) and the :class:`~server.cluster.community.Community` (tells, mutes across
nodes). It routes the messages the bus hears to them, and composes each keep-alive's beat:

* the room list, ``who`` and the seats people hold are each node's keep-alive entries in Redis
  (per-node hashes that expire with the node), read back every keep-alive into a local view;
* lobby chat and room-list news cross on the lobby channel;
* ``join``/``watch`` of a room another node owns gives a :class:`~server.cluster.proxy.RemotePlace`;
  the owner holds the person as a :class:`~server.cluster.proxy.RemoteClient`;
* logging in ends the sessions of that name on every other node (``kick``);
* each room this node opens is held by a lease (:mod:`server.cluster.lease`), renewed by the
  keep-alive; a room whose lease is lost stops at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Collection
from typing import TYPE_CHECKING

import psycopg
from redis.exceptions import RedisError

from server.cluster import community, events, relay, wire
from server.cluster.bus import Bus
from server.cluster.community import Community
from server.cluster.events import Events
from server.cluster.keepalive import KeepAlive
from server.cluster.lease import LeaseBook, Leases
from server.cluster.proxy import RemoteClient, RemotePlace
from server.cluster.relay import Relay
from server.cluster.takeover import FencedStore, Takeover
from server.lobby.api import Connection
from server.lobby.directory import Summary, WhoEntry
from server.lobby.lobby import Lobby
from server.lobby.logins import GuestHold, typed_name
from server.people.players import GuestStart, Place, Player, PlayerSession, Welcome
from server.protocol import CommandError, JSONObject, Push, objects_in
from server.rooms.room import Room
from server.storage.api import Fence, Store, Unreachable
from server.storage.names import name_key
from server.table.durable import last_facts

if TYPE_CHECKING:
    from server.config import Config
    from server.games import TableOptions
    from server.operations.limits import Opener

log = logging.getLogger("donne.cluster")


LOBBY_KINDS = frozenset({"chat", "news", "kick", "owner"})
"""The lobby channel's messages the node's lobby handles itself (``_on_<kind>``)."""

OWN_KINDS = LOBBY_KINDS | community.KINDS
"""The lobby channel's messages: each node hears its own too, and has handled them already."""


def room_number(rid: str) -> int:
    return int(rid[1:]) if rid[1:].isdigit() else 0


class ClusterLobby(Lobby):
    """A node's lobby: the one process's lobby, and its parts in the cluster."""

    def __init__(self, config: Config, store: Store | None, sessions: Collection[Connection]) -> None:
        super().__init__(config, store, sessions)
        self.node = config.node
        self.bus = Bus(config.redis_url, self.node, self._on_message, self._on_health,
                       on_subscribed=self._resubscribed, timeout=config.service_timeout)
        self.relay = Relay(self, self.node, self.bus)
        self.book = LeaseBook(self.node, config.lease_seconds, time.monotonic)
        # renewed early enough that a keep-alive late by one beat still finds its leases surely held
        # (a short lease with a slow keep-alive: renewed at every keep-alive)
        self.book.renew_every = min(self.book.renew_every,
                                    max(0.0, self.book.ttl - self.book.margin - 2 * config.keepalive_seconds))
        self.leases: Leases | None = None
        self._tick: asyncio.Task[None] | None = None
        self._pg_ok = True
        self._probe: asyncio.Task[bool] | None = None  # the question asked of PostgreSQL, until answered
        self._probe_at = 0.0
        self._probe_done: int | None = None
        self._running = asyncio.Event()  # set while Redis and PostgreSQL both answer
        self._running.set()
        self._healthy_since = time.monotonic()  # the last time Redis and PostgreSQL came back
        self.keepalive = KeepAlive(self.node, config, self.bus, people=self.directory.who,
                                   rooms=self.directory.room_list, seats=self._seated_here,
                                   spawn=self.spawn, just_back=self._just_back)
        self.takeover = Takeover(self, self.node, live=lambda: self.keepalive.live, place=self.relay.place,
                                 rooms_changed=self.keepalive.write_rooms_soon, just_back=self._just_back,
                                 on_lost=self._event_lost, on_taken=self._table_taken)
        # tournaments: one node runs each event, any node's people play it (server/cluster/events.py)
        self.events = Events(self, self.node, self.relay, live=lambda: self.keepalive.live,
                             fenced=self.takeover.fenced, just_back=self._just_back)
        self.hall.cluster = self.events
        # tells, friends' notices, mutes, ignore lists across nodes
        self.community = Community(self.bus, self.conduct, self.relay.local_session,
                                   lambda: self.keepalive.people)

    def _just_back(self) -> bool:
        """Redis and PostgreSQL came back less than a lease ago (the others may not have caught up)."""
        return time.monotonic() - self._healthy_since < self.config.lease_seconds

    def _event_lost(self, key: str) -> None:
        self.events.lost(key)

    def _table_taken(self, room: Room) -> None:
        self.hall.took(room)

    def _seated_here(self) -> dict[str, str]:
        """Who holds a seat at this node's tables: name key -> room id."""
        return {s.member: room.id for room in self.rooms.values() if not room.closed
                for s in room.table.seats if s.member is not None}

    @staticmethod
    def _here(player: Player) -> bool:
        return player.connected and not isinstance(player.session, RemoteClient)

    def moved_away(self, rid: str) -> bool:
        return self.takeover.moved_away(rid)

    # -- starting and stopping ------------------------------------------------------------------

    async def open(self) -> None:
        """Join the cluster: Redis, this node's channel, the first keep-alive."""
        share = getattr(self.store.accounts, "share", None)
        if callable(share):
            share()  # other nodes register names too
        self.store = FencedStore(self.store, self.takeover.fenced)
        await self.bus.start()
        self.leases = Leases(self.bus.redis, self.book)
        await self._keepalive()
        # (each beat looks ``_keepalive`` up again: a test may hold one back)
        self._tick = asyncio.get_running_loop().create_task(self.keepalive.run(lambda: self._keepalive()),
                                                            name="cluster-keepalive")
        log.info("cluster: node %s joined (%d node(s) alive)", self.node, len(self.keepalive.live))

    async def _keepalive(self) -> None:
        """One beat: renew the leases, say this node is alive and read the others
        (:meth:`KeepAlive.beat`), see who is gone, then take over the tables of dead nodes."""
        assert self.leases is not None
        self.keepalive.ticks += 1
        await self.takeover.renew()
        dead = await self.keepalive.beat(self.takeover.list_tables)
        self.bus._health(True)
        # an outage of PostgreSQL pauses the tables even between two writes (asked last: a slow
        # database must not hold this node's keep-alive back until the others think it dead)
        await self._probe_store()
        if dead:
            log.warning("cluster: node(s) %s stopped answering", ", ".join(sorted(dead)))
        nodes = self.keepalive.live
        for player in list(self.players.values()):
            session = player.session
            if isinstance(session, RemoteClient) and session.node not in nodes:
                self.relay.front_gone(player)  # their node died: they are away (their grace runs)
            elif isinstance(player.room, RemotePlace) and player.room.owner in dead and session is not None:
                session.notice("server_trouble")  # their table's node died: it resumes elsewhere
        self._health_changed()  # the leases are renewed: the rooms may go on, if they waited for that
        await self.takeover.follow_given_up()
        await self.takeover.claim()
        await self.events.beat()

    async def shutdown(self) -> None:
        await super().shutdown()
        if self._probe is not None:
            self._probe.cancel()
        self.relay.flush()
        await self.bus.flush()
        if self._tick is not None:
            self._tick.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._tick, 5)
        if self.leases is not None:
            with contextlib.suppress(RedisError, OSError, TimeoutError):
                await asyncio.wait_for(self._leave(), 5)
        await self.bus.stop()

    async def _leave(self) -> None:
        """Give this node's tables up (the others take them over at once) and its entries."""
        assert self.leases is not None
        for rid in list(self.book.held):
            await self.leases.release(rid)
        await self.bus.redis.delete(wire.node_key(self.node), wire.presence_key(self.node),
                                    wire.rooms_key(self.node), wire.seats_key(self.node))

    # -- health -----------------------------------------------------------------------------------

    @property
    def healthy(self) -> bool:
        """Redis and PostgreSQL both answer: tables play, new tables may open."""
        return self.bus.healthy and self._pg_ok

    @property
    def paused(self) -> bool:
        return not self.healthy

    async def until_running(self) -> None:
        await self._running.wait()

    async def outage(self, exc: BaseException) -> bool:
        """A room's store operation failed: if PostgreSQL is away, wait until it answers again
        (the operation, all or nothing, is then tried again)."""
        if not isinstance(exc, Unreachable | psycopg.OperationalError):
            return False
        self._pg_health(False, exc)
        while not self._pg_ok:
            await asyncio.sleep(self.config.keepalive_seconds)
            await self._probe_store()
        await self._running.wait()
        return True

    async def _probe_store(self) -> None:
        """Ask PostgreSQL a question (one at a time) and wait for the answer a moment. A database
        that refuses counts as away at once; one that accepts but does not answer (stopped, its host
        unreachable) when the question has waited ``service_timeout`` and the node's database
        connection finished nothing meanwhile. A busy database, whose queue is long but moving, is
        not away: the question simply waits its turn."""
        probe = self._probe
        if probe is None or probe.done():
            probe = self._probe = asyncio.get_running_loop().create_task(
                self.store.accounts.exists("house:probe"), name="cluster-probe-store")
            self._probe_at, self._probe_done = time.monotonic(), self._store_done()
        await asyncio.wait([probe], timeout=self.config.keepalive_seconds / 2)
        if probe.done():
            exc = probe.exception() if not probe.cancelled() else None
            if exc is not None:
                self._pg_health(False, exc)
            else:
                self._pg_health(True)
            return
        waited = time.monotonic() - self._probe_at
        done = self._store_done()
        if waited >= self.config.service_timeout and (done is None or done == self._probe_done):
            self._pg_health(False, TimeoutError(f"no answer in {waited:.1f} s"))

    def _store_done(self) -> int | None:
        progress = getattr(self.store, "progress", None)
        return progress() if callable(progress) else None

    def _pg_health(self, ok: bool, exc: BaseException | None = None) -> None:
        if ok == self._pg_ok:
            return
        self._pg_ok = ok
        if ok:
            log.warning("cluster: PostgreSQL answers again")
        else:
            log.error("cluster: PostgreSQL is unreachable (%s); tables are paused, no new table opens", exc)
        self._health_changed()

    def _on_health(self, ok: bool) -> None:
        self._health_changed()
        if ok:  # messages sent or published while Redis did not answer are lost: the tables are drawn again
            self._resubscribed()

    def _health_changed(self) -> None:
        """Pause or resume the rooms; tell this node's people at a table."""
        ok = self.healthy
        if ok == self._running.is_set():
            return
        if ok and self.book.lost():
            return  # leases not renewed in time: the keep-alive first says whose tables they are
        if ok:
            self._running.set()
            self._healthy_since = time.monotonic()
        else:
            self._running.clear()
        for player in list(self.players.values()):
            session = player.session
            if session is None or isinstance(session, RemoteClient) or player.room is None:
                continue
            session.notice("server_ok" if ok else "server_trouble")

    def _resubscribed(self) -> None:
        """This node hears its channel again after an outage: what was sent to it meanwhile is lost.
        Its people at other nodes' tables ask for their table again, and its tables draw themselves
        again for the people of other nodes (whichever node hears again last, its messages arrive).
        Redis may have lost the list of tables: the next claim looks in PostgreSQL too."""
        self.takeover.scan_store = True
        self.events.scan_store = True
        for player in list(self.players.values()):
            if not player.connected:
                continue
            remote_place = isinstance(player.room, RemotePlace)
            remote_person = isinstance(player.session, RemoteClient) and isinstance(player.room, Room)
            if player.room is not None and (remote_place or remote_person):
                player.room.refresh(player)

    # -- logging in -------------------------------------------------------------------------------

    async def login(self, session: PlayerSession, name: str, *, password: str | None = None,
                    verified: bool = False, guest_start: GuestStart | None = None, greet: bool = True,
                    welcome: Welcome | None = None, resume: str | None = None) -> Player:
        key = name_key(name.strip()) if name.strip() else ""
        people = self.keepalive.people
        if key and key in people and key not in self.players and not self.closing and \
                not await self.store.accounts.exists(name.strip()) and await self._still_online(key) and \
                (resume is None or await self._locate(key) is None):  # a seat's code may take it back
            raise CommandError("name_taken", name=people[key].get("name", name))
        if self.bus.healthy and not self._surely_alive():
            # held back (a pause of the process) past its keep-alive: this login may be older than
            # one made on another node meanwhile, whose session it must not end
            raise CommandError("server_trouble")
        player = await super().login(session, name, password=password, verified=verified, guest_start=guest_start,
                                     greet=greet, welcome=welcome, resume=resume)
        await self._kick_elsewhere(player)
        self.keepalive.write_presence_soon()
        if player.room is None:
            found = await self._locate(player.key)
            if found is not None and player.room is None and found[0] != self.node:
                owner, rid = found
                place = self.relay.place(rid, owner)
                player.room = place
                await place.reconnect(player)
        return player

    def _surely_alive(self) -> bool:
        """This node's keep-alive surely stands: written less than ``ttl - ttl/5`` ago, by its clock
        (or it no longer runs at all: the node is stopping, or a test stopped it on purpose)."""
        if self._tick is None or self._tick.done():
            return True
        return self.keepalive.surely_alive()

    async def _kick_elsewhere(self, player: Player) -> None:
        """This login takes the name's next generation; every other node ends that name's session
        if it is of an older login."""
        gen = await self._generation(player.key)
        player.extra["gen"] = gen
        self.bus.broadcast({"t": "kick", "key": player.key, "gen": gen})

    async def _generation(self, key: str) -> int:
        """The next login generation of ``key`` (Redis counts them for the whole cluster); 0 when
        Redis is away (then no other node hears of this login either)."""
        try:
            return int(await self.bus.redis.incr(wire.login_key(key)))
        except (RedisError, OSError, AttributeError):
            return 0

    def start_guest(self, name: str) -> GuestStart | None:
        """No early guest account for a name seated at another node's table: it is that guest's,
        and a login without its code would otherwise retire it on the way out."""
        try:
            key = name_key(typed_name(name, self.config.max_name))
        except CommandError:
            return None
        if key in self.keepalive.seats or key in self.keepalive.people:
            return None
        return super().start_guest(name)

    async def guest_hold(self, key: str) -> GuestHold | None:
        """A guest name in use here, or holding a seat at another node's table: the code that takes
        that seat back is in the table's log (its seat's facts), which every node reads."""
        hold = await super().guest_hold(key)
        if hold is not None or self.closing:
            return hold
        found = await self._locate(key)
        if found is None:
            return None
        try:
            stored = await self.store.tables.get(found[1])
        except Exception:
            log.exception("cluster: could not read table %s", found[1])
            raise CommandError("server_trouble") from None
        proof = None
        facts = last_facts(stored.entries) if stored is not None else None
        for seat in objects_in((facts or {}).get("seats")):
            if isinstance(seat, dict) and seat.get("member") == key:
                proof = seat.get("proof") if isinstance(seat.get("proof"), str) else None
        return GuestHold(True, proof)

    async def switch_to_account(self, session: PlayerSession, name: str, password: str | None, *,
                                welcome: Welcome | None = None) -> Player:
        player = await super().switch_to_account(session, name, password, welcome=welcome)
        await self._kick_elsewhere(player)  # as any login: other nodes' older sessions end
        self.keepalive.write_presence_soon()
        return player

    async def _still_online(self, key: str) -> bool:
        """Whether the guest name ``key``, online at another node at the last keep-alive, still is,
        asked of Redis now: a node whose keep-alive stands still lists it. A guest whose node was
        killed comes back through another node once its keep-alive expires, not a keep-alive later."""
        nodes = sorted(self.keepalive.live - {self.node})
        try:
            pipe = self.bus.redis.pipeline(transaction=False)
            for node in nodes:
                pipe.exists(wire.node_key(node))
                pipe.hexists(wire.presence_key(node), key)
            found = await pipe.execute() if nodes else []
        except (RedisError, OSError):
            return True  # Redis away: what the last keep-alive read
        return any(alive and listed for alive, listed in zip(found[::2], found[1::2], strict=True))

    async def _locate(self, key: str) -> tuple[str, str] | None:
        """Where ``key`` holds a seat in the cluster: ``(owner node, room id)``, or None."""
        nodes = sorted(self.keepalive.live - {self.node})
        if not nodes or not self.healthy:
            return self.keepalive.seats.get(key)
        try:
            pipe = self.bus.redis.pipeline(transaction=False)
            for node in nodes:
                pipe.hget(wire.seats_key(node), key)
            found = await pipe.execute()
        except (RedisError, OSError):
            return self.keepalive.seats.get(key)
        for node, rid in zip(nodes, found, strict=True):
            if rid:
                return node, rid
        return None

    def _kicked(self, key: str, gen: int = 0) -> None:
        """``key`` logged in on another node: its session here ends (as a second login on one node),
        unless it is of a newer login than that one (``gen``: the kick came late, from a node that
        was held back)."""
        player = self.players.get(key)
        if player is None:
            return
        if int(player.extra.get("gen", 0)) >= max(gen, 1):
            return  # this session's login is not older
        session = player.session
        if session is None or isinstance(session, RemoteClient) or session.closed.is_set():
            return
        session.player = None
        player.session = None
        session.notice("replaced")
        session.close("replaced")
        room = player.room
        if isinstance(room, Room):
            self.spawn(room.disconnected(player))  # its new front takes the seat back (``conn``)
            return
        if isinstance(room, RemotePlace):
            self.relay.send(room.owner, {"t": "disc", "rid": room.id, "m": self.relay.member_of(player)})
        player.room = None
        player.seat = None
        if self.players.get(key) is player:
            del self.players[key]  # no guest log-out: the account is in use on the other node
        self.keepalive.write_presence_soon()

    async def detach(self, session: PlayerSession) -> None:
        await super().detach(session)
        self.keepalive.write_presence_soon()

    async def release(self, player: Player) -> None:
        front = player.extra.get("front")
        session = player.session
        if front is not None and player.room is None and self.players.get(player.key) is player and \
                (session is None or isinstance(session, RemoteClient)):
            if isinstance(session, RemoteClient) and not session.closed.is_set():
                self.relay.send(session.node, {"t": "gone", "rid": player.extra.get("rid"), "key": player.key})
            del self.players[player.key]  # a remote person's node keeps their account
            return
        await super().release(player)

    # -- the community on every node (server/cluster/community.py) ---------------------------------

    def elsewhere(self, name: str) -> JSONObject | None:
        return self.community.elsewhere(name)

    def reach(self, key: str, event: Push, *, reply_to: str | None = None) -> None:
        self.relay.flush()  # (what this node made before it leaves first: see ``broadcast``)
        self.community.reach(key, event, reply_to)

    def tell_keys(self, keys: list[str], event: Push, but: Player | None = None) -> None:
        super().tell_keys(keys, event, but)
        self.relay.flush()
        self.community.tell_keys(keys, event, but.key if but is not None else None)

    def shared_ignores(self, player: Player) -> None:
        self.community.shared_ignores(player)

    def shared_mute(self, name: str, until: float | None, event: Push) -> None:
        self.community.shared_mute(name, until, event)

    # -- who and where ----------------------------------------------------------------------------

    def who(self, viewer: Player | None = None) -> list[WhoEntry]:
        here = self.directory.who(viewer)
        keys = {name_key(str(p["name"])) for p in here}
        return here + [dict(entry) for key, entry in self.keepalive.people.items() if key not in keys]

    def room_list(self) -> list[tuple[Summary, bool]]:
        out = super().room_list()
        local = {summary["room"] for summary, _ in out}
        out += [(dict(summary), free) for rid, (_, summary, free) in self.keepalive.rooms.items()
                if rid not in local]
        out.sort(key=lambda pair: room_number(str(pair[0]["room"])))
        return out

    async def find_place(self, room_id: object) -> Place:
        try:
            return self.find_room(room_id)
        except CommandError:
            if not isinstance(room_id, str | int):
                raise
        rid = str(room_id).strip().lower()
        if rid.isdigit():
            rid = "r" + rid
        owner: str | None = None
        if rid in self.keepalive.rooms:
            owner = self.keepalive.rooms[rid][0]
        elif self.leases is not None and self.healthy:
            try:
                held = await self.leases.holder(rid)
            except (RedisError, OSError):
                held = None
            owner = held[0] if held is not None else None
        if owner is None or owner == self.node or owner not in self.keepalive.live:
            raise CommandError("no_such_room", room=str(room_id)[:20])
        return self.relay.place(rid, owner)

    # -- rooms --------------------------------------------------------------------------------------

    async def open_room(self, opts: TableOptions, owner: str, opener: Opener | None = None) -> Room:
        if not self.healthy or self.leases is None:
            raise CommandError("server_trouble")  # refused while Redis or PostgreSQL is away
        room = await super().open_room(opts, owner, opener)
        try:
            held = await self.leases.take(room.id)
        except (RedisError, OSError):
            held = None
        if held is None:
            await room.stop()
            raise CommandError("server_trouble")
        self.takeover.epochs[room.id] = held.epoch  # a new table: its first write sets its fence
        if room.journal is not None:  # durable: another node takes it over if this one dies
            with contextlib.suppress(RedisError, OSError):
                await self.bus.redis.hset(wire.TABLES_KEY, room.id, self.node)
        return room

    def announce(self, room: Room, name: str) -> None:
        super().announce(room, name)
        self.keepalive.write_rooms_soon()

    # -- ownership: the lease, surely held by this node's clock; the fencing token --------------------

    def acting(self, rid: str) -> bool:
        return self.book.surely(rid)

    def lost(self, rid: str) -> bool:
        return rid not in self.book.held

    def fence(self, rid: str) -> Fence | None:
        epoch = self.takeover.epochs.get(rid)
        return Fence(rid, epoch) if epoch else None

    def stale(self, room: Room) -> None:
        """``room`` stopped itself: its lease is not surely held (this process was paused, or its loop
        held back, past the lease's margin). Given up here; its lease released if still this node's,
        so that whichever node claims it first rebuilds it from its log."""
        held = self.book.held.get(room.id)
        if self.rooms.get(room.id) is room:
            self.takeover.lost(room.id, "its lease is not surely held any more (the process was held back)")
        if held is not None and self.leases is not None:
            leases = self.leases

            async def release() -> None:
                with contextlib.suppress(RedisError, OSError):
                    await leases.release(room.id, held)

            self.spawn(release())

    def room_closed(self, room: Room) -> None:
        super().room_closed(room)
        self.takeover.epochs.pop(room.id, None)
        if self.leases is not None and room.id in self.book.held:
            self.spawn(self._drop_lease(room.id))

    async def _drop_lease(self, rid: str) -> None:
        assert self.leases is not None
        with contextlib.suppress(RedisError, OSError):
            await self.bus.redis.hdel(wire.rooms_key(self.node), rid)
            await self.bus.redis.hdel(wire.TABLES_KEY, rid)
            await self.leases.release(rid)

    def broadcast(self, event: Push, *, news: bool = False) -> None:
        super().broadcast(event, news=news)
        # what the relay made before this (a person's ``gone`` from a table: they are in the lobby
        # again at their node) is published first: the lobby channel's message is published at once,
        # the relay's at the end of the loop's turn, and a node reads both in the order published
        self.relay.flush()
        self.bus.broadcast({"t": "news" if news else "chat", "ev": dict(event)})

    # -- messages -----------------------------------------------------------------------------------

    def _on_message(self, msg: wire.Message) -> None:
        """What the bus heard: to the relay, the community, or the lobby's own handlers, by kind."""
        kind, sender = msg["t"], msg["from"]  # (``from``: a node's name, as wire.decode checked)
        if kind == "batch":  # what one turn of the sender's loop made for this node, in order
            for one in wire.read_batch(msg):
                self._on_message(one)
            return
        if sender == self.node and kind in OWN_KINDS:
            return  # this node's own lobby message, already handled here
        if kind in relay.KINDS:
            self.relay.handle(msg, sender)
        elif kind in events.KINDS:
            self.events.handle(msg, str(sender))
        elif kind in community.KINDS:
            self.community.handle(msg)
        else:
            handler = getattr(self, f"_on_{kind}")
            handler(msg, sender)

    # lobby channel

    def _on_chat(self, msg: wire.Message, sender: str) -> None:
        ev = msg.get("ev")
        if isinstance(ev, dict):
            Lobby.broadcast(self, ev)

    def _on_news(self, msg: wire.Message, sender: str) -> None:
        ev = msg.get("ev")
        if not isinstance(ev, dict):
            return
        rid = str(ev.get("room", ""))
        if ev.get("event") == "room_created":
            summary = {k: v for k, v in ev.items() if k not in ("event", "name")}
            free = summary.get("status") == "waiting" and len(summary.get("players") or ()) < int(summary.get("seats") or 0)
            self.keepalive.rooms[rid] = (sender, summary, free)
        elif ev.get("event") == "room_closed":
            self.keepalive.rooms.pop(rid, None)
        Lobby.broadcast(self, ev, news=True)

    def _on_kick(self, msg: wire.Message, sender: str) -> None:
        key = msg.get("key")
        if isinstance(key, str):
            self._kicked(key, wire.generation(msg.get("gen")))

    def _on_owner(self, msg: wire.Message, sender: str) -> None:
        """``sender`` took table ``rid`` over: this node's people there are connected to it again."""
        rid = str(msg.get("rid", ""))
        if rid in self.rooms or rid in self.takeover.given_up:
            self.takeover.follow_owner(rid, sender)  # it was this node's
        found = self.relay.places.get(rid)
        if found is None:
            return
        place: RemotePlace = found
        place.owner = sender
        for player in list(self.players.values()):
            if player.room is place and player.connected:
                place.refresh(player)
