"""One worker process of ``donne load``: its share of the tables, on its own asyncio loop.

    python -m clients.loadworker SPEC_JSON      (started by ``donne load``, never by hand)

The parent (:mod:`clients.load`) gives each worker whole tables (a
table's seats share a room future and a barrier, so they live in one
process) and drives it through three phases, one line each way:

* the worker opens its idle connections (``idle``, :mod:`clients.idle`:
  logged in, left in the lobby, never playing), connects its clients and
  writes ``{"phase": "connected", ...}``;
* on the line ``seat`` it seats them (the first seat of a table ``create``s the
  room, the others ``join``), lets them play, and writes ``{"phase": "ready"}``
  once every seat is at its table;
* on the line ``go`` the measured window starts: ``duration`` seconds of play,
  then ``{"phase": "result", ...}`` with the window's figures (the idle
  connections' apart, ``idle_*``); at the end of its stdin (the parent has
  read the server's figures) the worker closes its clients and exits.

A missing line (the parent gone: end of stdin) ends the worker. Every wait
is bounded. Besides the play figures the worker measures itself: the CPU it
used in the window (its share of one core) and the lag of its event loop
(:class:`~clients.figures.LagMonitor`), so the parent can tell when
the load generator, not the server, made the latencies.

``burn_ms`` is for tests only: the worker then blocks its own loop that
many milliseconds every 100 ms of the window, a deliberately busy worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import importlib.util
import json
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from clients.client import Client
from clients.common import Deadline
from clients.errors import ClientError
from clients.figures import LagMonitor, self_cpu_s, summarize_ms
from clients.idle import IdleConnection
from clients.jsontypes import JSONObject
from clients.wirebot import WireBot, WireStats

SETUP_TIMEOUT = 180.0
"""Seconds allowed to seat every client (connections, creates and joins are not measured)."""

LAG_INTERVAL = 0.01
"""Seconds between two ticks of the lag timer."""

RESULT_HOLD = 60.0
"""Seconds a worker keeps its connections open after its result, until the parent closes its stdin."""

BURN_PERIOD = 0.1
"""With ``burn_ms`` (tests): the loop is blocked ``burn_ms`` out of every ``BURN_PERIOD`` seconds."""

LOBBY_NEWS = ("room_created", "room_closed")
"""Pushed events the bots never read (:meth:`Client.skip_events`): counted, not parsed."""



DISTINCT_LETTERS = "abdefghjkpqstxyz"
"""Letters no two of which look alike, nor form look-alikes together (no digits: 6 and 8 look alike)."""


WORKER_LOOPS = ("asyncio", "uvloop", "auto")
"""A worker's event loop: the standard one, uvloop (a dependency, not on Windows), uvloop when installed."""


def uvloop_installed() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop factory of ``name`` (:data:`WORKER_LOOPS`; ``None``: the standard loop). As the
    server's ``[server] event_loop`` (``server/start/app.py``, not imported: the tools import nothing of the
    server); ``uvloop`` when it is not installed is an error (``donne load`` refuses it first)."""
    if name == "asyncio" or (name == "auto" and not uvloop_installed()):
        return None
    import uvloop  # type: ignore[import-not-found,unused-ignore]

    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def distinct(n: int) -> str:
    """``n`` written in :data:`DISTINCT_LETTERS`: load clients' names never look like each other."""
    out = ""
    while True:
        out = DISTINCT_LETTERS[n % 16] + out
        n //= 16
        if n == 0:
            return out

