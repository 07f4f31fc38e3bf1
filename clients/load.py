"""``donne load``: many wire bots against one server, one JSON object of figures.

    donne load --clients 1000 --tables 250 --game president --rules classic --duration 60 --procs 2
    donne load --clients 5000 --tables 1250 --idle 5000 --think 1.0 --duration 20    # + 5,000 in the lobby

Without ``--port`` it starts the real ``donne serve`` in a subprocess
(:class:`~clients.serverproc.ServerProcess`: free ports, a temporary
data folder, limits raised for one address and no pause between rounds),
learns its ports from the server's ready file and reads its memory and CPU
from ``/proc``. With ``--host/--port`` it targets a running server (loopback
only), whose memory and CPU it reads when ``--server-pid`` names its process.

The clients are spread over ``--procs`` worker processes
(:mod:`clients.loadworker`), whole tables each, every worker on its
own asyncio loop; this process only starts them, steps them through
connect → seat → measure, and gathers their figures. The wire bots
(:mod:`clients.wirebot`) answer every decision as soon as its state
arrives (or after ``--think`` seconds, jittered). The latency of an action is
the time from sending it to receiving the next ``state`` push on the same
connection. When a table's match ends, its bots open a new room and play on
until the duration is over. Everything stops by itself: bounded duration,
bounded connection, request and phase time-outs.

The load generator must not be what is measured: each worker reports its
CPU share of its core and the lag of its event loop (a periodic timer:
scheduled against actual time, p99 and max). A worker whose lag p99 passes
``--max-lag-ms`` (20 ms) or whose CPU share passes ``--max-worker-cpu``
(0.85) is named in ``flagged``, and the run's latency figures then move to
``suspect_latency`` (the top-level ``p50_ms`` … ``max_ms`` are ``null``):
they measured the load generator, not the server.

``--idle N`` adds N connections that never play ("10,000 connections
of which 5,000 play"): over the same ``--transport``, spread over the same
workers, each logs in as a person does (a guest name; the bots' telnet
opening and ``json``) and stays in the lobby for the whole run, so the server
pushes them the lobby's news (every table opened and closed, lobby chat) like
anyone there. They are opened before the players connect, so before any
table opens. The workers only count what they receive (bytes, line ends,
error replies; :mod:`clients.idle`), never parse it. Their figures are
the ``idle_*`` keys; every figure of the players is as without them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from clients import scrape
from clients.common import check_loopback
from clients.figures import proc_cpu_s, proc_rss_mb, summarize_ms
from clients.jsontypes import JSONObject, JSONValue, int_of, items_in, number_of
from clients.loadworker import SETUP_TIMEOUT, WORKER_LOOPS, WorkerSpec, uvloop_installed
from clients.serverproc import ROOT, ServerProcess, free_port
from engine.bots import LEVELS, strategies

PHASE_SLACK = 60.0
"""Seconds a worker may take beyond its own time-outs to answer a phase before the run gives up."""

LATENCY_KEYS = ("p50_ms", "p95_ms", "p99_ms", "max_ms")


@dataclass
class LoadOptions:
    clients: int = 8
    tables: int = 2
    game: str = "president"
    rules: str = "classic"
    duration: float = 10.0
    host: str = "127.0.0.1"
    port: int | None = None
    ports: list[int] | None = None
    """Several nodes of a cluster (``--ports 2323,2324``); ``spread``: ``table`` or ``seat``."""
    spread: str = "table"
    transport: str = "tcp"
    mccp: bool = False
    """The bots ask for MCCP2 over telnet: the server compresses their JSON (its CPU with compression)."""
    strategy: str = "greedy"
    seed: str = "load"
    connect_parallel: int = 32
    turn_seconds: float | None = None
    think: float = 0.0
    profile: str | None = None
    server_pid: int | None = None
    """With ``port``: the target server's process, whose CPU and memory the figures then include."""
    worker_gc_freeze: float = 1.0
    """The workers' collector policy (``server/operations/gcpolicy.py``): freeze every that many seconds; 0: CPython's."""
    worker_loop: str = "auto"
    """The workers' event loop: ``asyncio`` (the standard one), ``uvloop`` (a dependency, not on Windows), ``auto``."""
    server_keys: tuple[str, ...] = ()
    window_pids: tuple[int, ...] = ()
    """Processes (the nodes of a cluster, its services) whose CPU seconds over the measured window
    alone, from ``/proc/PID/stat`` at its start and its end, the figures give (``window_cpu_s``)."""
    """``KEY = VALUE`` lines for the started server's ``[server]`` section (``--server-key``)."""
    profile_workers: str | None = None
    """cProfile each worker into ``PREFIX.N`` (N: the worker's index)."""
    procs: int = 1
    max_lag_ms: float = 20.0
    max_worker_cpu: float = 0.85
    idle: int = 0
    """Connections beside the players that log in, stay in the lobby and never play (``--idle``)."""
    test_burn_ms: float = 0.0
    """Tests only: worker 0 blocks its loop this many ms out of every 100 ms of the window."""


