"""The one thread that talks to the database, and group commit.

Every call of the store becomes a job handed to this thread, so the event
loop never blocks on disk and one store's transactions never interleave.
The jobs submitted during one turn of the event loop arrive together (the
store hands them over at the end of the turn); the thread runs consecutive
writes waiting together (up to ``MAX_BATCH``) in ONE transaction, each job
in its own savepoint: one commit and one fsync for the group, a job that
raises undone alone, and no caller told "done" before the COMMIT returned.

Jobs that say how to be done together (``Job.group``: the table logs of
many tables' steps) are handed, a run of consecutive ones at a time, to that
function in one savepoint: a few statements for all of them instead of a few
each. When it declines (one of them would be refused, say), or raises, its
savepoint is undone and each job runs alone as any other, in its own. A batch
that is nothing but one such run (a busy moment's steps, or one step alone)
needs no savepoint: BEGIN, the group's statements, COMMIT; when it declines,
the transaction is rolled back and begun again, each job in its own savepoint.
Every statement gives the GIL away and takes it back, so each one saved is a
wait less for this thread and a switch less for the event loop's.
The results of a group of jobs go back to their event loop in one call.

A job that fails for a passing reason (PostgreSQL: deadlock, serialization
failure, lock timeout) is undone alone and run again after the group's
commit, in a new transaction; a connection that broke is opened again for
the next group.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from server.operations import metrics
from server.storage.api import StorageError, Unreachable
from server.storage.sql.tx import Tx

log = logging.getLogger("donne.storage")

WRITES = ("write", "relaxed")


class Backend(Protocol):
    """What a database (SQLite file, PostgreSQL server) gives the thread."""

    def open(self) -> None:
        """Connect, lock, migrate (in the database thread)."""

    def tx(self) -> Tx:
        """A handle on the current connection (opened again if it broke)."""

    def begin_write(self, tx: Tx, relaxed: bool) -> None: ...

    def begin_read(self, tx: Tx) -> None: ...

    def commit(self, tx: Tx) -> None: ...

    def rollback(self, tx: Tx) -> None: ...

    def transient(self, exc: BaseException) -> bool:
        """A failure worth running the job again for (deadlock, serialization failure)."""

    def lost(self, exc: BaseException) -> bool:
        """The connection is unusable: drop it (the next job connects again)."""

    def close(self) -> None: ...


Grouped = Callable[[Tx, list[Any]], list[Any] | None]
"""Does several jobs' work at once: their payloads in, one result each out (None: declined, each
job then runs alone through its own ``fn``). Each group's payloads and results are its own kinds
(``tables.table_logs``: ``TableLog`` in, the next numbers out): the queue does not know them."""


@dataclass
class Job:
    kind: str  # "write" | "relaxed" (need not reach the disk alone) | "read" | "call"
    fn: Callable[[Tx], object] | Callable[[], object]
    loop: asyncio.AbstractEventLoop
    # None: nobody waits (a step written ahead); a failure is logged. The result is the caller's
    # ``fn``'s, of any kind: the queue carries every caller's jobs.
    future: asyncio.Future[Any] | None
    attempts: int = 0
    group: tuple[Grouped, object] | None = None  # a write that can be done with its like: (how, payload)


Result = tuple[Job, bool, object]  # the job, whether it succeeded, its result or its exception
Outcome = tuple["asyncio.Future[Any]", bool, object]


def _reply(results: list[Result]) -> None:
    """Hand results to their event loops (from the database thread): one call per loop."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
    for job, ok, value in results:
        if job.future is not None:
            by_loop.setdefault(job.loop, []).append((job.future, ok, value))
        elif not ok:  # a step written ahead that the database refused: a bug, never a chip
            log.error("a job nobody waits for failed: %s", value)
    for loop, outcomes in by_loop.items():
        try:
            loop.call_soon_threadsafe(_deliver, outcomes)
        except RuntimeError:  # that loop is closed: nobody is waiting any more
            log.debug("results of %d database job(s) dropped: their event loop is closed", len(outcomes))


def _deliver(outcomes: list[Outcome]) -> None:
    for future, ok, value in outcomes:
        if future.cancelled():
            continue
        if ok:
            future.set_result(value)
        elif isinstance(value, BaseException):  # (a failure's value is always its exception)
            future.set_exception(value)