@dataclass
class WorkerSpec:
    """What one worker plays: its tables (global indices), their seats, the target, the bots' settings."""

    index: int
    port: int
    tables: list[int]
    seats: int
    host: str = "127.0.0.1"
    transport: str = "tcp"
    mccp: bool = False
    """The bots ask for MCCP2 (``donne load --mccp``): the server compresses what it sends them."""
    game: str = "president"
    rules: str = "classic"
    strategy: str = "greedy"
    seed: str = "load"
    token: str = "0000"
    connect_parallel: int = 32
    turn_seconds: float | None = None
    think: float = 0.0
    duration: float = 10.0
    lag_interval: float = LAG_INTERVAL
    burn_ms: float = 0.0
    gc_freeze_seconds: float = 1.0
    """The worker's collector policy (:class:`_Collector`); 0: CPython's."""
    event_loop: str = "asyncio"
    """The worker's event loop (:data:`WORKER_LOOPS`, :func:`loop_factory`)."""
    profile: str | None = None
    """cProfile this worker into that file (``donne load --profile-workers``)."""
    ports: list[int] = field(default_factory=list)
    """Several nodes of a cluster (empty: ``port`` alone); ``spread`` says which seat goes where."""
    spread: str = "table"
    idle: int = 0
    """Idle connections of this worker (``donne load --idle``): in the lobby for the whole run, never playing."""
    idle_first: int = 0
    """The run-wide index of this worker's first idle connection (their names are unique across workers)."""

    def port_for(self, table: int, seat: int) -> int:
        """The port seat ``seat`` of table ``table`` connects to: with several nodes, ``table`` spread puts
        a whole table on one node (table ``t`` on node ``t % n``), ``seat`` spread puts the seats of a
        table on different nodes (seat ``s`` on node ``(t + s) % n``: players across nodes)."""
        if not self.ports:
            return self.port
        n = len(self.ports)
        return self.ports[(table + (seat if self.spread == "seat" else 0)) % n]

    def idle_port(self, k: int) -> int:
        """The port of the run's ``k``-th idle connection: the nodes of a cluster in turn."""
        return self.ports[k % len(self.ports)] if self.ports else self.port

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerSpec:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a worker spec is a JSON object")
        return cls(**data)


@dataclass
class _Table:
    """The seats of one table; the first seat creates each match's room, the others join it."""

    index: int
    seats: int
    room: asyncio.Future[str] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    barrier: asyncio.Barrier = field(init=False)

    def __post_init__(self) -> None:
        self.barrier = asyncio.Barrier(self.seats)


