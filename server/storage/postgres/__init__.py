"""The PostgreSQL backend: the same Protocols, the same SQL, the same ``apply``, behind ``postgresql://``.

Driver
    psycopg 3 (``psycopg[binary]``): maintained, typed (mypy --strict), and
    with a synchronous API that fits the store's one database thread; the
    SQLite backend's group commit then works unchanged: one transaction per
    group of jobs, each job in a savepoint.

Concurrency
    READ COMMITTED with row locks: every change of an account's balance,
    holds or round receipts first locks its row (``SELECT … FOR UPDATE``, in
    id order), a settlement or a void locks its round's row, so two
    settlements of one round racing from two connections settle once (the
    second sees the round settled and returns False), and two tables can
    never spend the same chips. ``CHECK (balance >= 0)`` backs it up. A job
    that hits a deadlock, a serialization failure or a lock timeout is undone
    alone and run again after the group's commit.

Durability
    ``synchronous_commit = on`` (guest logins and logouts: ``off``, like
    SQLite's relaxed writes). A client killed in the middle of a transaction
    leaves nothing: the server rolls it back when the connection drops.

One server per database
    ``open_store`` takes a session advisory lock (dropped by the server with
    the connection, ``kill -9`` included; a restart waits up to ``lock_wait``
    seconds for the old connection to go): two servers would void each
    other's unsettled rounds at start. ``exclusive=False`` skips it (tools,
    tests racing two connections).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from decimal import Decimal

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import TupleRow

from server.storage.api import Audit, StorageError
from server.storage.postgres.schema import MIGRATIONS
from server.storage.settings import StoreSettings
from server.storage.sql import audit as _audit
from server.storage.sql.store import SQLStore
from server.storage.sql.tx import HOOKS, Cursor, Params, SQLValue, Tx

log = logging.getLogger("donne.storage")

LOCK_KEY = 0x646F6E6E65  # "donne": the session advisory lock of the server using the database
MIGRATE_KEY = 0x646F6E6E66  # held (per transaction) while migrating
SHARDS = 16  # rows of ledger_totals: each store adds to its own, so servers do not queue on one row

_SQL: dict[str, str] = {}


def pg_sql(sql: str) -> str:
    """``?`` placeholders become psycopg's ``%s`` (a literal ``%`` is doubled)."""
    out = _SQL.get(sql)
    if out is None:
        out = _SQL[sql] = sql.replace("%", "%%").replace("?", "%s")
    return out


def _number(value: Decimal) -> int | float:
    """A ``numeric`` (what ``SUM`` of integers gives) as an ``int``; the schema has no other."""
    return int(value) if value == value.to_integral_value() else float(value)


class PgRow:
    """A row indexable by position and by column name, like ``sqlite3.Row``."""

    __slots__ = ("_index", "_values")

    def __init__(self, values: Sequence[SQLValue | Decimal], index: dict[str, int]) -> None:
        self._values = [_number(v) if isinstance(v, Decimal) else v for v in values]
        self._index = index

    def __getitem__(self, key: int | str) -> SQLValue:
        return self._values[key] if isinstance(key, int) else self._values[self._index[key]]

    def __iter__(self) -> Iterator[SQLValue]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._index)


def _row_factory(cursor: psycopg.Cursor[PgRow]) -> Callable[[Sequence[SQLValue | Decimal]], PgRow]:
    index = {c.name: i for i, c in enumerate(cursor.description or ())}

    def make(values: Sequence[SQLValue | Decimal]) -> PgRow:
        return PgRow(values, index)

    return make


class PgTx(Tx):
    dialect = "postgresql"
    lock = " FOR UPDATE"
    rowid = "seq"

    conn: psycopg.Connection[TupleRow]

    def __init__(
        self,
        conn: psycopg.Connection[TupleRow],
        settings: StoreSettings,
        *,
        shard: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(conn, settings, shard=shard, clock=clock)

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        cur = self.conn.cursor(row_factory=_row_factory)
        cur.execute(pg_sql(sql), tuple(params))
        return cur


def pg_connect(url: str) -> psycopg.Connection[TupleRow]:
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise StorageError(f"cannot connect to PostgreSQL: {exc}".strip()) from None
    conn.execute("SET synchronous_commit = on")
    conn.execute("SET lock_timeout = '10s'")
    return conn


def migrate(conn: psycopg.Connection[TupleRow]) -> int:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_KEY,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        version = (row[0] if row else None) or 0
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            conn.execute(script.encode())
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (number,))
            log.info("PostgreSQL schema migrated to version %d", number)
    return len(MIGRATIONS)


