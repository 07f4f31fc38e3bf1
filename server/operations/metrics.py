"""What an operator watches: every metric of the server, registered here and nowhere else.

The rest of the server never imports ``prometheus_client``: it calls the small
functions below (:func:`rate_limited`, :func:`queue_drop`, ...), and counts of
live things (connections, sessions, rooms) are read at scrape time from the
running servers by :class:`LiveCollector`, so nothing has to be kept in step.

**Server-side latency.** :func:`command` opens a :class:`Stamp` when a
command's line has been read; every line a session queues while the command is
handled (its reply, the states and events it causes at every seat, in the
room's task too: :meth:`server.rooms.room.Room.submit` carries the stamp along)
holds the stamp until the session's writer has written it. When the command is
handled and its last line written, the time since reading the line goes into
``donne_command_seconds``. Lines queued once the command is done (a bot's
answer a second later, a turn timer) are not its own.

**Event-loop lag**: :class:`LoopWatch` runs a timer every ``LAG_INTERVAL``
seconds; how late it runs goes into ``donne_loop_lag_seconds``.

**Garbage-collector pauses** (:func:`watch_gc`): every collection, by generation, in
``donne_gc_pause_seconds``.

**The endpoint** (:func:`serve`) is a tiny asyncio HTTP/1.0 handler on the
server's own loop (no thread): ``GET /metrics`` answers
``prometheus_client.generate_latest``, anything else 404.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import contextvars
import gc
import time
import weakref
from collections import Counter as _Tally
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: the process start says as much, and scrapes halve

REGISTRY = CollectorRegistry(auto_describe=True)
"""The server's own registry (not the library's global one: no process or platform collectors by
surprise, and tests may start several servers in one process: the counters are the process's)."""

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_INTERVAL = 0.1
"""Seconds between two event-loop lag samples."""

_LAG = Histogram("donne_loop_lag_seconds", f"How late a {LAG_INTERVAL} s event-loop timer runs",
                 buckets=LATENCY_BUCKETS, registry=REGISTRY)
_DROPS = Counter("donne_outbound_dropped", "Lines refused by a full outbound queue (the client is then cut)",
                 registry=REGISTRY)
_SLOW = Counter("donne_slow_disconnects", "Clients cut for not reading: queue_full or drain_timeout",
                ["reason"], registry=REGISTRY)
_RATE = Counter("donne_rate_limited", "Commands refused by a session's rate limit", registry=REGISTRY)
_COMMIT = Histogram("donne_ledger_commit_seconds", "One store.apply: chip movements in one transaction",
                    buckets=LATENCY_BUCKETS, registry=REGISTRY)
_DB_ERRORS = Counter("donne_db_errors", "Transactions the database failed (not refusals such as "
                     "insufficient chips)", registry=REGISTRY)

_GC = Histogram("donne_gc_pause_seconds", "Garbage-collector pauses, by generation (the whole loop stops)",
                 ["generation"], buckets=LATENCY_BUCKETS, registry=REGISTRY)

_SLOW_BY = {reason: _SLOW.labels(reason) for reason in ("queue_full", "drain_timeout")}  # labels() looked up once
_GC_BY = {str(gen): _GC.labels(str(gen)) for gen in range(3)}


# -- what callers count ---------------------------------------------------------------------------

def rate_limited() -> None:
    _RATE.inc()


def queue_drop() -> None:
    """A line refused by a full outbound queue; the client is cut as too slow."""
    _DROPS.inc()
    _SLOW_BY["queue_full"].inc()


def drain_timeout() -> None:
    _SLOW_BY["drain_timeout"].inc()


def ledger_commit(seconds: float) -> None:
    _COMMIT.observe(seconds)


def db_error() -> None:
    _DB_ERRORS.inc()


# -- server-side latency ----------------------------------------------------------------------------

