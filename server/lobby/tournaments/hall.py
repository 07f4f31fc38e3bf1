"""The lobby's hall of tournaments: the events of this process, their tables, their news.

The :class:`Hall` is a part of the lobby, as its directory and news are. It opens events
(``TournamentOpened``, then one :class:`~server.lobby.tournaments.shell.EventShell` each), hands
them the inputs of commands (a join, a leave, a stop) and of their tables, performs their
effects (tables opened, people told, lobby news), and answers what commands ask (the list,
standings, the table to watch). At start it rebuilds the open events from their records and
reconciles them with their tables (:meth:`Hall.restore`, ``docs/tournaments.md``, "Durability").

Every write of an event goes through :meth:`Hall.write`: one ``store.apply``, where a cluster
owner's ``Fence(fence_key(tid), epoch)`` would go first (:meth:`Hall.fence`; one process: none).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import asdict
from typing import Any, Protocol

from server.lobby.api import LobbyHost
from server.lobby.tournaments.shell import EventShell
from server.lobby.tournaments.tables import (
    TABLE,
    TOURNAMENT,
    TableLink,
    is_match,
    records_of,
    seat_plan,
    table_options,
    who_can_sit,
)
from server.people.players import Player
from server.protocol import CommandError, JSONValue
from server.rooms.room import Room
from server.storage.api import Fence, Op, OpResult, RoundRecord
from server.storage.api_tournaments import (
    StoredTournament,
    TournamentClosed,
    TournamentOpened,
    TournamentTable,
    fence_key,
)
from server.storage.names import name_key
from server.tournaments import (
    Absent,
    ByeGiven,
    Effect,
    Ended,
    EventConfig,
    EventRecord,
    Input,
    Join,
    OpenTable,
    ReplayError,
    RoundStarted,
    Started,
    SwissConfig,
    TableAborted,
    TableScored,
    TournamentError,
    config_from_dict,
    director_for,
    replay,
)
from server.tournaments.io import Entry

log = logging.getLogger(__name__)

RETURN_POLL = 0.25
"""Seconds between two looks, after a restart, at whether a table's people are back."""

KEEP_OVER = 20
"""Events over that ``tournaments`` still lists (the older ones' final standings are read from the store)."""

STANDINGS_LINES = 50
"""Lines of standings a reply carries (and the asker's own line when below)."""


class HallHost(LobbyHost, Protocol):
    """What the hall needs of the lobby besides a seek's: its news, its tasks, whether it closes."""

    @property
    def closing(self) -> bool: ...

    def broadcast(self, event: Mapping[str, JSONValue], *, news: bool = False) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...


