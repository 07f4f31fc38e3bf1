"""Bare baselines and donne, measured in the same run with the same client code.

    python bench/bench_baselines.py [--clients 1000] [--duration 10] [--ssh-cycles 100] [--quick]

1. Line throughput at the same client count: every client sends a JSON line and
   awaits its echo, in a loop (bare asyncio, bare telnetlib3, bare asyncssh echo
   servers, ``bench/echo_servers.py``); then donne with the same number of
   clients *playing* Président classic (``donne load``, 4 seats a table). A
   "line" is one line the server writes: an echo for the bare servers; a reply,
   state or event for donne (``lines_in_per_s`` of ``donne load``).
2. SSH connection set-up: connect + authenticate + open the exec channel
   ``json`` + one request/reply + close, sequentially and 8 at once, against
   the bare asyncssh server (no auth) and donne (a guest name, no password).

Prints one JSON object with every figure and the target ratios (printed, not asserted):
``play_vs_telnet_echo`` >= 0.6, ``ssh_setup_vs_bare`` >= 0.8.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EchoProcess, close_all, connect_many, echo_round_trips, machine, setup_cycles, today

from clients.client import Client
from clients.load import LoadOptions, run_load
from clients.serverproc import ServerProcess


async def echo_throughput(kind: str, clients: int, duration: float) -> dict[str, Any]:
    async with EchoProcess(kind) as echo:
        port = echo.port
        if kind == "ssh":
            async def connect(i: int) -> Client:
                return await Client.connect_ssh("127.0.0.1", port, f"u{i}", timeout=60)
        else:
            async def connect(i: int) -> Client:
                return await Client.connect_tcp("127.0.0.1", port, timeout=60)
        conns, failures = await connect_many(clients, connect)
        try:
            out = await echo_round_trips(conns, duration, echo.pid)
        finally:
            await close_all(conns)
        out["connect_failures"] = failures
        return out


async def ssh_setup(cycles: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with EchoProcess("ssh") as echo:
        async def bare(i: int) -> Client:
            return await Client.connect_ssh("127.0.0.1", echo.port, f"u{i}", timeout=30)

        async def ping(c: Client) -> Any:
            return await c.request_raw("ping", type="ok")

        out["bare_sequential"] = await setup_cycles(bare, ping, cycles, 1)
        out["bare_parallel8"] = await setup_cycles(bare, ping, cycles * 2, 8)
    async with ServerProcess() as srv:
        async def donne(i: int) -> Client:
            return await Client.connect_ssh("127.0.0.1", srv.ssh_port, f"s{i}", timeout=30)

        async def whoami(c: Client) -> Any:
            return await c.request("whoami")

        out["donne_sequential"] = await setup_cycles(donne, whoami, cycles, 1)
        out["donne_parallel8"] = await setup_cycles(donne, whoami, cycles * 2, 8)
    return out


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--ssh-cycles", type=int, default=100)
    p.add_argument("--procs", type=int, default=1, help="worker processes of donne load's play run")
    p.add_argument("--quick", action="store_true", help="100 clients, 3 s, 20 cycles")
    args = p.parse_args(argv)
    if args.quick:
        args.clients, args.duration, args.ssh_cycles = 100, 3.0, 20
    n = args.clients - args.clients % 4
    result: dict[str, Any] = {"bench": "baselines", "date": today(), "machine": machine(), "clients": n}
    for kind in ("asyncio", "telnet", "ssh"):
        result[f"echo_{kind}"] = await echo_throughput(kind, n, args.duration)
    play = await run_load(LoadOptions(clients=n, tables=n // 4, duration=args.duration, procs=args.procs))
    result["donne_play"] = play
    result["ssh_setup"] = await ssh_setup(args.ssh_cycles)
    telnet = result["echo_telnet"]["lines_per_s"]
    setup = result["ssh_setup"]
    # The machine's two cores are shared: per server CPU second is the figure that contention
    # disturbs least (lines written per second of the server process's own CPU time).
    telnet_cpu = result["echo_telnet"].get("server_cpu_share") or 0
    play_cpu = play.get("server_cpu_share") or 0
    telnet_eff = telnet / telnet_cpu if telnet_cpu else None
    play_eff = play["lines_in_per_s"] / play_cpu if play_cpu else None
    result["ratios"] = {
        "play_vs_telnet_echo": round(play["lines_in_per_s"] / telnet, 3) if telnet else None,
        "play_vs_telnet_echo_per_cpu": round(play_eff / telnet_eff, 3) if play_eff and telnet_eff else None,
        "play_vs_telnet_echo_target": 0.6,
        "ssh_setup_vs_bare_sequential": round(setup["donne_sequential"]["per_s"] / setup["bare_sequential"]["per_s"], 3)
        if setup["bare_sequential"]["per_s"] else None,
        "ssh_setup_vs_bare_parallel8": round(setup["donne_parallel8"]["per_s"] / setup["bare_parallel8"]["per_s"], 3)
        if setup["bare_parallel8"]["per_s"] else None,
        "ssh_setup_target": 0.8,
    }
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