class LoadWorker:
    """The clients and bots of one worker, and the figures of its measured window."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.stats = WireStats()
        self.clients: list[Client | None] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.deadline = Deadline()
        self.monitor = LagMonitor(asyncio.get_running_loop(), spec.lag_interval)
        self.connect_failures = 0
        self.idle: list[IdleConnection] = []
        self.idle_failures: Counter[str] = Counter()
        """Idle connections that could not open or log in, by ``connect:Type`` or ``login:code``."""
        self._burn: asyncio.TimerHandle | None = None

    @property
    def connected(self) -> list[Client]:
        return [c for c in self.clients if c is not None]

    # -- phase 1: connect -------------------------------------------------------

    async def _connect_one(self, name: str, port: int) -> Client:
        spec = self.spec
        if spec.transport == "ssh":
            client = await Client.connect_ssh(spec.host, port, name, timeout=60)
        else:
            if spec.transport == "ws":
                client = await Client.connect_ws(f"ws://{spec.host}:{port}/ws", timeout=60)
            else:
                client = await Client.connect_tcp(spec.host, port, timeout=60, pushed=True, mccp=spec.mccp)
            try:
                await client.login(name)
            except BaseException:
                await client.close()
                raise
        client.skip_events(*LOBBY_NEWS)
        return client

    async def _connect_idle(self, name: str, port: int) -> IdleConnection:
        spec = self.spec
        if spec.transport == "ssh":
            return await IdleConnection.connect_ssh(spec.host, port, name, timeout=60)
        return await IdleConnection.connect_tcp(spec.host, port, name, timeout=60)

    async def connect(self) -> JSONObject:
        """The idle connections first (they are in the lobby before any table opens), then the clients."""
        self.monitor.start()
        spec = self.spec
        sem = asyncio.Semaphore(max(1, spec.connect_parallel))

        async def idle_one(k: int) -> IdleConnection | None:
            async with sem:
                try:
                    return await self._connect_idle(f"I{spec.token}-{distinct(k)}", spec.idle_port(k))
                except ClientError as exc:  # a refusal of the login (or a time-out): a figure
                    self.idle_failures[f"login:{exc.code}"] += 1
                except Exception as exc:  # any failure to connect is a figure, not a crash
                    self.idle_failures[f"connect:{type(exc).__name__}"] += 1
                return None

        t_idle = time.perf_counter()
        if spec.idle:
            got = await asyncio.gather(*(idle_one(spec.idle_first + k) for k in range(spec.idle)))
            self.idle = [c for c in got if c is not None]
        idle_connect_s = time.perf_counter() - t_idle

        async def one(table: int, seat: int) -> Client | None:
            async with sem:
                try:
                    return await self._connect_one(f"L{spec.token}-{distinct(table)}-{distinct(seat)}",
                                                   spec.port_for(table, seat))
                except Exception as exc:  # any failure to connect is a figure, not a crash
                    self.connect_failures += 1
                    self.stats.codes[f"connect:{type(exc).__name__}"] += 1
                    return None

        t0 = time.perf_counter()
        self.clients = list(await asyncio.gather(*(one(t, s) for t in spec.tables for s in range(spec.seats))))
        return {"clients": len(self.connected), "connect_failures": self.connect_failures,
                "connect_s": round(time.perf_counter() - t0, 3), "idle_clients": len(self.idle),
                "idle_connect_failures": sum(self.idle_failures.values()),
                "idle_connect_s": round(idle_connect_s, 3)}

    # -- phase 2: seat ----------------------------------------------------------

    async def seat(self) -> JSONObject:
        spec = self.spec
        expected = len(self.connected)
        all_ready = asyncio.Event()
        ready_count = 0

        def ready() -> None:
            nonlocal ready_count
            ready_count += 1
            if ready_count >= expected:
                all_ready.set()

        t0 = time.perf_counter()
        for k, t in enumerate(spec.tables):
            table = _Table(t, spec.seats)
            for s in range(spec.seats):
                client = self.clients[k * spec.seats + s]
                if client is None:
                    continue  # the table waits for a seat that never comes: its other seats idle
                bot = WireBot(client, spec.strategy, f"{spec.seed}/{t}/{s}".encode(), self.stats,
                              idle_timeout=SETUP_TIMEOUT + spec.duration, think=spec.think)
                self.tasks.append(asyncio.create_task(self._seat_loop(table, s, client, bot, ready)))
        if expected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(all_ready.wait(), SETUP_TIMEOUT)
        return {"seated": ready_count, "setup_s": round(time.perf_counter() - t0, 3)}

    async def _seat_loop(self, table: _Table, seat: int, client: Client, bot: WireBot,
                         ready: Callable[[], None]) -> None:
        """Seat ``client`` at ``table`` and play matches until the deadline (a new room for each match).

        ``ready()`` is called once the first seating was tried: the measured window
        starts when every seat is at its table, so the set-up is not in the figures.
        """
        spec, stats, deadline = self.spec, self.stats, self.deadline
        create: JSONObject = {"game": spec.game, "seats": table.seats}
        if spec.game == "president":
            create["rules"] = spec.rules
        if spec.turn_seconds:
            create["turn_seconds"] = spec.turn_seconds
        first = True
        try:
            while time.perf_counter() < deadline.at:
                client.clear_pushes()
                timeout = SETUP_TIMEOUT if first else deadline.remaining()
                try:
                    if seat == 0:
                        reply = await client.request("create", timeout=timeout, **create)
                        room = str(reply["room"])
                        table.room.set_result(room)
                    else:
                        room = await asyncio.wait_for(asyncio.shield(table.room), timeout)
                        await client.request("join", room=room, timeout=timeout)
                except TimeoutError:  # ClientTimeout included
                    if not first:
                        return  # the wait was cut at the end of the measured window: not an error
                    stats.error("setup_timeout")
                    return
                except ClientError as exc:
                    stats.error("setup_" + exc.code)
                    return
                bot.room = room
                client.send("state")
                if first:
                    first = False
                    ready()
                result = await bot.play(deadline, matches=1)
                if result != "over":
                    return
                # a new room for the next match, once every seat of this one is done
                with contextlib.suppress(ClientError):
                    await client.request("leave")
                try:
                    await asyncio.wait_for(table.barrier.wait(), deadline.remaining())
                    if seat == 0:
                        table.room = asyncio.get_running_loop().create_future()
                    await asyncio.wait_for(table.barrier.wait(), deadline.remaining())
                except (TimeoutError, asyncio.BrokenBarrierError):
                    return
        finally:
            if first:
                ready()

    # -- phase 3: the measured window -----------------------------------------------

    def _start_burn(self) -> None:
        loop = asyncio.get_running_loop()
        burn_s = self.spec.burn_ms / 1000

        def burn() -> None:
            end = time.perf_counter() + burn_s
            while time.perf_counter() < end:  # a busy loop: this worker's loop is blocked meanwhile
                pass
            self._burn = loop.call_later(max(0.0, BURN_PERIOD - burn_s), burn)

        self._burn = loop.call_later(0, burn)

    async def measure(self) -> JSONObject:
        """Play ``duration`` seconds from now; the figures of that window."""
        spec, stats = self.spec, self.stats
        clients = self.connected
        received0 = sum(c.received for c in clients)
        sent0 = sum(c.sent for c in clients)
        actions0, lat0, matches0, refused0 = stats.actions, len(stats.latencies), stats.matches, stats.refused
        rounds0, moves0 = stats.rounds, stats.card_moves
        idle_lines0, idle_bytes0 = self._idle_received()
        if spec.burn_ms > 0:
            self._start_burn()
        self.monitor.reset()
        cpu0 = self_cpu_s()
        t0 = time.perf_counter()
        self.deadline.at = t0 + spec.duration
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=spec.duration + 30)
        else:
            await asyncio.sleep(spec.duration)
        elapsed = max(1e-9, min(time.perf_counter(), self.deadline.at) - t0)
        cpu = self_cpu_s() - cpu0
        lag = self.monitor.summary()
        idle_lines, idle_bytes = self._idle_received()
        self._count_crashes()
        if self._burn is not None:
            self._burn.cancel()
        latencies = stats.latencies[lat0:]
        return {
            "worker": spec.index,
            "clients": len(clients),
            "tables": len(spec.tables),
            "elapsed_s": round(elapsed, 3),
            "actions": stats.actions - actions0,
            "latencies_us": [round(x * 1e6) for x in latencies],
            "matches": (stats.matches - matches0) / spec.seats,  # each bot of a table sees its end
            "rounds": (stats.rounds - rounds0) / spec.seats,  # every seat sees a round end, and every move
            "card_moves": (stats.card_moves - moves0) / spec.seats,
            "received": sum(c.received for c in clients) - received0,
            "sent": sum(c.sent for c in clients) - sent0,
            "errors": stats.errors + self.connect_failures,  # set-up failures included
            "refused": stats.refused - refused0,
            "disconnects": sum(1 for c in clients if c.closed.is_set()),
            "connected_at_end": sum(1 for c in clients if not c.closed.is_set()),
            "codes": dict(stats.codes),
            "cpu_s": round(cpu, 3),
            "cpu_share": round(cpu / elapsed, 3),
            **lag,
            **summarize_ms(latencies),
            **self._idle_figures(idle_lines0, idle_bytes0, idle_lines, idle_bytes),
        }

    def _idle_received(self) -> tuple[int, int]:
        """Lines and bytes all idle connections received so far (since their logins)."""
        return sum(c.counter.lines for c in self.idle), sum(c.counter.bytes for c in self.idle)

    def _idle_figures(self, lines0: int, bytes0: int, lines1: int, bytes1: int) -> JSONObject:
        """The idle connections' figures: the window's lines and bytes (``idle_lines``, ``idle_bytes``),
        those from their logins to the window (``idle_lines_setup``, ``idle_bytes_setup``: mostly the news
        of the tables opened by the seating), and how they ended."""
        codes = Counter(self.idle_failures)
        replies = sum(c.counter.errors for c in self.idle)
        if replies:
            codes["error_reply"] += replies
        return {
            "idle_clients": len(self.idle),
            "idle_lines": lines1 - lines0,
            "idle_bytes": bytes1 - bytes0,
            "idle_lines_setup": lines0,
            "idle_bytes_setup": bytes0,
            "idle_silent": sum(1 for c in self.idle if not c.counter.lines),
            "idle_errors": sum(codes.values()),
            "idle_codes": dict(codes),
            "idle_disconnects": sum(1 for c in self.idle if c.dropped),
            "idle_connected_at_end": sum(1 for c in self.idle if not c.closed),
        }

    def _count_crashes(self) -> None:
        """A seat whose task died of an exception is an error (``crash:Type``), its traceback on stderr."""
        for task in self.tasks:
            if task.done() and not task.cancelled() and (exc := task.exception()) is not None:
                self.stats.error(f"crash:{type(exc).__name__}")
                traceback.print_exception(exc, file=sys.stderr)

    async def close(self) -> None:
        if self._burn is not None:
            self._burn.cancel()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in self.connected), return_exceptions=True)
        for idle in self.idle:
            idle.close()
        self.monitor.stop()


# ---------------------------------------------------------------------------
# the process: lines in on stdin, JSON lines out on stdout


def _send(msg: JSONObject) -> None:
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def _open_stdin() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def _expect(inbox: asyncio.StreamReader, word: str) -> bool:
    line = await inbox.readline()
    if line.strip() == word.encode():
        return True
    if line:
        print(f"load worker: expected {word!r}, got {line[:80]!r}", file=sys.stderr)
    return False


class _Collector:
    """The server's collector policy (``server/operations/gcpolicy.py``, not imported: the tools import nothing of
    the server) in short: thousands of clients are a heap whose full collections (a second each)
    stopped this loop, and the late reads were counted as the server's latency. Every ``seconds`` the
    heap is frozen as it is, without a collection (a young collection of objects scattered over a big
    heap stopped the loop for tens of milliseconds); young collections after 100,000 allocations, only
    in bursts. A worker lives for one run: no full collection."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.threshold = gc.get_threshold()
        self.timer: asyncio.TimerHandle | None = None
        if seconds > 0:
            gc.collect()
            gc.freeze()
            gc.set_threshold(100000, *self.threshold[1:])
            self.timer = asyncio.get_running_loop().call_later(seconds, self._freeze)

    def _freeze(self) -> None:
        gc.freeze()
        self.timer = asyncio.get_running_loop().call_later(self.seconds, self._freeze)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
            gc.unfreeze()
            gc.set_threshold(*self.threshold)


