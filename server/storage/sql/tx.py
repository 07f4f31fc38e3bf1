"""What the shared SQL code runs on: a transaction handle over one backend's connection.

The SQL of ``server/storage/sql/`` is written once, with ``?`` placeholders,
in the subset SQLite and PostgreSQL share (``ON CONFLICT``, ``RETURNING``,
partial indexes, recursive CTEs). A :class:`Tx` hides what differs: the
placeholder style, row locks (``FOR UPDATE`` on PostgreSQL; SQLite has one
writer at a time, so it needs none), the row id of ``history``, and numeric
sums (PostgreSQL's ``SUM`` of integers is a ``numeric``: rows give ints).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from server.storage.api import Op, OpResult
    from server.storage.passwords import Backoff
    from server.storage.settings import StoreSettings

T = TypeVar("T")
Params = Sequence[object]

SQLValue = str | int | float | bytes | None
"""What a column holds, in both backends (PostgreSQL's integer sums come back as ints: ``PgRow``)."""


class Row(Protocol):
    """A row: ``r["column"]`` and ``r[0]`` both work (``sqlite3.Row``, or ``PgRow``).

    A value is read through :mod:`server.storage.sql.values` (``text(r["name"])``, ``integer(r[0])``)."""

    def __getitem__(self, key: int | str, /) -> SQLValue: ...

    def __iter__(self) -> Iterator[SQLValue]: ...

    def __len__(self) -> int: ...


class Cursor(Protocol):
    """What a statement's cursor gives (``sqlite3.Cursor``, or psycopg's with ``PgRow`` rows)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Row | None: ...

    def fetchmany(self, size: int) -> Sequence[Row]: ...

    def fetchall(self) -> Sequence[Row]: ...


# Test-only hooks, called in the database thread inside a transaction, named by
# the place they run at. The crash tests set them in a child process to stop
# it at a precise point before killing it; they are empty in production.
HOOKS: dict[str, Callable[[], None]] = {}


def hook(name: str) -> None:
    fn = HOOKS.get(name)
    if fn is not None:
        fn()


_NUMBER = (int, float)
TOTALS = ("balances", "escrow", "held", "granted", "retired")


class Tx(ABC):
    """One transaction (or one savepoint of a group commit) on a connection.

    ``totals`` accumulates the changes of the maintained ledger totals
    (``ledger_totals``); the database thread writes them at the end of each job,
    inside its savepoint, so a refused job changes none of them.
    """

    dialect = "sqlite"
    lock = ""  # appended to a SELECT of rows the transaction will change
    rowid = "rowid"  # the insertion order of history rows

    conn: object  # the backend's own connection (what ``SQLStore.write``/``read`` hand to tools)

    def __init__(
        self,
        conn: object,
        settings: StoreSettings,
        *,
        shard: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.conn = conn
        self.settings = settings
        self.shard = shard
        self.clock = clock
        self.totals: dict[str, int] = {}
        self.credited: set[int] = set()  # accounts credited in this job (gone guests: retire)

    # -- statements
    @abstractmethod
    def execute(self, sql: str, params: Params = ()) -> Cursor:
        """Each backend's own (``SQLiteTx``, ``PgTx``)."""

    def one(self, sql: str, params: Params = ()) -> Row | None:
        return self.execute(sql, params).fetchone()

    def all(self, sql: str, params: Params = ()) -> list[Row]:
        return list(self.execute(sql, params).fetchall())

    def scalar(self, sql: str, params: Params = ()) -> SQLValue:
        row = self.one(sql, params)
        return None if row is None else row[0]

    def integer(self, sql: str, params: Params = ()) -> int:
        value = self.scalar(sql, params)
        if value is None:
            return 0
        if isinstance(value, _NUMBER):
            return int(value)
        raise TypeError(f"{sql!r} gave {type(value).__name__}, not a number")

    def rows(self, sql: str, params: Params = ()) -> Iterator[Row]:
        yield from self.all(sql, params)

    def now(self) -> float:
        return self.clock()

    # -- maintained totals
    def bump(self, **deltas: int) -> None:
        for key, delta in deltas.items():
            if delta:
                self.totals[key] = self.totals.get(key, 0) + delta

    def begin_job(self) -> None:
        self.totals = {}
        self.credited = set()

    def end_job(self) -> None:
        """Inside the job's savepoint: write what the job changed of the totals."""
        if not any(self.totals.values()):
            return
        values = [self.totals.get(k, 0) for k in TOTALS]
        self.execute(
            """INSERT INTO ledger_totals (shard, balances, escrow, held, granted, retired)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (shard) DO UPDATE SET
                 balances = ledger_totals.balances + excluded.balances,
                 escrow = ledger_totals.escrow + excluded.escrow,
                 held = ledger_totals.held + excluded.held,
                 granted = ledger_totals.granted + excluded.granted,
                 retired = ledger_totals.retired + excluded.retired""",
            (self.shard, *values),
        )
        self.totals = {}


class Runner(Protocol):
    """What the accounts, history and tables of a store run their SQL through (a ``SQLStore``)."""

    settings: StoreSettings
    backoff: Backoff
    sleep: Callable[[float], Awaitable[None]]
    clock: Callable[[], float]

    async def run_write(self, fn: Callable[[Tx], T], *, relaxed: bool = False) -> T: ...

    async def run_read(self, fn: Callable[[Tx], T]) -> T: ...

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]: ...
