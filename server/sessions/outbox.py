"""A session's outbound queue and its flushing.

Rooms and the lobby only ever *enqueue* (:meth:`Outbox.put`), so a slow or stuck client can never
block them. What is queued during one turn of the event loop goes out at the next in one write (one
send for a state and its events; one loop callback writes every session that has something,
:class:`~server.people.flushes.Flushes`); only a client whose transport holds unsent bytes gets a
task that waits for it to read them. When the queue passes ``limit`` lines, or such a wait takes
longer than ``drain_timeout``, the client is too slow: the outbox asks its owner to drop it.

Each line queued while a command runs holds that command's latency figure until it is written
(:func:`server.operations.metrics.line_queued_to`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from server.operations import metrics
from server.people.flushes import DROPPED, Flushes

log = logging.getLogger("server.sessions.session")  # its failures are a session's


class Sink(Protocol):
    """What an outbox writes to: the transport's side of a connection."""

    def write(self, text: str) -> None: ...

    # optional: ``write_lines(lines)``, what ``write("".join(lines))`` writes, made more cheaply; it
    # returns backlog() when it knows it without a call, else None

    def backlog(self) -> int:
        """Bytes written that the network has not taken yet (``drain`` can only wait when there are)."""
        ...

    async def drain(self) -> None: ...


class Outbox:
    """The lines queued for one client, written once a turn, waited for while the client reads.

    ``drop(reason)`` is the owner's close: ``"slow"`` (the queue is full, or the client stopped
    reading), ``"lost"`` (the transport failed) or ``"error"`` (a bug in the writer).
    ``stopped``: the owner's close reason once it closed, after which nothing more is queued."""

    __slots__ = ("_drain_timeout", "_drop", "_flushes", "_limit", "_loop", "_name", "_owner", "_queued", "_sink",
                 "_stamps", "_write_lines", "_written", "crlf", "drainer", "due", "lines", "stopped")

    def __init__(self, sink: Sink, *, limit: int, drain_timeout: float, drop: Callable[[str], None],
                 owner: object = None, name: str = "") -> None:
        self._sink = sink
        write_lines = getattr(sink, "write_lines", None)
        self._write_lines: Callable[[list[str]], int | None] = write_lines if write_lines is not None else \
            (lambda lines: sink.write("".join(lines)))
        self._limit = limit
        self._drain_timeout = drain_timeout
        self._drop = drop
        self._owner = owner if owner is not None else self  # named in the logs
        self._name = name  # names its drain task
        self.lines: list[str] = []  # queued, not written yet (at most ``limit``)
        self.crlf = False  # text written with "\r\n" line ends
        self.stopped: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # set by start(): output may flow
        self._flushes: Flushes | None = None  # the loop's writer of queued output (set with _loop)
        self.due = False  # a flush is scheduled for the next turn of the loop
        self.drainer: asyncio.Task[None] | None = None  # waiting for the client to read a backlog
        self._queued = 0  # lines put in the queue, ever ...
        self._written = 0  # ... and written
        self._stamps: collections.deque[tuple[int, metrics.Stamp]] = collections.deque()  # (line, its command)

    def __repr__(self) -> str:
        return repr(self._owner) if self._owner is not self else f"<Outbox {self._name}>"

    @property
    def started(self) -> bool:
        return self._loop is not None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Output may flow on ``loop`` (what was queued before goes out at its next turn)."""
        if self._loop is None:
            self._loop = loop
            self._flushes = Flushes.of(loop)
            self._schedule()

    def put(self, text: str) -> None:
        """Queue ``text`` (``\\n`` line ends); drops the client if it cannot keep up."""
        if not text or self.stopped is not None:
            return
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        lines = self.lines
        if len(lines) >= self._limit:
            log.info("%r: outbound queue full, disconnecting a slow client", self._owner)
            metrics.queue_drop()
            self._drop("slow")
            return
        lines.append(text)
        self._queued = queued = self._queued + 1
        metrics.line_queued_to(self._stamps, queued)
        if not self.due:
            self._schedule()

    def _schedule(self) -> None:
        """The queue goes out at the next turn of the loop, unless a drain is under way (it writes)."""
        loop, flushes = self._loop, self._flushes
        if loop is not None and flushes is not None and self.lines and not self.due and self.drainer is None:
            self.due = True
            flushes.add(self, loop)

    def write_out(self) -> bool:
        """Everything queued in one write; True when the transport took it all (nothing to wait for)."""
        lines = self.lines
        self.lines = []
        try:
            left = self._write_lines(lines)
        except (ConnectionError, OSError, EOFError) as exc:
            log.debug("%r: write failed: %s", self._owner, exc)
            self._drop("lost")
            return False
        except Exception:
            log.exception("%r: writer failed", self._owner)
            self._drop("error")
            return False
        self._wrote(len(lines))
        if self._sink.backlog() if left is None else left:  # (most writes go straight to the socket)
            if self.drainer is None and self._loop is not None:
                self.drainer = self._loop.create_task(self._drain(), name=f"drain-{self._name}")
            return False
        return True

    def _wrote(self, count: int) -> None:
        """``count`` more lines were written: the commands waiting for them are told."""
        self._written = written = self._written + count
        stamps = self._stamps
        while stamps and stamps[0][0] <= written:
            stamps.popleft()[1].release()

    async def _drain(self) -> None:
        """The client has unread bytes: wait (``drain_timeout`` at most each time) and write what
        was queued meanwhile, until the transport is clear."""
        try:
            while True:
                async with asyncio.timeout(self._drain_timeout):
                    await self._sink.drain()
                if not self.lines or self.stopped in DROPPED or self.write_out():
                    return
        except TimeoutError:
            log.info("%r: client stopped reading, disconnecting", self._owner)
            metrics.drain_timeout()
            self._drop("slow")
        except (ConnectionError, OSError, EOFError) as exc:  # the drain's (a write's: write_out's own)
            log.debug("%r: write failed: %s", self._owner, exc)
            self._drop("lost")
        except Exception:
            log.exception("%r: writer failed", self._owner)
            self._drop("error")
        finally:
            self.drainer = None
            if self.stopped is None:
                self._schedule()

    def stop(self, reason: str) -> None:
        """The owner closed for ``reason``: nothing more is queued."""
        self.stopped = reason

    async def finish(self) -> None:
        """After :meth:`stop`: what was queued goes out, for two seconds at most, unless the client
        cannot take more or is gone (:data:`~server.people.flushes.DROPPED`). The commands waiting
        for lines never written are done with them."""
        drainer = self.drainer
        if self.stopped in DROPPED:
            self.lines = []
            if drainer is not None:
                drainer.cancel()
        elif self._loop is not None:
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(2.0):
                    if drainer is not None:
                        await asyncio.shield(drainer)
                    if self.lines and self.drainer is None:
                        self.write_out()  # (starts a drain when the client has not read it all)
                    if self.drainer is not None:
                        await asyncio.shield(self.drainer)
            if self.drainer is not None:
                self.drainer.cancel()
        self._wrote(self._queued - self._written)
