"""The SQLite backend of :mod:`server.storage.api`: one file, one writer thread, nothing lost.

Durability
    WAL journal, ``synchronous=FULL``: a transaction that returned is on disk
    before the call returns, so ``kill -9`` or a power cut loses nothing
    committed; a transaction that did not commit leaves no trace.

Concurrency
    One connection, used by one dedicated thread. Every call is queued to
    that thread, so the event loop never blocks on disk and transactions
    never interleave. Writes that are waiting together are grouped into one
    transaction, each in its own savepoint (group commit): one fsync for the
    group, a failing write undone alone, and no caller told "done" before the
    COMMIT is on disk. Password hashing runs in the loop's default executor,
    away from the database thread.

Chips
    ``accounts.balance`` is a cache of ``SUM(entries.delta)`` per account;
    both change in the same transaction. An open round's escrow is the sum
    of its ``stakes`` rows. :meth:`SQLiteLedger.audit` checks all of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any, TypeVar

from server.storage import names as _names
from server.storage import passwords as _pw
from server.storage.api import (
    BOT_PREFIX,
    HOUSE,
    Account,
    Accounts,
    Audit,
    BadAmount,
    BadKey,
    BadName,
    Entry,
    GuestsForbidden,
    History,
    InsufficientChips,
    Ledger,
    NameTaken,
    NoSuchAccount,
    RoundRecord,
    StorageError,
    Store,
    UnknownRound,
    bot_account,
)

log = logging.getLogger("donne.storage")
auth_log = logging.getLogger("donne.storage.auth")

T = TypeVar("T")

DB_FILE = "donne.sqlite3"
DB_SUFFIXES = (".sqlite3", ".sqlite", ".db")

# Test-only hooks, called in the database thread inside a transaction, named by
# the place they run at. The crash tests set them in a child process to stop
# it at a precise point before killing it; they are empty in production.
HOOKS: dict[str, Callable[[], None]] = {}


def _hook(name: str) -> None:
    fn = HOOKS.get(name)
    if fn is not None:
        fn()


@dataclass(frozen=True)
class StoreSettings:
    """Chips and security knobs; :meth:`from_mapping` reads them from the server config."""

    starting_chips: int = 1000  # grant of a newly registered account
    guest_chips: int = 200  # grant of a guest, retired when the guest leaves
    allow_guests: bool = True  # False: login_guest raises GuestsForbidden (code account_needed)
    house_chips: int = 1_000_000  # the house bankroll, granted once when the file is created
    house_account: str = HOUSE
    house_topup: bool = True  # a house too poor to fund a bot is granted house_chips more (logged)
    scrypt_n: int = _pw.SCRYPT_N
    backoff_base: float = 0.5  # first wrong password: answered after this many seconds ...
    backoff_max: float = 8.0  # ... doubling up to this
    backoff_window: float = 900.0  # failures older than this are forgotten
    max_keys: int = 20  # SSH public keys per account

    @classmethod
    def from_mapping(cls, *mappings: Mapping[str, Any] | None) -> StoreSettings:
        """Settings from config sections (later ones win); unknown keys are ignored."""
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for mapping in mappings:
            for key, value in (mapping or {}).items():
                if key in known:
                    values[key] = value
        return cls(**values)


# --------------------------------------------------------------------------- schema

MIGRATIONS: list[str] = [
    # 1: accounts, keys, ledger, escrow, history
    """
    CREATE TABLE accounts (
        id        INTEGER PRIMARY KEY,
        name      TEXT    NOT NULL,              -- display form
        key       TEXT    NOT NULL,              -- identity: NFKC + casefold
        skeleton  TEXT    NOT NULL,              -- look-alike form (names.skeleton)
        kind      TEXT    NOT NULL CHECK (kind IN ('player', 'guest', 'house', 'bot')),
        live      INTEGER NOT NULL DEFAULT 1,    -- 0: a guest who left (rows are never deleted)
        password  TEXT,                          -- scrypt$N$r$p$salt$hash, players only
        balance   INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
        created   REAL    NOT NULL,
        closed    REAL
    );
    CREATE UNIQUE INDEX accounts_live_key ON accounts(key) WHERE live = 1;
    CREATE UNIQUE INDEX accounts_live_skeleton ON accounts(skeleton) WHERE live = 1;

    CREATE TABLE ssh_keys (
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        key        TEXT    NOT NULL,             -- "type base64", as OpenSSH writes it
        comment    TEXT    NOT NULL DEFAULT '',
        added      REAL    NOT NULL,
        PRIMARY KEY (account_id, key)
    );

    CREATE TABLE rounds (
        round_id TEXT    PRIMARY KEY,
        state    TEXT    NOT NULL CHECK (state IN ('open', 'settled', 'refunded')),
        escrow   INTEGER NOT NULL CHECK (escrow >= 0),
        opened   REAL    NOT NULL,
        closed   REAL
    );
    CREATE INDEX rounds_open ON rounds(state) WHERE state = 'open';

    CREATE TABLE stakes (
        round_id   TEXT    NOT NULL REFERENCES rounds(round_id),
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        amount     INTEGER NOT NULL CHECK (amount > 0),
        PRIMARY KEY (round_id, account_id)
    );

    CREATE TABLE entries (
        id         INTEGER PRIMARY KEY,
        ts         REAL    NOT NULL,
        account_id INTEGER NOT NULL REFERENCES accounts(id),
        delta      INTEGER NOT NULL,
        kind       TEXT    NOT NULL CHECK (kind IN ('grant', 'retire', 'stake', 'payout', 'refund', 'transfer')),
        round_id   TEXT,
        ref        TEXT    NOT NULL DEFAULT '',
        note       TEXT    NOT NULL DEFAULT ''
    );
    CREATE INDEX entries_account ON entries(account_id, id);
    CREATE INDEX entries_round ON entries(round_id) WHERE round_id IS NOT NULL;

    CREATE TABLE history (
        round_id    TEXT PRIMARY KEY,
        game        TEXT NOT NULL,
        rules       TEXT NOT NULL,
        seats       TEXT NOT NULL,               -- JSON list of names
        config      TEXT NOT NULL,               -- JSON
        log         TEXT NOT NULL,               -- JSON list of action dicts
        result      TEXT NOT NULL,               -- JSON event
        commitment  TEXT NOT NULL DEFAULT '',
        finished_at REAL NOT NULL,
        extra       TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX history_game ON history(game, rules);

    CREATE TABLE history_seats (
        round_id   TEXT    NOT NULL REFERENCES history(round_id),
        seat       INTEGER NOT NULL,
        name       TEXT    NOT NULL,
        key        TEXT    NOT NULL,
        registered INTEGER NOT NULL,             -- a registered account when recorded
        points     INTEGER NOT NULL DEFAULT 0,   -- classic P14
        chips      INTEGER NOT NULL DEFAULT 0,   -- chip change this round (tdc T13, speculation)
        president  INTEGER NOT NULL DEFAULT 0,   -- 1 when this seat was Président
        PRIMARY KEY (round_id, seat)
    );
    CREATE INDEX history_seats_key ON history_seats(key, round_id);
    """,
    # 2: a match's rounds share their log: each record keeps the actions after its base's
    #    (an endless tdc table would otherwise store its whole log again with every round)
    """
    ALTER TABLE history ADD COLUMN log_base TEXT;                          -- round whose log this one extends
    ALTER TABLE history ADD COLUMN log_start INTEGER NOT NULL DEFAULT 0;   -- actions taken from the base
    ALTER TABLE history ADD COLUMN log_len INTEGER NOT NULL DEFAULT 0;     -- actions in the full log
    ALTER TABLE history ADD COLUMN log_hash TEXT NOT NULL DEFAULT '';      -- SHA-256 of the full log
    ALTER TABLE history ADD COLUMN match_key TEXT NOT NULL DEFAULT '';     -- game, rules, config, room
    CREATE INDEX history_match ON history(match_key);
    """,
]


def _migrate(conn: sqlite3.Connection) -> int:
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    version = row[0] or 0
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split_sql(script):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (number,))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        log.info("database schema migrated to version %d", number)
    return len(MIGRATIONS)


def _split_sql(script: str) -> list[str]:
    """Statements of a migration (executescript would commit on its own)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def db_path(path: str | os.PathLike[str]) -> Path:
    """The database file for a data folder (or the file itself when it ends in .sqlite3/.db)."""
    p = Path(path)
    if p.suffix in DB_SUFFIXES:
        return p
    return p / DB_FILE


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
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path.with_name(path.name + ".lock"), "ab")  # noqa: SIM115 - held open on purpose
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise StorageError(f"{path} is in use by another server") from None
    return fh


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


