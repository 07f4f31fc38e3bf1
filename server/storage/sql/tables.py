"""Tables that survive a restart: configuration, log, status; a durable table counter.

The server writes a table's configuration when it opens, then every entry of
its log (each deal's seed, every applied action) before the resulting events
leave the server, in the same ``apply`` as the chip movements they cause; at
start it rebuilds the unfinished tables by replaying them. The store does not
interpret entries: they are JSON-able dicts, stored and given back in order.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping, Sequence

from server.protocol import JSONValue
from server.storage.api import (
    BadRecord,
    BadSequence,
    Fence,
    Op,
    StaleOwner,
    StoredTable,
    TableClosed,
    TableLog,
    TableOpened,
    UnknownTable,
)
from server.storage.sql.tx import Row, Runner, Tx, hook
from server.storage.sql.values import integer, number, text

MAX_ENTRIES = 10_000  # entries of one TableLog
MAX_ENTRY = 65_536  # characters of one entry, as JSON


_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
"""``json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))``, its encoder made once."""


def _json(value: object, what: str) -> str:
    try:
        text = _dumps(value)
    except (TypeError, ValueError) as exc:
        raise BadRecord(f"{what} is not JSON: {exc}") from None
    return text


def _step_text(entries: Sequence[Mapping[str, JSONValue]]) -> str:
    """The row of one write (a step): its entry's JSON, or the JSON array of its entries (what joining
    each entry's JSON in brackets gives: the same bytes). BadRecord when one of them is not JSON or is
    over ``MAX_ENTRY`` characters (the array is made at once when all of them are dicts and it is
    within that size: then so is each of them)."""
    plain = [entry if type(entry) is dict else dict(entry) for entry in entries]
    if plain:
        with contextlib.suppress(TypeError, ValueError):  # each entry alone says which and why
            text = _dumps(plain[0] if len(plain) == 1 else plain)
            if len(text) <= MAX_ENTRY:
                return text
    texts = []
    for entry in plain:
        text = _json(entry, "a log entry")
        if len(text) > MAX_ENTRY:
            raise BadRecord(f"a log entry is at most {MAX_ENTRY} characters of JSON")
        texts.append(text)
    return texts[0] if len(texts) == 1 else "[" + ",".join(texts) + "]"


def _table_id(value: object) -> str:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise BadRecord(f"a table id must be a non-empty string of at most 200 characters, not {value!r}")
    return value


def check(op: Op) -> None:
    """The refusals that need no database: ids, shapes, sequence numbers, statuses (the JSON of a
    configuration or an entry is made once, where it is written: a refusal there undoes the op)."""
    if isinstance(op, TableOpened):
        _table_id(op.table_id)
        if not isinstance(op.config, Mapping):
            raise BadRecord("a table's configuration is a dict")
    elif isinstance(op, TableLog):
        _table_id(op.table_id)
        if isinstance(op.seq, bool) or not isinstance(op.seq, int) or op.seq < 0:
            raise BadSequence(f"a sequence number is a whole number >= 0, not {op.seq!r}")
        if not isinstance(op.entries, list | tuple) or len(op.entries) > MAX_ENTRIES:
            raise BadRecord(f"entries are a list of at most {MAX_ENTRIES} dicts")
        for entry in op.entries:
            if type(entry) is not dict and not isinstance(entry, Mapping):
                raise BadRecord(f"a log entry is a dict, not {type(entry).__name__}")
    elif isinstance(op, Fence):
        _table_id(op.table_id)
        if isinstance(op.epoch, bool) or not isinstance(op.epoch, int) or op.epoch <= 0:
            raise BadRecord(f"an epoch is a whole number > 0, not {op.epoch!r}")
    elif isinstance(op, TableClosed):
        _table_id(op.table_id)
        if op.status not in ("over", "aside"):
            raise BadRecord(f"a table closes 'over' or 'aside', not {op.status!r}")
        if not isinstance(op.reason, str):
            raise BadRecord("a reason is a string")


def _table(tx: Tx, table_id: str) -> Row:
    row = tx.one("SELECT * FROM tables WHERE table_id = ?" + tx.lock, (table_id,))
    if row is None:
        raise UnknownTable(f"no table {table_id}")
    return row


def table_opened(tx: Tx, op: TableOpened) -> None:
    if tx.one("SELECT 1 FROM tables WHERE table_id = ?", (op.table_id,)) is not None:
        raise BadRecord(f"table {op.table_id} was already opened")
    tx.execute(
        "INSERT INTO tables (table_id, config, status, reason, opened_at, next_seq) VALUES (?, ?, 'open', '', ?, 0)",
        (op.table_id, _json(dict(op.config), "the configuration"), tx.now()),
    )


Step = tuple[str, int, int, str]
"""A table's step made a row: (table id, its first entry's number, its entries, the row's JSON)."""