# ---------------------------------------------------------------------------
# pure parts: splitting the tables, flagging the workers, the latency figures


@dataclass(frozen=True)
class _Watched:
    """A server started by someone else (``--server-pid``): its figures from ``/proc``."""

    pid: int

    def rss_mb(self) -> float | None:
        return proc_rss_mb(self.pid)

    def cpu_s(self) -> float | None:
        return proc_cpu_s(self.pid)


def split_tables(tables: int, procs: int) -> list[list[int]]:
    """``tables`` table indices in ``procs`` contiguous groups whose sizes differ by one at most."""
    base, extra = divmod(tables, procs)
    out: list[list[int]] = []
    start = 0
    for w in range(procs):
        n = base + (1 if w < extra else 0)
        out.append(list(range(start, start + n)))
        start += n
    return out


def split_count(n: int, procs: int) -> list[tuple[int, int]]:
    """``n`` things in ``procs`` contiguous runs ``(first, count)`` whose counts differ by one at most."""
    base, extra = divmod(n, procs)
    out: list[tuple[int, int]] = []
    start = 0
    for w in range(procs):
        count = base + (1 if w < extra else 0)
        out.append((start, count))
        start += count
    return out


def flag_workers(workers: Sequence[JSONObject], max_lag_ms: float, max_cpu: float) -> list[str]:
    """Why the run's latencies are the load generator's: one reason per worker over a threshold."""
    reasons: list[str] = []
    for w in workers:
        if number_of(w["lag_p99_ms"]) > max_lag_ms:
            reasons.append(f"worker {w['worker']}: event-loop lag p99 {w['lag_p99_ms']:g} ms > {max_lag_ms:g} ms"
                           f" (max {w['lag_max_ms']:g} ms)")
        if number_of(w["cpu_share"]) > max_cpu:
            reasons.append(f"worker {w['worker']}: {w['cpu_share']:.0%} of its core busy > {max_cpu:.0%}")
    return reasons


def latency_figures(latencies_s: Sequence[float], flagged: Sequence[str]) -> JSONObject:
    """``p50_ms`` … ``max_ms`` when no worker is flagged; else those are ``None`` and the figures
    are under ``suspect_latency`` (``None`` otherwise)."""
    figures = summarize_ms(latencies_s)
    if flagged:
        return {**dict.fromkeys(LATENCY_KEYS), "suspect_latency": figures}
    return {**figures, "suspect_latency": None}