# --------------------------------------------------------------------------- helpers (database thread)


def _positive(amount: Any, what: str) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise BadAmount(f"{what} must be a positive whole number of chips, not {amount!r}")
    return amount


def _account(conn: sqlite3.Connection, name: str) -> sqlite3.Row | None:
    return conn.execute(  # type: ignore[no-any-return]
        "SELECT * FROM accounts WHERE key = ? AND live = 1", (_names.name_key(name),)
    ).fetchone()


def _require(conn: sqlite3.Connection, name: str) -> sqlite3.Row:
    row = _account(conn, name)
    if row is None:
        raise NoSuchAccount(f"no account {name!r}")
    return row


def _as_account(row: sqlite3.Row) -> Account:
    return Account(name=row["name"], guest=row["kind"] == "guest", chips=row["balance"])


def _move(
    conn: sqlite3.Connection,
    account_id: int,
    delta: int,
    kind: str,
    *,
    round_id: str | None = None,
    ref: str = "",
    note: str = "",
) -> None:
    """One ledger entry and the balance it changes (the caller holds the transaction)."""
    conn.execute(
        "INSERT INTO entries (ts, account_id, delta, kind, round_id, ref, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (time.time(), account_id, delta, kind, round_id, ref, note),
    )
    conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (delta, account_id))


def _retire_if_gone(conn: sqlite3.Connection, account_id: int, amount: int, ref: str) -> None:
    """Chips paid to a guest who already left are retired at once (their balance stays 0)."""
    row = conn.execute("SELECT kind, live FROM accounts WHERE id = ?", (account_id,)).fetchone()
    if row["kind"] == "guest" and not row["live"] and amount > 0:
        _move(conn, account_id, -amount, "retire", ref=ref, note="guest left")


