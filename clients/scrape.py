"""The server's own figures during a load run, read from its metrics endpoint (``server/operations/metrics.py``).

:func:`fetch` scrapes ``GET /metrics`` into ``{"name{labels}": value}``;
:func:`histogram_delta` gives what a histogram gathered between two scrapes
(quantiles as the upper bound of the bucket they fall in: the histogram's
resolution, ``server.operations.metrics.LATENCY_BUCKETS``).
"""

from __future__ import annotations

import asyncio
import math

from clients.jsontypes import JSONObject


def parse(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            try:
                out[key] = float(value)
            except ValueError:
                continue
    return out


async def fetch(port: int, host: str = "127.0.0.1", timeout: float = 10.0) -> dict[str, float]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(b"GET /metrics HTTP/1.0\r\n\r\n")
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    return parse(raw.decode("utf-8", "replace").partition("\r\n\r\n")[2])


def _labels(labels: str) -> str:
    return labels + "," if labels else ""


def histogram_delta(before: dict[str, float], after: dict[str, float], name: str,
                    labels: str = "") -> JSONObject:
    """``count``, ``sum_s``, ``p50_ms``/``p95_ms``/``p99_ms`` (bucket upper bounds; None: none observed
    or above the last finite bucket) of ``name{labels}`` between the two scrapes."""
    prefix = f"{name}_bucket{{{_labels(labels)}le=\""
    buckets: list[tuple[float, float]] = []
    for key, value in after.items():
        if key.startswith(prefix):
            le = key[len(prefix):].rstrip('"}')
            bound = math.inf if le == "+Inf" else float(le)
            buckets.append((bound, value - before.get(key, 0.0)))
    buckets.sort()
    suffix = f"{{{labels}}}" if labels else ""
    count = after.get(f"{name}_count{suffix}", 0.0) - before.get(f"{name}_count{suffix}", 0.0)
    total = after.get(f"{name}_sum{suffix}", 0.0) - before.get(f"{name}_sum{suffix}", 0.0)
    out: JSONObject = {"count": int(count), "sum_s": round(total, 3)}
    for q in (50, 95, 99):
        at = None
        for bound, cum in buckets:
            if count and cum >= count * q / 100:
                at = None if math.isinf(bound) else round(bound * 1000, 1)
                break
        out[f"p{q}_ms"] = at
    if buckets and count:
        out["max_bucket_ms"] = next((None if math.isinf(b) else round(b * 1000, 1)
                                     for b, c in buckets if c >= count), None)
    return out