def check_options(opts: LoadOptions) -> int:
    """Refuse (``SystemExit`` with the reason) options that cannot make a run; the seats per table."""
    check_loopback(opts.host)
    if opts.tables < 1 or opts.clients < opts.tables:
        raise SystemExit("need at least one table and one client per table")
    seats = opts.clients // opts.tables
    if seats < 3:
        raise SystemExit(f"{opts.clients} clients for {opts.tables} tables is {seats} a table; 3 at least")
    if opts.procs < 1:
        raise SystemExit("--procs must be at least 1")
    if opts.idle < 0:
        raise SystemExit("--idle is a number of connections, 0 or more")
    if opts.procs > opts.tables:
        raise SystemExit(f"--procs {opts.procs} needs at least {opts.procs} tables (a table's seats share one "
                         f"worker), not {opts.tables}")
    if not opts.duration > 0:
        raise SystemExit("--duration must be positive")
    if opts.ports is not None and (opts.port is not None or not opts.ports):
        raise SystemExit("--ports is a list of running nodes' ports, instead of --port")
    if opts.spread not in ("table", "seat"):
        raise SystemExit(f"unknown spread {opts.spread!r}: table or seat")
    if opts.profile and (opts.port is not None or opts.ports):
        raise SystemExit("--profile profiles the server donne load starts: not with --port")
    if opts.server_pid is not None and opts.port is None:
        raise SystemExit("--server-pid names the process of the server at --port")
    if opts.game not in ("president", "speculation"):
        raise SystemExit(f"unknown game {opts.game!r}: president or speculation")
    known = strategies(opts.game)
    if LEVELS.get(opts.strategy, opts.strategy) not in known:
        raise SystemExit(f"no strategy {opts.strategy!r} for {opts.game}: {', '.join(known)}")
    if opts.transport not in ("tcp", "ssh", "ws"):
        raise SystemExit(f"unknown transport {opts.transport!r}: tcp, ssh or ws")
    if opts.transport == "ws" and opts.idle:
        raise SystemExit("--idle connections speak TCP or SSH only (not --transport ws)")
    if opts.worker_loop not in WORKER_LOOPS:
        raise SystemExit(f"unknown worker loop {opts.worker_loop!r}: {', '.join(WORKER_LOOPS)}")
    if opts.worker_loop == "uvloop" and not uvloop_installed():
        raise SystemExit("--worker-loop uvloop but uvloop is not installed (pip install uvloop)")
    return seats


# ---------------------------------------------------------------------------
# worker processes


class WorkerFailed(RuntimeError):
    """A worker process died, answered out of turn, or not in time."""


class _WorkerProcess:
    """One ``python -m clients.loadworker`` child: lines to its stdin, JSON lines from its stdout."""

    def __init__(self, spec: WorkerSpec, log_path: Path) -> None:
        self.spec = spec
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                                             if p)}
        with open(self.log_path, "wb") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "clients.loadworker", self.spec.to_json(),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log, env=env,
                limit=1 << 28,  # the result line carries every latency of the window
                start_new_session=True,  # a ^C reaches the parent, which stops the workers itself
            )

    def tell(self, word: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(word.encode() + b"\n")

    async def expect(self, phase: str, timeout: float) -> JSONObject:
        assert self.proc is not None and self.proc.stdout is not None
        try:
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        except TimeoutError:
            raise WorkerFailed(f"worker {self.spec.index}: no {phase!r} in {timeout:g}s{self.log_tail()}") from None
        if not line:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 5)
            raise WorkerFailed(f"worker {self.spec.index} exited ({self.proc.returncode}) before {phase!r}"
                               f"{self.log_tail()}")
        try:
            msg = json.loads(line)
        except ValueError:
            raise WorkerFailed(f"worker {self.spec.index}: not JSON: {line[:200]!r}") from None
        if not isinstance(msg, dict) or msg.get("phase") != phase:
            raise WorkerFailed(f"worker {self.spec.index}: expected {phase!r}, got {line[:200]!r}")
        return msg

    def log_tail(self, n: int = 1500) -> str:
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace").strip()
            if text:
                return ": " + text[-n:]
        return ""

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()  # a worker still waiting for a line ends at the end of its stdin
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


# ---------------------------------------------------------------------------
# the load run


