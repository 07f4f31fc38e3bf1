"""Tournaments that survive a restart: configuration, journal, status, tables; in both SQL stores.

An event's journal is written as a table's log is (:mod:`server.storage.sql.tables`): numbered
entries appended in order, a gap or an overlap refused, the event's row locked while its number
moves, so two writers cannot both append entry ``n``. A cluster owner's writes come after a
:class:`~server.storage.api.Fence` keyed ``tour:<id>`` in the same ``apply``: a stale owner's
write is refused by the database (PostgreSQL). The store does not interpret entries.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from server.protocol import JSONValue
from server.storage.api import (
    BadRecord,
    BadSequence,
    Op,
    RoundRecord,
    StoredTournament,
    TournamentClosed,
    TournamentLog,
    TournamentOpened,
    TournamentTable,
)
from server.storage.sql.history import _record_from_row
from server.storage.sql.tables import MAX_ENTRIES, _json, _step_text, _table_id
from server.storage.sql.tx import Row, Runner, Tx
from server.storage.sql.values import integer, number, text


class UnknownTournament(BadRecord):
    """An operation on an event the store does not hold."""


def _tid(value: object) -> str:
    if not isinstance(value, str) or not value or len(value) > 100:
        raise BadRecord(f"a tournament id must be a non-empty string of at most 100 characters, not {value!r}")
    return value


def check(op: Op) -> None:
    """The refusals that need no database: ids, shapes, sequence numbers, statuses."""
    if isinstance(op, TournamentOpened):
        _tid(op.tournament_id)
        if not isinstance(op.config, Mapping):
            raise BadRecord("a tournament's configuration is a dict")
        if not isinstance(op.organiser, str) or len(op.organiser) > 200:
            raise BadRecord("an organiser is a name")
    elif isinstance(op, TournamentLog):
        _tid(op.tournament_id)
        if isinstance(op.seq, bool) or not isinstance(op.seq, int) or op.seq < 0:
            raise BadSequence(f"a sequence number is a whole number >= 0, not {op.seq!r}")
        if not isinstance(op.entries, list | tuple) or len(op.entries) > MAX_ENTRIES:
            raise BadRecord(f"entries are a list of at most {MAX_ENTRIES} dicts")
        for entry in op.entries:
            if not isinstance(entry, Mapping):
                raise BadRecord(f"a journal entry is a dict, not {type(entry).__name__}")
    elif isinstance(op, TournamentTable):
        _tid(op.tournament_id)
        _table_id(op.table_id)
        if isinstance(op.round, bool) or not isinstance(op.round, int) or op.round < 0:
            raise BadRecord(f"a round is a whole number >= 0, not {op.round!r}")
    elif isinstance(op, TournamentClosed):
        _tid(op.tournament_id)
        if op.status not in ("over", "aside"):
            raise BadRecord(f"a tournament closes 'over' or 'aside', not {op.status!r}")


def _event(tx: Tx, tournament_id: str) -> Row:
    row = tx.one("SELECT * FROM tournaments WHERE tournament_id = ?" + tx.lock, (tournament_id,))
    if row is None:
        raise UnknownTournament(f"no tournament {tournament_id}")
    return row


def opened(tx: Tx, op: TournamentOpened) -> None:
    if tx.one("SELECT 1 FROM tournaments WHERE tournament_id = ?", (op.tournament_id,)) is not None:
        raise BadRecord(f"tournament {op.tournament_id} was already opened")
    tx.execute(
        """INSERT INTO tournaments (tournament_id, config, organiser, status, created_at, next_seq)
           VALUES (?, ?, ?, 'open', ?, 0)""",
        (op.tournament_id, _json(dict(op.config), "the configuration"), op.organiser, tx.now()),
    )


def logged(tx: Tx, op: TournamentLog) -> int:
    """The entries appended as one row (one entry, or a JSON array of them); the next number."""
    row = _event(tx, op.tournament_id)
    if row["status"] != "open":
        raise BadRecord(f"tournament {op.tournament_id} is {text(row['status'])}: its journal is closed")
    expected = integer(row["next_seq"])
    if op.seq != expected:
        kind = "a gap" if op.seq > expected else "an overlap"
        raise BadSequence(f"tournament {op.tournament_id}: entries from {op.seq} would leave {kind} "
                          f"(next is {expected})")
    if not op.entries:
        return op.seq
    after = op.seq + len(op.entries)
    tx.execute("INSERT INTO tournament_log (tournament_id, seq, entry) VALUES (?, ?, ?)",
               (op.tournament_id, op.seq, _step_text(op.entries)))
    tx.execute("UPDATE tournaments SET next_seq = ? WHERE tournament_id = ?", (after, op.tournament_id))
    return after


def linked(tx: Tx, op: TournamentTable) -> None:
    _event(tx, op.tournament_id)
    if tx.one("SELECT 1 FROM tournament_tables WHERE table_id = ?", (op.table_id,)) is not None:
        raise BadRecord(f"table {op.table_id} already belongs to a tournament")
    row = tx.one("SELECT COUNT(*) FROM tournament_tables WHERE tournament_id = ?", (op.tournament_id,))
    position = 0 if row is None else integer(row[0])  # the event's row is locked: no other link meanwhile
    tx.execute("INSERT INTO tournament_tables (table_id, tournament_id, round, position) VALUES (?, ?, ?, ?)",
               (op.table_id, op.tournament_id, op.round, position))


def closed(tx: Tx, op: TournamentClosed) -> bool:
    row = _event(tx, op.tournament_id)
    if row["status"] != "open":
        return False
    standings = None if op.standings is None else _json(op.standings, "the standings")
    tx.execute("UPDATE tournaments SET status = ?, closed_at = ?, standings = ? WHERE tournament_id = ?",
               (op.status, tx.now(), standings, op.tournament_id))
    return True




def journal(tx: Tx, tournament_id: str, start: int = 0) -> list[dict[str, JSONValue]]:
    entries: list[dict[str, JSONValue]] = []
    rows = tx.rows("SELECT seq, entry FROM tournament_log WHERE tournament_id = ? ORDER BY seq", (tournament_id,))
    for seq, entry in rows:
        value = json.loads(text(entry))  # an entry (a JSON object), or the entries of one write (an array)
        step = value if isinstance(value, list) else [value]
        skip = max(0, start - integer(seq))
        entries.extend(step[skip:])
    return entries


def _tables(tx: Tx, tournament_id: str) -> list[tuple[str, int]]:
    rows = tx.all("SELECT table_id, round FROM tournament_tables WHERE tournament_id = ? ORDER BY position",
                  (tournament_id,))
    return [(str(r["table_id"]), integer(r["round"])) for r in rows]


def _stored(tx: Tx, row: Row, whole: bool) -> StoredTournament:
    closed_at = row["closed_at"]
    tid = str(row["tournament_id"])
    return StoredTournament(
        tournament_id=tid,
        config=json.loads(text(row["config"])),
        organiser=str(row["organiser"]),
        status=str(row["status"]),
        created_at=float(number(row["created_at"])),
        closed_at=None if closed_at is None or (isinstance(closed_at, float) and math.isnan(closed_at))
        else float(closed_at),
        next_seq=integer(row["next_seq"]),
        standings=None if row["standings"] is None else json.loads(text(row["standings"])),
        entries=journal(tx, tid) if whole else (),
        tables=_tables(tx, tid) if whole else (),
    )


def rounds(tx: Tx, tournament_id: str) -> list[RoundRecord]:
    """The history's records of the event's tables: a round id is ``<table>-<uid>-<n>`` (or ends
    ``-match``), so a table's records are those whose id starts with its id and a dash."""
    rows = tx.all(
        f"""SELECT h.* FROM history h JOIN tournament_tables t
                ON substr(h.round_id, 1, length(t.table_id) + 1) = t.table_id || '-'
            WHERE t.tournament_id = ?
            ORDER BY h.finished_at, h.{tx.rowid}""",
        (tournament_id,),
    )
    return [_record_from_row(tx, r) for r in rows]


