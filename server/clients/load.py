"""``donne load``: many wire bots against one server, one JSON object of figures.

    donne load --clients 1000 --tables 250 --game president --rules classic --duration 60

Without ``--port`` it starts the real ``donne serve`` in a subprocess
(:class:`~server.clients.serverproc.ServerProcess`: free ports, a temporary
data folder, limits raised for one address and no pause between rounds),
learns its ports from the server's ready file and reads its memory and CPU
from ``/proc``.
With ``--host/--port`` it targets a running server (loopback only).

The tables are filled with wire bots (:mod:`server.clients.wirebot`) that answer every
decision as soon as its state arrives. The latency of an action is the time
from sending it to receiving the next ``state`` push on the same connection.
When a table's match ends, its bots open a new room and play on until the
duration is over. Everything stops by itself: bounded duration, bounded
connection and request time-outs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from server.clients.common import Deadline, check_loopback
from server.clients.figures import self_cpu_s, summarize_ms
from server.clients.serverproc import ServerProcess

SETUP_TIMEOUT = 180.0
"""Seconds allowed to seat every client (connections, creates and joins are not measured)."""

# ---------------------------------------------------------------------------
# the load run


@dataclass
class LoadOptions:
    clients: int = 8
    tables: int = 2
    game: str = "president"
    rules: str = "classic"
    duration: float = 10.0
    host: str = "127.0.0.1"
    port: int | None = None
    transport: str = "tcp"
    strategy: str = "greedy"
    seed: str = "load"
    connect_parallel: int = 32
    turn_seconds: float | None = None
    think: float = 0.0
    profile: str | None = None


async def _connect(opts: LoadOptions, port: int, name: str) -> Any:
    from server.clients.client import Client

    if opts.transport == "ssh":
        return await Client.connect_ssh(opts.host, port, name, timeout=60)
    client = await Client.connect_tcp(opts.host, port, timeout=60)
    await client.login(name)
    return client


class _Table:
    """The seats of one table; the first seat creates each match's room, the others join it."""

    def __init__(self, index: int, seats: int) -> None:
        self.index = index
        self.seats = seats
        self.room: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.barrier = asyncio.Barrier(seats)


async def _seat_loop(opts: LoadOptions, table: _Table, seat: int, client: Any, bot: Any, stats: Any,
                     deadline: Deadline, ready: Callable[[], None]) -> None:
    """Seat ``client`` at ``table`` and play matches until the deadline (a new room for each match).

    ``ready()`` is called once the first seating was tried: the measured window
    starts when every seat is at its table, so the set-up is not in the figures.
    """
    from server.clients.client import ClientError

    create: dict[str, Any] = {"game": opts.game, "seats": table.seats}
    if opts.game == "president":
        create["rules"] = opts.rules
    if opts.turn_seconds:
        create["turn_seconds"] = opts.turn_seconds
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
                if result == "closed":
                    stats.disconnects += 1
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