def _diff(later: float | None, earlier: float | None) -> float | None:
    return None if later is None or earlier is None else round(later - earlier, 2)


async def _scrape(server: ServerProcess | None) -> dict[str, float] | None:
    if server is None or not server.metrics_port:
        return None
    try:
        return await scrape.fetch(server.metrics_port)
    except (OSError, TimeoutError):
        return None


def _server_side(m0: dict[str, float] | None, m1: dict[str, float] | None) -> JSONObject | None:
    """The server's own figures over the window (its metrics endpoint): action latency from reading the
    line to writing its last line, event-loop lag, collector pauses by generation."""
    if m0 is None or m1 is None:
        return None
    gc = {g: scrape.histogram_delta(m0, m1, "donne_gc_pause_seconds", f'generation="{g}"') for g in "012"}
    return {
        "action_latency": scrape.histogram_delta(m0, m1, "donne_command_seconds", 'kind="action"'),
        "loop_lag": scrape.histogram_delta(m0, m1, "donne_loop_lag_seconds"),
        "commit": scrape.histogram_delta(m0, m1, "donne_ledger_commit_seconds"),
        "gc": {g: {"count": v["count"], "sum_s": v["sum_s"], "max_bucket_ms": v.get("max_bucket_ms")}
               for g, v in gc.items()},
    }


def _sum(results: Sequence[JSONObject], key: str) -> float:
    return sum(number_of(r[key]) for r in results)


def _counts(value: JSONValue) -> dict[str, int]:
    """A worker's counts by code."""
    return {code: int_of(n) for code, n in value.items()} if isinstance(value, Mapping) else {}


def _gauge(m: dict[str, float] | None, name: str) -> int | None:
    return None if m is None or name not in m else int(m[name])


def idle_figures(connected: Sequence[JSONObject], results: Sequence[JSONObject],
                 elapsed: float) -> JSONObject:
    """The idle connections' figures of the run, from the workers' ``connected`` and ``result`` phases."""
    codes: Counter[str] = Counter()
    for r in results:
        codes.update(_counts(r["idle_codes"]))
    return {
        "idle_clients": _sum(connected, "idle_clients"),
        "idle_connect_s": round(max(number_of(c["idle_connect_s"]) for c in connected), 2),
        "idle_connected_at_end": _sum(results, "idle_connected_at_end"),
        "idle_disconnects": _sum(results, "idle_disconnects"),
        "idle_errors": _sum(results, "idle_errors"),
        "idle_codes": dict(codes),
        "idle_silent": _sum(results, "idle_silent"),
        "idle_lines": _sum(results, "idle_lines"),
        "idle_bytes": _sum(results, "idle_bytes"),
        "idle_lines_per_s": round(_sum(results, "idle_lines") / elapsed, 1),
        "idle_bytes_per_s": round(_sum(results, "idle_bytes") / elapsed, 1),
        "idle_lines_setup": _sum(results, "idle_lines_setup"),
        "idle_bytes_setup": _sum(results, "idle_bytes_setup"),
    }


async def _phase(workers: Sequence[_WorkerProcess], phase: str, timeout: float) -> list[JSONObject]:
    """Every worker's ``phase`` message; the first failure raised once all have answered or failed."""
    got = await asyncio.gather(*(wp.expect(phase, timeout) for wp in workers), return_exceptions=True)
    for item in got:
        if isinstance(item, BaseException):
            raise item
    return [item for item in got if not isinstance(item, BaseException)]


