"""Figures of the load tools: percentiles, a process's memory and CPU from ``/proc``."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence


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
