"""An event's restart: rebuilt from its record, reconciled with its tables (docs/tournaments.md,
"Durability").

At start (``server/start/app.py``, after the tables resumed), each open event is rebuilt with
``record.replay`` (a record its director does not reproduce sets the event aside), then each table
the journal has under way is reconciled: a rebuilt room is followed again; a match that ended while
the event was down is reported from its records; a table the journal opened but no room seated is
opened again, once its people are back. A cluster node taking an event over runs the same
(:func:`restore_one`), and a table still open in the store that this node does not hold (another
node holds it, or will once it takes it over) is followed from afar: its result is read from the
store when its match record is there (:func:`follow_far`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Protocol

from server.lobby.tournaments.host import HallHost
from server.lobby.tournaments.shell import EventHost, EventShell
from server.lobby.tournaments.tables import PLAN, TABLE, TableLink, is_match, records_of
from server.protocol import JSONValue
from server.rooms.room import Room
from server.storage.api import RoundRecord
from server.storage.api_tournaments import StoredTournament, TournamentClosed
from server.tournaments import (
    EventRecord,
    OpenTable,
    ReplayError,
    TableAborted,
    TournamentError,
    config_from_dict,
    replay,
)
from server.tournaments.io import Entry


class Hall(EventHost, Protocol):
    """What a restart needs of the lobby's hall (:class:`server.lobby.tournaments.hall.Hall`)."""

    @property
    def lobby(self) -> HallHost: ...
    @property
    def events(self) -> MutableMapping[str, EventShell]: ...
    @property
    def links(self) -> MutableMapping[str, TableLink]: ...
    @property
    def far(self) -> MutableMapping[str, TableLink]: ...
    @property
    def done_far(self) -> set[str]: ...
    @property
    def far_seated(self) -> MutableMapping[str, str]: ...
    @property
    def held(self) -> MutableMapping[str, Room]: ...
    @property
    def clock(self) -> Callable[[], float]: ...

    async def report(self, link: TableLink, record: RoundRecord) -> None: ...

    async def open_safely(self, shell: EventShell, effect: OpenTable) -> None: ...

    def recorded(self, room: Room, record: RoundRecord) -> None: ...

    def closed(self, room: Room) -> None: ...

    def can_sit(self, names: Sequence[str]) -> list[str]: ...

log = logging.getLogger(__name__)

RETURN_POLL = 0.25
"""Seconds between two looks, after a restart, at whether a table's people are back."""


# -- a restart -----------------------------------------------------------------------------------

async def restore(hall: Hall) -> list[str]:
    """Rebuild the open events from their records and reconcile them with their tables; the ids of
    those set aside (a record its director does not reproduce)."""
    store = hall.lobby.store
    aside = []
    for brief in await store.tournaments.events("open"):
        stored = await store.tournaments.get(brief.tournament_id)
        if stored is not None and not await restore_one(hall, stored):
            aside.append(stored.tournament_id)
    return aside


async def restore_one(hall: Hall, stored: StoredTournament) -> bool:
    """Event ``stored`` rebuilt from its record, reconciled with its tables and started; False when
    its record does not replay (it is set aside)."""
    try:
        shell = _rebuild(hall, stored)
    except (ReplayError, TournamentError, ValueError, KeyError) as exc:
        log.error("tournament %s cannot be rebuilt (%s); set aside", stored.tournament_id, exc)
        await hall.write(stored.tournament_id, [TournamentClosed(stored.tournament_id, "aside", None)])
        return False
    hall.events[shell.id] = shell
    await _reconcile(hall, shell, stored)
    shell.start()
    return True

def _rebuild(hall: Hall, stored: StoredTournament) -> EventShell:
    record = EventRecord(config_from_dict(stored.config), tuple(Entry.from_dict(e) for e in stored.entries))
    director = replay(record)
    return EventShell(director, hall, hall.clock, seq=stored.next_seq, organiser=stored.organiser)

async def _reconcile(hall: Hall, shell: EventShell, stored: StoredTournament) -> None:
    """Each table the journal has under way: its rebuilt room followed; finished while the event
    was down: its result reported now; never opened as a room: opened again."""
    records = await hall.lobby.store.tournaments.rounds(shell.id)
    linked = [room_id for room_id, _ in stored.tables]
    table_of = {rid: await _table_of(hall, rid, records) for rid in linked}  # (once each: it may read the store)
    for table in shell.director.event.tables.values():
        rooms = [rid for rid in linked if table_of[rid] == table.table]
        live = [hall.lobby.rooms[rid] for rid in rooms
                if rid in hall.lobby.rooms and not hall.lobby.rooms[rid].closed]
        done = next((r for rid in rooms for r in records_of(rid, records) if is_match(r)), None)
        if live:
            room = live[-1]
            link = TableLink(shell.id, table.table, table.round, table.seats,
                             _order(room.opts.extra.get(PLAN), table.seats))
            link.room = room
            link.rounds = [r.result for r in records_of(room.id, records) if not is_match(r)]
            hall.links[room.id] = link
            hall.held.pop(room.id, None)  # (taken over by this node before its event)
            room.watched_by(hall)
            if done is not None:
                link.reported = True
                hall.lobby.spawn(hall.report(link, done))
        elif done is None and (away := await _elsewhere(hall, rooms)) is not None:
            rid, config = away  # open in the store, held by no room here: another node has it (or will)
            extra = config.get("extra")
            plan = extra.get(PLAN) if isinstance(extra, dict) else None
            hall.far[rid] = TableLink(shell.id, table.table, table.round, table.seats, _order(plan, table.seats))
        elif done is not None:
            rid = done.round_id.rsplit("-", 2)[0]
            link = TableLink(shell.id, table.table, table.round, table.seats,
                             _order(done.config.get(PLAN), table.seats))
            link.rounds = [r.result for r in records_of(rid, records) if not is_match(r)]
            result = link.result(done)
            shell.tell(result if result is not None else TableAborted(table.table))
        else:
            hall.lobby.spawn(_open_again(hall, shell, table))  # (once its people are back)

