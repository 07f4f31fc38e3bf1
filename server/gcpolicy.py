"""When the garbage collector runs: a large heap must not stop the whole server for a second.

CPython's cyclic collector examines the oldest generation whole once it has
grown by a quarter. With 5,000 players the server holds over a million
tracked objects (sessions, transports, tables, their states): each full
collection then stops the loop for about a second on this machine's cores,
and while they connect and sit down (the heap growing) such collections come
one after the other. Every player waits at once: that was the p99 of a large
server, and its seating time.

The policy (``[server] gc_freeze_seconds``, ``gc_full_seconds``, ``gc_young``):

* after start-up and then every ``gc_freeze_seconds``, collect the young
  generations (milliseconds) and :func:`gc.freeze` what survives: the
  long-lived objects go to the permanent generation, which collections skip.
  Reference counting still frees them when they are dropped; only garbage
  *cycles* among them wait for the next step;
* every ``gc_full_seconds``, :func:`gc.unfreeze` and collect everything once
  (the one full pause; its length is logged and in ``donne_gc_pause_seconds``);
* ``gc_young``: allocations before a young collection (CPython: 700), fewer
  and larger young collections.

``gc_freeze_seconds = 0`` leaves CPython's own policy alone.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger(__name__)


class GcPolicy:
    def __init__(self, freeze_seconds: float, full_seconds: float, young: int) -> None:
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.young = young
        self._threshold = gc.get_threshold()
        self._freeze_timer: asyncio.TimerHandle | None = None
        self._full_timer: asyncio.TimerHandle | None = None
        self.full_pauses: list[float] = []  # seconds of each full collection run by the policy

    @property
    def on(self) -> bool:
        return self.freeze_seconds > 0

    def start(self) -> None:
        """Freeze the start-up heap and arm the timers (nothing when off)."""
        if not self.on:
            return
        gc.collect()
        gc.freeze()
        if self.young > 0:
            gc.set_threshold(self.young, *self._threshold[1:])
        loop = asyncio.get_running_loop()
        self._freeze_timer = loop.call_later(self.freeze_seconds, self.freeze)
        if self.full_seconds > 0:
            self._full_timer = loop.call_later(self.full_seconds, self.full)

    def freeze(self) -> None:
        """Collect the young generations, freeze the survivors."""
        gc.collect(1)
        gc.freeze()
        if self._freeze_timer is not None:
            self._freeze_timer = asyncio.get_running_loop().call_later(self.freeze_seconds, self.freeze)

    def full(self) -> None:
        """Unfreeze and collect everything (garbage cycles among the frozen), then freeze again."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        took = time.perf_counter() - started
        self.full_pauses.append(took)
        log.info("full garbage collection: %d objects freed in %.3f s, %d frozen", found, took,
                 gc.get_freeze_count())
        if self._full_timer is not None:
            self._full_timer = asyncio.get_running_loop().call_later(self.full_seconds, self.full)

    def stop(self) -> None:
        """Back to CPython's policy (the heap unfrozen, the thresholds as they were)."""
        for timer in (self._freeze_timer, self._full_timer):
            if timer is not None:
                timer.cancel()
        if self._freeze_timer is not None or self._full_timer is not None or self.on:
            gc.unfreeze()
            gc.set_threshold(*self._threshold)
        self._freeze_timer = self._full_timer = None