def _expect(tx: Tx, table_id: str, seq: int) -> None:
    """Refused unless the table is open and its log goes on at ``seq``."""
    row = _table(tx, table_id)
    if row["status"] != "open":
        raise BadRecord(f"table {table_id} is {text(row['status'])}: its log is closed")
    expected = integer(row["next_seq"])
    if seq != expected:
        kind = "a gap" if seq > expected else "an overlap"
        raise BadSequence(f"table {table_id}: entries from {seq} would leave {kind} (next is {expected})")


def table_log(tx: Tx, op: TableLog) -> int:
    _expect(tx, op.table_id, op.seq)
    if op.entries:  # one row for the step: its first entry's number, a JSON array when there are more
        return _insert_step(tx, step_of(op))
    return op.seq


def step_of(op: TableLog) -> Step:
    """``op`` made a row (BadRecord: an entry that is no JSON, or too long)."""
    return op.table_id, op.seq, len(op.entries), _step_text(op.entries)


def table_step(tx: Tx, step: Step) -> int:
    """One step already made a row, alone: refused as :func:`table_log` refuses; the next number."""
    hook("table_steps.before")
    _expect(tx, step[0], step[1])
    return _insert_step(tx, step)


def _insert_step(tx: Tx, step: Step) -> int:
    """The step's row, and its table's next number moved past it (checked by the caller)."""
    table_id, seq, count, row_text = step
    tx.execute("INSERT INTO table_log (table_id, seq, entry) VALUES (?, ?, ?)", (table_id, seq, row_text))
    tx.execute("UPDATE tables SET next_seq = ? WHERE table_id = ?", (seq + count, table_id))
    return seq + count


def table_logs(tx: Tx, ops: list[TableLog]) -> list[list[int]] | None:
    """Several tables' steps (one ``TableLog`` each: ``apply([op])``) in two statements, whatever
    their number: each one's result is ``apply``'s (``[next sequence number]``). None (and maybe
    a statement to undo: the caller rolls back) when one of them would be refused, is empty, or
    names a table twice: then each is written alone, and refused alone."""
    steps: list[Step] = []
    for op in ops:
        if not op.entries:
            return None
        try:
            steps.append(step_of(op))
        except BadRecord:
            return None
    after = table_steps(tx, steps)
    return None if after is None else [[n] for n in after]


def table_steps(tx: Tx, steps: list[Step]) -> list[int] | None:
    """Several tables' steps already made rows, in two statements: each one's next number. None (and
    maybe a statement to undo) when one of them would be refused or a table comes twice."""
    if len({step[0] for step in steps}) != len(steps):
        return None
    hook("table_steps.before")
    moves: list[str | int] = []  # (id, expected, after) for each
    rows: list[str | int] = []  # (id, seq, text) for each
    for table_id, seq, count, row_text in steps:
        moves += (table_id, seq, seq + count)
        rows += (table_id, seq, row_text)
    values = ", ".join(["(?, CAST(? AS INTEGER), CAST(? AS INTEGER))"] * len(steps))
    moved = tx.execute(f"""UPDATE tables SET next_seq = v.column3 FROM (VALUES {values}) AS v
                           WHERE tables.table_id = v.column1 AND tables.next_seq = v.column2
                             AND tables.status = 'open'""", moves).rowcount
    if moved != len(steps):  # a table closed, unknown, or at another number: each alone says which
        return None
    tx.execute("INSERT INTO table_log (table_id, seq, entry) VALUES " + ", ".join(["(?, ?, ?)"] * len(steps)), rows)
    return [seq + count for _, seq, count, _ in steps]


def replay_steps(tx: Tx, steps: list[Step]) -> tuple[int, int, int]:
    """Steps written ahead (:mod:`server.storage.sql.ahead`), put in at start: each one the database
    does not hold yet, in order. (written, already there, left out: a table closed, unknown, or a gap)."""
    written = already = left = 0
    for step in steps:
        table_id, seq = step[0], step[1]
        row = tx.one("SELECT status, next_seq FROM tables WHERE table_id = ?", (table_id,))
        at = None if row is None else integer(row["next_seq"])
        if at is not None and at > seq:
            already += 1
        elif row is None or row["status"] != "open" or at != seq:
            left += 1
        else:
            _insert_step(tx, step)
            written += 1
    return written, already, left


