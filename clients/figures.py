"""Figures of the load tools: percentiles, a process's memory and CPU from ``/proc``, event-loop lag.

:class:`LagMonitor` is how a load worker knows it is not what is measured: a
timer fires every ``interval`` seconds and records how late it ran (actual
minus scheduled time). A loop busy with its own work (parsing, deciding, a
core taken by another process) runs its timers late, and runs the reads that
time each action late too; a lag p99 of a few milliseconds says the latency
figures are the server's, not the load generator's.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of an already sorted sequence, nearest-rank; 0.0 when empty."""
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values) - 1e-9) - 1))
    return float(sorted_values[k])


def summarize_ms(values: Sequence[float]) -> dict[str, float]:
    """p50/p95/p99/max of latencies given in seconds, as milliseconds rounded to 0.01."""
    s = sorted(values)
    return {
        "p50_ms": round(percentile(s, 0.50) * 1000, 2),
        "p95_ms": round(percentile(s, 0.95) * 1000, 2),
        "p99_ms": round(percentile(s, 0.99) * 1000, 2),
        "max_ms": round((s[-1] if s else 0.0) * 1000, 2),
    }


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_rss_mb(pid: int) -> float | None:
    """Resident memory of ``pid`` in MiB (``VmRSS`` of ``/proc/PID/status``), or ``None``."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` (``/proc/PID/stat`` fields 14 and 15), or ``None``."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


def self_cpu_s() -> float:
    """User + system CPU seconds of this process."""
    t = os.times()
    return t.user + t.system


# ---------------------------------------------------------------------------
# event-loop lag


class _Handle(Protocol):
    def cancel(self) -> None: ...


class Timers(Protocol):
    """What :class:`LagMonitor` needs of an event loop (an ``asyncio`` loop, or a fake clock in tests)."""

    def time(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], Any], /) -> _Handle: ...


class LagMonitor:
    """A timer every ``interval`` seconds on ``loop``; each tick records its lag (actual - scheduled time).

    The next tick is scheduled ``interval`` after the previous one actually
    ran, so one long stall counts once (as one large lag), not as a train of
    late ticks. A tick run a hair early (the loop's clock resolution) counts
    as no lag. :meth:`reset` starts a new measured window.
    """

    def __init__(self, loop: Timers, interval: float = 0.01) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.loop = loop
        self.interval = interval
        self.lags: list[float] = []
        self._due = 0.0
        self._handle: _Handle | None = None

    def start(self) -> None:
        if self._handle is None:
            self._schedule(self.loop.time())

    def stop(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.cancel()

    def reset(self) -> None:
        self.lags = []

    def _schedule(self, now: float) -> None:
        self._due = now + self.interval
        self._handle = self.loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        now = self.loop.time()
        self.lags.append(max(0.0, now - self._due))
        self._schedule(now)

    def summary(self) -> dict[str, float | int]:
        """``lag_p99_ms``, ``lag_max_ms`` (rounded to 0.01) and ``lag_samples`` of the window so far.

        A tick that is due but has not run yet counts with its lateness so far:
        a loop blocked up to the very end of the window still shows its lag.
        """
        lags = list(self.lags)
        if self._handle is not None:
            overdue = self.loop.time() - self._due
            if overdue > 0:
                lags.append(overdue)
        s = sorted(lags)
        return {
            "lag_p99_ms": round(percentile(s, 0.99) * 1000, 2),
            "lag_max_ms": round((s[-1] if s else 0.0) * 1000, 2),
            "lag_samples": len(s),
        }