def _create(conn: sqlite3.Connection, name: str, kind: str, password: str | None = None) -> int:
    key = _names.name_key(name)
    skel = _names.skeleton(name)
    same = conn.execute(
        "SELECT name FROM accounts WHERE live = 1 AND (key = ? OR skeleton = ?)", (key, skel)
    ).fetchone()
    if same is not None:
        raise NameTaken(f"{name!r} is taken" + ("" if same["name"] == name else f" (looks like {same['name']!r})"))
    cur = conn.execute(
        "INSERT INTO accounts (name, key, skeleton, kind, password, created) VALUES (?, ?, ?, ?, ?, ?)",
        (name, key, skel, kind, password, time.time()),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


# --------------------------------------------------------------------------- the database thread


_WRITES = ("write", "relaxed")


@dataclass
class _Job:
    kind: str  # "write" | "relaxed" (a write that need not reach the disk alone) | "read" | "call"
    fn: Callable[[sqlite3.Connection], Any] | Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


def _reply(job: _Job, ok: bool, value: Any) -> None:
    """Hand a result to the job's event loop (from the database thread)."""
    try:
        job.loop.call_soon_threadsafe(_deliver, job.future, ok, value)
    except RuntimeError:  # that loop is closed: nobody is waiting any more
        log.debug("result of a database job dropped: its event loop is closed")


def _deliver(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.cancelled():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class _DatabaseThread(threading.Thread):
    """The one thread that touches the connection; jobs come through a queue.

    Consecutive writes are grouped: up to ``MAX_BATCH`` jobs already waiting
    run in one ``BEGIN IMMEDIATE … COMMIT``, each in a savepoint, so a busy
    server pays one fsync per group instead of one per ledger call.
    """

    MAX_BATCH = 64

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._get_conn: Callable[[], sqlite3.Connection] | None = None
        self._sync = "FULL"  # the connection's synchronous setting (see _batch)
        self.commits = 0  # write transactions committed
        self.writes = 0  # write jobs run (≥ commits: the difference is what grouping saved)

    def submit(
        self, kind: str, fn: Callable[..., Any], get_conn: Callable[[], sqlite3.Connection]
    ) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        self._get_conn = get_conn
        future: asyncio.Future[Any] = loop.create_future()
        self._jobs.put(_Job(kind, fn, loop, future))
        return future

    def stop(self) -> None:
        if self.is_alive():
            self._jobs.put(None)
            self.join()

    def run(self) -> None:
        held: _Job | None = None
        while True:
            job = held if held is not None else self._jobs.get()
            held = None
            if job is None:
                return
            if job.kind not in _WRITES:
                self._single(job)
                continue
            batch = [job]
            while len(batch) < self.MAX_BATCH:
                try:
                    nxt = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if nxt is None or nxt.kind not in _WRITES:
                    held = nxt
                    if nxt is None:
                        self._jobs.put(None)  # stop after this batch
                        held = None
                    break
                batch.append(nxt)
            self._batch(batch)

    def _single(self, job: _Job) -> None:
        try:
            if job.kind == "call":
                value = job.fn()  # type: ignore[call-arg]
            else:
                assert self._get_conn is not None
                conn = self._get_conn()
                conn.execute("BEGIN")
                try:
                    value = job.fn(conn)  # type: ignore[call-arg]
                finally:
                    conn.execute("COMMIT")
        except BaseException as exc:  # handed to the awaiting coroutine
            _reply(job, False, exc)
        else:
            _reply(job, True, value)

    def _batch(self, batch: list[_Job]) -> None:
        assert self._get_conn is not None
        conn = self._get_conn()
        results: list[tuple[bool, Any]] = []
        # A batch made only of relaxed writes commits without its own fsync
        # (WAL, synchronous=NORMAL); the next full commit syncs the WAL and so
        # everything before it. A power cut can only forget a suffix of
        # transactions, never one from the middle, so the ledger stays whole.
        sync = "NORMAL" if all(job.kind == "relaxed" for job in batch) else "FULL"
        if sync != self._sync:
            conn.execute(f"PRAGMA synchronous={sync}")
            self._sync = sync
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in batch:
                conn.execute("SAVEPOINT job")
                try:
                    value = job.fn(conn)  # type: ignore[call-arg]
                except BaseException as exc:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    results.append((False, exc))
                else:
                    conn.execute("RELEASE job")
                    results.append((True, value))
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(batch)
        except BaseException as exc:  # the COMMIT (or BEGIN) failed: nothing of the batch happened
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            results = [(False, exc)] * len(batch)
        for job, (ok, value) in zip(batch, results, strict=True):
            _reply(job, ok, value)


# --------------------------------------------------------------------------- the store


class SQLiteStore:
    """A :class:`server.storage.api.Store` on one SQLite file."""

    def __init__(
        self,
        path: Path,
        settings: StoreSettings | None = None,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.path = path
        self.settings = settings or StoreSettings()
        self.sleep = sleep  # replaced by tests to record the back-off without waiting
        self.backoff = _pw.Backoff(
            base=self.settings.backoff_base,
            maximum=self.settings.backoff_max,
            window=self.settings.backoff_window,
        )
        self._thread = _DatabaseThread(f"donne-db-{path.name}")
        self._conn: sqlite3.Connection | None = None
        self._lock: IO[bytes] | None = None
        self._closed = False
        self.accounts = SQLiteAccounts(self)
        self.ledger = SQLiteLedger(self)
        self.history = SQLiteHistory(self)

    # -- plumbing
    async def _submit(self, kind: str, fn: Callable[..., T], *args: Any) -> T:
        if self._closed:
            raise StorageError("the store is closed")
        result: T = await self._thread.submit(kind, functools.partial(fn, *args), self._conn_or_fail)
        return result

    def _conn_or_fail(self) -> sqlite3.Connection:
        assert self._conn is not None
        return self._conn

    async def write(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(conn, *args)`` atomically in the database thread; durable when it returns.

        Writes waiting together share one transaction and one fsync (group
        commit), each inside its own savepoint: a write that raises is undone
        alone, and no caller hears of success before the COMMIT is on disk."""
        return await self._submit("write", fn, *args)

    async def write_relaxed(self, fn: Callable[..., T], *args: Any) -> T:
        """Like :meth:`write`, atomic and ordered, but without waiting for its own fsync.

        For guest sessions opening and closing (a grant or a retirement that
        a power cut may forget together with everything after it): a kill -9
        loses nothing (the WAL is in the OS), and any later durable write
        makes it durable too."""
        return await self._submit("relaxed", fn, *args)

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(conn, *args)`` in one read transaction (a consistent snapshot)."""
        return await self._submit("read", fn, *args)

    async def _open(self) -> None:
        def setup() -> None:
            self._lock = _lock_data(self.path)
            self._conn = connect(self.path)
            _migrate(self._conn)

        self._thread.start()
        await self._submit("call", setup)
        await self.write(self._ensure_house)
        await self.accounts.load_registered()

    def _ensure_house(self, conn: sqlite3.Connection) -> None:
        name = self.settings.house_account
        if not _names.is_system_name(name):
            raise BadName(f"the house account {name!r} must contain ':'")
        if _account(conn, name) is None:
            account_id = _create(conn, name, "house")
            if self.settings.house_chips > 0:
                _move(conn, account_id, self.settings.house_chips, "grant", note="house bankroll")
            log.info("house account %s created with %d chips", name, self.settings.house_chips)

    async def recover(self) -> dict[str, Any]:
        """At start: refund open escrows, retire guests left over, bring bots' chips home."""
        refunded = await self.ledger.refund_unsettled()

        def sweep(conn: sqlite3.Connection) -> tuple[int, int]:
            guests = conn.execute("SELECT * FROM accounts WHERE live = 1 AND kind = 'guest'").fetchall()
            for row in guests:
                _logout_guest(conn, row)
            house = _require(conn, self.settings.house_account)
            bots = conn.execute(
                "SELECT * FROM accounts WHERE live = 1 AND kind = 'bot' AND balance > 0"
            ).fetchall()
            for row in bots:
                _move(conn, row["id"], -row["balance"], "transfer", ref=row["name"], note="bot_release")
                _move(conn, house["id"], row["balance"], "transfer", ref=row["name"], note="bot_release")
            return len(guests), len(bots)

        guests, bots = await self.write(sweep)
        if refunded or guests or bots:
            log.warning(
                "recovery: refunded %d open round(s) %s, retired %d guest(s), released %d bot(s)",
                len(refunded),
                refunded,
                guests,
                bots,
            )
        return {"refunded": refunded, "guests": guests, "bots": bots}

    async def close(self) -> None:
        """Finish the queued work, close the file and stop the thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        conn = self._conn

        def shut() -> None:
            if conn is not None:
                conn.close()

        try:
            if self._thread.is_alive():
                await self._thread.submit("call", shut, self._conn_or_fail)
        finally:
            await asyncio.to_thread(self._thread.stop)
            if self._lock is not None:
                self._lock.close()  # releases the lock
                self._lock = None


def _logout_guest(conn: sqlite3.Connection, row: sqlite3.Row) -> int:
    if row["balance"] > 0:
        _move(conn, row["id"], -row["balance"], "retire", note="guest left")
    conn.execute("UPDATE accounts SET live = 0, closed = ? WHERE id = ?", (time.time(), row["id"]))
    return int(row["balance"])


# --------------------------------------------------------------------------- accounts


class SQLiteAccounts:
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store
        self._locks: dict[str, asyncio.Lock] = {}
        self._lock_users: dict[str, int] = {}  # attempts holding or waiting for each name's lock
        # Keys of the registered (live "player") accounts, kept in memory once loaded: every
        # connection asks ``exists`` (SSH ``begin_auth``, logins), and only ``register`` adds one.
        self._registered: set[str] | None = None

    async def load_registered(self) -> None:
        def q(conn: sqlite3.Connection) -> set[str]:
            rows = conn.execute("SELECT key FROM accounts WHERE live = 1 AND kind = 'player'").fetchall()
            return {row["key"] for row in rows}

        self._registered = await self._store.read(q)

    async def exists(self, name: str) -> bool:
        """True when ``name`` is a registered account (guests and system accounts are not)."""
        registered = self._registered
        if registered is not None:
            return _names.name_key(name) in registered

        def q(conn: sqlite3.Connection) -> bool:
            row = _account(conn, name)
            return row is not None and row["kind"] == "player"

        return await self._store.read(q)

    async def get(self, name: str) -> Account | None:
        def q(conn: sqlite3.Connection) -> Account | None:
            row = _account(conn, name)
            return None if row is None else _as_account(row)

        return await self._store.read(q)

    async def available(self, name: str) -> str:
        """The cleaned name when nobody holds it or a look-alike; raises BadName / NameTaken."""
        clean = _names.clean_name(name)

        def q(conn: sqlite3.Connection) -> str:
            same = conn.execute(
                "SELECT name FROM accounts WHERE live = 1 AND (key = ? OR skeleton = ?)",
                (_names.name_key(clean), _names.skeleton(clean)),
            ).fetchone()
            if same is not None:
                raise NameTaken(f"{clean!r} is taken")
            return clean

        return await self._store.read(q)

    async def register(self, name: str, password: str, *, replacing_guest: str | None = None) -> Account:
        """A new account with the starting grant.

        ``replacing_guest``: the live guest this person was until now; in the
        same transaction his chips are retired and his name freed (so a guest
        can register the name he plays under)."""
        clean = _names.clean_name(name)
        _pw.check_new_password(password)
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, self._store.settings.scrypt_n)
        grant = self._store.settings.starting_chips

        def tx(conn: sqlite3.Connection) -> Account:
            if replacing_guest is not None:
                row = _account(conn, replacing_guest)
                if row is not None and row["kind"] == "guest":
                    _logout_guest(conn, row)
            account_id = _create(conn, clean, "player", hashed)
            if grant > 0:
                _move(conn, account_id, grant, "grant", note="register")
            return Account(name=clean, guest=False, chips=grant)

        # Known before the commit (while it is written, ``exists`` already asks for the password:
        # the safe side), forgotten again if the write fails.
        key = _names.name_key(clean)
        registered = self._registered
        new_key = registered is not None and key not in registered
        if registered is not None:
            registered.add(key)
        try:
            account = await self._store.write(tx)
        except BaseException:
            if new_key and registered is not None:
                registered.discard(key)
            raise
        log.info("account %s registered", clean)
        return account

    async def verify_password(self, name: str, password: str, address: str = "") -> Account | None:
        key = _names.name_key(name) if isinstance(name, str) else ""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._lock_users[key] = self._lock_users.get(key, 0) + 1
        try:
            # One attempt per name at a time: parallel guesses queue behind the back-off.
            async with lock:
                return await self._verify(key, name, password, address)
        finally:
            self._lock_users[key] -= 1
            if not self._lock_users[key]:
                del self._lock_users[key], self._locks[key]

    async def _verify(self, key: str, name: str, password: str, address: str) -> Account | None:
        store = self._store

        def q(conn: sqlite3.Connection) -> sqlite3.Row | None:
            row = _account(conn, name) if key else None
            return row if row is not None and row["kind"] == "player" else None

        row = await store.read(q)
        stored = row["password"] if row is not None else _pw.dummy_hash(store.settings.scrypt_n)
        loop = asyncio.get_running_loop()
        ok = isinstance(password, str) and await loop.run_in_executor(None, _pw.verify_password, password, stored)
        if ok and row is not None:
            store.backoff.succeed(key)
            if _pw.needs_rehash(stored, store.settings.scrypt_n):
                await self._rehash(row["id"], password)
            return _as_account(row)
        failures, delay = store.backoff.fail(key, address)
        auth_log.warning(
            "wrong password for %r from %s: failure %d, answered after %.2f s",
            name,
            address or "unknown address",
            failures,
            delay,
        )
        await store.sleep(delay)
        return None

    async def _rehash(self, account_id: int, password: str) -> None:
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, self._store.settings.scrypt_n)

        def tx(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE accounts SET password = ? WHERE id = ?", (hashed, account_id))

        await self._store.write(tx)

    async def set_password(self, name: str, password: str) -> None:
        """Change a registered account's password."""
        _pw.check_new_password(password)
        loop = asyncio.get_running_loop()
        hashed = await loop.run_in_executor(None, _pw.hash_password, password, self._store.settings.scrypt_n)

        def tx(conn: sqlite3.Connection) -> None:
            row = _require(conn, name)
            if row["kind"] != "player":
                raise NoSuchAccount(f"{name!r} is not a registered account")
            conn.execute("UPDATE accounts SET password = ? WHERE id = ?", (hashed, row["id"]))

        await self._store.write(tx)

    async def login_guest(self, name: str) -> Account:
        if not self._store.settings.allow_guests:
            raise GuestsForbidden("this server admits registered accounts only")
        clean = _names.clean_name(name)
        grant = self._store.settings.guest_chips

        def tx(conn: sqlite3.Connection) -> Account:
            row = _account(conn, clean)
            if row is not None:
                if row["kind"] == "guest":
                    return _as_account(row)  # the same guest again: no second grant
                raise NameTaken(f"{clean!r} is a registered name")
            account_id = _create(conn, clean, "guest")
            if grant > 0:
                _move(conn, account_id, grant, "grant", note="guest")
            return Account(name=clean, guest=True, chips=grant)

        return await self._store.write_relaxed(tx)

    async def logout_guest(self, name: str) -> None:
        def tx(conn: sqlite3.Connection) -> int | None:
            row = _account(conn, name)
            if row is None or row["kind"] != "guest":
                return None
            return _logout_guest(conn, row)

        retired = await self._store.write_relaxed(tx)
        if retired is not None:
            log.info("guest %s left; %d chips retired", name, retired)

    async def add_key(self, name: str, public_key: str) -> None:
        key, comment = parse_public_key(public_key)
        max_keys = self._store.settings.max_keys

        def tx(conn: sqlite3.Connection) -> None:
            row = _require(conn, name)
            if row["kind"] != "player":
                raise NoSuchAccount(f"{name!r} is not a registered account")
            count = conn.execute("SELECT COUNT(*) FROM ssh_keys WHERE account_id = ?", (row["id"],)).fetchone()
            if count[0] >= max_keys:
                raise BadKey(f"at most {max_keys} keys per account")
            conn.execute(
                "INSERT OR IGNORE INTO ssh_keys (account_id, key, comment, added) VALUES (?, ?, ?, ?)",
                (row["id"], key, comment, time.time()),
            )

        await self._store.write(tx)

    async def remove_key(self, name: str, public_key: str) -> bool:
        key, _ = parse_public_key(public_key)

        def tx(conn: sqlite3.Connection) -> bool:
            row = _require(conn, name)
            cur = conn.execute("DELETE FROM ssh_keys WHERE account_id = ? AND key = ?", (row["id"], key))
            return cur.rowcount > 0

        return await self._store.write(tx)

    async def keys(self, name: str) -> list[str]:
        def q(conn: sqlite3.Connection) -> list[str]:
            row = _account(conn, name)
            if row is None or row["kind"] != "player":
                return []
            rows = conn.execute(
                "SELECT key, comment FROM ssh_keys WHERE account_id = ? ORDER BY added", (row["id"],)
            ).fetchall()
            return [f"{r['key']} {r['comment']}".strip() for r in rows]

        return await self._store.read(q)

    async def fund_bot(self, display_name: str, chips: int) -> Account:
        name = bot_account(display_name)
        if name == self._store.settings.house_account or not display_name:
            raise BadName(f"{display_name!r} cannot be a bot's name")
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 0:
            raise BadAmount(f"bot chips must be a whole number >= 0, not {chips!r}")
        house_name = self._store.settings.house_account
        topup = self._store.settings.house_topup

        def tx(conn: sqlite3.Connection) -> Account:
            row = _account(conn, name)
            account_id = _create(conn, name, "bot") if row is None else row["id"]
            balance = 0 if row is None else row["balance"]
            house = _require(conn, house_name)
            need = chips - balance
            if need > 0 and house["balance"] < need:
                if not topup:
                    raise InsufficientChips(f"the house has {house['balance']} chips, a bot needs {need}")
                # The bankroll ran dry (bots lost a lot): new chips, granted and audited like any.
                extra = max(need - house["balance"], self._store.settings.house_chips)
                _move(conn, house["id"], extra, "grant", note="house top-up")
                log.warning("house bankroll topped up with %d chips", extra)
            if need != 0:
                _move(conn, house["id"], -need, "transfer", ref=name, note="bot_fund")
                _move(conn, account_id, need, "transfer", ref=name, note="bot_fund")
            return Account(name=name, guest=False, chips=chips)

        return await self._store.write(tx)

    async def release_bot(self, display_name: str) -> int:
        name = bot_account(display_name)
        house_name = self._store.settings.house_account

        def tx(conn: sqlite3.Connection) -> int:
            row = _account(conn, name)
            if row is None or row["kind"] != "bot" or row["balance"] == 0:
                return 0
            house = _require(conn, house_name)
            amount = int(row["balance"])
            _move(conn, row["id"], -amount, "transfer", ref=name, note="bot_release")
            _move(conn, house["id"], amount, "transfer", ref=name, note="bot_release")
            return amount

        return await self._store.write(tx)


def parse_public_key(text: str) -> tuple[str, str]:
    """``"type base64 [comment]"`` checked with asyncssh; returns (``"type base64"``, comment)."""
    import asyncssh  # the SSH transport's library; imported here only

    if not isinstance(text, str) or len(text) > 16384:
        raise BadKey("not an SSH public key")
    line = text.strip()
    parts = line.split(None, 2)
    if len(parts) < 2 or "\n" in line:
        raise BadKey("an SSH public key is one line: TYPE BASE64 [COMMENT]")
    try:
        key = asyncssh.import_public_key(line)
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise BadKey(f"not an SSH public key: {exc}") from None
    exported = key.export_public_key("openssh").decode("ascii").split()
    comment = parts[2] if len(parts) > 2 else ""
    comment = "".join(ch for ch in comment if ch.isprintable())[:100]
    return f"{exported[0]} {exported[1]}", comment


# --------------------------------------------------------------------------- ledger


class SQLiteLedger:
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    async def balance(self, name: str) -> int:
        def q(conn: sqlite3.Connection) -> int:
            return int(_require(conn, name)["balance"])

        return await self._store.read(q)

    async def grant(self, name: str, amount: int, reason: str) -> None:
        _positive(amount, "a grant")

        def tx(conn: sqlite3.Connection) -> None:
            _move(conn, _require(conn, name)["id"], amount, "grant", note=str(reason)[:200])

        await self._store.write(tx)
        log.info("granted %d chips to %s (%s)", amount, name, reason)

    async def open_round(self, round_id: str, stakes: Mapping[str, int]) -> None:
        """All or nothing: InsufficientChips (naming who is short) and nothing moves."""
        for amount in stakes.values():
            _positive(amount, "a stake")
        round_id = str(round_id)

        def tx(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM rounds WHERE round_id = ?", (round_id,)).fetchone():
                raise BadAmount(f"round {round_id} was already opened")
            rows: list[tuple[sqlite3.Row, int]] = []
            seen: set[int] = set()
            short: list[str] = []
            for name, amount in stakes.items():
                row = _require(conn, name)
                if row["id"] in seen:
                    raise BadAmount(f"{name!r} appears twice in round {round_id}")
                seen.add(row["id"])
                rows.append((row, amount))
                if row["balance"] < amount:
                    short.append(row["name"])
            if short:
                err = InsufficientChips(f"not enough chips: {', '.join(short)}")
                err.names = short  # type: ignore[attr-defined]
                raise err
            conn.execute(
                "INSERT INTO rounds (round_id, state, escrow, opened) VALUES (?, 'open', ?, ?)",
                (round_id, sum(stakes.values()), time.time()),
            )
            for i, (row, amount) in enumerate(rows):
                conn.execute(
                    "INSERT INTO stakes (round_id, account_id, amount) VALUES (?, ?, ?)",
                    (round_id, row["id"], amount),
                )
                _move(conn, row["id"], -amount, "stake", round_id=round_id)
                if i == 0:
                    _hook("open_round.after_first_stake")

        await self._store.write(tx)

    async def settle_round(self, round_id: str, payouts: Mapping[str, int]) -> bool:
        for amount in payouts.values():
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise BadAmount(f"a payout must be a whole number >= 0, not {amount!r}")
        round_id = str(round_id)

        def tx(conn: sqlite3.Connection) -> bool:
            rnd = conn.execute("SELECT * FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
            if rnd is None:
                raise UnknownRound(f"no round {round_id}")
            if rnd["state"] != "open":
                return False
            total = sum(payouts.values())
            if total != rnd["escrow"]:
                raise BadAmount(f"payouts of round {round_id} add up to {total}, the escrow holds {rnd['escrow']}")
            payers = {
                r["key"]: r["id"]
                for r in conn.execute(
                    "SELECT a.key, a.id FROM stakes s JOIN accounts a ON a.id = s.account_id WHERE s.round_id = ?",
                    (round_id,),
                )
            }
            targets: list[tuple[int, int]] = []
            for name, amount in payouts.items():
                account_id = payers.get(_names.name_key(name))
                if account_id is None:
                    account_id = _require(conn, name)["id"]
                targets.append((account_id, amount))
            first = True
            for account_id, amount in targets:
                if amount == 0:
                    continue
                _move(conn, account_id, amount, "payout", round_id=round_id)
                _retire_if_gone(conn, account_id, amount, round_id)
                if first:
                    _hook("settle_round.after_first_payout")
                    first = False
            conn.execute("UPDATE rounds SET state = 'settled', closed = ? WHERE round_id = ?", (time.time(), round_id))
            return True

        return await self._store.write(tx)

    async def transfer(self, src: str, dst: str, amount: int, reason: str, ref: str = "") -> None:
        _positive(amount, "a transfer")

        def tx(conn: sqlite3.Connection) -> None:
            a = _require(conn, src)
            b = _require(conn, dst)
            if a["id"] == b["id"]:
                raise BadAmount("a transfer needs two different accounts")
            if a["balance"] < amount:
                raise InsufficientChips(f"{a['name']} has {a['balance']} chips, not {amount}")
            _move(conn, a["id"], -amount, "transfer", ref=str(ref), note=str(reason)[:200])
            _move(conn, b["id"], amount, "transfer", ref=str(ref), note=str(reason)[:200])

        await self._store.write(tx)

    async def refund_unsettled(self) -> list[str]:
        def tx(conn: sqlite3.Connection) -> list[str]:
            ids = [r[0] for r in conn.execute("SELECT round_id FROM rounds WHERE state = 'open' ORDER BY opened")]
            for round_id in ids:
                for s in conn.execute("SELECT account_id, amount FROM stakes WHERE round_id = ?", (round_id,)).fetchall():
                    _move(conn, s["account_id"], s["amount"], "refund", round_id=round_id)
                    _retire_if_gone(conn, s["account_id"], s["amount"], round_id)
                conn.execute("UPDATE rounds SET state = 'refunded', closed = ? WHERE round_id = ?", (time.time(), round_id))
            return ids

        ids = await self._store.write(tx)
        for round_id in ids:
            log.warning("round %s never settled: its stakes went back to their payers", round_id)
        return ids

    async def refund_round(self, round_id: str) -> bool:
        """Give one open round's stakes back (a round abandoned cleanly); False if not open."""

        def tx(conn: sqlite3.Connection) -> bool:
            rnd = conn.execute("SELECT state FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
            if rnd is None:
                raise UnknownRound(f"no round {round_id}")
            if rnd["state"] != "open":
                return False
            for s in conn.execute("SELECT account_id, amount FROM stakes WHERE round_id = ?", (round_id,)).fetchall():
                _move(conn, s["account_id"], s["amount"], "refund", round_id=round_id)
                _retire_if_gone(conn, s["account_id"], s["amount"], round_id)
            conn.execute("UPDATE rounds SET state = 'refunded', closed = ? WHERE round_id = ?", (time.time(), round_id))
            return True

        return await self._store.write(tx)

    async def audit(self) -> Audit:
        return await self._store.read(audit_connection)

    async def statement(self, name: str, limit: int = 20) -> list[Entry]:
        def q(conn: sqlite3.Connection) -> list[Entry]:
            row = _require(conn, name)
            rows = conn.execute(
                "SELECT * FROM entries WHERE account_id = ? ORDER BY id DESC LIMIT ?", (row["id"], int(limit))
            ).fetchall()
            return [
                Entry(
                    id=r["id"],
                    ts=r["ts"],
                    account=row["name"],
                    delta=r["delta"],
                    kind=r["kind"],
                    round_id=r["round_id"],
                    ref=r["note"] + (":" + r["ref"] if r["ref"] else "") if r["note"] else r["ref"],
                )
                for r in rows
            ]

        return await self._store.read(q)


def audit_connection(conn: sqlite3.Connection) -> Audit:
    """Invariant 4 on the ledger, checked three ways (callers hold a read transaction).

    1. balances + open escrows == granted − retired;
    2. every balance equals the sum of its account's entries;
    3. every open round's escrow equals its stakes and its stake entries; every
       settled or refunded round's entries add up to zero.
    """
    problems: list[str] = []
    balances = conn.execute("SELECT COALESCE(SUM(balance), 0) FROM accounts").fetchone()[0]
    escrow = conn.execute("SELECT COALESCE(SUM(escrow), 0) FROM rounds WHERE state = 'open'").fetchone()[0]
    granted = conn.execute("SELECT COALESCE(SUM(delta), 0) FROM entries WHERE kind = 'grant'").fetchone()[0]
    retired = -conn.execute("SELECT COALESCE(SUM(delta), 0) FROM entries WHERE kind = 'retire'").fetchone()[0]
    if balances + escrow != granted - retired:
        problems.append(
            f"balances {balances} + escrow {escrow} = {balances + escrow}, "
            f"but granted {granted} - retired {retired} = {granted - retired}"
        )
    for r in conn.execute(
        """SELECT a.name, a.balance, COALESCE(SUM(e.delta), 0) AS total
           FROM accounts a LEFT JOIN entries e ON e.account_id = a.id
           GROUP BY a.id HAVING a.balance != total OR a.balance < 0"""
    ):
        problems.append(f"account {r['name']}: balance {r['balance']}, entries add up to {r['total']}")
    for r in conn.execute(
        """SELECT r.round_id, r.escrow,
                  (SELECT COALESCE(SUM(amount), 0) FROM stakes s WHERE s.round_id = r.round_id) AS staked,
                  (SELECT COALESCE(-SUM(delta), 0) FROM entries e
                    WHERE e.round_id = r.round_id AND e.kind = 'stake') AS debited,
                  (SELECT COALESCE(SUM(delta), 0) FROM entries e
                    WHERE e.round_id = r.round_id AND e.kind != 'retire') AS net,
                  r.state
           FROM rounds r"""
    ):
        if r["escrow"] != r["staked"] or r["staked"] != r["debited"]:
            problems.append(
                f"round {r['round_id']}: escrow {r['escrow']}, stakes {r['staked']}, debited {r['debited']}"
            )
        if r["state"] != "open" and r["net"] != 0:
            problems.append(f"round {r['round_id']} ({r['state']}): its entries add up to {r['net']}, not 0")
    retire_bad = conn.execute(
        """SELECT COUNT(*) FROM entries e JOIN accounts a ON a.id = e.account_id
           WHERE e.kind = 'retire' AND (a.kind != 'guest' OR e.delta > 0)"""
    ).fetchone()[0]
    if retire_bad:
        problems.append(f"{retire_bad} retire entries on non-guest accounts or with positive amounts")
    return Audit(
        ok=not problems,
        balances=balances,
        escrow=escrow,
        granted=granted,
        retired=retired,
        problems=tuple(problems),
    )


# --------------------------------------------------------------------------- history


def _per_seat(value: Any, seats: int) -> list[int]:
    if isinstance(value, Mapping):
        out = [0] * seats
        for k, v in value.items():
            try:
                i = int(k)
            except (TypeError, ValueError):
                continue
            if 0 <= i < seats and isinstance(v, int):
                out[i] = v
        return out
    if isinstance(value, list | tuple):
        return [int(v) if isinstance(v, int) and not isinstance(v, bool) else 0 for v in value][:seats] + [0] * max(
            0, seats - len(value)
        )
    return [0] * seats


def _presidents(result: Mapping[str, Any], seats: int) -> list[int]:
    titles = result.get("titles")
    if isinstance(titles, list | tuple):
        return [1 if i < len(titles) and titles[i] == "president" else 0 for i in range(seats)]
    return [0] * seats


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _log_hashes(actions: list[str], prefix: int) -> tuple[str, str]:
    """SHA-256 of the first ``prefix`` canonical actions, and of all of them."""
    h = hashlib.sha256()
    head = h.hexdigest() if prefix == 0 else ""
    for i, action in enumerate(actions, start=1):
        h.update(action.encode())
        h.update(b"\n")
        if i == prefix:
            head = h.hexdigest()
    return head, h.hexdigest()


def _full_log(conn: sqlite3.Connection, round_id: str) -> list[Any]:
    """A record's log: its own actions after those of its chain of bases."""
    rows = conn.execute(
        """WITH RECURSIVE chain(rid, base, start, log, depth) AS (
               SELECT round_id, log_base, log_start, log, 0 FROM history WHERE round_id = ?
               UNION ALL
               SELECT h.round_id, h.log_base, h.log_start, h.log, c.depth + 1
               FROM history h JOIN chain c ON h.round_id = c.base
           )
           SELECT start, log FROM chain ORDER BY depth DESC""",
        (round_id,),
    ).fetchall()
    actions: list[Any] = []
    for start, text in rows:
        del actions[start:]  # a base is only ever extended; never trust more than 'start' of it
        actions.extend(json.loads(text))
    return actions


def _record_from_row(conn: sqlite3.Connection, row: sqlite3.Row, with_log: bool = True) -> RoundRecord:
    if not with_log:
        actions: list[Any] = []
    elif row["log_base"] is None:
        actions = json.loads(row["log"])
    else:
        actions = _full_log(conn, row["round_id"])
    return RoundRecord(
        round_id=row["round_id"],
        game=row["game"],
        rules=row["rules"],
        seats=json.loads(row["seats"]),
        config=json.loads(row["config"]),
        log=actions,
        result=json.loads(row["result"]),
        commitment=row["commitment"],
        finished_at=row["finished_at"],
        extra=json.loads(row["extra"]),
    )


class SQLiteHistory:
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    async def record_round(self, record: RoundRecord) -> None:
        """Store a finished round (a second record with the same round id is ignored).

        Per-seat figures for the standings: ``result["scores"]`` (classic
        points, P14); chip changes from ``extra["chips"]`` or else
        ``result["chips"]`` (tdc T13); Président from ``result["titles"]``.
        """
        seats = list(record.seats)
        n = len(seats)
        points = _per_seat(record.result.get("scores"), n)
        given_chips = record.extra.get("chips", record.result.get("chips"))
        chips = _per_seat(given_chips, n)
        presidents = _presidents(record.result, n)
        if record.game == "speculation" and isinstance(record.result.get("seat"), int):
            winner = record.result["seat"]  # pool_won (S10): counted like a Président title
            presidents = [1 if i == winner else 0 for i in range(n)]
        actions = [dict(a) for a in record.log]
        canonical = [_canonical(a) for a in actions]
        config_json = json.dumps(dict(record.config), ensure_ascii=False, default=str)
        match_key = hashlib.sha256(
            _canonical([record.game, record.rules, dict(record.config), record.extra.get("room")]).encode()
        ).hexdigest()

        def tx(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM history WHERE round_id = ?", (record.round_id,)).fetchone():
                log.warning("round %s was already recorded", record.round_id)
                return
            # The match's previous record, if this log extends its log: keep only the new actions.
            base = conn.execute(
                "SELECT round_id, log_len, log_hash FROM history WHERE match_key = ? ORDER BY rowid DESC LIMIT 1",
                (match_key,),
            ).fetchone()
            start = 0
            if base is not None and 0 < base["log_len"] <= len(canonical):
                head, full = _log_hashes(canonical, base["log_len"])
                if head == base["log_hash"]:
                    start = base["log_len"]
            else:
                _, full = _log_hashes(canonical, 0)
            if start == 0:
                base = None
            conn.execute(
                """INSERT INTO history
                   (round_id, game, rules, seats, config, log, result, commitment, finished_at, extra,
                    log_base, log_start, log_len, log_hash, match_key)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    record.round_id,
                    record.game,
                    record.rules,
                    json.dumps(seats, ensure_ascii=False),
                    config_json,
                    json.dumps(actions[start:], ensure_ascii=False, default=str),
                    json.dumps(dict(record.result), ensure_ascii=False, default=str),
                    record.commitment,
                    record.finished_at or time.time(),
                    json.dumps(dict(record.extra), ensure_ascii=False, default=str),
                    None if base is None else base["round_id"],
                    start,
                    len(canonical),
                    full,
                    match_key,
                ),
            )
            for seat, name in enumerate(seats):
                row = _account(conn, name) if name else None
                registered = 1 if row is not None and row["kind"] == "player" else 0
                if given_chips is None and row is not None:
                    # No per-seat figures given (Speculation deals): the ledger knows the
                    # seat's net change in this round: stakes, payouts, and transfers with
                    # this round as their reference (S3, S7, S9).
                    chips[seat] = conn.execute(
                        """SELECT COALESCE(SUM(delta), 0) FROM entries
                           WHERE account_id = ? AND kind != 'retire'
                             AND (round_id = ? OR (kind = 'transfer' AND ref = ?))""",
                        (row["id"], record.round_id, record.round_id),
                    ).fetchone()[0]
                conn.execute(
                    """INSERT INTO history_seats (round_id, seat, name, key, registered, points, chips, president)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        record.round_id,
                        seat,
                        name or "",
                        _names.name_key(name or ""),
                        registered,
                        points[seat],
                        chips[seat],
                        presidents[seat],
                    ),
                )

        await self._store.write(tx)

    async def recent(self, name: str, limit: int = 10, *, with_log: bool = True) -> list[RoundRecord]:
        """The player's latest rounds, newest first (``with_log=False``: summaries, an empty log)."""

        def q(conn: sqlite3.Connection) -> list[RoundRecord]:
            rows = conn.execute(
                """SELECT h.* FROM history h
                   WHERE h.round_id IN (SELECT round_id FROM history_seats WHERE key = ?)
                   ORDER BY h.finished_at DESC, h.rowid DESC LIMIT ?""",
                (_names.name_key(name), int(limit)),
            ).fetchall()
            return [_record_from_row(conn, r, with_log) for r in rows]

        return await self._store.read(q)

    async def get(self, round_id: str) -> RoundRecord | None:
        def q(conn: sqlite3.Connection) -> RoundRecord | None:
            row = conn.execute("SELECT * FROM history WHERE round_id = ?", (round_id,)).fetchone()
            return None if row is None else _record_from_row(conn, row)

        return await self._store.read(q)

    async def standings(
        self, game: str, rules: str, limit: int = 10, include_guests: bool = False
    ) -> list[dict[str, Any]]:
        """The leaderboard: classic by points (P14), tdc and speculation by chips won.

        Each row: ``rank, name, rounds, points, chips, president`` (rounds as Président).
        Registered players only unless ``include_guests`` (guest names are reused by strangers).
        """
        order = "points" if rules == "classic" else "chips"

        def q(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            rows = conn.execute(
                f"""SELECT s.key, MAX(s.name) AS name, COUNT(*) AS rounds, SUM(s.points) AS points,
                           SUM(s.chips) AS chips, SUM(s.president) AS president
                    FROM history_seats s JOIN history h ON h.round_id = s.round_id
                    WHERE h.game = ? AND h.rules = ? AND (s.registered = 1 OR ?)
                    GROUP BY s.key
                    ORDER BY {order} DESC, president DESC, rounds ASC, s.key ASC
                    LIMIT ?""",
                (game, rules, 1 if include_guests else 0, int(limit)),
            ).fetchall()
            out: list[dict[str, Any]] = []
            for r in rows:
                account = _account(conn, r["key"]) if r["key"] else None
                out.append(
                    {
                        "rank": len(out) + 1,
                        "name": account["name"] if account is not None else r["name"],
                        "rounds": r["rounds"],
                        "points": r["points"],
                        "chips": r["chips"],
                        "president": r["president"],
                    }
                )
            return out

        return await self._store.read(q)


async def open_sqlite(
    path: str | os.PathLike[str],
    settings: StoreSettings | None = None,
    *,
    recover: bool = True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> SQLiteStore:
    store = SQLiteStore(db_path(path), settings, sleep=sleep)
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
    "SQLiteStore",
    "StoreSettings",
    "audit_connection",
    "db_path",
    "open_sqlite",
    "parse_public_key",
]


def _conforms(store: SQLiteStore) -> None:
    """mypy proves here that the SQLite classes implement the Protocols of api.py."""
    a: Accounts = store.accounts
    b: Ledger = store.ledger
    c: History = store.history
    d: Store = store
    del a, b, c, d