async def run_load(opts: LoadOptions) -> dict[str, Any]:
    """One load run; returns the figures (see ``donne load --help``)."""
    from server.clients.wirebot import WireBot, WireStats

    check_loopback(opts.host)
    if opts.tables < 1 or opts.clients < opts.tables:
        raise SystemExit("need at least one table and one client per table")
    seats = opts.clients // opts.tables
    if seats < 3:
        raise SystemExit(f"{opts.clients} clients for {opts.tables} tables is {seats} a table; 3 at least")
    server: ServerProcess | None = None
    port = opts.port
    if port is None:
        server = await ServerProcess(profile=opts.profile).start()
        port = server.ssh_port if opts.transport == "ssh" else server.telnet_port
    stats = WireStats()
    clients: list[Any] = []
    tasks: list[asyncio.Task[None]] = []
    token = hashlib.sha256(f"{opts.seed}{time.time()}".encode()).hexdigest()[:4]
    try:
        rss0 = server.rss_mb() if server else None
        sem = asyncio.Semaphore(opts.connect_parallel)
        connect_failures = 0

        async def one(i: int) -> Any:
            nonlocal connect_failures
            async with sem:
                try:
                    return await _connect(opts, port, f"L{token}t{i // seats}s{i % seats}")
                except Exception as exc:  # any failure to connect is a figure, not a crash
                    connect_failures += 1
                    stats.codes[f"connect:{type(exc).__name__}"] += 1
                    return None

        t_connect = time.perf_counter()
        got = await asyncio.gather(*(one(i) for i in range(opts.tables * seats)))
        connect_s = time.perf_counter() - t_connect
        clients = [c for c in got if c is not None]
        connected = len(clients)
        rss_connected = server.rss_mb() if server else None
        deadline = Deadline()
        expected = sum(1 for c in got if c is not None)
        all_ready = asyncio.Event()
        ready_count = 0

        def ready() -> None:
            nonlocal ready_count
            ready_count += 1
            if ready_count >= expected:
                all_ready.set()

        t_setup = time.perf_counter()
        for t in range(opts.tables):
            table = _Table(t, seats)
            for s in range(seats):
                client = got[t * seats + s]
                if client is None:
                    continue  # the table waits for a seat that never comes: its other seats idle
                bot = WireBot(client, opts.strategy, f"{opts.seed}/{t}/{s}".encode(), stats,
                              idle_timeout=SETUP_TIMEOUT + opts.duration, think=opts.think)
                tasks.append(asyncio.create_task(_seat_loop(opts, table, s, client, bot, stats, deadline, ready)))
        if expected:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(all_ready.wait(), SETUP_TIMEOUT)
        setup_s = time.perf_counter() - t_setup
        # the measured window: every seat is at its table
        cpu0 = server.cpu_s() if server else None
        client_cpu0 = self_cpu_s()
        received0 = sum(c.received for c in clients)
        sent0 = sum(c.sent for c in clients)
        actions0, lat0, matches0, refused0 = stats.actions, len(stats.latencies), stats.matches, stats.refused
        t0 = time.perf_counter()
        deadline.at = t0 + opts.duration
        await asyncio.wait(tasks, timeout=opts.duration + 30)
        elapsed = min(time.perf_counter(), deadline.at) - t0
        cpu1 = server.cpu_s() if server else None
        received = sum(c.received for c in clients) - received0
        sent = sum(c.sent for c in clients) - sent0
        actions = stats.actions - actions0
        client_cpu = self_cpu_s() - client_cpu0
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        rss1 = server.rss_mb() if server else None
        still = sum(1 for c in clients if not c.closed.is_set())
        result: dict[str, Any] = {
            "clients": connected,
            "connected_at_end": still,
            "tables": opts.tables,
            "seats": seats,
            "game": opts.game,
            "rules": opts.rules if opts.game == "president" else None,
            "transport": opts.transport,
            "strategy": opts.strategy,
            "think_s": opts.think,
            "duration_s": round(elapsed, 2),
            "connect_s": round(connect_s, 2),
            "setup_s": round(setup_s, 2),
            "actions": actions,
            "actions_per_s": round(actions / elapsed, 1) if elapsed > 0 else 0.0,
            **summarize_ms(stats.latencies[lat0:]),
            "matches": round((stats.matches - matches0) / seats, 1),  # each bot of a table sees its end
            "lines_in_per_s": round(received / elapsed, 1) if elapsed > 0 else 0.0,
            "lines_out_per_s": round(sent / elapsed, 1) if elapsed > 0 else 0.0,
            "errors": stats.errors + connect_failures,
            "refused": stats.refused - refused0,
            "disconnects": stats.disconnects + sum(1 for c in clients if c.closed.is_set()),
            "codes": dict(stats.codes),
            "client_cpu_s": round(client_cpu, 2),
            "server_rss_mb": None if rss1 is None else round(rss1, 1),
            "server_rss_start_mb": None if rss0 is None else round(rss0, 1),
            "server_rss_connected_mb": None if rss_connected is None else round(rss_connected, 1),
            "server_cpu_s": None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
            "server_cpu_share": None if cpu0 is None or cpu1 is None else round((cpu1 - cpu0) / elapsed, 3),
        }
        return result
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        if server is not None:
            await server.stop()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=8, help="wire bots (connections)")
    parser.add_argument("--tables", type=int, default=2, help="tables; seats per table = clients // tables")
    parser.add_argument("--game", default="president", choices=["president", "speculation"])
    parser.add_argument("--rules", default="classic", help="president rules: classic or tdc")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of play")
    parser.add_argument("--host", default="127.0.0.1", help="target host (loopback only)")
    parser.add_argument("--port", type=int, help="target a running server (telnet port, or SSH with "
                                                  "--transport ssh); default: start one")
    parser.add_argument("--transport", default="tcp", choices=["tcp", "ssh"])
    parser.add_argument("--strategy", default="greedy")
    parser.add_argument("--seed", default="load")
    parser.add_argument("--connect-parallel", type=int, default=32, help="handshakes at once")
    parser.add_argument("--turn-seconds", type=float, help="turn time of the rooms created")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds a bot waits before each action (jittered 0.5x-1.5x); 0: as fast as the "
                             "server answers")
    parser.add_argument("--profile", help="cProfile the started server into this file")


def run(args: argparse.Namespace) -> int:
    opts = LoadOptions(**{k: v for k, v in vars(args).items() if k in LoadOptions.__dataclass_fields__})
    result = asyncio.run(run_load(opts))
    print(json.dumps(result))
    return 0