async def worker_main(spec: WorkerSpec) -> int:
    inbox = await _open_stdin()
    worker = LoadWorker(spec)
    collector = _Collector(spec.gc_freeze_seconds)
    try:
        _send({"phase": "connected", **await worker.connect()})
        if not await _expect(inbox, "seat"):
            return 1
        _send({"phase": "ready", **await worker.seat()})
        if not await _expect(inbox, "go"):
            return 1
        _send({"phase": "result", **await worker.measure()})
        # the connections stay open until the parent has read the server's figures of the window's
        # end (its sessions, players + idle): it then closes this worker's stdin
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inbox.readline(), RESULT_HOLD)
    finally:
        collector.stop()
        await worker.close()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m clients.loadworker SPEC_JSON (started by donne load)", file=sys.stderr)
        return 2
    try:
        spec = WorkerSpec.from_json(argv[0])
    except (ValueError, TypeError) as exc:
        print(f"load worker: bad spec: {exc}", file=sys.stderr)
        return 2
    profiler = None
    if spec.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    try:
        with asyncio.Runner(loop_factory=loop_factory(spec.event_loop)) as runner:
            return runner.run(worker_main(spec))
    except BrokenPipeError:  # the parent is gone
        return 1
    finally:
        if profiler is not None and spec.profile:
            profiler.disable()
            profiler.dump_stats(spec.profile)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