_KINDS = ("action", "other")
_COMMANDS_HELP = "Commands run, by kind: action (a move at a table) or other"
_ACTIONS_HELP = "Moves at a table (play, pass, cut, give, bid, offer, ...): rate() of it is the actions per second"
_LATENCY_HELP = "From reading a command's line to writing the last line it caused, to every session it reached"


class _Latency:
    """``donne_commands``, ``donne_actions`` and ``donne_command_seconds`` as plain numbers, exposed at
    scrape time (:class:`CommandCollector`) exactly as ``prometheus_client``'s Counter and Histogram
    would: counting them here is a few additions per command instead of a dozen library calls
    (locks, label checks, exemplars) on every command's way."""

    __slots__ = ("buckets", "commands", "sums")

    def __init__(self) -> None:
        self.commands = {kind: 0 for kind in _KINDS}  # donne_commands{kind}; "action" is donne_actions
        self.buckets = {kind: [0] * (len(LATENCY_BUCKETS) + 1) for kind in _KINDS}  # per bucket, +Inf last
        self.sums = {kind: 0.0 for kind in _KINDS}

    def observe(self, kind: str, seconds: float) -> None:
        self.buckets[kind][bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1  # le: the first bound >= it
        self.sums[kind] += seconds


_FIGURES = _Latency()
_BOUNDS = [floatToGoString(b) for b in LATENCY_BUCKETS] + ["+Inf"]  # type: ignore[no-untyped-call]


class CommandCollector(Collector):
    """The three figures of :class:`_Latency`, in the library's own exposition of a Counter with a
    ``kind`` label, a Counter without labels and a Histogram with ``LATENCY_BUCKETS``."""

    def collect(self) -> Iterable[Metric]:
        figures = _FIGURES
        commands = CounterMetricFamily("donne_commands", _COMMANDS_HELP, labels=["kind"])
        for kind in _KINDS:
            commands.add_metric([kind], float(figures.commands[kind]))
        yield commands
        yield CounterMetricFamily("donne_actions", _ACTIONS_HELP, value=float(figures.commands["action"]))
        latency = HistogramMetricFamily("donne_command_seconds", _LATENCY_HELP, labels=["kind"])
        bounds = _BOUNDS
        for kind in _KINDS:
            total = 0
            cumulative = []
            for bound, n in zip(bounds, figures.buckets[kind], strict=True):
                total += n
                cumulative.append((bound, float(total)))
            latency.add_metric([kind], cumulative, figures.sums[kind])
        yield latency


REGISTRY.register(CommandCollector())


class Stamp:
    """One command being handled: when its line was read, and what still holds it (the handling
    itself, the room's, every line queued for it and not yet written).

    It is its own context (``with metrics.command(...)``): current inside, released at the end."""

    __slots__ = ("done", "holds", "kind", "t0", "token")

    def __init__(self, kind: str, t0: float) -> None:
        self.kind = kind
        self.t0 = t0
        self.holds = 1
        self.done = False
        self.token: contextvars.Token[Stamp | None] | None = None

    def hold(self) -> None:
        self.holds += 1

    def release(self) -> None:
        self.holds -= 1
        if self.holds == 0:
            self.done = True
            _FIGURES.observe(self.kind, time.perf_counter() - self.t0)

    def __enter__(self) -> Stamp:
        self.token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _CURRENT.reset(self.token)
            self.token = None
        self.release()


_CURRENT: contextvars.ContextVar[Stamp | None] = contextvars.ContextVar("donne_command", default=None)


def current() -> Stamp | None:
    """The command whose handling is running here, if it still takes lines (see :func:`line_queued`)."""
    stamp = _CURRENT.get()
    return None if stamp is None or stamp.done else stamp


def command(action: bool, t0: float | None = None) -> Stamp:
    """Handling one command (read at ``t0``, :func:`time.perf_counter`; default now): ``with`` it."""
    kind = "action" if action else "other"
    _FIGURES.commands[kind] += 1
    return Stamp(kind, time.perf_counter() if t0 is None else t0)


class _Handling:
    """See :func:`handling`."""

    __slots__ = ("stamp", "token")

    def __init__(self, stamp: Stamp) -> None:
        self.stamp = stamp
        self.token: contextvars.Token[Stamp | None] | None = None

    def __enter__(self) -> None:
        self.token = _CURRENT.set(self.stamp)

    def __exit__(self, *exc: object) -> None:
        if self.token is not None:
            _CURRENT.reset(self.token)
            self.token = None
        self.stamp.release()


_NOT_HANDLING = contextlib.nullcontext()


def handling(stamp: Stamp | None) -> contextlib.AbstractContextManager[None]:
    """The room's task handling an item that ``stamp``'s command queued (taken with :func:`current`
    and held at submission): its lines belong to the command."""
    return _NOT_HANDLING if stamp is None else _Handling(stamp)


def line_queued_to(held: collections.deque[tuple[int, Stamp]], line: int) -> None:
    """A session queued its line number ``line``; ``held``: its ``(last line, stamp)`` entries, in
    order, each released once that line is written.

    The command the line belongs to, if any, is held until it is written: one entry (one hold)
    for a run of lines of the same command, moved on to its last line, rather than one per line.
    """
    stamp = _CURRENT.get()
    if stamp is None or stamp.done:
        return
    if held and held[-1][1] is stamp:
        held[-1] = (line, stamp)  # (written in order: its last line is the one to wait for)
    else:
        stamp.holds += 1
        held.append((line, stamp))


def line_queued() -> Stamp | None:
    """A session queued a line: the command it belongs to, held until :meth:`Stamp.release` once it
    is written (None: no command)."""
    stamp = _CURRENT.get()
    if stamp is None or stamp.done:
        return None
    stamp.holds += 1
    return stamp


# -- event-loop lag -------------------------------------------------------------------------------

class LoopWatch:
    """A timer every ``interval`` s on the running loop; how late each one runs is the loop's lag."""

    def __init__(self, interval: float = LAG_INTERVAL) -> None:
        self.loop = asyncio.get_running_loop()
        self.interval = interval
        self.due = self.loop.time() + interval
        self.handle = self.loop.call_at(self.due, self._tick)

    def _tick(self) -> None:
        now = self.loop.time()
        _LAG.observe(max(0.0, now - self.due))
        self.due = now + self.interval
        self.handle = self.loop.call_at(self.due, self._tick)

    def stop(self) -> None:
        self.handle.cancel()


# -- garbage-collector pauses -----------------------------------------------------------------------

_gc_started = [0.0]


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        child = _GC_BY.get(str(info.get("generation")))
        if child is not None:
            child.observe(time.perf_counter() - _gc_started[0])


def watch_gc() -> None:
    """Time every collection of this process into ``donne_gc_pause_seconds`` (once per process)."""
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)


