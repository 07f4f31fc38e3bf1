"""A room's inputs in order, and the wait for the next one with a deadline.

The room's task waits for its next input or for its table's next wake, whichever comes first,
once for nearly every move. ``asyncio.Queue.get`` inside ``asyncio.timeout`` does that with a
timeout object, a cancellation of the task when time runs out and its undoing; :class:`Inbox`
does it with one future and one timer that resolves it, and nothing to undo.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    """Items in the order they were put; one reader (the room's task) waits in :meth:`get`."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[T] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> T:
        """The first item (IndexError when there is none)."""
        return self._items.popleft()

    async def get(self, timeout: float | None = None) -> T | None:
        """The first item, waiting for one ``timeout`` seconds at most (None: as long as it takes);
        None when the time ran out first."""
        if not self._items:
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
            try:
                await waiter
            finally:
                if timer is not None:
                    timer.cancel()
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft() if self._items else None


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
