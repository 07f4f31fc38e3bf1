"""The SQLite backend of :mod:`server.storage.api`: one file, one writer thread, nothing lost.

Durability
    WAL journal, ``synchronous=FULL``: a transaction that returned is on disk
    before the call returns, so ``kill -9`` or a power cut loses nothing
    committed; a transaction that did not commit leaves no trace.

Concurrency
    One connection, used by one dedicated thread (``server/storage/sql/thread.py``):
    the event loop never blocks on disk, transactions never interleave, and
    writes waiting together share one transaction and one fsync (group commit),
    each in its own savepoint. SQLite has one writer at a time, so the shared
    SQL needs no row locks here.

Files
    The data folder is 0700; the database file and its ``-wal``/``-shm`` files
    are 0600 (created under umask 077, existing ones chmodded at open): they
    hold password hashes.

Chips
    ``accounts.balance`` is a cache of ``SUM(entries.delta)`` per account;
    both change in the same transaction. An open round's escrow is the sum
    of its ``stakes`` rows. :func:`server.storage.sql.audit.audit` checks all of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import sqlite3
import stat
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import IO

from server.storage.api import BOT_PREFIX, Audit, StorageError
from server.storage.settings import StoreSettings
from server.storage.sql import ahead
from server.storage.sql import audit as _audit
from server.storage.sql.accounts import parse_public_key
from server.storage.sql.store import SQLStore
from server.storage.sql.tables import replay_steps
from server.storage.sql.tx import HOOKS, Cursor, Params, Tx
from server.storage.sqlite.schema import MIGRATIONS, migrate
from server.storage.sqlite.schema import split_sql as _split_sql

log = logging.getLogger("donne.storage")

DB_FILE = "donne.sqlite3"
DB_SUFFIXES = (".sqlite3", ".sqlite", ".db")
SIDE_FILES = ("-wal", "-shm", ".lock")


class SQLiteTx(Tx):
    """A transaction on a SQLite connection (its rows ``sqlite3.Row``)."""

    conn: sqlite3.Connection

    def __init__(
        self,
        conn: sqlite3.Connection,
        settings: StoreSettings,
        *,
        shard: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(conn, settings, shard=shard, clock=clock)

    def execute(self, sql: str, params: Params = ()) -> Cursor:
        return self.conn.execute(sql, tuple(params))


def db_path(path: str | os.PathLike[str]) -> Path:
    """The database file for a data folder (or the file itself when it ends in .sqlite3/.db)."""
    p = Path(path)
    if p.suffix in DB_SUFFIXES:
        return p
    return p / DB_FILE


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Files and folders created inside are readable by their owner only (umask 077)."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def ensure_private_dir(path: str | os.PathLike[str]) -> Path:
    """Create the data folder 0700 (and its missing parents); make an existing one 0700."""
    folder = Path(path)
    with private_umask():
        folder.mkdir(parents=True, exist_ok=True)
    if stat.S_IMODE(folder.stat().st_mode) & 0o077:
        folder.chmod(0o700)
    return folder


def _private_files(path: Path) -> None:
    for file in (path, *(path.with_name(path.name + s) for s in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_IMODE(file.stat().st_mode) & 0o077:
                file.chmod(0o600)


def _lock_data(path: Path) -> IO[bytes] | None:
    """One server per database: an exclusive lock on ``<file>.lock``, held while the store is open.

    Two servers on one file would each refund the other's open rounds at
    start. The kernel drops the lock when the process dies, ``kill -9``
    included, so a crash never leaves the folder locked.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return None
    with private_umask():
        path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(path.with_name(path.name + ".lock"), "ab")  # noqa: SIM115 - held open on purpose
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise StorageError(f"{path} is in use by another server") from None
    return fh


def in_use(path: str | os.PathLike[str]) -> bool:
    """Whether a server holds this database now (the lock of :func:`_lock_data`), without taking it."""
    file = db_path(path)
    if not file.exists():
        return False
    try:
        fh = _lock_data(file)
    except StorageError:
        return True
    if fh is not None:
        fh.close()
    return False


def connect(path: Path) -> sqlite3.Connection:
    """The connection the database thread uses (WAL, synchronous=FULL, foreign keys), files 0600."""
    with private_umask():
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=10000")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # creates -wal and -shm now
    _private_files(path)
    return conn


