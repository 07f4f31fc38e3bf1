"""When the garbage collector runs: a large heap must not stop the whole server.

CPython's cyclic collector examines the oldest generation whole once it has
grown by a quarter. With 5,000 players the server holds over a million
tracked objects (sessions, transports, tables, their states): each full
collection then stops the loop for about a second on this machine's cores,
and while they connect and sit down (the heap growing) such collections come
one after the other. Every player waits at once: that was the p99 of a large
server, and its seating time.

Young collections cost more than their size says, too. The objects a young
collection walks (three passes over its list, each reading every object) lie
scattered over a heap of hundreds of megabytes: at 2,500 players one of 10,000
objects took 40–70 ms of the loop (the server's own figures in ``bench/bench_load.py``),
several times in every 20 s, while the whole server played
without making garbage cycles (a full collection after a minute of play found
8 objects). Those pauses were most of the p99 below saturation.

The policy (``[server] gc_freeze_seconds``, ``gc_full_seconds``, ``gc_full_closed``, ``gc_young``):

* after start-up and then every ``gc_freeze_seconds``, :func:`gc.freeze` the
  heap as it is, without collecting it first (constant time: the generations'
  lists are joined to the permanent one, which collections skip). Reference
  counting still frees frozen objects when they are dropped; only garbage
  *cycles* among them wait for the full collection;
* every ``gc_full_seconds``, :func:`gc.unfreeze` and collect everything once
  (the one full pause; its length is logged and in ``donne_gc_pause_seconds``),
  and sooner once ``gc_full_closed`` connections have ended since the last one:
  a connection that ends leaves its objects in cycles (asyncio's transport and
  telnetlib3's reader and writer refer to their own methods), about 22 KiB
  each, which only a full collection frees;
* ``gc_young``: tracked allocations before a young collection (CPython: 700).
  Between two freezes a busy server stays far below the default, so a young
  collection runs only when a burst (everyone connecting at once) allocates
  that much within one freeze interval.

``gc_freeze_seconds = 0`` leaves CPython's own policy alone.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class GcPolicy:
    """``ended()``: how many connections have ended so far (with ``full_closed``, the cue for a full
    collection before its time)."""

    def __init__(self, freeze_seconds: float, full_seconds: float, young: int, *, full_closed: int = 0,
                 ended: Callable[[], int] | None = None) -> None:
        self.freeze_seconds = freeze_seconds
        self.full_seconds = full_seconds
        self.young = young
        self.full_closed = full_closed
        self._ended = ended
        self._ended_at_full = ended() if ended is not None else 0
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
        self._arm_full()

    def freeze(self) -> None:
        """Freeze what the heap holds now (garbage cycles among it wait for :meth:`full`); the full
        collection first when enough connections have ended since the last one."""
        if self.full_closed > 0 and self._ended is not None and \
                self._ended() - self._ended_at_full >= self.full_closed:
            self.full()
        gc.freeze()
        if self._freeze_timer is not None:
            self._freeze_timer = asyncio.get_running_loop().call_later(self.freeze_seconds, self.freeze)

    def _arm_full(self) -> None:
        if self._full_timer is not None:
            self._full_timer.cancel()
            self._full_timer = None
        if self.full_seconds > 0:
            self._full_timer = asyncio.get_running_loop().call_later(self.full_seconds, self.full)

    def full(self) -> None:
        """Unfreeze and collect everything (garbage cycles among the frozen), then freeze again; the
        next one comes ``gc_full_seconds`` later."""
        if self._ended is not None:
            self._ended_at_full = self._ended()
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        took = time.perf_counter() - started
        self.full_pauses.append(took)
        log.info("full garbage collection: %d objects freed in %.3f s, %d frozen", found, took,
                 gc.get_freeze_count())
        if self._freeze_timer is not None:  # started: the next one from now
            self._arm_full()

    def stop(self) -> None:
        """Back to CPython's policy (the heap unfrozen, the thresholds as they were)."""
        for timer in (self._freeze_timer, self._full_timer):
            if timer is not None:
                timer.cancel()
        if self._freeze_timer is not None or self._full_timer is not None or self.on:
            gc.unfreeze()
            gc.set_threshold(*self._threshold)
        self._freeze_timer = self._full_timer = None
