"""server.clients.figures: percentiles and /proc readings."""

from __future__ import annotations

import os

from server.clients.figures import percentile, proc_cpu_s, proc_rss_mb, summarize_ms


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