def export(tx: Tx, tournament_id: str) -> dict[str, JSONValue] | None:
    row = tx.one("SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,))
    if row is None:
        return None
    event = _stored(tx, row, True)
    tables: list[JSONValue] = [{"table": t, "round": n} for t, n in event.tables]
    return {
        "tournament": event.tournament_id,
        "organiser": event.organiser,
        "status": event.status,
        "created_at": event.created_at,
        "closed_at": event.closed_at,
        "record": {"config": dict(event.config), "entries": [dict(e) for e in event.entries]},
        "standings": event.standings,
        "tables": tables,
        "rounds": [r.round_id for r in rounds(tx, tournament_id)],
    }


class SQLTournaments:
    """The :class:`~server.storage.api.Tournaments` of a SQL store (writes are ``apply`` operations)."""

    def __init__(self, store: Runner) -> None:
        self._store = store

    async def events(self, status: str | None = None) -> list[StoredTournament]:
        def q(tx: Tx) -> list[StoredTournament]:
            if status is None:
                rows = tx.all("SELECT * FROM tournaments ORDER BY created_at, tournament_id")
            else:
                rows = tx.all("SELECT * FROM tournaments WHERE status = ? ORDER BY created_at, tournament_id",
                              (status,))
            return [_stored(tx, r, False) for r in rows]

        return await self._store.run_read(q)

    async def get(self, tournament_id: str) -> StoredTournament | None:
        def q(tx: Tx) -> StoredTournament | None:
            row = tx.one("SELECT * FROM tournaments WHERE tournament_id = ?", (tournament_id,))
            return None if row is None else _stored(tx, row, True)

        return await self._store.run_read(q)

    async def journal(self, tournament_id: str, start: int = 0) -> list[Mapping[str, JSONValue]]:
        def q(tx: Tx) -> list[Mapping[str, JSONValue]]:
            return list(journal(tx, tournament_id, start))

        return await self._store.run_read(q)

    async def rounds(self, tournament_id: str) -> list[RoundRecord]:
        return await self._store.run_read(lambda tx: rounds(tx, tournament_id))

    async def export(self, tournament_id: str) -> dict[str, JSONValue] | None:
        return await self._store.run_read(lambda tx: export(tx, tournament_id))