class PostgresBackend:
    """What the database thread needs of a PostgreSQL database."""

    def __init__(
        self,
        url: str,
        settings: StoreSettings,
        clock: Callable[[], float],
        *,
        exclusive: bool = True,
        lock_wait: float = 15.0,
    ) -> None:
        self.url = url
        self.settings = settings
        self.clock = clock
        self.exclusive = exclusive
        self.lock_wait = lock_wait
        self.shard = random.randrange(SHARDS)
        self.conn: psycopg.Connection[TupleRow] | None = None
        self._closed = False

    def open(self) -> None:
        conn = pg_connect(self.url)
        try:
            migrate(conn)
            if self.exclusive:
                self._take_lock(conn, self.lock_wait)
        except BaseException:
            conn.close()
            raise
        self.conn = conn

    def _take_lock(self, conn: psycopg.Connection[TupleRow], wait: float) -> None:
        deadline = time.monotonic() + wait
        while True:
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()
            if row and row[0]:
                return
            if time.monotonic() >= deadline:
                raise StorageError("the PostgreSQL database is in use by another server")
            time.sleep(0.05)

    def tx(self) -> Tx:
        if self._closed:
            raise StorageError("the store is closed")
        if self.conn is None or self.conn.closed:
            conn = pg_connect(self.url)
            if self.exclusive:
                try:
                    self._take_lock(conn, 0)
                except BaseException:
                    conn.close()
                    raise
            self.conn = conn
            log.warning("reconnected to PostgreSQL")
        return PgTx(self.conn, self.settings, shard=self.shard, clock=self.clock)

    def begin_write(self, tx: Tx, relaxed: bool) -> None:
        tx.execute("BEGIN")
        if relaxed:
            tx.execute("SET LOCAL synchronous_commit = off")

    def begin_read(self, tx: Tx) -> None:
        tx.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def commit(self, tx: Tx) -> None:
        tx.execute("COMMIT")

    def rollback(self, tx: Tx) -> None:
        tx.execute("ROLLBACK")

    def transient(self, exc: BaseException) -> bool:
        return isinstance(exc, pg_errors.SerializationFailure | pg_errors.DeadlockDetected | pg_errors.LockNotAvailable)

    def lost(self, exc: BaseException) -> bool:
        conn = self.conn
        if isinstance(exc, psycopg.OperationalError) and (conn is None or conn.closed or conn.broken):
            if conn is not None:
                conn.close()
            self.conn = None
            return True
        return False

    def close(self) -> None:
        self._closed = True
        conn = self.conn
        if conn is not None:
            if not conn.closed and not conn.broken:
                # the session advisory lock is given back now, not once the server reads the goodbye
                # (a failure leaves it to go with the session all the same)
                with contextlib.suppress(psycopg.Error):
                    conn.execute("SELECT pg_advisory_unlock_all()")
            conn.close()
            self.conn = None


class PostgresStore(SQLStore):
    """A :class:`server.storage.api.Store` on a PostgreSQL database."""

    backend: PostgresBackend

    def __init__(
        self,
        url: str,
        settings: StoreSettings | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        exclusive: bool = True,
        lock_wait: float = 15.0,
    ) -> None:
        settings = settings or StoreSettings()
        backend = PostgresBackend(url, settings, clock, exclusive=exclusive, lock_wait=lock_wait)
        super().__init__(backend, settings, name="donne-db-postgresql", sleep=sleep, clock=clock)
        self.url = url


async def open_postgres(
    url: str,
    settings: StoreSettings | None = None,
    *,
    recover: bool = True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.time,
    exclusive: bool = True,
    lock_wait: float = 15.0,
) -> PostgresStore:
    store = PostgresStore(url, settings, sleep=sleep, clock=clock, exclusive=exclusive, lock_wait=lock_wait)
    try:
        await store._open()
        if recover:
            await store.recover()
    except BaseException:
        await store.close()
        raise
    return store


def audit_url(url: str, stuck_after: float | None = None) -> Audit:
    """The full audit of a PostgreSQL database, in one read-only snapshot (safe beside a live server)."""
    conn = pg_connect(url)
    try:
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            return _audit.audit(PgTx(conn, StoreSettings()), stuck_after)
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()


__all__ = ["HOOKS", "MIGRATIONS", "PostgresStore", "audit_url", "open_postgres", "pg_connect"]
