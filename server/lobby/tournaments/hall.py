"""The lobby's hall of tournaments: the events of this process, their tables, their news.

The :class:`Hall` is a part of the lobby, as its directory and news are. It opens events
(``TournamentOpened``, then one :class:`~server.lobby.tournaments.shell.EventShell` each), hands
them the inputs of commands (a join, a leave, a stop) and of their tables, performs their
effects (tables opened, people told, lobby news), and answers what commands ask (the list,
standings, the table to watch: read in :mod:`~server.lobby.tournaments.views`). At start it
rebuilds the open events from their records and reconciles them with their tables
(:mod:`~server.lobby.tournaments.restart`).

Every write of an event goes through :meth:`Hall.write`: one ``store.apply``, where a cluster
owner's ``Fence(fence_key(tid), epoch)`` goes first (:meth:`Hall.fence`; one process: none). The
hall sees the cluster through :class:`~server.lobby.tournaments.host.HallCluster`
(``server/cluster/events.py``): the event's lease, the other nodes' events, people seated from
other nodes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence

from server.lobby.tournaments import restart, views
from server.lobby.tournaments.host import Alone, HallCluster, HallHost, far
from server.lobby.tournaments.shell import EventShell
from server.lobby.tournaments.tables import (
    PLAN,
    TOURNAMENT,
    TableLink,
    is_match,
    seat_plan,
    table_options,
    who_can_sit,
)
from server.people.players import Player
from server.protocol import CommandError, JSONValue
from server.rooms.room import Room
from server.storage.api import Fence, Op, OpResult, RoundRecord, StaleOwner, StorageError
from server.storage.api_tournaments import (
    StoredTournament,
    TournamentOpened,
    TournamentTable,
    fence_key,
)
from server.storage.names import name_key
from server.tournaments import (
    Absent,
    ArenaConfig,
    ByeGiven,
    Effect,
    Ended,
    EventConfig,
    Input,
    Join,
    OpenTable,
    Outputs,
    RoundStarted,
    Started,
    Stop,
    SwissConfig,
    TableAborted,
    TableScored,
    TournamentError,
    director_for,
)

log = logging.getLogger(__name__)

class NotOwner(StorageError):
    """A write of an event this node no longer surely owns (its lease): refused before the store."""


KEEP_OVER = 20
"""Events over that ``tournaments`` still lists (the older ones' final standings are read from the store)."""


class Hall:
    """The events of this process (see the module)."""

    def __init__(self, lobby: HallHost, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.clock = clock  # wall-clock seconds: the journal's times
        self.events: dict[str, EventShell] = {}  # open ones, and those over since the start
        self.links: dict[str, TableLink] = {}  # room id -> the event's table it is
        self.opening: dict[str, TableLink] = {}  # the event's table name -> its link, while seated
        self.far: dict[str, TableLink] = {}  # room id -> the event's table another node holds (a take-over)
        self.done_far: set[str] = set()  # those of them reported over: their people may be made to leave them
        self.far_seated: dict[str, str] = {}  # name -> such a table they still sit at (no next table yet)
        self.held: dict[str, Room] = {}  # room id -> a table of another node's event this node took over
        self.cluster: HallCluster = Alone()  # a cluster node's: server/cluster/events.py

    # -- writes: the one place a cluster owner's fence goes ------------------------------------------

    def fence(self, tid: str) -> Fence | None:
        """The fencing token every write of event ``tid`` carries (one process: none)."""
        return self.cluster.fence(tid)

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
        """The event's writes in one transaction, its fence first; refused (:class:`NotOwner`) when this
        node no longer surely owns the event, and (``StaleOwner``) by the store once another node
        took it over."""
        if not self.cluster.acting(tid):
            raise NotOwner(f"tournament {tid} is no longer surely this node's")
        fence = self.fence(tid)
        if fence is None:
            return await self.lobby.store.apply(list(ops))
        results = await self.lobby.store.apply([Fence(fence_key(tid), fence.epoch), *ops])
        return results[1:]

    # -- opening an event ------------------------------------------------------------------------------

    async def new_id(self) -> str:
        """An event id never used before (the store's counter, shared with the rooms)."""
        while True:
            tid = f"e{await self.lobby.store.tables.next_table_number()}"
            if tid not in self.events:
                return tid

    @staticmethod
    def seed() -> str:
        return secrets.token_hex(8)

    async def open(self, config: EventConfig, organiser: str) -> EventShell:
        """A new event, written, running, announced."""
        if self.lobby.closing:
            raise CommandError("shutting_down")
        await self.cluster.own(config.id)  # (a cluster: its lease, before its first write)
        try:
            await self.write(config.id, [TournamentOpened(config.id, config.to_dict(), organiser)])
        except BaseException:
            self.cluster.over(config.id)  # no event: its lease and listing given up
            raise
        shell = EventShell(director_for(config), self, self.clock, organiser=organiser)
        self.events[config.id] = shell
        shell.start()
        options = config.options
        self.lobby.broadcast({"event": "tournament_opened", "tournament": config.id, "kind": config.kind,
                              "game": options.get("game"), "rules": options.get("rules"), "seats": config.seats,
                              "organiser": organiser, "starts_at": config.starts_at})
        return shell

    # -- what commands ask ---------------------------------------------------------------------------

    @staticmethod
    def key(tid: object) -> str:
        """The event id ``tid`` names (``12`` or ``E12``: ``e12``); ``no_such_tournament`` when none could."""
        if not isinstance(tid, str | int) or isinstance(tid, bool) or len(str(tid)) > 40:
            raise CommandError("no_such_tournament", tournament=str(tid)[:20])
        key = str(tid).strip().lower()
        return "e" + key if key.isdigit() else key

    def get(self, tid: object) -> EventShell:
        shell = self.events.get(self.key(tid))
        if shell is None:
            raise CommandError("no_such_tournament", tournament=str(tid)[:20])
        return shell

    def summary(self, shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
        """The event as ``tournaments`` lists it (:func:`views.summary`)."""
        return views.summary(shell, asker)

    async def stored_summary(self, tid: str, asker: str | None) -> dict[str, JSONValue] | None:
        """Open event ``tid`` of another node as its journal leaves it (:func:`views.stored_summary`);
        None when the store has no open event of that id."""
        stored = await self.lobby.store.tournaments.get(tid)
        return views.stored_summary(stored, asker) if stored is not None and stored.status == "open" else None

    def standings(self, shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
        """The ``tournament_standings`` reply (:func:`views.standings`)."""
        return views.standings(shell, asker)

    async def final_standings(self, tid: object, asker: str | None) -> dict[str, JSONValue]:
        """The standings of an event this process does not hold, as stored (:func:`views.final_standings`)."""
        return await views.final_standings(self.lobby.store, self.key(tid), str(tid), asker)

    async def entered(self, name: str, limit: int = 5) -> tuple[list[JSONValue], int | None]:
        """The events ``name`` entered and their best final rank (:func:`views.entered`)."""
        return await views.entered(self.lobby.store, self.events, name, limit)

    async def ask(self, shell: EventShell, inp: Input) -> Outputs:
        try:
            return await shell.ask(inp)
        except TournamentError as exc:
            raise CommandError(f"tournament_{exc.code}", tournament=shell.id) from None

    async def stop(self, shell: EventShell) -> None:
        """Its organiser (or the staff) stops the event: no new table opens. When none is under way it
        ends at once (its ``tournament_ended`` says so); else everyone hears now that the tables under
        way finish and count (``tournament_stopping``: lobby news, and the entrants at a table)."""
        out = await self.ask(shell, Stop())
        if not any(isinstance(effect, Ended) for effect in out.effects):
            self._news(shell, {"event": "tournament_stopping", "tournament": shell.id,
                               "tables": len(shell.seen().top)})

    async def join(self, player: Player, shell: EventShell) -> None:
        rating = await self.rating(player.name, shell.director.config.options)
        await self.ask(shell, Join(player.name, rating))

    async def rating(self, name: str, options: Mapping[str, object]) -> float:
        """The player's rating (its ordinal) at the event's table kind, 0 when they have none."""
        try:
            ratings = await self.lobby.store.ratings.of(name)
        except Exception:
            log.exception("could not read %s's ratings", name)
            return 0.0
        for r in ratings:
            if r.game == options.get("game") and r.rules == options.get("rules"):
                return round(r.rating, 6)
        return 0.0

    def table_to_watch(self, shell: EventShell, table: object = None) -> Room:
        """The room of one of the event's tables under way: ``table`` (a room id), else the top one."""
        rooms = [link.room for t in shell.seen().top for link in self._links_of(shell.id, t.table)
                 if link.room is not None and not link.room.closed]
        if table is not None:
            wanted = str(table).strip().lower()
            rooms = [r for r in rooms if r.id == wanted or r.id == "r" + wanted]
        if not rooms:
            raise CommandError("no_such_room", room=str(table or shell.id)[:20], tournament=shell.id)
        return rooms[0]

    def _links_of(self, tid: str, table: str) -> list[TableLink]:
        return [link for link in self.links.values() if link.tournament == tid and link.table == table]

    # -- the events' effects ---------------------------------------------------------------------------

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        if isinstance(effect, OpenTable):
            # opened beside the event's task: its next input (another table's result) need not wait
            # for this room and its joins; what the table reports comes back through the queue
            self.lobby.spawn(self.open_safely(shell, effect))
        elif isinstance(effect, Started):
            config = shell.director.config
            started: dict[str, JSONValue] = {"event": "tournament_started", "tournament": shell.id,
                                             "kind": config.kind, "entrants": len(effect.entrants)}
            if isinstance(config, ArenaConfig):
                started["ends_at"] = config.ends_at
            self._news(shell, started)
        elif isinstance(effect, RoundStarted):
            event: dict[str, JSONValue] = {"event": "tournament_round", "tournament": shell.id, "round": effect.round,
                     "rounds": config.rounds if isinstance(config := shell.director.config, SwissConfig) else 0,
                     "tables": len(effect.tables), "byes": list(effect.byes)}
            self.tell(self._entrants(shell), event)
        elif isinstance(effect, ByeGiven):
            self.tell([effect.name], {"event": "tournament_bye", "tournament": shell.id, "round": effect.round,
                                      "points": effect.points, "late": effect.late})
        elif isinstance(effect, TableScored):
            links = self._links_of(shell.id, effect.table)
            room = links[-1].room.id if links and links[-1].room is not None else None
            results: list[JSONValue] = [{"name": name, "place": place, "points": points}
                       for name, place, points in zip(effect.seats, effect.places, effect.points, strict=True)]
            self.tell([n for n in effect.seats if n is not None],
                      {"event": "tournament_scored", "tournament": shell.id, "room": room, "round": effect.round,
                       "results": results})
            for link in links:
                self.links.pop(link.room.id if link.room is not None else "", None)
            for rid in [rid for rid, link in self.far.items()
                        if link.tournament == shell.id and link.table == effect.table]:
                del self.far[rid]
        elif isinstance(effect, Ended):
            top: list[JSONValue] = [{"rank": line.rank, "name": line.name, "points": line.points}
                   for line in shell.seen().standings.lines[:3]]
            self._news(shell, {"event": "tournament_ended", "tournament": shell.id, "reason": effect.reason,
                               "top": top})

    def finished(self, shell: EventShell) -> None:
        if shell.jammed and (self._moved(shell) or not isinstance(self.cluster, Alone)):
            self.stale(shell.id)  # (a cluster: given up, rebuilt from its journal by whichever node claims it)
            return
        if shell.jammed:
            log.error("tournament %s stopped where it is; the next start rebuilds it", shell.id)
        else:
            self.cluster.over(shell.id)
        over = [tid for tid, s in self.events.items() if s.ended or s is shell]
        for tid in over[:max(0, len(over) - KEEP_OVER)]:  # the oldest over: their standings are stored
            del self.events[tid]

    def _moved(self, shell: EventShell) -> bool:
        """The event's write was refused because another node owns it now (or may)."""
        return isinstance(shell.failure, StaleOwner | NotOwner) or not self.cluster.acting(shell.id)

    def stale(self, tid: str) -> None:
        """This node no longer owns event ``tid`` (its lease lost, a write refused by its fence): it
        stops driving it at once (nothing more is written, performed or announced here) and forgets
        it; the node that took it over rebuilds it from its journal."""
        shell = self.events.get(tid)
        if shell is None or (shell.over and not shell.jammed):
            return  # (over here: its lease was let go)
        del self.events[tid]
        log.error("tournament %s stops on this node: another node may own it now", tid)
        shell.abandon()
        self.cluster.gone(tid)
        for links in (self.links, self.far):
            for rid in [rid for rid, link in links.items() if link.tournament == tid]:
                del links[rid]

    def took(self, room: Room) -> None:
        """This node took ``room`` over (a cluster's take-over of a table whose node died). When it is a
        table of an event another node runs (or none yet), this node makes its people leave it once
        its match is over, as the event's own node does for its tables: free for their next table,
        wherever it opens. (The event's node reads the result from the store: :meth:`follow_far`.)"""
        if not isinstance(room.opts.extra.get(TOURNAMENT), str) or room.id in self.links:
            return
        self.held[room.id] = room
        room.watched_by(self)
        if room.table.status == "over":  # (its match ended just before its node died)
            self.held.pop(room.id)
            self.lobby.spawn(self._leave_all(room, _planned(room)))

    async def follow_far(self) -> None:
        """The tables of this node's events that other nodes hold: each one over is reported
        (:func:`restart.follow_far`; a cluster node's keep-alive calls it)."""
        await restart.follow_far(self)

    async def adopt(self, stored: StoredTournament) -> bool:
        """Event ``stored`` (its fence raised for this node) rebuilt from its journal and reconciled
        with its tables, as at a restart; False when its record does not replay (set aside)."""
        return await restart.restore_one(self, stored)

    def _entrants(self, shell: EventShell) -> list[str]:
        return [line.name for line in shell.seen().standings.lines if line.status == "active"]

    def tell(self, names: Sequence[str], event: Mapping[str, JSONValue]) -> None:
        """``event`` to each of these people who is online (here, or at another node)."""
        for name in names:
            if self.lobby.elsewhere(name) is not None:
                self.lobby.reach(name_key(name), dict(event))
                continue
            player = self.lobby.players.get(name_key(name))
            if player is not None and player.session is not None and player.connected:
                player.session.push_event(event)

    def _news(self, shell: EventShell, event: Mapping[str, JSONValue]) -> None:
        """Lobby news, and the entrants at a table hear it too."""
        self.lobby.broadcast(event)
        at_tables = []
        for name in self._entrants(shell):
            player = self.lobby.players.get(name_key(name))
            if (player is not None and player.room is not None) or name in self.far_seated:
                at_tables.append(name)
        self.tell(at_tables, event)

    # -- tables ----------------------------------------------------------------------------------

    async def open_safely(self, shell: EventShell, effect: OpenTable) -> None:
        try:
            await self.open_table(shell, effect)
        except asyncio.CancelledError:
            raise
        except Exception:  # (a store away): the table is no table; its people are free again
            log.exception("tournament %s: table %s could not open", shell.id, effect.table)
            half = self.opening.pop(effect.table, None)
            if half is not None and half.room is not None:
                with contextlib.suppress(Exception):
                    await half.room.stop(end=True)
            if not self._links_of(shell.id, effect.table):
                shell.tell(TableAborted(effect.table))

    async def open_table(self, shell: EventShell, effect: OpenTable) -> None:
        """The director's table as a room, its people seated; those who cannot sit are reported absent
        (their seats played by bots), a table nobody can sit at aborted."""
        lobby = self.lobby
        people = list(effect.people)
        for name in people:
            await self._free(name)
        absent: list[str] = []
        while True:
            can = [n for n in self.can_sit(people) if n not in absent]
            if not can:
                if people:
                    shell.tell(Absent(effect.table, tuple(people)))
                shell.tell(TableAborted(effect.table))
                return
            plan, order = seat_plan(effect.seats, can)
            link = TableLink(shell.id, effect.table, effect.round, effect.seats, order)
            try:
                room = await lobby.open_room(table_options(effect, plan, lobby.config, shell.id),
                                             owner=shell.organiser or shell.id)
            except CommandError as exc:
                log.warning("tournament %s: table %s could not open (%s %s)", shell.id, effect.table, exc.code,
                            exc.params)
                shell.tell(Absent(effect.table, tuple(people)))
                shell.tell(TableAborted(effect.table))
                return
            link.room = room
            self.opening[effect.table] = link
            await self.write(shell.id, [TournamentTable(shell.id, room.id, effect.round)])
            refused = await self._seat(room, plan)
            if not refused:
                break
            absent += refused
            self.opening.pop(effect.table, None)
            await room.stop(end=True)
        self.opening.pop(effect.table, None)
        self.links[room.id] = link
        room.watched_by(self)
        lobby.announce(room, shell.organiser or shell.id)
        for seat, person in enumerate(plan):
            if person is not None:
                self.far_seated.pop(person, None)
                self.tell([person], {"event": "tournament_seated", "tournament": shell.id, "room": room.id,
                                   "seat": seat, "round": effect.round})
        gone = [n for n in people if n not in can]
        if gone:
            shell.tell(Absent(effect.table, tuple(gone)))

    def can_sit(self, names: Sequence[str]) -> list[str]:
        """Those of ``names`` who may sit now: online here and seated nowhere, or online at another
        node (whose own node says at the join whether they may)."""
        elsewhere = set(far(self.lobby, names))
        here = who_can_sit(self.lobby.players, [n for n in names if n not in elsewhere], self.lobby.seats.holder)
        return [n for n in names if n in elsewhere or n in here]

    async def _free(self, name: str) -> None:
        """A person the event seats leaves the room they watch, or the finished table they sit at (here,
        or an event's table another node holds whose result was reported)."""
        player = self.lobby.players.get(name_key(name))
        place = player.room if player is not None else None
        if player is None or place is None:
            return
        if player.seat is None or (isinstance(place, Room) and place.table.status == "over") or \
                place.id in self.done_far:
            await place.step_out(player)

    async def _seat(self, room: Room, plan: Sequence[str | None]) -> list[str]:
        """Seat the people of ``plan`` (their joins queued at once: the room takes them one after
        another without waiting for the loop between them); those who could not sit."""
        people = [name for name in plan if name is not None]
        elsewhere = set(far(self.lobby, people))

        async def join(name: str) -> str | None:
            if name in elsewhere:  # their own node joins them, as a person joins another node's table
                return None if await self.cluster.seat(room, name, sorted(self.done_far)) else name
            player = self.lobby.players.get(name_key(name))
            if player is None:
                return name
            try:
                await room.submit(player, "join", {})
            except CommandError as exc:
                log.info("%s could not sit at %s (%s)", name, room.id, exc.code)
                return name
            return None

        refused = await asyncio.gather(*(join(name) for name in people))
        return [name for name in refused if name is not None]

    # -- what the rooms report (server.rooms.room.TableWatcher) ------------------------------------------

    def recorded(self, room: Room, record: RoundRecord) -> None:
        link = self.links.get(room.id)
        if link is None and is_match(record) and self.held.pop(room.id, None) is room:
            self.lobby.spawn(self._leave_all(room, _planned(room)))  # free for their next table, wherever it opens
            return
        if link is None or link.reported:
            return
        if not is_match(record):
            link.rounds.append(record.result)
            return
        link.reported = True
        self.lobby.spawn(self.report(link, record))

    async def report(self, link: TableLink, record: RoundRecord) -> None:
        """A table's match ended: the event hears, and its people leave it (free for their next
        table, which makes them leave first if it opens before they did: ``_free``)."""
        shell = self.events.get(link.tournament)
        if shell is not None:
            result = link.result(record)
            shell.tell(result if result is not None else TableAborted(link.table))
        if link.room is not None:
            await self._leave_all(link.room, link.seats)

    async def _leave_all(self, room: Room, names: Sequence[str | None]) -> None:
        """The people of ``names`` still at ``room`` leave it (their leaves queued at once)."""

        async def leave(player: Player) -> None:
            with contextlib.suppress(CommandError):
                await room.submit(player, "leave", {})

        players = [self.lobby.players.get(name_key(name)) if name is not None else None for name in names]
        await asyncio.gather(*(leave(p) for p in players if p is not None and p.room is room))

    def closed(self, room: Room) -> None:
        self.held.pop(room.id, None)
        link = self.links.pop(room.id, None)
        if link is None or link.reported:
            return
        link.reported = True
        shell = self.events.get(link.tournament)
        if shell is not None:
            shell.tell(TableAborted(link.table))

    # -- a restart (server/lobby/tournaments/restart.py) -------------------------------------------------

    async def restore(self) -> list[str]:
        """Rebuild the open events and reconcile them with their tables (:func:`restart.restore`); the
        ids of those set aside."""
        return await restart.restore(self)

    async def shutdown(self) -> None:
        """Stop every event's task; the open ones are rebuilt at the next start."""
        await asyncio.gather(*(shell.stop() for shell in self.events.values()), return_exceptions=True)


def _planned(room: Room) -> list[str]:
    """The people an event's table was opened for (its configuration's plan)."""
    plan = room.opts.extra.get(PLAN)
    return [n for n in plan if isinstance(n, str)] if isinstance(plan, list) else []