# -- live counts, read at scrape time ---------------------------------------------------------------

class _Named(Protocol):
    @property
    def kind(self) -> str: ...


class _Mode(Protocol):
    @property
    def mode(self) -> str: ...


class _Session(Protocol):
    @property
    def conn(self) -> _Named: ...
    @property
    def presenter(self) -> _Mode: ...
    @property
    def logged_in(self) -> bool: ...


class _Options(Protocol):
    @property
    def game(self) -> str: ...
    @property
    def rules(self) -> str: ...


class _Table(Protocol):
    @property
    def opts(self) -> _Options: ...
    @property
    def status(self) -> str: ...


class _Room(Protocol):
    @property
    def table(self) -> _Table: ...


class _Rooms(Protocol):
    @property
    def rooms(self) -> Mapping[str, _Room]: ...


class Watched(Protocol):
    """What a scrape counts of a running server: its sessions and its lobby's rooms."""

    @property
    def sessions(self) -> Collection[_Session]: ...
    @property
    def lobby(self) -> _Rooms: ...


_SERVERS: weakref.WeakSet[Watched] = weakref.WeakSet()


def watch_server(running: Watched) -> None:
    """Count this running server's connections, sessions and rooms at every scrape."""
    _SERVERS.add(running)


def forget_server(running: Watched) -> None:
    _SERVERS.discard(running)


