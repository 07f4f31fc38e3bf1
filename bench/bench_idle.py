"""Idle scale: N connected players doing nothing, and the server's memory per connection.

    python bench/bench_idle.py [--clients 1000] [--transports tcp,ssh] [--quick]
    python bench/bench_idle.py --churn 6 --clients 1000 [--hold 12] [--server-key 'gc_full_closed = 0']

For each transport a fresh ``donne serve`` (a subprocess,
``clients.serverproc.ServerProcess``) is started; its RSS is read from
``/proc`` before any connection, then N clients connect (telnet: raw TCP +
``json`` + ``login`` as a guest; SSH: exec ``json`` as a guest name) and stay idle; after a settle time the RSS is read again.
``kib_per_connection`` = (RSS with N idle − RSS before) / N. Target (printed,
not asserted): at most 64 KiB. The same is measured for the bare telnetlib3 and
asyncssh echo servers, for comparison. ``--churn ROUNDS``: instead, ROUNDS times N telnet guests connect, log in and
leave; the server's RSS after each round (what ended connections leave behind
until the collector frees it: ``[server] gc_full_closed``, docs/server.md).
Idle connections beside tables being
played (the lobby's news they are pushed, the players' latency meanwhile):
``donne load --idle`` / ``bench/bench_load.py --idle``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EchoProcess, close_all, connect_many, machine, today

from clients.client import Client
from clients.figures import proc_cpu_s, proc_rss_mb
from clients.loadworker import distinct
from clients.serverproc import ServerProcess


async def measure(pid: int, connect: Any, n: int, settle: float) -> dict[str, Any]:
    await asyncio.sleep(settle)
    before = proc_rss_mb(pid) or 0.0
    clients, failures = await connect_many(n, connect)
    await asyncio.sleep(settle)
    cpu0 = proc_cpu_s(pid) or 0.0
    await asyncio.sleep(settle)
    idle_cpu = (proc_cpu_s(pid) or 0.0) - cpu0
    after = proc_rss_mb(pid) or 0.0
    alive = sum(1 for c in clients if not c.closed.is_set())
    await close_all(clients)
    return {
        "connected": len(clients),
        "alive_after_settle": alive,
        "failures": failures,
        "rss_before_mb": round(before, 1),
        "rss_idle_mb": round(after, 1),
        "kib_per_connection": round((after - before) * 1024 / max(1, len(clients)), 1),
        "idle_cpu_share": round(idle_cpu / settle, 4),
    }


async def churn(n: int, rounds: int, server_keys: tuple[str, ...], hold: float = 0.0) -> dict[str, Any]:
    """``rounds`` times ``n`` guests connect, log in, stay ``hold`` seconds and leave; the server's RSS
    after each round."""
    async with ServerProcess(server_keys=server_keys) as srv:
        rss = [proc_rss_mb(srv.pid) or 0.0]
        failures = 0
        for r in range(rounds):
            async def connect(i: int, port: int = srv.telnet_port, r: int = r) -> Client:
                c = await Client.connect_tcp("127.0.0.1", port, timeout=60)
                await c.login(f"churn{distinct(r * n + i)}")
                return c
            clients, failed = await connect_many(n, connect)
            failures += failed
            await asyncio.sleep(hold)  # older than the collector's freeze interval, like real players
            await close_all(clients)
            await asyncio.sleep(1.5)  # the server sees them go; its collector's freeze ticks every second
            rss.append(proc_rss_mb(srv.pid) or 0.0)
    return {"connections_per_round": n, "rounds": rounds, "hold_s": hold, "failures": failures,
            "server_keys": list(server_keys),
            "rss_mb": [round(x, 1) for x in rss],
            "kib_kept_per_ended_connection": round((rss[-1] - rss[1]) * 1024 / max(1, n * (rounds - 1)), 1)}


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--transports", default="tcp,ssh")
    p.add_argument("--settle", type=float, default=2.0)
    p.add_argument("--quick", action="store_true", help="100 clients")
    p.add_argument("--churn", type=int, default=0, metavar="ROUNDS",
                   help="instead: ROUNDS times N guests connect and leave; RSS after each round")
    p.add_argument("--hold", type=float, default=0.0, metavar="SECONDS",
                   help="with --churn: how long each round's guests stay before they leave")
    p.add_argument("--server-key", action="append", default=[], metavar="'KEY = VALUE'",
                   help="with --churn: a line of the server's [server] section")
    args = p.parse_args(argv)
    if args.quick:
        args.clients = 100
    n = args.clients
    if args.churn:
        return {"bench": "churn", "date": today(), "machine": machine(),
                **await churn(n, args.churn, tuple(args.server_key), args.hold)}
    out: dict[str, Any] = {"bench": "idle", "date": today(), "machine": machine(), "clients": n,
                           "target_kib_per_connection": 64, "target_telnet_kib_per_connection": 40}
    for transport in args.transports.split(","):
        async with ServerProcess() as srv:
            if transport == "ssh":
                async def connect(i: int, port: int = srv.ssh_port) -> Client:
                    c = await Client.connect_ssh("127.0.0.1", port, f"idle{distinct(i)}", timeout=60)
                    await c.request("whoami")
                    return c
            else:
                async def connect(i: int, port: int = srv.telnet_port) -> Client:
                    c = await Client.connect_tcp("127.0.0.1", port, timeout=60)
                    await c.login(f"idle{distinct(i)}")
                    return c
            out[f"donne_{transport}"] = await measure(srv.pid, connect, n, args.settle)
        kind = "ssh" if transport == "ssh" else "telnet"
        async with EchoProcess(kind) as echo:
            if kind == "ssh":
                async def bare(i: int, port: int = echo.port) -> Client:
                    return await Client.connect_ssh("127.0.0.1", port, f"u{i}", timeout=60)
            else:
                async def bare(i: int, port: int = echo.port) -> Client:
                    return await Client.connect_tcp("127.0.0.1", port, timeout=60)
            out[f"bare_{kind}"] = await measure(echo.pid, bare, n, args.settle)
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
