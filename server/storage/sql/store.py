"""The store both SQL backends share: the database thread, ``apply``, recovery, the ledger facade."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import TypeVar

from server.operations import metrics
from server.protocol import JSONValue
from server.storage import names as _names
from server.storage import passwords as _pw
from server.storage.api import (
    OP_TYPES,
    Accounts,
    Audit,
    AuditSummary,
    BadAmount,
    BadName,
    Entry,
    Fence,
    History,
    Ledger,
    Moderation,
    Op,
    OpenRound,
    OpResult,
    Ratings,
    RefundRound,
    SettleRound,
    Social,
    StorageError,
    Store,
    TableClosed,
    TableLog,
    TableOpened,
    Tables,
    Tournaments,
    Transfer,
    first_result,
    table_bots,
)
from server.storage.settings import StoreSettings
from server.storage.sql import ahead as _ahead
from server.storage.sql import audit as _audit
from server.storage.sql import ledger as _ledger
from server.storage.sql import tables as _tables
from server.storage.sql import tournaments as _tournaments
from server.storage.sql.accounts import (
    SQLAccounts,
    available,
    create,
    find,
    logout_guest,
    move,
    require,
    retire_gone,
)
from server.storage.sql.history import SQLHistory
from server.storage.sql.moderation import SQLModeration
from server.storage.sql.ratings import SQLRatings
from server.storage.sql.social import SQLSocial
from server.storage.sql.tables import SQLTables
from server.storage.sql.thread import Backend, DatabaseThread, Grouped, Job
from server.storage.sql.tournaments import SQLTournaments
from server.storage.sql.tx import Tx
from server.storage.sql.values import integer, number, text, text_or_none

log = logging.getLogger("donne.storage")

T = TypeVar("T")

RELAXED_OPS = (TableOpened, TableLog, TableClosed, Fence)
"""Operations that move no chip: a write of only these need not reach the disk before it returns."""


class SQLStore:
    """A :class:`server.storage.api.Store` on a SQL database (see the backends' packages)."""

    backend: Backend

    def __init__(
        self,
        backend: Backend,
        settings: StoreSettings | None = None,
        *,
        name: str = "donne-db",
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.backend = backend
        self.settings = settings or StoreSettings()
        self.sleep = sleep  # replaced by tests to record the back-off without waiting
        self.clock = clock  # timestamps, and the registration window (tests: a fake clock)
        self.backoff = _pw.Backoff(
            base=self.settings.backoff_base,
            maximum=self.settings.backoff_max,
            window=self.settings.backoff_window,
        )
        self._thread = DatabaseThread(name, backend, retire_gone)  # chips reaching a guest gone: retired
        self.progress = lambda: self._thread.done
        """How many jobs the database finished so far: a busy database goes on answering; a hung
        one does not (a cluster node tells them apart so)."""
        self._closed = False
        self._buffers: dict[asyncio.AbstractEventLoop, list[Job]] = {}
        self._ahead: _ahead.AheadLog | None = None  # tables' steps written ahead (SQLite, one server)
        self.accounts = SQLAccounts(self)
        self.ledger = SQLLedger(self)
        self.history = SQLHistory(self)
        self.tables = SQLTables(self)
        self.social = SQLSocial(self)
        self.ratings = SQLRatings(self)
        self.moderation = SQLModeration(self, self.accounts)
        self.tournaments = SQLTournaments(self)

    # -- plumbing
    def _submit(self, kind: str, fn: Callable[..., T], group: tuple[Grouped, object] | None = None) -> asyncio.Future[T]:
        """Queue a job; the jobs of one event-loop turn reach the thread together (group commit)."""
        if self._closed and kind != "call":
            raise StorageError("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        buffer = self._buffers.get(loop)
        if buffer is None:
            buffer = self._buffers[loop] = []
            loop.call_soon(self._flush, loop)
        buffer.append(Job(kind, fn, loop, future, group=group))
        return future

    def _submit_quiet(self, kind: str, fn: Callable[..., object], group: tuple[Grouped, object] | None = None) -> None:
        """Queue a job nobody waits for, in order with the others (a failure is logged)."""
        loop = asyncio.get_running_loop()
        buffer = self._buffers.get(loop)
        if buffer is None:
            buffer = self._buffers[loop] = []
            loop.call_soon(self._flush, loop)
        buffer.append(Job(kind, fn, loop, None, group=group))

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        jobs = self._buffers.pop(loop, None)
        if jobs:
            self._thread.submit(jobs)

    async def run_write(self, fn: Callable[[Tx], T], *, relaxed: bool = False,
                        group: tuple[Grouped, object] | None = None) -> T:
        """Run ``fn(tx)`` atomically in the database thread; durable when it returns.

        Writes waiting together share one transaction and one fsync (group
        commit), each inside its own savepoint: a write that raises is undone
        alone, and no caller hears of success before the COMMIT returned.
        ``relaxed``: atomic and ordered, but without waiting for its own fsync
        (guest sessions opening and closing; any later durable write syncs it).
        ``group``: how to do this write together with others like it, and its part
        (:data:`~server.storage.sql.thread.Grouped`; the result must be ``fn``'s)."""
        result: T = await self._submit("relaxed" if relaxed else "write", fn, group)
        return result

    async def run_read(self, fn: Callable[[Tx], T]) -> T:
        """Run ``fn(tx)`` in one read transaction (a consistent snapshot)."""
        result: T = await self._submit("read", fn)
        return result

    async def write(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(connection, *args)`` as a write (the backend's own connection; tests, tools)."""
        return await self.run_write(lambda tx: fn(tx.conn, *args))

    async def read(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(connection, *args)`` in one read transaction."""
        return await self.run_read(lambda tx: fn(tx.conn, *args))

    async def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn()`` in the database thread, outside any transaction."""
        result: T = await self._submit("call", fn)
        return result

    # -- the one atomic operation API
    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        """Perform ``ops`` in ONE transaction, all or nothing; one result per operation, in order.

        Results: :class:`~server.storage.api.RoundOpened` (OpenRound), bool
        (SettleRound, RefundRound, ReleaseHold, TableClosed: done now), None
        (Transfer, Hold, TableOpened), :class:`~server.storage.api.Account`
        (FundBot), int (ReleaseBot: chips returned; TableLog: the next sequence
        number). A refusal raises its :class:`~server.storage.api.StorageError`
        and nothing changed. Calls made together (one event-loop turn, or while
        the thread is busy) share one commit, each in its own savepoint."""
        ops = list(ops)
        for op in ops:
            if not isinstance(op, OP_TYPES):
                raise BadAmount(f"not a storage operation: {op!r}")
            _ledger.check(op)
            _tables.check(op)
            _tournaments.check(op)
        if not ops:
            return []
        # a table's log alone moves no chip: atomic and in order, but it waits for no fsync of its own
        # (the next chip movement's commit syncs it; a crash of the server loses nothing, a power cut at
        # most a table's last moves: docs/restart.md)
        # (a takeover's raised fence is durable: the new owner's writes are compared with it)
        relaxed = all(isinstance(op, RELAXED_OPS) and not (isinstance(op, Fence) and op.take) for op in ops)
        # a step's log alone (most of a table's writes) is written with the other tables' of the moment
        group: tuple[Grouped, object] | None = (_tables.table_logs, ops[0]) if len(ops) == 1 and isinstance(ops[0], TableLog) else None
        if len(ops) == 2 and isinstance(ops[0], Fence) and not ops[0].take and isinstance(ops[1], TableLog) and \
                ops[0].table_id == ops[1].table_id:  # a cluster owner's step: fenced, with the others of the moment
            group = (_tables.fenced_logs, (ops[0], ops[1]))
        started = time.perf_counter()
        try:
            return await self.run_write(functools.partial(_ledger.run, ops=ops), relaxed=relaxed, group=group)
        finally:
            metrics.ledger_commit(time.perf_counter() - started)

    def log_ahead(self, op: TableLog) -> int | None:
        """A table's step that moves no chip, written ahead of the database (:mod:`server.storage.sql.ahead`):
        when this returns, a crash of the server loses none of it, and the database has it soon
        after, in order with every write asked before and after. Its result, as ``apply([op])``'s
        (the next sequence number); None when nothing is written ahead here (PostgreSQL, a store beside
        a running server, ``write_ahead`` off, an id or an entry that does not fit): then ``apply``."""
        ahead = self._ahead
        if ahead is None or self._closed or not op.entries or not _ahead.fits(op.table_id):
            return None
        try:
            _tables.check(op)
            step = _tables.step_of(op)
        except StorageError:
            return None  # apply refuses it, and says why
        try:
            full = ahead.append(*step)
        except UnicodeEncodeError:  # a lone surrogate in an entry: nothing written; apply says what it is
            return None
        except OSError as exc:
            log.error("the ahead log could not be written (%s): tables wait for their commits from now on", exc)
            self._ahead = None
            return None
        self._submit_quiet("relaxed", functools.partial(_tables.table_step, step=step), (_tables.table_steps, step))
        if full is not None:  # removed once every row before it is committed (the thread keeps the order)
            self._submit_quiet("call", functools.partial(_ahead.remove, [full]))
        return step[1] + step[2]

    # -- opening, recovery, closing
    async def _open(self) -> None:
        self._thread.start()
        await self.call(self.backend.open)
        await self._replay_ahead()
        await self.run_write(self._ensure_house)
        await self.run_write(_refresh_skeletons)
        await self.accounts.load_registered()

    def _ensure_house(self, tx: Tx) -> None:
        name = self.settings.house_account
        if not _names.is_system_name(name):
            raise BadName(f"the house account {name!r} must contain ':'")
        if find(tx, name) is None:
            account_id = create(tx, name, "house")
            if self.settings.house_chips > 0:
                move(tx, account_id, self.settings.house_chips, "grant", note="house bankroll")
            log.info("house account %s created with %d chips", name, self.settings.house_chips)

    async def recover(self, *, keep_tables: bool = False, keep_accounts: Collection[str] = ()) -> dict[str, JSONValue]:
        """At start: void unsettled rounds, release holds, retire guests left over, bring bots' chips home.

        ``keep_tables``: what belongs to an unfinished table stays as it is, since the table
        resumes (``docs/restart.md``): its unsettled rounds (escrow stays escrow), their holds
        (open offers), its bots' chips (:func:`~server.storage.api.table_bots`), and the guests
        named in ``keep_accounts`` (people seated there) or staked or holding in those rounds."""
        keep_keys = {_names.name_key(a) for a in keep_accounts}

        def work(tx: Tx) -> tuple[list[str], int, int, int]:
            tables = _ledger.open_tables(tx) if keep_tables else set()
            kept = _ledger.kept_rounds(tx, tables)
            refunded = _ledger.refund_unsettled(tx, kept)
            holds = _ledger.release_all_holds(tx, kept)
            busy = set()
            for round_id in kept:
                busy |= {integer(r[0]) for r in tx.rows("SELECT account_id FROM stakes WHERE round_id = ?", (round_id,))}
                busy |= {integer(r[0]) for r in tx.rows("SELECT account_id FROM holds WHERE round_id = ?", (round_id,))}
                busy |= {integer(r[0]) for r in tx.rows("SELECT account_id FROM round_flows WHERE round_id = ?",
                                                    (round_id,))}
            guests = [row for row in tx.all("SELECT * FROM accounts WHERE live = 1 AND kind = 'guest'")
                      if row["key"] not in keep_keys and integer(row["id"]) not in busy]
            for row in guests:
                logout_guest(tx, row)
            house = require(tx, self.settings.house_account)
            prefixes = tuple(table_bots(t) for t in tables)
            bots = [row for row in tx.all("SELECT * FROM accounts WHERE live = 1 AND kind = 'bot' AND balance > 0")
                    if not (prefixes and str(row["name"]).startswith(prefixes))]
            for row in bots:
                amount = integer(row["balance"])
                move(tx, integer(row["id"]), -amount, "transfer", ref=text(row["name"]), note="bot_release")
                move(tx, integer(house["id"]), amount, "transfer", ref=text(row["name"]), note="bot_release")
            return refunded, len(guests), len(bots), holds

        refunded, guests, bots, holds = await self.run_write(work)
        for round_id in refunded:
            log.warning("round %s never settled: its stakes went back to their payers", round_id)
        if refunded or guests or bots or holds:
            log.warning(
                "recovery: voided %d unsettled round(s) %s, released %d hold(s), retired %d guest(s), "
                "released %d bot(s)",
                len(refunded),
                refunded,
                holds,
                guests,
                bots,
            )
        return {"refunded": refunded, "guests": guests, "bots": bots, "holds": holds}

    async def _replay_ahead(self) -> None:
        """The steps a crash left written ahead and not committed, put into the database; then, when
        this store writes ahead, its own file begun (SQLite's store overrides it; nothing elsewhere)."""

    async def close(self) -> None:
        """Finish the queued work, close the connection and stop the thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        ahead, self._ahead = self._ahead, None
        try:
            if self._thread.is_alive():
                if ahead is not None:  # everything before this call is committed: nothing is ahead any more
                    await self.call(functools.partial(_ahead.remove, ahead.close()))
                await self.call(self.backend.close)
        finally:
            await asyncio.to_thread(self._thread.stop)


class SQLLedger:
    """The :class:`~server.storage.api.Ledger` of a SQL store (movements are ``apply`` operations)."""

    def __init__(self, store: SQLStore) -> None:
        self._store = store

    async def balance(self, name: str) -> int:
        def q(tx: Tx) -> int:
            return integer(require(tx, name)["balance"])

        return await self._store.run_read(q)

    async def available(self, name: str) -> int:
        def q(tx: Tx) -> int:
            row = require(tx, name)
            return available(tx, integer(row["id"]), integer(row["balance"]))

        return await self._store.run_read(q)

    async def grant(self, name: str, amount: int, reason: str) -> None:
        _ledger.positive(amount, "a grant")
        await self._store.run_write(functools.partial(_ledger.grant, name=name, amount=amount, reason=reason))
        log.info("granted %d chips to %s (%s)", amount, name, reason)

    async def open_round(self, round_id: str, stakes: Mapping[str, int]) -> None:
        """All or nothing: InsufficientChips (naming who is short) and nothing moves."""
        await self._store.apply([OpenRound(str(round_id), stakes)])

    async def settle_round(self, round_id: str, payouts: Mapping[str, int]) -> bool:
        return first_result(await self._store.apply([SettleRound(str(round_id), payouts)]), bool)

    async def transfer(self, src: str, dst: str, amount: int, reason: str, ref: str = "") -> None:
        await self._store.apply([Transfer(src, dst, amount, reason, ref=ref)])

    async def refund_round(self, round_id: str) -> bool:
        """Void one open round: stakes back, its transfers reversed; False if not open."""
        return first_result(await self._store.apply([RefundRound(str(round_id))]), bool)

    async def refund_unsettled(self) -> list[str]:
        ids = await self._store.run_write(_ledger.refund_unsettled)
        for round_id in ids:
            log.warning("round %s never settled: its stakes went back to their payers", round_id)
        return ids

    async def audit(self) -> Audit:
        return await self._store.run_read(_audit.audit)

    async def audit_summary(self) -> AuditSummary:
        return await self._store.run_read(_audit.summary)

    async def statement(self, name: str, limit: int = 20) -> list[Entry]:
        def q(tx: Tx) -> list[Entry]:
            row = require(tx, name)
            rows = tx.all("SELECT * FROM entries WHERE account_id = ? ORDER BY id DESC LIMIT ?", (row["id"], int(limit)))
            return [
                Entry(
                    id=integer(r["id"]),
                    ts=float(number(r["ts"])),
                    account=text(row["name"]),
                    delta=integer(r["delta"]),
                    kind=text(r["kind"]),
                    round_id=text_or_none(r["round_id"]),
                    ref=_ref(text(r["note"]), text(r["ref"])),
                )
                for r in rows
            ]

        return await self._store.run_read(q)


def _ref(note: str, ref: str) -> str:
    """An entry's reference as the ledger shows it: ``note:ref``, the note alone, or the ref."""
    return note + (":" + ref if ref else "") if note else ref


def _conforms(store: SQLStore) -> None:
    """mypy proves here that the SQL classes implement the Protocols of api.py."""
    a: Accounts = store.accounts
    b: Ledger = store.ledger
    c: History = store.history
    d: Tables = store.tables
    e: Store = store
    f: Social = store.social
    g: Ratings = store.ratings
    h: Moderation = store.moderation
    i: Tournaments = store.tournaments
    del a, b, c, d, e, f, g, h, i


def _refresh_skeletons(tx: Tx) -> int:
    """Live accounts' skeletons computed again when they were stored by another
    :data:`~server.storage.names.SKELETON_VERSION` (its number kept in ``counters``). How many changed."""
    row = tx.one("SELECT value FROM counters WHERE name = 'skeleton'")
    if row is not None and integer(row[0]) == _names.SKELETON_VERSION:
        return 0
    changed = 0
    for account in tx.rows("SELECT id, name, skeleton FROM accounts WHERE live = 1"):
        skel = _names.skeleton(text(account[1]))
        if skel != account[2]:
            tx.execute("UPDATE accounts SET skeleton = ? WHERE id = ?", (skel, account[0]))
            changed += 1
    tx.execute("""INSERT INTO counters (name, value) VALUES ('skeleton', ?)
                  ON CONFLICT (name) DO UPDATE SET value = excluded.value""", (_names.SKELETON_VERSION,))
    if changed:
        log.info("names: %d account skeleton(s) computed again (version %d)", changed, _names.SKELETON_VERSION)
    return changed
