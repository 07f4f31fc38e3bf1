"""The loop's writer of queued output: the sessions with lines waiting, written together.

A session that queues a line (:meth:`server.sessions.session.Session.send_raw` and the pushes: its
:class:`~server.sessions.outbox.Outbox`) asks its loop's :class:`Flushes` for a write: one callback
at the next turn writes every outbox due, however many a step reached. A room whose step is over writes them at once
(:meth:`Flushes.now`), so its messages do not wait for that turn.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

log = logging.getLogger("server.sessions.session")  # its failures are a session's

DROPPED = ("slow", "lost")
"""Close reasons after which nothing more is written to the client."""


class Flushes:
    """The sessions of one event loop with output queued this turn, written by one callback at the
    next turn (one per turn however many sessions a step reached, rather than one each)."""

    __slots__ = ("_armed", "_due")

    def __init__(self) -> None:
        self._due: list[Any] = []
        self._armed = False  # the callback is scheduled

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Flushes:
        got = _FLUSHES.get(loop)
        if got is None:
            got = _FLUSHES[loop] = cls()  # (holds no reference to its loop: the entry goes with it)
        return got

    def add(self, outbox: Any, loop: asyncio.AbstractEventLoop) -> None:
        if not self._armed:
            self._armed = True
            loop.call_soon(self._run)
        self._due.append(outbox)

    def now(self) -> None:
        """Write the sessions due at once: a room's step is over, its messages need not wait for the
        next turn (what comes later in this turn still goes with the callback)."""
        if self._due:
            self._write()

    def _run(self) -> None:
        self._armed = False
        self._write()

    def _write(self) -> None:
        due, self._due = self._due, []
        for outbox in due:
            outbox.due = False  # (the outbox's flush, without a call of its own)
            if outbox.drainer is None and outbox.lines and outbox.stopped not in DROPPED:
                try:
                    outbox.write_out()
                except Exception:  # one session's failure is its own (its writer closes it)
                    log.exception("%r: flush failed", outbox)


_FLUSHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flushes] = weakref.WeakKeyDictionary()
