"""One event's asyncio shell: one task owning its director, as a room owns its table.

The task takes inputs in order (commands: a join, a leave, a stop; the tables the event opened:
a result, an abort, people who never sat down), hands each to the director with the time, sleeps
until the director's ``wake`` and then calls ``tick``. A call runs in a worker thread
(``asyncio.to_thread``): a Swiss round of a large event takes a few hundred milliseconds to
pair, and the event loop stays free meanwhile. The director is touched by this task only; what
others read of it between two calls (standings, the summary, the tables under way) is read on
the loop while no call runs, and otherwise the last copy read.

**Journal first.** A call's journal entries (those of the inputs queued together: one call, one
write) are written (:meth:`EventHost.write`: one
``store.apply``, where a cluster owner would put its fence first) before any of its effects is
performed or announced, so a restart finds every decision ever announced. A write that fails
stops the event where it is: what was written is its truth, and the next start rebuilds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from server.rooms.inbox import Inbox
from server.storage.api import Op, OpResult
from server.storage.api_tournaments import TournamentClosed, TournamentLog
from server.tournaments import (
    Director,
    Effect,
    Ended,
    Entry,
    Input,
    OpenTable,
    Outputs,
    Standings,
    TournamentError,
)

log = logging.getLogger(__name__)

BATCH = 64
"""Inputs queued together handed to the director in one call of the worker thread and written in one
journal write (a busy arena's results arrive faster than one write each)."""


class EventHost(Protocol):
    """What an event's shell needs of the lobby's hall: its writes, and its effects performed."""

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
        """The event's store writes, one transaction (the one place a cluster owner's fence goes)."""
        ...

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        """Do or announce ``effect`` (its journal is written)."""
        ...

    def finished(self, shell: EventShell) -> None:
        """The event is over (its final standings written) or stopped for good."""
        ...


@dataclass(slots=True)
class _Item:
    input: Input
    future: asyncio.Future[Outputs] | None = None


@dataclass(frozen=True, slots=True)
class Seen:
    """What others read of the director, as of the end of its last call."""

    standings: Standings
    summary: dict[str, object]
    top: tuple[OpenTable, ...]


class EventShell:
    """One event's director, its queue and its task (see the module)."""

    def __init__(self, director: Director, host: EventHost, clock: Callable[[], float], *, seq: int = 0,
                 organiser: str = "") -> None:
        self.director = director
        self.host = host
        self.clock = clock  # wall-clock seconds (the journal's times keep their meaning across restarts)
        self.id = director.config.id
        self.organiser = organiser
        self.seq = seq  # the journal's next entry number in the store
        self.jammed = False  # a write failed: the event stopped where it is
        self.failure: BaseException | None = None  # what that write raised
        self._inbox: Inbox[_Item] = Inbox()
        self._task: asyncio.Task[None] | None = None
        self._busy = False  # a call of the director runs in a worker thread
        self._between = asyncio.Event()  # set while no step runs (a shutdown waits for the step's end)
        self._between.set()
        self._stopping = False
        self._seen = self._look()

    # -- the public face ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.director.over

    def seen(self) -> Seen:
        """The director's standings, summary and tables under way: read now when no call runs, else
        as the last call left them."""
        if not self._busy:
            self._seen = self._look()
        return self._seen

    def _look(self) -> Seen:
        d = self.director
        return Seen(d.standings(), d.summary(), tuple(d.top_tables()))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"tournament-{self.id}")

    async def ask(self, inp: Input) -> Outputs:
        """Queue ``inp`` and wait until it is handled, written and its effects performed (raises
        :class:`TournamentError` when refused: nothing changed)."""
        if self.ended:
            raise TournamentError("not_open")
        future: asyncio.Future[Outputs] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait(_Item(inp, future))
        return await future

    @property
    def ended(self) -> bool:
        """The task has ended (the event is over, or stopped): nothing more is taken."""
        return self._stopping or (self._task is not None and self._task.done())

    def tell(self, inp: Input) -> None:
        """Queue ``inp`` without waiting (a table's report); a refusal is logged."""
        if not self.ended:
            self._inbox.put_nowait(_Item(inp))

    def abandon(self) -> None:
        """End the task at once, whatever it is doing (another node owns the event now: nothing more
        may be written, performed or announced here). What waits is refused."""
        self._stopping = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._inbox.close()
        self._refuse_waiting()

    async def stop(self, patience: float = 5.0) -> None:
        """End the task (shutdown): the event stays open in the store, rebuilt at the next start. A
        step under way ends first (its journal written and its effects performed: up to
        ``patience`` seconds), so a shutdown never leaves a decision half announced."""
        self._stopping = True
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._between.wait(), patience)
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._inbox.close()

    # -- steps ---------------------------------------------------------------------------------------

    async def step(self, item: _Item | None) -> Outputs | None:
        """Hand the director one input (or a tick when ``item`` is None), write what it decided, then
        perform it. Returns the outputs (None: the input was refused)."""
        return (await self.steps([item]))[0]

    async def steps(self, items: Sequence[_Item | None]) -> list[Outputs | None]:
        """(See :meth:`_steps`.) While it runs, a shutdown waits."""
        self._between.clear()
        try:
            return await self._steps(items)
        finally:
            self._between.set()

    async def _steps(self, items: Sequence[_Item | None]) -> list[Outputs | None]:
        """The inputs queued together (a tick for ``None``), in order, in one call of the worker thread
        and one journal write; then each one's effects performed, in order. A refused input changes
        nothing and is answered at once; the others are answered once the journal is written."""
        now = self.clock()
        director = self.director

        def calls() -> tuple[list[Outputs | TournamentError], Seen]:
            outs: list[Outputs | TournamentError] = []
            for item in items:
                try:
                    outs.append(director.tick(now) if item is None else director.handle(now, item.input))
                except TournamentError as exc:
                    outs.append(exc)
            return outs, self._look()

        self._busy = True
        try:
            outs, seen = await asyncio.to_thread(calls)
        finally:
            self._busy = False
        self._seen = seen
        for item, out in zip(items, outs, strict=True):
            if isinstance(out, TournamentError) and item is not None:
                if item.future is not None and not item.future.done():
                    item.future.set_exception(out)
                else:
                    log.warning("tournament %s: %s refused (%s)", self.id, item.input, out.code)
        done = [(item, out) for item, out in zip(items, outs, strict=True) if isinstance(out, Outputs)]
        entries = [e for _, out in done for e in out.entries]
        if entries:
            try:
                await self._write(entries, seen)
            except BaseException:
                for item, _ in done:
                    if item is not None and item.future is not None and not item.future.done():
                        item.future.set_exception(TournamentError("not_open"))
                raise
        for item, out in done:
            if item is not None and item.future is not None and not item.future.done():
                item.future.set_result(out)
        for _, out in done:
            for effect in out.effects:
                try:
                    await self.host.perform(self, effect)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("tournament %s: %s could not be performed", self.id, effect)
        return [out if isinstance(out, Outputs) else None for out in outs]

    async def _write(self, entries: Sequence[Entry], seen: Seen) -> None:
        rows = [e.to_dict() for e in entries]
        ops: list[Op] = [TournamentLog(self.id, self.seq, rows)]
        if any(isinstance(e.item, Ended) for e in entries):
            ops.append(TournamentClosed(self.id, "over", seen.standings.to_dict()))
        results = await self.host.write(self.id, ops)
        after = results[0]
        self.seq = after if isinstance(after, int) else self.seq + len(rows)

    # -- the task ----------------------------------------------------------------------------------

    async def _run(self) -> None:
        try:
            while not self.director.over and not self._stopping:
                wake = self.director.wake
                timeout = None if wake is None else max(0.0, wake - self.clock())
                if timeout == 0:
                    await asyncio.sleep(0)
                    batch: list[_Item | None] = [None]
                else:
                    item = await self._inbox.get(timeout)
                    batch = [item]
                    while item is not None and not self._inbox.empty() and len(batch) < BATCH:
                        batch.append(self._inbox.get_nowait())  # what queued meanwhile: one call, one write
                await self.steps(batch)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("tournament %s: its journal could not be written; it stops where it is", self.id)
            self.jammed = True
            self.failure = exc
        finally:
            self._inbox.close()
            self._refuse_waiting()
        if not self._stopping:
            self.host.finished(self)

    def _refuse_waiting(self) -> None:
        while not self._inbox.empty():
            item = self._inbox.get_nowait()
            if item.future is not None and not item.future.done():
                item.future.set_exception(TournamentError("not_open"))