async def _open_again(hall: Hall, shell: EventShell, table: OpenTable) -> None:
    """A table the journal opened that no room seated (the crash came between them): opened again
    once its people are back, or after the ``resume_window`` a rebuilt table gives them."""
    deadline = hall.clock() + hall.lobby.config.resume_window
    while hall.clock() < deadline and not hall.lobby.closing:
        if len(hall.can_sit(table.people)) == len(table.people):
            break
        await asyncio.sleep(RETURN_POLL)
    if not hall.lobby.closing and not shell.ended:
        await hall.open_safely(shell, table)

async def _elsewhere(hall: Hall, rooms: Sequence[str]) -> tuple[str, Mapping[str, JSONValue]] | None:
    """The last of ``rooms`` the store has open (a table this node does not hold): its id and
    configuration."""
    for rid in reversed(rooms):
        if rid in hall.lobby.rooms:
            continue
        stored = await hall.lobby.store.tables.get(rid)
        if stored is not None and stored.status == "open":
            return rid, stored.config
    return None


async def follow_far(hall: Hall) -> None:
    """The tables of this node's events that other nodes hold (after a take-over): each one whose
    match record is in the store is reported to its event now, and one the store closed without a
    match is reported aborted. (Called at every keep-alive of a cluster node.)"""
    by_event: dict[str, list[tuple[str, TableLink]]] = {}
    for rid, link in list(hall.far.items()):
        by_event.setdefault(link.tournament, []).append((rid, link))
    for tid, links in by_event.items():
        shell = hall.events.get(tid)
        if shell is None or shell.ended:
            for rid, _ in links:
                hall.far.pop(rid, None)
            continue
        records = await hall.lobby.store.tournaments.rounds(tid)
        for rid, link in links:
            if hall.far.get(rid) is not link:
                continue
            found = records_of(rid, records)
            done = next((r for r in found if is_match(r)), None)
            if done is not None:
                link.rounds = [r.result for r in found if not is_match(r)]
                result = link.result(done)
                _done_far(hall, rid, link)
                shell.tell(result if result is not None else TableAborted(link.table))
                continue
            stored = await hall.lobby.store.tables.get(rid)
            if stored is not None and stored.status == "open":
                continue
            again = records_of(rid, await hall.lobby.store.tournaments.rounds(tid))  # (closed since the read)
            done = next((r for r in again if is_match(r)), None)
            link.rounds = [r.result for r in again if not is_match(r)]
            result = link.result(done) if done is not None else None
            _done_far(hall, rid, link)
            shell.tell(result if result is not None else TableAborted(link.table))


def _done_far(hall: Hall, rid: str, link: TableLink) -> None:
    """Table ``rid`` of another node reported: its people, still seated there until their next table,
    are told the event's news as people at a table are."""
    del hall.far[rid]
    hall.done_far.add(rid)
    for name in link.seats:
        if name is not None:
            hall.far_seated[name] = rid


async def _table_of(hall: Hall, room_id: str, records: Sequence[RoundRecord]) -> str | None:
    """The event's name of the table room ``room_id`` is: from the room here, from its records, or
    from its configuration in the store (a table another node holds, before its first round ends)."""
    room = hall.lobby.rooms.get(room_id)
    if room is not None:
        value = room.opts.extra.get(TABLE)
        return value if isinstance(value, str) else None
    for r in records_of(room_id, records):
        value = r.config.get(TABLE)
        if isinstance(value, str):
            return value
    stored = await hall.lobby.store.tables.get(room_id)
    extra = stored.config.get("extra") if stored is not None else None
    value = extra.get(TABLE) if isinstance(extra, dict) else None
    return value if isinstance(value, str) else None


def _order(plan: object, seats: Sequence[str | None]) -> list[int]:
    """Which director seat each room seat plays, from the room's plan (people first, then bots)."""
    names = [n for n in plan if isinstance(n, str)] if isinstance(plan, list) else []
    people = [i for i, name in enumerate(seats) if name is not None and name in names]
    return people + [i for i in range(len(seats)) if i not in people]
