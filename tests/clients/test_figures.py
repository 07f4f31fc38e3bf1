"""clients.figures: percentiles, /proc readings, and the event-loop lag monitor on a fake clock."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from clients.figures import LagMonitor, percentile, proc_cpu_s, proc_rss_mb, summarize_ms


def test_percentiles_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([], 0.5) == 0.0
    assert summarize_ms([0.001, 0.002, 0.003]) == {"p50_ms": 2.0, "p95_ms": 3.0, "p99_ms": 3.0, "max_ms": 3.0}


def test_proc_figures_of_this_process() -> None:
    rss = proc_rss_mb(os.getpid())
    cpu = proc_cpu_s(os.getpid())
    assert rss is not None and rss > 1
    assert cpu is not None and cpu > 0
    assert proc_rss_mb(2**22 + 12345) is None
    assert proc_cpu_s(2**22 + 12345) is None


class FakeHandle:
    def __init__(self, when: float, callback: Callable[[], Any]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """A clock the test moves by hand and the timers it would run."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[FakeHandle] = []

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], Any], /) -> FakeHandle:
        handle = FakeHandle(when, callback)
        self.timers.append(handle)
        return handle

    def pending(self) -> list[FakeHandle]:
        return [h for h in self.timers if not h.cancelled]

    def run_next(self, late: float = 0.0) -> FakeHandle:
        """Run the one pending timer ``late`` seconds after it was due (a loop busy that long)."""
        (handle,) = self.pending()
        self.timers.remove(handle)
        self.now = handle.when + late
        handle.callback()
        return handle


def test_a_punctual_loop_has_no_lag() -> None:
    loop = FakeLoop()
    monitor = LagMonitor(loop, interval=0.01)
    monitor.start()
    for _ in range(200):
        loop.run_next()
    assert monitor.summary() == {"lag_p99_ms": 0.0, "lag_max_ms": 0.0, "lag_samples": 200}


def test_each_tick_records_how_late_it_ran_and_a_stall_counts_once() -> None:
    loop = FakeLoop()
    monitor = LagMonitor(loop, interval=0.01)
    monitor.start()
    assert loop.pending()[0].when == pytest.approx(100.01)
    for _ in range(98):
        loop.run_next(late=0.001)
    stalled = loop.run_next(late=0.250)  # the loop was busy for a quarter of a second
    # the next tick is due one interval after the late one actually ran: no train of late ticks
    assert loop.pending()[0].when == pytest.approx(stalled.when + 0.250 + 0.01)
    loop.run_next(late=0.002)
    summary = monitor.summary()
    assert summary["lag_samples"] == 100
    assert summary["lag_max_ms"] == 250.0
    assert summary["lag_p99_ms"] == 2.0  # one stall in a hundred ticks is the max, not the p99
    loop.run_next(late=0.250)
    assert monitor.summary()["lag_p99_ms"] == 250.0  # two in 101: the p99 is a stall


def test_an_early_tick_is_no_lag_and_an_overdue_tick_counts_with_its_lateness() -> None:
    loop = FakeLoop()
    monitor = LagMonitor(loop, interval=0.01)
    monitor.start()
    loop.run_next(late=-0.0005)  # the loop's clock resolution: a timer may run a hair early
    assert monitor.lags == [0.0]
    # the loop is blocked to the end of the window: the pending tick never ran
    loop.now = loop.pending()[0].when + 0.5
    assert monitor.summary() == {"lag_p99_ms": 500.0, "lag_max_ms": 500.0, "lag_samples": 2}
    assert monitor.lags == [0.0]  # counted in the summary, not recorded as a tick


def test_reset_starts_a_window_and_stop_cancels_the_timer() -> None:
    loop = FakeLoop()
    monitor = LagMonitor(loop, interval=0.01)
    monitor.start()
    monitor.start()  # idempotent: still one timer
    assert len(loop.pending()) == 1
    loop.run_next(late=0.3)
    monitor.reset()
    loop.run_next()
    assert monitor.summary()["lag_max_ms"] == 0.0
    monitor.stop()
    assert loop.pending() == []
    assert monitor.summary()["lag_samples"] == 1
    monitor.stop()  # idempotent


def test_interval_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LagMonitor(FakeLoop(), interval=0)
