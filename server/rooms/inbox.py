"""A room's inputs in order, and the wait for the next one with a deadline.

The room's task waits for its next input or for its table's next wake, whichever comes first,
once for nearly every move. ``asyncio.Queue.get`` inside ``asyncio.timeout`` does that with a
timeout object, a cancellation of the task when time runs out and its undoing; :class:`Inbox`
does it with one future, and a timer kept from one wait to the next: most moves put the table's
next wake later than the last (the next turn's clock starts), so the timer armed for the earlier
one stays, and when it goes off before the wait's own time it is armed again for what is left.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    """Items in the order they were put; one reader (the room's task) waits in :meth:`get`."""

    __slots__ = ("_items", "_rung", "_timer", "_timer_at", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[T] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None  # armed for the earliest end of a wait, or None
        self._timer_at = 0.0  # (the loop's time it is armed for)
        self._rung: float | None = None  # the time of the timer that went off during this wait

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        self._wake()

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> T:
        """The first item (IndexError when there is none)."""
        return self._items.popleft()

    async def get(self, timeout: float | None = None) -> T | None:
        """The first item, waiting for one ``timeout`` seconds at most (None: as long as it takes);
        None when the time ran out first."""
        if self._items:
            return self._items.popleft()
        loop = asyncio.get_running_loop()
        until = None if timeout is None else loop.time() + timeout
        while True:
            if until is not None:
                timer = self._timer
                if timer is None or self._timer_at > until:  # none, or too late for this wait
                    if timer is not None:
                        timer.cancel()
                    self._timer = loop.call_at(until, self._rang)
                    self._timer_at = until
            self._rung = None
            waiter = self._waiter = loop.create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
            if self._items:
                return self._items.popleft()
            rung = self._rung
            if until is not None and rung is not None and rung >= until:
                return None
            # the timer of an earlier wait went off: wait again for what is left of this one

    def close(self) -> None:
        """No more waits: the timer is let go."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _rang(self) -> None:
        self._timer = None
        self._rung = self._timer_at
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)