def table_closed(tx: Tx, op: TableClosed) -> bool:
    row = _table(tx, op.table_id)
    if row["status"] != "open":
        return False
    tx.execute(
        "UPDATE tables SET status = ?, reason = ?, closed_at = ? WHERE table_id = ?",
        (op.status, op.reason[:1000], tx.now(), op.table_id),
    )
    return True


def fence(tx: Tx, op: Fence) -> int:
    """A cluster owner's fencing token checked (``take``: raised) under the lock of the table's row of
    fences, in the caller's transaction: a concurrent takeover waits for this transaction, and this
    one for it. The table's epoch before."""
    if tx.dialect != "postgresql":
        raise BadRecord("fencing tokens are a cluster's (PostgreSQL)")
    row = tx.one("SELECT epoch FROM table_fences WHERE table_id = ?" + tx.lock, (op.table_id,))
    if row is None:  # the table's first write (or a takeover of a table that never wrote one)
        inserted = tx.execute("INSERT INTO table_fences (table_id, epoch) VALUES (?, ?) "
                              "ON CONFLICT (table_id) DO NOTHING", (op.table_id, 0 if op.take else op.epoch)).rowcount
        if inserted and not op.take:
            return 0
        row = tx.one("SELECT epoch FROM table_fences WHERE table_id = ?" + tx.lock, (op.table_id,))
    current = integer(row["epoch"]) if row is not None else 0
    if op.take:
        if current >= op.epoch:
            raise StaleOwner(f"table {op.table_id}: epoch {op.epoch} cannot take over from {current}",
                             current=current)
        tx.execute("UPDATE table_fences SET epoch = ? WHERE table_id = ?", (op.epoch, op.table_id))
        return current
    if current != op.epoch:
        raise StaleOwner(f"table {op.table_id}: epoch {op.epoch} is not the owner's ({current})", current=current)
    return current


def fenced_logs(tx: Tx, pairs: list[tuple[Fence, TableLog]]) -> list[list[int]] | None:
    """Several tables' fenced steps (``apply([Fence, TableLog])`` each, an owner's) at once: every
    fence checked in one locking statement, then the steps as :func:`table_logs` writes them.
    None (each then alone, refused alone) when a fence is not its table's epoch or is missing."""
    ids = [fence.table_id for fence, _ in pairs]
    if len(set(ids)) != len(ids):
        return None
    marks = ", ".join("?" * len(ids))
    rows = tx.all(f"SELECT table_id, epoch FROM table_fences WHERE table_id IN ({marks}) ORDER BY table_id" + tx.lock,
                  ids)
    epochs = {str(r["table_id"]): integer(r["epoch"]) for r in rows}
    if any(epochs.get(fence.table_id) != fence.epoch for fence, _ in pairs):
        return None
    after = table_logs(tx, [log for _, log in pairs])
    return None if after is None else [[fence.epoch, *n] for (fence, _), n in zip(pairs, after, strict=True)]




def next_table_number(tx: Tx) -> int:
    row = tx.one(
        """INSERT INTO counters (name, value) VALUES ('table', 1)
           ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value"""
    )
    assert row is not None
    return integer(row[0])


def stored(tx: Tx, row: Row) -> StoredTable:
    entries: list[Mapping[str, JSONValue]] = []
    for r in tx.rows("SELECT entry FROM table_log WHERE table_id = ? ORDER BY seq", (row["table_id"],)):
        value = json.loads(text(r[0]))  # an entry (a JSON object), or the entries of one write (an array)
        if isinstance(value, list):
            entries.extend(value)
        else:
            entries.append(value)
    closed = row["closed_at"]
    return StoredTable(
        table_id=text(row["table_id"]),
        config=json.loads(text(row["config"])),
        entries=entries,
        opened_at=float(number(row["opened_at"])),
        status=text(row["status"]),
        reason=text(row["reason"]),
        closed_at=None if closed is None or (isinstance(closed, float) and math.isnan(closed)) else float(closed),
    )


class SQLTables:
    def __init__(self, store: Runner) -> None:
        self._store = store

    async def next_table_number(self) -> int:
        """Persisted, strictly increasing across restarts (a durable write)."""
        return await self._store.run_write(next_table_number)

    async def unfinished(self) -> list[StoredTable]:
        def q(tx: Tx) -> list[StoredTable]:
            rows = tx.all("SELECT * FROM tables WHERE status = 'open' ORDER BY opened_at, table_id")
            return [stored(tx, r) for r in rows]

        return await self._store.run_read(q)

    async def get(self, table_id: str) -> StoredTable | None:
        def q(tx: Tx) -> StoredTable | None:
            row = tx.one("SELECT * FROM tables WHERE table_id = ?", (table_id,))
            return None if row is None else stored(tx, row)

        return await self._store.run_read(q)