class SQLiteBackend:
    """What the database thread needs of a SQLite file."""

    def __init__(self, path: Path, settings: StoreSettings, clock: Callable[[], float], *,
                 exclusive: bool = True) -> None:
        self.path = path
        self.settings = settings
        self.clock = clock
        self.exclusive = exclusive  # False: beside a running server (donne admin); SQLite serialises writers
        self.conn: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None
        self._sync = "FULL"

    def open(self) -> None:
        if self.exclusive:
            self._lock = _lock_data(self.path)
        elif not self.path.exists():
            raise StorageError(f"no database at {self.path}")
        try:
            self.conn = connect(self.path)
            migrate(self.conn)
        except BaseException:
            self.close()
            raise
        _private_files(self.path)

    def tx(self) -> Tx:
        if self.conn is None:
            raise StorageError("the store is closed")
        return SQLiteTx(self.conn, self.settings, clock=self.clock)

    def begin_write(self, tx: Tx, relaxed: bool) -> None:
        sync = "NORMAL" if relaxed else "FULL"
        if sync != self._sync:
            tx.execute(f"PRAGMA synchronous={sync}")
            self._sync = sync
        tx.execute("BEGIN IMMEDIATE")

    def begin_read(self, tx: Tx) -> None:
        tx.execute("BEGIN")

    def commit(self, tx: Tx) -> None:
        tx.execute("COMMIT")

    def rollback(self, tx: Tx) -> None:
        tx.execute("ROLLBACK")

    def transient(self, exc: BaseException) -> bool:
        return False  # one writer, busy_timeout: nothing to run again

    def lost(self, exc: BaseException) -> bool:
        return False

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None


def _replay_files(db: Path, tx: Tx) -> tuple[list[Path], tuple[int, int, int]]:
    """In the database thread, at start: every ahead file's steps put in, in order (the files are
    removed once this is committed)."""
    found = ahead.files(db)
    steps = [step for path in found for step in ahead.records(path)]
    return found, replay_steps(tx, steps)


class SQLiteStore(SQLStore):
    """A :class:`server.storage.api.Store` on one SQLite file."""

    backend: SQLiteBackend

    def __init__(
        self,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        exclusive: bool = True,
    ) -> None:
        settings = settings or StoreSettings()
        super().__init__(
            SQLiteBackend(path, settings, clock, exclusive=exclusive), settings, name=f"donne-db-{path.name}",
            sleep=sleep, clock=clock,
        )
        self.path = path

    async def _replay_ahead(self) -> None:
        """A server's own store (the folder locked) puts into the database the steps a crash left
        written ahead, removes their files, and begins its own file when ``write_ahead`` is on."""
        if not self.backend.exclusive:
            return
        found, (written, already, left) = await self.run_write(functools.partial(_replay_files, self.path))
        await self.call(functools.partial(ahead.remove, found))
        if written or left:
            log.info("steps written ahead before a stop: %d put in the database, %d there already, %d left out "
                     "(their table closed, unknown or at another number)", written, already, left)
        if self.settings.write_ahead:
            log_file = ahead.AheadLog(self.path)
            log_file.open()
            self._ahead = log_file


def audit_connection(conn: sqlite3.Connection, stuck_after: float | None = None) -> Audit:
    """The full audit on a SQLite connection (the caller holds a read transaction)."""
    return _audit.audit(SQLiteTx(conn, StoreSettings()), stuck_after)


async def open_sqlite(
    path: str | os.PathLike[str],
    settings: StoreSettings | None = None,
    *,
    recover: bool = True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.time,
    exclusive: bool = True,
) -> SQLiteStore:
    """``exclusive=False``: no lock on the data folder, for a tool beside a running server (the file
    must exist; SQLite serialises the writers)."""
    file = db_path(path)
    if file != Path(path) and exclusive:
        ensure_private_dir(path)  # a data folder: 0700 (it also holds the SSH host key)
    store = SQLiteStore(file, settings, sleep=sleep, clock=clock, exclusive=exclusive)
    try:
        await store._open()
        if recover:
            await store.recover()
    except BaseException:
        await store.close()
        raise
    return store


__all__ = [
    "BOT_PREFIX",
    "DB_FILE",
    "HOOKS",
    "MIGRATIONS",
    "SQLiteStore",
    "StoreSettings",
    "_split_sql",
    "audit_connection",
    "connect",
    "db_path",
    "ensure_private_dir",
    "in_use",
    "open_sqlite",
    "parse_public_key",
]