class DatabaseThread(threading.Thread):
    MAX_BATCH = 64
    MAX_ATTEMPTS = 30  # runs of one job that failed for a passing reason

    def __init__(self, name: str, backend: Backend, on_job_end: Callable[[Tx], None] = lambda tx: None) -> None:
        super().__init__(name=name, daemon=True)
        self.backend = backend
        self.on_job_end = on_job_end  # run inside each write job's savepoint, after the job
        self._jobs: queue.SimpleQueue[list[Job] | None] = queue.SimpleQueue()
        self.commits = 0  # write transactions committed
        self.writes = 0  # write jobs run (>= commits: the difference is what grouping saved)
        self.retries = 0  # jobs run again after a passing failure
        self.grouped = 0  # write jobs done together with others (Job.group)
        self.done = 0  # jobs (or batches of jobs) finished: whether the database is answering at all

    def submit(self, jobs: list[Job]) -> None:
        self._jobs.put(jobs)

    def stop(self) -> None:
        if self.is_alive():
            self._jobs.put(None)
            self.join()

    def run(self) -> None:
        pending: collections.deque[Job] = collections.deque()
        stopping = False
        while True:
            if not pending:
                if stopping:
                    return
                item = self._jobs.get()
                if item is None:
                    return
                pending.extend(item)
            while not stopping:
                try:
                    item = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                else:
                    pending.extend(item)
            job = pending.popleft()
            if job.kind not in WRITES:
                self._single(job)
                self.done += 1
                continue
            batch = [job]
            while pending and pending[0].kind in WRITES and len(batch) < self.MAX_BATCH:
                batch.append(pending.popleft())
            again = self._batch(batch)
            self.done += 1
            if again:
                self.retries += len(again)
                time.sleep(random.uniform(0.001, 0.005) * min(max(j.attempts for j in again), 10))
                pending.extendleft(reversed(again))

    def _single(self, job: Job) -> None:
        try:
            if job.kind == "call":
                value = job.fn()  # type: ignore[call-arg]
            else:
                tx = self.backend.tx()
                self.backend.begin_read(tx)
                try:
                    value = job.fn(tx)  # type: ignore[call-arg]
                finally:
                    self.backend.commit(tx)
        except BaseException as exc:  # handed to the awaiting coroutine
            self._forget_if_lost(exc)
            _reply([(job, False, exc)])
        else:
            _reply([(job, True, value)])

    def _forget_if_lost(self, exc: BaseException) -> None:
        if self.backend.lost(exc):
            log.error("database connection lost: %s", exc)

    def _batch(self, batch: list[Job]) -> list[Job]:
        """Run the jobs in one transaction; returns the jobs to run again."""
        results: list[Result] = []
        again: list[Job] = []
        tx: Tx | None = None
        try:
            tx = self.backend.tx()
            # A batch made only of relaxed writes commits without its own fsync
            # (SQLite synchronous=NORMAL, PostgreSQL synchronous_commit=off); the
            # next full commit syncs everything before it, so a power cut can only
            # forget a suffix of transactions, never one from the middle.
            relaxed = all(job.kind == "relaxed" for job in batch)
            self.backend.begin_write(tx, relaxed)
            runs = _runs(batch)
            if len(runs) == 1 and batch[0].group is not None:  # the usual moment: only tables' steps, no savepoint
                if self._grouped(tx, batch, results):
                    runs = []
                else:  # one of them is refused: the transaction again, each in its own savepoint
                    self.backend.rollback(tx)
                    self.backend.begin_write(tx, relaxed)
                    runs = [[job] for job in batch]
            for run in runs:  # in order: a job may depend on the ones before it
                if len(run) > 1 and self._together(tx, run, results):
                    continue
                for job in run:
                    self._alone(tx, job, results, again)
            self.backend.commit(tx)
            self.commits += 1
            self.writes += len(results)
        except BaseException as exc:  # BEGIN, a savepoint or the COMMIT failed: nothing happened
            metrics.db_error()
            if tx is not None:
                with contextlib.suppress(Exception):
                    self.backend.rollback(tx)
            self._forget_if_lost(exc)
            if self.backend.transient(exc):
                for job in batch:
                    job.attempts += 1
                again = [job for job in batch if job.attempts < self.MAX_ATTEMPTS]
                results = [(job, False, exc) for job in batch if job.attempts >= self.MAX_ATTEMPTS]
            else:
                if not isinstance(exc, StorageError) and self.backend.lost(exc):
                    exc = Unreachable(f"the database is unreachable: {exc}")
                results = [(job, False, exc) for job in batch]
                again = []
        _reply(results)
        return again

    def _alone(self, tx: Tx, job: Job, results: list[Result], again: list[Job]) -> None:
        """One job in its own savepoint: its result, its refusal, or run again later (``again``)."""
        tx.begin_job()
        tx.execute("SAVEPOINT job")
        try:
            value = job.fn(tx)  # type: ignore[call-arg]
            self.on_job_end(tx)
            tx.end_job()
        except BaseException as exc:
            if not isinstance(exc, StorageError):  # a refusal is not the database failing
                metrics.db_error()
            tx.execute("ROLLBACK TO SAVEPOINT job")
            tx.execute("RELEASE SAVEPOINT job")
            job.attempts += 1
            if self.backend.transient(exc) and job.attempts < self.MAX_ATTEMPTS:
                again.append(job)
            else:
                results.append((job, False, exc))
        else:
            tx.execute("RELEASE SAVEPOINT job")
            results.append((job, True, value))

    def _grouped(self, tx: Tx, run: list[Job], results: list[Result]) -> bool:
        """The group's function over the run's payloads: their results added, or False when it declines
        or fails (the caller undoes what it did: its savepoint, or a batch of this run alone whole)."""
        how = run[0].group[0]  # type: ignore[index]
        tx.begin_job()
        try:
            values = how(tx, [job.group[1] for job in run])  # type: ignore[index]
            if values is not None:
                self.on_job_end(tx)
                tx.end_job()
        except Exception:  # each job alone will meet it (and say it) again
            values = None
        if values is None:
            return False
        self.grouped += len(run)
        results.extend((job, True, value) for job, value in zip(run, values, strict=True))
        return True

    def _together(self, tx: Tx, run: list[Job], results: list[Result]) -> bool:
        """A run of jobs of one group done at once, in one savepoint; False (nothing done) when
        its function declines or fails."""
        tx.execute("SAVEPOINT jobs")
        if not self._grouped(tx, run, results):
            tx.execute("ROLLBACK TO SAVEPOINT jobs")
            tx.execute("RELEASE SAVEPOINT jobs")
            return False
        tx.execute("RELEASE SAVEPOINT jobs")
        return True


def _runs(batch: list[Job]) -> list[list[Job]]:
    """The batch cut, in order, into runs of consecutive jobs of the same group (a job of none: alone)."""
    runs: list[list[Job]] = []
    for job in batch:
        how = job.group[0] if job.group is not None else None
        last = runs[-1] if runs else None
        if how is not None and last is not None and last[0].group is not None and last[0].group[0] is how:
            last.append(job)
        else:
            runs.append([job])
    return runs