async def run_load(opts: LoadOptions) -> JSONObject:
    """One load run; returns the figures (see ``bench/README.md``, section load)."""
    seats = check_options(opts)
    groups = split_tables(opts.tables, opts.procs)
    idle_runs = split_count(opts.idle, opts.procs)
    server: ServerProcess | None = None
    watched: ServerProcess | _Watched | None = None  # the process whose CPU and memory are figures
    workers: list[_WorkerProcess] = []
    tmp = Path(tempfile.mkdtemp(prefix="donne-load-"))
    token = "".join("abdefghjkpqstxyz"[b % 16] for b in hashlib.sha256(f"{opts.seed}{time.time()}".encode()).digest()[:4])
    try:
        port = opts.port if opts.port is not None else (opts.ports[0] if opts.ports else None)
        if port is None:
            keys = opts.server_keys
            if opts.transport == "ws":  # the web port's /ws (docs/web.md)
                keys = (*keys, f"web_port = {free_port()}")
            server = await ServerProcess(profile=opts.profile, server_keys=keys).start()
            port = (server.ssh_port if opts.transport == "ssh" else _web_port(keys) if opts.transport == "ws"
                    else server.telnet_port)
        watched = server if server is not None else (None if opts.server_pid is None else _Watched(opts.server_pid))
        rss0 = watched.rss_mb() if watched else None
        cpu_start = watched.cpu_s() if watched else None
        parallel = max(1, -(-opts.connect_parallel // opts.procs))
        for w, group in enumerate(groups):
            spec = WorkerSpec(index=w, port=port, ports=list(opts.ports or []), spread=opts.spread, tables=group, seats=seats, host=opts.host,
                              transport=opts.transport, mccp=opts.mccp, game=opts.game, rules=opts.rules,
                              strategy=opts.strategy, seed=opts.seed, token=token, connect_parallel=parallel,
                              turn_seconds=opts.turn_seconds, think=opts.think, duration=opts.duration,
                              burn_ms=opts.test_burn_ms if w == 0 else 0.0, gc_freeze_seconds=opts.worker_gc_freeze,
                              event_loop=opts.worker_loop,
                              idle_first=idle_runs[w][0], idle=idle_runs[w][1],
                              profile=f"{Path(opts.profile_workers).resolve()}.{w}" if opts.profile_workers else None)
            workers.append(_WorkerProcess(spec, tmp / f"worker{w}.log"))
        for wp in workers:
            await wp.start()
        # connect (not measured)
        connected = await _phase(workers, "connected", SETUP_TIMEOUT + PHASE_SLACK)
        rss_connected = watched.rss_mb() if watched else None
        cpu_connected = watched.cpu_s() if watched else None
        # seat (not measured)
        t_setup = time.perf_counter()
        for wp in workers:
            wp.tell("seat")
        await _phase(workers, "ready", SETUP_TIMEOUT + PHASE_SLACK)
        setup_s = time.perf_counter() - t_setup
        # the measured window: every seat of every worker is at its table
        m0 = await _scrape(server)
        cpu0 = watched.cpu_s() if watched else None
        window0 = [proc_cpu_s(pid) for pid in opts.window_pids]
        t0 = time.perf_counter()
        for wp in workers:
            wp.tell("go")
        await asyncio.sleep(opts.duration)
        elapsed = time.perf_counter() - t0
        cpu1 = watched.cpu_s() if watched else None
        window1 = [proc_cpu_s(pid) for pid in opts.window_pids]
        m1 = await _scrape(server)
        results = await _phase(workers, "result", 30 + PHASE_SLACK)
        rss1 = watched.rss_mb() if watched else None
    finally:
        await asyncio.gather(*(wp.stop() for wp in workers), return_exceptions=True)
        if server is not None:
            await server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    latencies = [number_of(us) / 1e6 for r in results for us in items_in(r["latencies_us"])]
    per_worker = [{k: v for k, v in r.items() if k not in ("phase", "latencies_us")} for r in results]
    flagged = flag_workers(per_worker, opts.max_lag_ms, opts.max_worker_cpu)
    codes: Counter[str] = Counter()
    for r in results:
        codes.update(_counts(r["codes"]))
    actions = _sum(results, "actions")
    rounds = _sum(results, "rounds")
    moves = _sum(results, "card_moves")
    server_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    return {
        "clients": _sum(connected, "clients"),
        "connected_at_end": _sum(results, "connected_at_end"),
        "tables": opts.tables,
        "seats": seats,
        "game": opts.game,
        "rules": opts.rules if opts.game == "president" else None,
        "transport": opts.transport,
        "strategy": opts.strategy,
        "think_s": opts.think,
        "procs": opts.procs,
        "duration_s": round(elapsed, 2),
        "connect_s": round(max(number_of(c["connect_s"]) for c in connected), 2),
        "setup_s": round(setup_s, 2),
        "actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        **latency_figures(latencies, flagged),
        "matches": round(_sum(results, "matches"), 1),
        "rounds": round(rounds, 1),
        "rounds_per_s": round(rounds / elapsed, 2),
        "card_moves": round(moves),
        "lines_in_per_s": round(_sum(results, "received") / elapsed, 1),
        "lines_out_per_s": round(_sum(results, "sent") / elapsed, 1),
        "errors": _sum(results, "errors"),
        "refused": _sum(results, "refused"),
        "disconnects": _sum(results, "disconnects"),
        "codes": dict(codes),
        "client_cpu_s": round(_sum(results, "cpu_s"), 2),
        "client_cpu_ms_per_action": round(1000 * _sum(results, "cpu_s") / actions, 3) if actions else None,
        "worker_loop": opts.worker_loop,
        "server_rss_mb": None if rss1 is None else round(rss1, 1),
        "server_rss_start_mb": None if rss0 is None else round(rss0, 1),
        "server_rss_connected_mb": None if rss_connected is None else round(rss_connected, 1),
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
        "window_cpu_s": [_diff(b, a) for a, b in zip(window0, window1, strict=True)],
        "server_cpu_share": None if server_cpu is None else round(server_cpu / elapsed, 3),
        "server_cpu_connect_s": _diff(cpu_connected, cpu_start),
        "server_cpu_setup_s": _diff(cpu0, cpu_connected),
        "server_cpu_ms_per_action": None if server_cpu is None or not actions else round(1000 * server_cpu / actions, 3),
        # a round's work does not depend on how many of its moves the clients sent (P9: forced passes
        # are the server's own), so these compare servers whose rules differ there
        "server_cpu_ms_per_card_move": None if server_cpu is None or not moves else round(1000 * server_cpu / moves, 3),
        "server_cpu_ms_per_round": None if server_cpu is None or not rounds else round(1000 * server_cpu / rounds, 2),
        "server_side": _server_side(m0, m1),
        "server_sessions_logged_in": _gauge(m0, "donne_sessions_logged_in"),
        "server_sessions_logged_in_end": _gauge(m1, "donne_sessions_logged_in"),
        "idle": opts.idle,
        **idle_figures(connected, results, elapsed),
        "workers": per_worker,
        "thresholds": {"lag_p99_ms": opts.max_lag_ms, "worker_cpu_share": opts.max_worker_cpu},
        "flagged": flagged,
    }


def _ports(text: str) -> list[int]:
    try:
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("ports are numbers, comma separated") from None


def _web_port(keys: tuple[str, ...]) -> int:
    return int(next(k for k in reversed(keys) if k.startswith("web_port")).split("=")[1])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=8, help="wire bots (connections)")
    parser.add_argument("--tables", type=int, default=2, help="tables; seats per table = clients // tables")
    parser.add_argument("--game", default="president", choices=["president", "speculation"])
    parser.add_argument("--rules", default="classic", help="president rules: classic or tdc")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of play")
    parser.add_argument("--host", default="127.0.0.1", help="target host (loopback only)")
    parser.add_argument("--port", type=int, help="target a running server (telnet port, SSH with "
                                                  "--transport ssh, web with ws); default: start one")
    parser.add_argument("--server-pid", type=int, help="with --port: the server's process id, to include its "
                                                        "CPU and memory in the figures")
    parser.add_argument("--ports", type=_ports, help="target the running nodes of a cluster on these ports "
                                                      "(comma separated), instead of --port")
    parser.add_argument("--spread", default="table", choices=["table", "seat"],
                        help="with --ports: a whole table on one node (table), or its seats on different "
                             "nodes (seat: players across nodes)")
    parser.add_argument("--transport", default="tcp", choices=["tcp", "ssh", "ws"],
                        help="ws: the JSON protocol over the web port's WebSocket (/ws)")
    parser.add_argument("--mccp", action="store_true",
                        help="tcp: the bots ask for MCCP2, so the server compresses what it sends them")
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--seed", default="load")
    parser.add_argument("--connect-parallel", type=int, default=32, help="handshakes at once (all workers)")
    parser.add_argument("--turn-seconds", type=float, help="turn time of the rooms created")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a bot waits before each action (jittered 0.5x-1.5x); 0: as fast as the "
                             "server answers")
    parser.add_argument("--profile", help="cProfile the started server into this file")
    parser.add_argument("--worker-gc-freeze", type=float, default=1.0, metavar="SECONDS",
                        help="the workers' collector: freeze the heap this often (0: CPython's policy)")
    parser.add_argument("--worker-loop", choices=WORKER_LOOPS, default="auto",
                        help="the workers' event loop: asyncio (the standard one), uvloop, auto "
                             "(uvloop when installed); the started server keeps its own [server] event_loop")
    parser.add_argument("--server-key", action="append", default=[], metavar="'KEY = VALUE'", dest="server_keys",
                        help="a line of the started server's [server] section (TOML), e.g. 'gc_freeze_seconds = 0'")
    parser.add_argument("--profile-workers", metavar="PREFIX",
                        help="cProfile each load worker into PREFIX.N (its own cost, not the server's)")
    parser.add_argument("--procs", type=int, default=1,
                        help="worker processes the tables are spread over (each its own event loop)")
    parser.add_argument("--max-lag-ms", type=float, default=20.0,
                        help="flag a worker whose event-loop lag p99 is above this (its latencies are suspect)")
    parser.add_argument("--max-worker-cpu", type=float, default=0.85,
                        help="flag a worker busier than this share of its core")
    parser.add_argument("--idle", type=int, default=0, metavar="N",
                        help="N more connections (same transport, spread over the same workers) that log in as "
                             "guests, stay in the lobby the whole run receiving its news, and never play; opened "
                             "before the players; figures: idle_* (default 0)")
    parser.epilog = ("Prints one JSON object. Players' figures: clients, p50_ms ... max_ms (null when a worker "
                     "is flagged: see suspect_latency), setup_s, actions_per_s, server_cpu_ms_per_action, "
                     "workers, flagged. With --idle: idle_clients, idle_connected_at_end, idle_disconnects, "
                     "idle_errors (idle_codes), idle_lines / idle_bytes (received in the measured window; "
                     "_per_s, and _setup before it), idle_silent (idle connections that heard nothing), and "
                     "server_sessions_logged_in (the started server's count at the window's start: players "
                     "+ idle). See bench/README.md, section load.")
    parser.add_argument("--gmcp", action="store_true",
                        help="the players are text sessions over telnet that take GMCP and decide from its "
                             "Donne.Table/Donne.Hand packages, typing their moves (Président; see docs/gmcp.md)")
    parser.add_argument("--text", action="store_true",
                        help="the same text players refusing GMCP, playing from the text on the screen "
                             "(the comparison for --gmcp: the same moves, GMCP off)")
    parser.add_argument("--test-burn-ms", type=float, default=0.0, help=argparse.SUPPRESS)  # tests only


def options(args: argparse.Namespace) -> LoadOptions:
    """The run's options from the command line (:func:`add_arguments`)."""
    fields = {k: v for k, v in vars(args).items() if k in LoadOptions.__dataclass_fields__}
    return LoadOptions(**{**fields, "server_keys": tuple(fields.get("server_keys", ()))})
