"""Failover: the unfinished tables of a node that died are taken over by a live node (``docs/cluster.md``).

Every durable table of the cluster is listed in Redis (``donne:tables``: room id → its owner node),
written by its owner when it opens or takes a table and again at every keep-alive. At each
keep-alive a node looks for tables whose lease nobody holds and whose owner is not alive (its
``node:`` key expired, or it stopped and said so): it takes the lease (``SET NX``, a new epoch),
reads the table's log from PostgreSQL and rebuilds it exactly as a restart does
(:meth:`Room.restored_from <server.rooms.room.Room.restored_from>`, the same code path), then tells every
node it owns it now (``owner``): their people at that table are connected to it again, and the
people of the dead node find their seat from whichever node they log in to. A table PostgreSQL
knows unfinished that Redis does not list (Redis lost its data) is found by a scan of PostgreSQL
when the node starts and after an outage of Redis.

Taking a table over raises its fence in PostgreSQL to the new lease's epoch *before* its log is
read (:class:`~server.storage.api.Fence`): every write of the former owner carries its own epoch
and is refused by the database from then on, whatever that node's clock says. A node that can no
longer be sure it owns a table (its lease not renewed in time, by its monotonic clock, or another
node holds it) stops the table before acting (:meth:`Room._own <server.rooms.room.Room._own>`), and
:class:`FencedStore` refuses that table's writes before they reach PostgreSQL.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Collection, Coroutine, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from redis.exceptions import RedisError

from server.cluster import lease, wire
from server.cluster.bus import Bus
from server.cluster.lease import Held, LeaseBook, Leases
from server.cluster.proxy import RemoteClient, RemotePlace
from server.lobby import restored
from server.lobby.api import LobbyHost
from server.people.players import Player
from server.protocol import JSONValue
from server.rooms.room import Room
from server.storage import api
from server.storage.api import Fence, StaleOwner, StorageError, Store, first_result

if TYPE_CHECKING:
    from redis.asyncio.client import Pipeline
    from redis.typing import EncodableT

log = logging.getLogger("donne.cluster")

CLAIMS_PER_TICK = 16
"""Tables one node takes over in one keep-alive at most (a whole cluster starting again claims
every table: in rounds, so the node's own leases are renewed in between)."""


class Fenced(StorageError):
    """A write for a table this node no longer owns (its lease was lost): refused before PostgreSQL."""


def tables_of(ops: Sequence[object]) -> set[str]:
    """The tables a ``store.apply`` writes for (their log, their rounds: a round id begins with its
    table's, ``r12-ab12cd34-3``)."""
    out = set()
    for op in ops:
        rid = getattr(op, "table_id", None) or getattr(op, "table", None)
        if isinstance(rid, str):
            out.add(rid)
        round_id = getattr(op, "round_id", None)
        if isinstance(round_id, str) and "-" in round_id:
            out.add(round_id.partition("-")[0])
    return out


class FencedStore:
    """The store as a node's rooms see it (a :class:`~server.storage.api.Store`): ``apply`` refuses
    the writes of tables given up here; the rest is the store's."""

    def __init__(self, store: Store, fenced: set[str]) -> None:
        self._store = store
        self._fenced = fenced

    def __getattr__(self, name: str) -> object:  # what a backend has beyond the protocol (``progress``)
        return getattr(self._store, name)

    @property
    def accounts(self) -> api.Accounts:
        return self._store.accounts

    @property
    def ledger(self) -> api.Ledger:
        return self._store.ledger

    @property
    def history(self) -> api.History:
        return self._store.history

    @property
    def tables(self) -> api.Tables:
        return self._store.tables

    @property
    def social(self) -> api.Social:
        return self._store.social

    @property
    def ratings(self) -> api.Ratings:
        return self._store.ratings

    @property
    def moderation(self) -> api.Moderation:
        return self._store.moderation

    @property
    def tournaments(self) -> api.Tournaments:
        return self._store.tournaments

    async def close(self) -> None:
        await self._store.close()

    async def recover(self, *, keep_tables: bool = False,
                      keep_accounts: Collection[str] = ()) -> dict[str, JSONValue]:
        return await self._store.recover(keep_tables=keep_tables, keep_accounts=keep_accounts)

    async def apply(self, ops: Sequence[api.Op]) -> list[api.OpResult]:
        taking = {op.table_id for op in ops if isinstance(op, Fence) and op.take}  # a node taking it (back)
        stale = (tables_of(ops) - taking) & self._fenced
        if stale:
            raise Fenced(f"table(s) {' '.join(sorted(stale))} no longer owned by this node")
        return await self._store.apply(ops)

    def log_ahead(self, op: api.TableLog) -> int | None:
        """Nothing ahead on a node: its table may go to another node, which reads the database alone."""
        return None


class NodeParts(Protocol):
    """What a node's failing-over parts (tables, tournaments) need of its lobby: its people, whether
    it closes or is cut off, its bus and leases, a task spawner."""

    @property
    def players(self) -> MutableMapping[str, Player]: ...
    @property
    def closing(self) -> bool: ...
    @property
    def healthy(self) -> bool: ...
    @property
    def bus(self) -> Bus: ...
    @property
    def book(self) -> LeaseBook: ...
    @property
    def leases(self) -> Leases | None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...


class TakeoverHost(LobbyHost, NodeParts, Protocol):
    """What failover needs of its node's lobby: the lobby restoring needs (:mod:`server.lobby.restored`),
    its rooms and people as it may change them, and the node's bus and leases."""

    @property
    def rooms(self) -> MutableMapping[str, Room]: ...
    @property
    def players(self) -> MutableMapping[str, Player]: ...


class Takeover:
    """Failover for one node (owned by :class:`~server.cluster.lobby.ClusterLobby`): the tables it
    may no longer own, the tables it takes over, the fencing token of each."""

    def __init__(self, lobby: TakeoverHost, node: str, *, live: Callable[[], set[str]],
                 place: Callable[[str, str], RemotePlace], rooms_changed: Callable[[], None],
                 just_back: Callable[[], bool], on_lost: Callable[[str], None] | None = None,
                 on_taken: Callable[[Room], None] | None = None) -> None:
        self.lobby = lobby
        self.node = node
        self._live = live  # the nodes alive at the last keep-alive
        self._place = place  # the relay's place for a table another node owns
        self._rooms_changed = rooms_changed  # this node's room list changed: written again soon
        self._just_back = just_back  # Redis and PostgreSQL came back less than a lease ago
        self._on_lost = on_lost  # a key of the lease book that is not a table's was lost (an event's)
        self._on_taken = on_taken  # a table taken over here, rebuilt (the tournaments' hall follows it)
        self.fenced: set[str] = set()
        """Tables given up here: their writes are refused (:class:`FencedStore`)."""
        self.epochs: dict[str, int] = {}
        """The epoch of each table's lease this node holds or held last: its writes' fencing token."""
        self.floors: dict[str, int] = {}
        """Tables whose epoch in PostgreSQL is above Redis's counter (Redis lost it): taken above it."""
        self.given_up: dict[str, Room] = {}
        """Durable tables this node stopped when it lost their lease, until another node takes them."""
        self._taking: set[str] = set()
        self.scan_store = True
        """Look in PostgreSQL for unfinished tables Redis does not list (at start, after an outage)."""

    @property
    def book(self) -> LeaseBook:
        return self.lobby.book

    @property
    def leases(self) -> Leases | None:
        return self.lobby.leases

    @property
    def bus(self) -> Bus:
        return self.lobby.bus

    @property
    def rooms(self) -> MutableMapping[str, Room]:
        return self.lobby.rooms

    @property
    def players(self) -> MutableMapping[str, Player]:
        return self.lobby.players

    # -- this node's leases (at every keep-alive) -------------------------------------------------

    async def renew(self) -> None:
        """Renew this node's leases; a lease that expired unrenewed is taken again if nobody took it,
        else its table stops here."""
        assert self.leases is not None
        late = self.book.lost()
        if late:  # the rooms are paused while Redis is away; the renewal below says whose they are
            log.warning("cluster: lease(s) of %s not renewed in time", " ".join(late))
        for rid in await self.leases.renew():
            holder = await self.leases.holder(rid)
            if holder is None and rid in self.rooms and await self._take_again(rid):
                log.warning("cluster: table %s: its lease had expired; taken again", rid)
                continue
            self.lost(rid, "another node holds its lease" if holder else "its lease could not be taken again")

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
            before = first_result(await self.lobby.store.apply([Fence(held.rid, held.epoch, take=True)]), int)
        except StaleOwner as exc:
            log.warning("cluster: table %s: epoch %d is behind the database's (%d)", held.rid, held.epoch,
                        exc.current)
            self.floors[held.rid] = exc.current
            return None
        except Exception as exc:
            log.warning("cluster: table %s: its fence could not be raised (%s)", held.rid, exc)
            return None
        self.floors.pop(held.rid, None)
        self.epochs[held.rid] = held.epoch
        return int(before)

    def lost(self, rid: str, why: str) -> None:
        """This node may no longer own ``rid``: the table stops here at once (a durable one where it
        is, given up to whichever node takes it over), its writes are refused."""
        self.fenced.add(rid)
        self.book.dropped(rid)
        if self._on_lost is not None and rid not in self.rooms and rid not in self.given_up:
            self._on_lost(rid)  # not a table: an event's lease (server/cluster/events.py)
            return
        room = self.rooms.get(rid)
        log.error("cluster: table %s stops on node %s: %s", rid, self.node, why)
        if room is not None:
            if room.journal is not None:
                del self.rooms[rid]
                self.given_up[rid] = room
            self.lobby.spawn(room.stop())

    def moved_away(self, rid: str) -> bool:
        """This node stopped table ``rid`` when it could no longer be sure it owned it."""
        return rid in self.fenced or rid in self.given_up

    async def follow_given_up(self) -> None:
        """The tables given up here that another node holds now and lists as its own (it has rebuilt
        them: a person's redraw asked earlier would find no table there): this node's people follow
        them there (the ``owner`` message may have been lost while this node was held back or away)."""
        rids = list(self.given_up)
        if not rids:
            return
        found = await self.bus.redis.mget([wire.lease_key(rid) for rid in rids])
        owners = await self.bus.redis.hmget(wire.TABLES_KEY, rids)
        for rid, raw, listed in zip(rids, found, owners, strict=True):
            held = lease.parse(raw)
            if held is not None and held[0] != self.node and held[0] == listed and held[0] in self._live() \
                    and rid in self.given_up:
                log.warning("cluster: table %s is on node %s now; its people here follow it", rid, held[0])
                self.follow_owner(rid, held[0])

    def list_tables(self, pipe: Pipeline) -> None:
        """Every table this node holds, in the cluster's list (again at every keep-alive: Redis may
        have lost it)."""
        held: dict[EncodableT, EncodableT] = {rid: self.node for rid in self.book.held if rid in self.rooms}
        if held:
            pipe.hset(wire.TABLES_KEY, mapping=held)

    async def claim(self) -> None:
        """Take over every unfinished table whose owner is gone (called by the keep-alive)."""
        lobby = self.lobby
        if lobby.closing or not lobby.config.durable_tables or not lobby.healthy or self.leases is None:
            return
        if self._just_back():
            return  # just back from an outage: the owners take their own tables back first
        r = self.bus.redis
        listed = {rid: node for rid, node in (await r.hgetall(wire.TABLES_KEY)).items()
                  if isinstance(rid, str) and isinstance(node, str)}  # (text: the bus decodes)
        if self.scan_store:
            self.scan_store = False
            for t in await lobby.store.tables.unfinished():
                listed.setdefault(t.table_id, "")
        candidates = [rid for rid, node in listed.items() if rid not in self.rooms and rid not in self._taking
                      and (node not in self._live() or node == self.node)]
        if not candidates:
            return
        random.shuffle(candidates)  # nodes claiming at once spread the tables between them
        leases = await r.mget([wire.lease_key(rid) for rid in candidates])
        orphans = [rid for rid, lease in zip(candidates, leases, strict=True) if lease is None]
        for rid in orphans[:CLAIMS_PER_TICK]:  # the rest at the next keep-alive: this one renews leases too
            if not lobby.closing:
                await self.take_over(rid)

    async def take_over(self, rid: str) -> None:
        assert self.leases is not None
        self._taking.add(rid)
        try:
            held = await self.leases.take(rid, self.floors.get(rid, 0))
            if held is None:
                return  # another node was quicker
            if await self._fence_taken(held) is None:  # before the log is read: the former owner is fenced out
                await self.leases.release(rid)
                return
            self.fenced.discard(rid)
            try:
                room = await self._rebuild(rid)
            except Exception:
                log.exception("cluster: table %s could not be taken over", rid)
                room = None
            if room is None:
                await self.leases.release(rid)
                return
            await self.bus.redis.hset(wire.TABLES_KEY, rid, self.node)
            self.bus.broadcast({"t": "owner", "rid": rid, "epoch": held.epoch})
            self._rooms_changed()
            if self._on_taken is not None:
                self._on_taken(room)
            log.warning("cluster: node %s took table %s over (epoch %d)", self.node, rid, held.epoch)
        except (RedisError, OSError) as exc:
            log.warning("cluster: taking table %s over failed: %s", rid, exc)
        finally:
            self._taking.discard(rid)

    async def _rebuild(self, rid: str) -> Room | None:
        """The table ``rid`` rebuilt here from its log, by the restart's code path
        (:func:`server.lobby.restored.restore`); None when it is finished, or set aside because its log
        does not replay. Its people logged in here (or seen here through another node) keep their
        player, now at this table; the others wait as players away (their grace runs)."""
        stored = await self.lobby.store.tables.get(rid)
        if stored is None or stored.status != "open":
            await self.bus.redis.hdel(wire.TABLES_KEY, rid)
            return None
        before = dict(self.players)
        if await restored.restore(self.lobby, [stored]):
            await self.bus.redis.hdel(wire.TABLES_KEY, rid)  # set aside (logged, its round voided)
            return None
        room = self.rooms[rid]
        self.given_up.pop(rid, None)
        for key, fresh in list(self.players.items()):
            old = before.get(key)
            if old is None or old is fresh or fresh.room is not room:
                continue
            self.players[key] = old  # their session stays theirs
            old.room = room
            old.seat = fresh.seat
            old.prefs = fresh.prefs
            if fresh.resume is not None:
                old.resume = fresh.resume  # what the seat's log says takes it back
            if old.session is not None and not isinstance(old.session, RemoteClient) and old.connected:
                room.refresh(old)  # here already: back at the table at once
        return room

    def follow_owner(self, rid: str, owner: str) -> None:
        """Node ``owner`` took table ``rid`` over from this node: the room here is given up, and this
        node's people at it play on through ``owner``."""
        room = self.given_up.pop(rid, None) or self.rooms.pop(rid, None)
        if room is None:
            return
        self.fenced.add(rid)
        self.book.dropped(rid)
        self.lobby.spawn(room.stop())
        place = self._place(rid, owner)
        for player in list(self.players.values()):
            if player.room is not room:
                continue
            session = player.session
            if isinstance(session, RemoteClient) or session is None or not player.connected:
                if self.players.get(player.key) is player:
                    del self.players[player.key]  # their own node (or their next login) finds the table
                continue
            player.room = place
            place.refresh(player)