class Hall:
    """The events of this process (see the module)."""

    def __init__(self, lobby: HallHost, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.clock = clock  # wall-clock seconds: the journal's times
        self.events: dict[str, EventShell] = {}  # open ones, and those over since the start
        self.links: dict[str, TableLink] = {}  # room id -> the event's table it is
        self.opening: dict[str, TableLink] = {}  # the event's table name -> its link, while seated

    # -- writes: the one place a cluster owner's fence goes ------------------------------------------

    def fence(self, tid: str) -> Fence | None:
        """The fencing token every write of event ``tid`` carries (one process: none)."""
        return None

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
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
        await self.write(config.id, [TournamentOpened(config.id, config.to_dict(), organiser)])
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

    async def final_standings(self, tid: object, asker: str | None) -> dict[str, JSONValue]:
        """The standings of an event this process does not hold (over before its start, or long
        ago): its final standings as stored; ``no_such_tournament`` when there are none."""
        key = self.key(tid)
        stored = await self.lobby.store.tournaments.get(key)
        raw = stored.standings if stored is not None else None
        if stored is None or not isinstance(raw, dict) or not isinstance(raw.get("lines"), list):
            raise CommandError("no_such_tournament", tournament=str(tid)[:20])
        lines = [line for line in raw["lines"] if isinstance(line, Mapping)]
        shown = lines[:STANDINGS_LINES]
        own = next((line for line in lines if asker is not None and isinstance(line.get("name"), str)
                    and name_key(str(line["name"])) == name_key(asker)), None)
        if own is not None and own not in shown:
            shown.append(own)
        return {"tournament": key, "kind": raw.get("kind"), "round": raw.get("round"), "final": True,
                "lines": [_line(line) for line in shown]}

    async def ask(self, shell: EventShell, inp: Input) -> None:
        try:
            await shell.ask(inp)
        except TournamentError as exc:
            raise CommandError(f"tournament_{exc.code}", tournament=shell.id) from None

    async def join(self, player: Player, shell: EventShell) -> None:
        rating = await self._rating(player.name, shell.director.config.options)
        await self.ask(shell, Join(player.name, rating))

    async def _rating(self, name: str, options: Mapping[str, object]) -> float:
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

    def summary(self, shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
        """The event as ``tournaments`` lists it (docs/tournaments.md, "Commands")."""
        seen = shell.seen()
        s = {k: _plain(v) for k, v in seen.summary.items()}
        config = shell.director.config
        phase = "over" if shell.over or shell.jammed else "waiting" if s.get("phase") == "registering" else "running"
        mine = name_key(asker) if asker is not None else None
        out: dict[str, JSONValue] = {
            "id": shell.id, "kind": config.kind, "game": config.options.get("game"),
            "rules": config.options.get("rules"), "seats": config.seats, "phase": phase,
            "entrants": s.get("entrants"), "playing": s.get("playing"), "tables": s.get("tables"),
            "starts_at": config.starts_at, "organiser": shell.organiser,
            "scoring": {"mode": config.scoring.mode, "streak": config.scoring.streak},
            "joined": any(name_key(line.name) == mine and line.status == "active" for line in seen.standings.lines),
        }
        if isinstance(config, SwissConfig):
            out["round"] = s.get("round")
            out["rounds"] = config.rounds
        else:
            out["ends_at"] = config.ends_at
        return out

    def standings(self, shell: EventShell, asker: str | None) -> dict[str, JSONValue]:
        """The ``tournament_standings`` reply: the first lines, and the asker's own when below."""
        standings = shell.seen().standings
        lines = list(standings.lines[:STANDINGS_LINES])
        mine = name_key(asker) if asker is not None else None
        own = next((line for line in standings.lines if name_key(line.name) == mine), None)
        if own is not None and own not in lines:
            lines.append(own)
        return {"tournament": shell.id, "kind": standings.kind, "round": standings.round, "final": standings.final,
                "lines": [_line({k: _plain(v) for k, v in asdict(line).items()}) for line in lines]}

    def table_to_watch(self, shell: EventShell, table: object = None) -> Room:
        """The room of one of the event's tables under way: ``table`` (a room id), else the top one."""
        rooms = [link.room for t in shell.seen().top for link in self._links_of(shell.id, t.table)
                 if link.room is not None and not link.room.closed]
        if table is not None:
            wanted = str(table).strip().lower()
            rooms = [r for r in rooms if r.id == wanted or r.id == "r" + wanted]
        if not rooms:
            raise CommandError("no_such_room", room=str(table or shell.id)[:20])
        return rooms[0]

    def _links_of(self, tid: str, table: str) -> list[TableLink]:
        return [link for link in self.links.values() if link.tournament == tid and link.table == table]

    async def entered(self, name: str, limit: int = 5) -> tuple[list[JSONValue], int | None]:
        """The events ``name`` entered, newest first (``limit`` of them: id, kind, game, rules, their
        rank, how many entered, whether it is over), and their best final rank (None: none yet)."""
        key = name_key(name)
        found: dict[str, tuple[float, dict[str, JSONValue]]] = {}
        best: int | None = None
        for event in await self.lobby.store.tournaments.events("over"):
            lines = event.standings.get("lines") if isinstance(event.standings, Mapping) else None
            if not isinstance(lines, list):
                continue
            mine = next((line for line in lines if isinstance(line, Mapping) and isinstance(line.get("name"), str)
                         and name_key(str(line["name"])) == key), None)
            rank = mine.get("rank") if mine is not None else None
            if not isinstance(rank, int):
                continue
            best = rank if best is None else min(best, rank)
            found[event.tournament_id] = (event.created_at, _entry(event.tournament_id, event.config, rank,
                                                                   len(lines), True))
        for tid, shell in self.events.items():
            if tid in found or shell.over:
                continue
            standings = shell.seen().standings
            line = next((ln for ln in standings.lines if name_key(ln.name) == key), None)
            if line is not None:
                config = shell.director.config
                found[tid] = (config.starts_at, _entry(tid, config.to_dict(), line.rank, len(standings.lines), False))
        newest = sorted(found.values(), key=lambda pair: -pair[0])
        return [entry for _, entry in newest[:limit]], best

    # -- the events' effects ---------------------------------------------------------------------------

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        if isinstance(effect, OpenTable):
            # opened beside the event's task: its next input (another table's result) need not wait
            # for this room and its joins; what the table reports comes back through the queue
            self.lobby.spawn(self._open_table(shell, effect))
        elif isinstance(effect, Started):
            self._news(shell, {"event": "tournament_started", "tournament": shell.id,
                               "kind": shell.director.config.kind, "entrants": len(effect.entrants)})
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
        elif isinstance(effect, Ended):
            top: list[JSONValue] = [{"rank": line.rank, "name": line.name, "points": line.points}
                   for line in shell.seen().standings.lines[:3]]
            self._news(shell, {"event": "tournament_ended", "tournament": shell.id, "reason": effect.reason,
                               "top": top})

    def finished(self, shell: EventShell) -> None:
        if shell.jammed:
            log.error("tournament %s stopped where it is; the next start rebuilds it", shell.id)
        over = [tid for tid, s in self.events.items() if s.ended or s is shell]
        for tid in over[:max(0, len(over) - KEEP_OVER)]:  # the oldest over: their standings are stored
            del self.events[tid]

    def _entrants(self, shell: EventShell) -> list[str]:
        return [line.name for line in shell.seen().standings.lines if line.status == "active"]

    def tell(self, names: Sequence[str], event: Mapping[str, JSONValue]) -> None:
        """``event`` to each of these people who is online."""
        for name in names:
            player = self.lobby.players.get(name_key(name))
            if player is not None and player.session is not None and player.connected:
                player.session.push_event(event)

    def _news(self, shell: EventShell, event: Mapping[str, JSONValue]) -> None:
        """Lobby news, and the entrants at a table hear it too."""
        self.lobby.broadcast(event)
        at_tables = []
        for name in self._entrants(shell):
            player = self.lobby.players.get(name_key(name))
            if player is not None and player.room is not None:
                at_tables.append(name)
        self.tell(at_tables, event)

    # -- tables ----------------------------------------------------------------------------------

    async def _open_table(self, shell: EventShell, effect: OpenTable) -> None:
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
            can = [n for n in who_can_sit(lobby.players, people, lobby.seats.holder) if n not in absent]
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
                self.tell([person], {"event": "tournament_seated", "tournament": shell.id, "room": room.id,
                                   "seat": seat, "round": effect.round})
        gone = [n for n in people if n not in can]
        if gone:
            shell.tell(Absent(effect.table, tuple(gone)))

    async def _free(self, name: str) -> None:
        """A person the event seats leaves the room they watch, or the finished table they sit at."""
        player = self.lobby.players.get(name_key(name))
        place = player.room if player is not None else None
        if player is None or place is None:
            return
        if player.seat is None or (isinstance(place, Room) and place.table.status == "over"):
            with contextlib.suppress(CommandError):
                await place.submit(player, "leave", {})

    async def _seat(self, room: Room, plan: Sequence[str | None]) -> list[str]:
        """Seat the people of ``plan`` (their joins queued at once: the room takes them one after
        another without waiting for the loop between them); those who could not sit."""
        people = [name for name in plan if name is not None]

        async def join(name: str) -> str | None:
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
        if link is None or link.reported:
            return
        if not is_match(record):
            link.rounds.append(record.result)
            return
        link.reported = True
        self.lobby.spawn(self._report(link, record))

    async def _report(self, link: TableLink, record: RoundRecord) -> None:
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
        link = self.links.pop(room.id, None)
        if link is None or link.reported:
            return
        link.reported = True
        shell = self.events.get(link.tournament)
        if shell is not None:
            shell.tell(TableAborted(link.table))

    # -- a restart -----------------------------------------------------------------------------------

    async def restore(self) -> list[str]:
        """Rebuild the open events from their records and reconcile them with their tables; the ids of
        those set aside (a record its director does not reproduce)."""
        store = self.lobby.store
        aside = []
        for brief in await store.tournaments.events("open"):
            stored = await store.tournaments.get(brief.tournament_id)
            if stored is None:
                continue
            try:
                shell = self._rebuild(stored)
            except (ReplayError, TournamentError, ValueError, KeyError) as exc:
                log.error("tournament %s cannot be rebuilt (%s); set aside", stored.tournament_id, exc)
                await self.write(stored.tournament_id, [TournamentClosed(stored.tournament_id, "aside", None)])
                aside.append(stored.tournament_id)
                continue
            self.events[shell.id] = shell
            await self._reconcile(shell, stored)
            shell.start()
        return aside

    def _rebuild(self, stored: StoredTournament) -> EventShell:
        record = EventRecord(config_from_dict(stored.config), tuple(Entry.from_dict(e) for e in stored.entries))
        director = replay(record)
        return EventShell(director, self, self.clock, seq=stored.next_seq, organiser=stored.organiser)

    async def _reconcile(self, shell: EventShell, stored: StoredTournament) -> None:
        """Each table the journal has under way: its rebuilt room followed; finished while the event
        was down: its result reported now; never opened as a room: opened again."""
        records = await self.lobby.store.tournaments.rounds(shell.id)
        linked = [room_id for room_id, _ in stored.tables]
        for table in shell.director.event.tables.values():
            rooms = [rid for rid in linked if self._table_of(rid, records) == table.table]
            live = [self.lobby.rooms[rid] for rid in rooms
                    if rid in self.lobby.rooms and not self.lobby.rooms[rid].closed]
            done = next((r for rid in rooms for r in records_of(rid, records) if is_match(r)), None)
            if live:
                room = live[-1]
                link = TableLink(shell.id, table.table, table.round, table.seats,
                                 _order(room.opts.extra.get("plan"), table.seats))
                link.room = room
                link.rounds = [r.result for r in records_of(room.id, records) if not is_match(r)]
                self.links[room.id] = link
                room.watched_by(self)
                if done is not None:
                    link.reported = True
                    self.lobby.spawn(self._report(link, done))
            elif done is not None:
                rid = done.round_id.rsplit("-", 2)[0]
                link = TableLink(shell.id, table.table, table.round, table.seats,
                                 _order(done.config.get("plan"), table.seats))
                link.rounds = [r.result for r in records_of(rid, records) if not is_match(r)]
                result = link.result(done)
                shell.tell(result if result is not None else TableAborted(table.table))
            else:
                self.lobby.spawn(self._open_again(shell, table))  # (once its people are back)

    async def _open_again(self, shell: EventShell, table: OpenTable) -> None:
        """A table the journal opened that no room seated (the crash came between them): opened again
        once its people are back, or after the ``resume_window`` a rebuilt table gives them."""
        deadline = self.clock() + self.lobby.config.resume_window
        while self.clock() < deadline and not self.lobby.closing:
            if len(who_can_sit(self.lobby.players, table.people, self.lobby.seats.holder)) == len(table.people):
                break
            await asyncio.sleep(RETURN_POLL)
        if not self.lobby.closing and not shell.ended:
            await self._open_table(shell, table)

    def _table_of(self, room_id: str, records: Sequence[RoundRecord]) -> str | None:
        room = self.lobby.rooms.get(room_id)
        if room is not None:
            value = room.opts.extra.get(TABLE)
            return value if isinstance(value, str) else None
        for r in records_of(room_id, records):
            value = r.config.get(TABLE)
            if isinstance(value, str):
                return value
        return None

    async def shutdown(self) -> None:
        """Stop every event's task; the open ones are rebuilt at the next start."""
        await asyncio.gather(*(shell.stop() for shell in self.events.values()), return_exceptions=True)


def _entry(tid: str, config: Mapping[str, JSONValue], rank: int, entrants: int, final: bool) -> dict[str, JSONValue]:
    """One event ``finger`` lists."""
    options = config.get("options")
    game, rules = (options.get("game"), options.get("rules")) if isinstance(options, Mapping) else (None, None)
    return {"tournament": tid, "kind": config.get("kind"), "game": game, "rules": rules, "rank": rank,
            "entrants": entrants, "final": final}


def _plain(value: object) -> JSONValue:
    """A scalar of the core's summaries and lines as JSON (they hold nothing else)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _line(line: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """A line of standings as the ``tournament_standings`` reply gives it (from a ``Standing``'s fields)."""
    return {"rank": line.get("rank"), "name": line.get("name"), "points": line.get("points"),
            "opponents": line.get("opponents"), "games": line.get("games"), "wins": line.get("wins"),
            "byes": line.get("byes"), "fire": line.get("on_fire"), "provisional": line.get("provisional"),
            "status": line.get("status")}


def _order(plan: object, seats: Sequence[str | None]) -> list[int]:
    """Which director seat each room seat plays, from the room's plan (people first, then bots)."""
    names = [n for n in plan if isinstance(n, str)] if isinstance(plan, list) else []
    people = [i for i, name in enumerate(seats) if name is not None and name in names]
    return people + [i for i in range(len(seats)) if i not in people]


def is_tournament_table(extra: Mapping[str, object]) -> bool:
    return TOURNAMENT in extra
