"""What a table asks for, done: its effects performed, its log written, its items handed out.

:class:`Effects` is the asyncio side of one :class:`~server.table.Table` (which is
sans-I/O). Given the table's :class:`~server.table.Outputs`, :meth:`Effects.drain`
writes the step's log entries (a durable table, :class:`~server.table.durable.Journal`)
with the chip movement the table waits for, in one ``store.apply``; performs every
other effect (a pause, a seat claim, a balance, a search bot's thinking, a history
record); hands each result back to the table (:meth:`~server.table.Table.resume`)
until it waits for nothing; and hands its items out in order to its
:class:`Readers` (messages, who is in the room, the end of the table), ending
the seat claims the table gives up itself.

The room (``server.rooms.room``) drives it with the server's store, seat claims and
thinking processes and the monotonic clock; the table's tests drive the same
object with an in-memory store and a fake clock (``tests/server/table/harness.py``).

The table's clock (:meth:`Effects.now`) is the given clock less the time spent
waiting out an outage of the store or for the table's lease (:attr:`Effects.lag`),
so no deadline runs out meanwhile.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from engine.api import Action, View
from engine.bots import Bot
from server.protocol import CommandError, JSONValue
from server.rooms.claims import SeatClaims
from server.storage import api
from server.storage.ratings import rated_round
from server.table import (
    CHIP_OPS,
    Balance,
    ChipOp,
    Claim,
    Closed,
    Effect,
    Gone,
    Outputs,
    Pause,
    Placed,
    Record,
    Refused,
    Released,
    Reply,
    Send,
    Table,
    Think,
    durable,
)
from server.table.io import Item

T = TypeVar("T")


class Stale(Exception):
    """This process no longer surely owns the table (its lease, or the database's fence, says so):
    the room stops where it is, before acting, and says nothing but where the table went."""


class Jammed(Exception):
    """The table's log cannot be written, alone, for a reason that is no outage: the table ends."""


class Thinking(Protocol):
    """Where a search bot decides (:class:`server.rooms.thinking.Thinkers`)."""

    async def decide(self, bot: Bot, view: View, legal: Sequence[Action]) -> Action | None: ...


class Owner(Protocol):
    """What the effects need of the process that runs the table (the lobby that opened its room)."""

    @property
    def store(self) -> api.Store: ...
    @property
    def seats(self) -> SeatClaims: ...
    @property
    def thinkers(self) -> Thinking: ...

    async def outage(self, exc: BaseException) -> bool:
        """A store operation failed with ``exc``: True when it is an outage of the store and it is
        over now (the operation is tried again), False to hand the failure to the table."""
        ...

    def acting(self, rid: str) -> bool:
        """This process surely owns the table now (a cluster: its lease, by its monotonic clock)."""
        ...

    def lost(self, rid: str) -> bool:
        """This process knows it no longer holds the table (a cluster: its lease given up)."""
        ...

    def fence(self, rid: str) -> api.Fence | None:
        """The fencing token the table's writes carry (a cluster's PostgreSQL checks it)."""
        ...


class Readers(Protocol):
    """Where a table's items go, in order (the room's sessions and lobby; a test's inboxes)."""

    def send(self, item: Send) -> None:
        """A message (an event, states) for its recipients."""
        ...

    async def answer(self, item: Send) -> None:
        """A command's reply or refusal (``item.msg``: a :class:`Reply` or :class:`Refused`)."""
        ...

    def placed(self, item: Placed) -> None: ...

    async def gone(self, item: Gone) -> None: ...

    def released(self, item: Released) -> None:
        """The account's seat claim at this table ended (:class:`Effects` has released it)."""
        ...

    def ended(self, item: Closed) -> None:
        """The table closed (after the members gone before it, before those it sends away)."""
        ...


class Effects:
    """The effects of one table performed, its log written, its items handed out (see the module)."""

    def __init__(self, table: Table, owner: Owner, clock: Callable[[], float], *, seq: int = 0,
                 facts: dict[str, JSONValue] | None = None) -> None:
        self.table = table
        self.owner = owner
        self.id = table.id
        self.clock = clock
        self.lag = 0.0  # seconds spent waiting out an outage or for the lease: the table's clock skips them
        self.stopping = False  # the room is being stopped: a durable table waiting for its lease stops
        # durable: the entries not written yet; ``opened``: TableOpened is stored
        self.journal = durable.Journal(table, seq) if table.journal is not None else None
        if self.journal is not None and facts is not None:
            self.journal.last_facts = dict(facts)  # what the log says now
        self.opened = bool(seq) or table.journal is None
        self.closed_written = False
        self.recorded: Callable[[api.RoundRecord], None] | None = None  # told each record once it is stored

    def now(self) -> float:
        """The table's clock: the given clock, less the time waited out."""
        return self.clock() - self.lag

    async def drain(self, out: Outputs, readers: Readers) -> None:
        """Hand out what the table produced; perform its effects and hand it their results.

        Durable: before any message leaves, the step's log entries are written — with the chip
        movement the table waits for, in one ``store.apply``; when that is refused, nothing of it
        is written and the messages wait for the next write."""
        held: list[Item] = []
        while True:
            held.extend(out.items)
            effect = out.effect
            op = effect if isinstance(effect, CHIP_OPS) else None  # the store's own operation
            error: Exception | None = None
            result: object = None
            if op is not None or held or effect is None:
                try:
                    result = await self._write(op, held)
                except (asyncio.CancelledError, Stale, Jammed):
                    raise
                except Exception as exc:
                    error = exc  # the chip movement was refused: nothing was written
                if error is None:
                    await self.own()  # nothing leaves a process that may no longer own the table
                    await self._hand_out(held, readers)
                    held = []
            if effect is None:
                return
            if op is None:
                try:
                    result = await self.through(functools.partial(self._perform, effect))
                except (asyncio.CancelledError, Stale):
                    raise
                except Exception as exc:
                    error = exc
            await self.own()  # (a bot's thinking, a write: the process may have been paused meanwhile)
            if error is not None:
                out = self.table.resume(self.now(), error=error)
            else:
                out = self.table.resume(self.now(), result)

    async def own(self) -> None:
        """Return when this process surely owns the table (a cluster: its lease, by its own monotonic
        clock, however long it was paused). Until then it acts on nothing: it waits for the verdict
        of its lease's renewal. A durable table whose lease is lost raises :class:`Stale` (another
        process may have taken it over from its log), as one being stopped meanwhile; any other
        waits for its lease (nobody takes it over), or for its stop."""
        owner = self.owner
        if owner.acting(self.id):
            return
        started = self.clock()
        try:
            while not owner.acting(self.id):
                if self.journal is not None and (self.stopping or owner.lost(self.id)):
                    raise Stale(self.id)
                if self.journal is None and self.stopping:
                    return
                await asyncio.sleep(0.02)
        finally:
            self.lag += self.clock() - started

    async def through(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """``attempt()`` (one whole ``store.apply``, all or nothing, or a read), tried again after an
        outage of the store (:meth:`Owner.outage`); the time waiting is not the table's. A refusal
        by the database's fence (another process took the table over) raises :class:`Stale`."""
        while True:
            await self.own()  # each try: after an outage, the table may be another process's now
            try:
                return await attempt()
            except (asyncio.CancelledError, CommandError):
                raise
            except api.StaleOwner as exc:
                fence = self.owner.fence(self.id)
                if fence is not None and fence.epoch == exc.current and self.owner.acting(self.id):
                    continue  # this process took its own lease again meanwhile (Redis lost it): a new token
                raise Stale(self.id) from exc
            except Exception as exc:
                started = self.clock()
                again = await self.owner.outage(exc)
                self.lag += self.clock() - started
                if not again:
                    raise

    async def apply(self, ops: list[api.Op]) -> list[api.OpResult]:
        """``store.apply(ops)`` with the table's fencing token first (a cluster's), its results."""
        fence = self.owner.fence(self.id)
        if fence is None:
            return list(await self.owner.store.apply(ops))
        return list(await self.owner.store.apply([fence, *ops]))[1:]

    async def _write(self, op: ChipOp | None, held: list[Item]) -> api.OpResult:
        """One transaction: this step's log entries (durable), then ``op`` (a chip movement, or None);
        the table's end when it closed. ``op``'s result. A refused ``op`` raises and nothing is written;
        a log that cannot be written without one is logged and the messages go out anyway."""
        ops: list[api.Op] = []
        journal = self.journal
        entries = journal.take() if journal is not None else []
        closed: str | None = None
        if journal is not None:
            closed = next((i.reason for i in held if isinstance(i, Closed)), None)
            if not self.opened and (entries or op is not None or closed is not None):
                ops.append(api.TableOpened(self.id, durable.table_config(self.table)))
            if entries:
                ops.append(api.TableLog(self.id, journal.seq, entries))
        if op is not None:
            ops.append(op)
        if journal is not None and closed is not None and not self.closed_written:
            ops.append(api.TableClosed(self.id, "over", closed))
        if not ops:
            return None
        # a step that moves no chip: written ahead when the store can (a crash loses none of it), not waited for
        if journal is not None and len(ops) == 1 and entries and self.opened and isinstance(ops[0], api.TableLog) \
                and self.owner.store.log_ahead(ops[0]) is not None:
            journal.written()
            return None
        try:
            results = await self.through(functools.partial(self.apply, ops))
        except Stale:
            if journal is not None and entries:
                journal.not_written()
            raise
        except Exception as exc:
            if journal is not None and entries:
                journal.not_written()
            if journal is not None and (entries or closed is not None or not self.opened):
                await self._log_alone(exc, op)
            if op is not None:
                raise
            return None
        if journal is not None:
            self.opened = True
            if entries:
                journal.written()
            if closed is not None:
                self.closed_written = True
        return results[ops.index(op)] if op is not None else None

    async def _log_alone(self, exc: Exception, op: ChipOp | None) -> None:
        """A write with log entries was refused: the log alone, to tell a refused chip movement (the
        table hears of it) from a log that cannot be written (:class:`Jammed`: the table ends)."""
        if op is None:
            raise Jammed(f"{type(exc).__name__}: {exc}")
        await self._write(None, [])  # raises Jammed (or Stale) when the log alone is refused too

    async def _perform(self, effect: Effect) -> object:
        """An effect the table waits for that is no chip movement: a pause, a seat claim, a balance,
        a bot's thinking, a history record."""
        owner = self.owner
        if isinstance(effect, Pause):
            await asyncio.sleep(0)
            return None
        if isinstance(effect, Claim):
            return owner.seats.claim(effect.account, effect.table)
        if isinstance(effect, Balance):
            return await owner.store.ledger.available(effect.account)
        if isinstance(effect, Think):  # a search bot: in the server's thinking processes, off the loop's GIL
            return await owner.thinkers.decide(effect.bot, effect.view, effect.legal)
        if isinstance(effect, Record):
            record, rated = self._rated(effect.record)
            fence = owner.fence(self.id)
            if fence is not None:
                await owner.store.history.record_round(record, rated=rated, fence=fence)
            else:
                await owner.store.history.record_round(record, rated=rated)
            if self.recorded is not None:
                self.recorded(record)
            return None
        raise TypeError(f"unknown effect {effect!r}")

    def _rated(self, record: api.RoundRecord) -> tuple[api.RoundRecord, api.RatedRound | None]:
        """The record as stored (its time; whether the table is rated, which seats a bot played) and
        what the ratings learn from it (``server.storage.ratings``; None: nothing)."""
        table = self.table
        bots = [s.index for s in table.seats
                if s.bot is not None and (s.account is None or s.account.startswith(api.BOT_PREFIX))]
        record = dataclasses.replace(record, finished_at=time.time(),
                                     extra={**record.extra, "rated": bool(table.opts.extra.get("rated")),
                                            "bots": bots})
        return record, rated_round(record, table.adapter)

    async def _hand_out(self, items: list[Item], readers: Readers) -> None:
        """The table's items in order: messages, who is in the room, seat claims, closing."""
        for item in items:
            if isinstance(item, Send):
                if isinstance(item.msg, Reply | Refused):
                    await readers.answer(item)
                else:
                    readers.send(item)
            elif isinstance(item, Placed):
                readers.placed(item)
            elif isinstance(item, Gone):
                await readers.gone(item)
            elif isinstance(item, Released):
                self.owner.seats.release(item.account, self.id)
                readers.released(item)
            elif isinstance(item, Closed):
                readers.ended(item)