class LiveCollector(Collector):
    """Gauges of live things: connections by transport and mode, sessions logged in, rooms by game,
    rules and status (``running.sessions``, ``running.lobby.rooms``)."""

    def collect(self) -> Iterable[Metric]:
        conns: _Tally[tuple[str, str]] = _Tally()
        logged = 0
        rooms: _Tally[tuple[str, str, str]] = _Tally()
        for running in list(_SERVERS):
            for session in list(running.sessions):
                conns[session.conn.kind, session.presenter.mode] += 1
                logged += bool(session.logged_in)
            for room in list(running.lobby.rooms.values()):
                opts = room.table.opts
                rooms[opts.game, opts.rules, room.table.status] += 1
        c = GaugeMetricFamily("donne_connections", "Open connections by transport and mode",
                              labels=["transport", "mode"])
        for (transport, mode), n in sorted(conns.items()):
            c.add_metric([transport, mode], n)
        yield c
        yield GaugeMetricFamily("donne_sessions_logged_in", "Sessions logged in", value=logged)
        r = GaugeMetricFamily("donne_rooms", "Open rooms by game, rules and status",
                              labels=["game", "rules", "status"])
        for (game, rules, status), n in sorted(rooms.items()):
            r.add_metric([game, rules, status], n)
        yield r


REGISTRY.register(LiveCollector())


def scrape() -> bytes:
    """The Prometheus text exposition of every metric now."""
    return generate_latest(REGISTRY)


# -- the endpoint ---------------------------------------------------------------------------------

MAX_SCRAPES = 16
"""Connections the endpoint holds at once (each for at most 5 s); more are closed at once: silent
connections by the thousand must not take the file descriptors the players' connections need."""

_open_scrapes = 0


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One scrape: ``GET /metrics`` (or ``HEAD``) gets the exposition; any other path 404; a request
    line or header past the reader's limit (64 KiB) 431; then the connection closes. Beyond
    :data:`MAX_SCRAPES` connections at once, a new one is closed unanswered."""
    global _open_scrapes
    if _open_scrapes >= MAX_SCRAPES:
        writer.close()
        return
    _open_scrapes += 1
    try:
        await _scrape(reader, writer)
    finally:
        _open_scrapes -= 1


async def _scrape(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        parts: list[str] = []
        try:
            async with asyncio.timeout(5):
                request = await reader.readline()
                while (await reader.readline()).strip():  # the headers: not needed
                    pass
        except ValueError:  # a line past the limit (asyncio's LimitOverrunError): answered, never raised
            body, status, kind = b"request header too large\n", "431 Request Header Fields Too Large", _TEXT
        else:
            parts = request.decode("latin-1").split()
            path = parts[1].split("?")[0] if len(parts) >= 2 else ""
            if len(parts) >= 2 and parts[0] in ("GET", "HEAD") and path == "/metrics":
                body, status, kind = scrape(), "200 OK", CONTENT_TYPE_LATEST
            else:
                body, status, kind = b"not found\n", "404 Not Found", _TEXT
        head = f"HTTP/1.0 {status}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode("latin-1") + (b"" if parts[:1] == ["HEAD"] else body))
        await writer.drain()
    except (TimeoutError, ConnectionError, OSError, UnicodeError):
        pass
    finally:
        writer.close()


_TEXT = "text/plain; charset=utf-8"


async def serve(host: str, port: int) -> asyncio.Server:
    """Listen for scrapes on ``host:port`` (``port`` > 0; the configuration's ``[metrics]``)."""
    return await asyncio.start_server(_answer, host, port)
