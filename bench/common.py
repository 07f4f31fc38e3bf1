"""Helpers shared by the bench scripts: bare echo servers in subprocesses, closed-loop line runs.

Every figure is measured with :class:`clients.client.Client`, the same client
code the wire bots and ``donne load`` use, so bare baselines and donne are
compared like for like.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from clients.client import Client, ClientError
from clients.figures import proc_cpu_s, proc_rss_mb, summarize_ms

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


class EchoProcess:
    """One of ``bench/echo_servers.py``'s bare servers in a subprocess."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.tmp = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def __aenter__(self) -> EchoProcess:
        self.tmp = tempfile.mkdtemp(prefix=f"donne-echo-{self.kind}-")
        ready = Path(self.tmp) / "ready.json"
        with open(Path(self.tmp) / "err.log", "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(BENCH / "echo_servers.py"), self.kind, "--ready-file", str(ready),
                 "--data-dir", self.tmp],
                stdout=subprocess.DEVNULL, stderr=err, cwd=self.tmp,
            )
        for _ in range(400):
            if ready.exists():
                self.port = json.loads(ready.read_text())["port"]
                return self
            if self.proc.poll() is not None:
                break
            await asyncio.sleep(0.05)
        log = (Path(self.tmp) / "err.log").read_text(errors="replace")
        await self.__aexit__()
        raise RuntimeError(f"echo server {self.kind} did not start: {log[-1000:]}")

    async def __aexit__(self, *exc: object) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


async def connect_many(n: int, connect: Callable[[int], Awaitable[Client]], parallel: int = 32,
                       timeout: float = 60.0) -> tuple[list[Client], int]:
    """Open ``n`` clients, at most ``parallel`` handshakes at once; returns (clients, failures)."""
    sem = asyncio.Semaphore(parallel)
    failures = 0

    async def one(i: int) -> Client | None:
        nonlocal failures
        async with sem:
            try:
                return await asyncio.wait_for(connect(i), timeout)
            except (OSError, ClientError, TimeoutError, Exception):
                failures += 1
                return None

    got = await asyncio.gather(*(one(i) for i in range(n)))
    return [c for c in got if c is not None], failures


async def close_all(clients: list[Client]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


async def echo_round_trips(clients: list[Client], duration: float, pid: int | None) -> dict[str, Any]:
    """Each client sends a line and awaits its echo, in a loop, for ``duration`` seconds.

    The line is a JSON request ``{"cmd": "ping", "type": "ok", "id": N}``; the
    bare server echoes it back and the client routes it as the reply to ``id``
    N, going through exactly the client's request/reply path.
    """
    latencies: list[float] = []
    errors = 0
    stop_at = time.perf_counter() + duration

    async def loop(c: Client) -> int:
        nonlocal errors
        n = 0
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            try:
                await c.request_raw("ping", type="ok", n=n, timeout=10)
            except ClientError:
                errors += 1
                return n
            latencies.append(time.perf_counter() - t0)
            n += 1
        return n

    cpu0 = proc_cpu_s(pid) if pid else None
    t0 = time.perf_counter()
    counts = await asyncio.gather(*(loop(c) for c in clients))
    elapsed = time.perf_counter() - t0
    cpu1 = proc_cpu_s(pid) if pid else None
    total = sum(counts)
    out: dict[str, Any] = {
        "clients": len(clients),
        "round_trips": total,
        "lines_per_s": round(total / elapsed, 1),
        "errors": errors,
        **summarize_ms(latencies),
    }
    if cpu0 is not None and cpu1 is not None:
        out["server_cpu_share"] = round((cpu1 - cpu0) / elapsed, 3)
    if pid:
        out["server_rss_mb"] = round(proc_rss_mb(pid) or 0.0, 1)
    return out


async def setup_cycles(connect: Callable[[int], Awaitable[Client]], first: Callable[[Client], Awaitable[Any]],
                       cycles: int, parallel: int = 1) -> dict[str, Any]:
    """Connect, do one request, close — ``cycles`` times, ``parallel`` at once; connections per second."""
    times: list[float] = []
    errors = 0
    counter = iter(range(cycles))

    async def worker() -> None:
        nonlocal errors
        for i in counter:
            t0 = time.perf_counter()
            try:
                c = await asyncio.wait_for(connect(i), 30)
                try:
                    await first(c)
                finally:
                    await c.close()
            except Exception:
                errors += 1
                continue
            times.append(time.perf_counter() - t0)

    # one warm-up cycle (key loading, imports)
    with contextlib.suppress(Exception):
        c = await connect(10**6)
        await first(c)
        await c.close()
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(parallel)))
    elapsed = time.perf_counter() - t0
    return {
        "cycles": len(times),
        "parallel": parallel,
        "per_s": round(len(times) / elapsed, 1) if elapsed else 0.0,
        "errors": errors,
        **summarize_ms(times),
    }


def today() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def machine() -> str:
    """The machine, and how fast it runs plain Python right now (see :func:`loop_seconds`)."""
    return f"{os.cpu_count()} CPU, Python {sys.version.split()[0]}, 10M additions in {loop_seconds():.2f} CPU-s"


def loop_seconds() -> float:
    """CPU seconds for ten million additions in a Python loop, the best of three: a yardstick.

    The machine's speed moves by a third from one sitting to the next (other tenants); figures of
    two sittings compare only through it, and figures of one sitting through their ratios.
    """
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.process_time() - start)
    return best
