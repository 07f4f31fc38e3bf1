"""This checkout's server against another checkout's, with the same load generator, in one sitting.

    python bench/bench_against.py --other ../donne-first [--reps 3] [--clients 1000] [--duration 15]
                                  [--think 0] [--durable off|on] [--procs 2] [--worker-loop auto]

The other checkout (a ``git worktree`` of an older commit, with its own ``.venv``:
``make .venv/.installed`` there) starts its own server with its own load
settings; this checkout's server is started the same way. Both are played by
*this* checkout's ``donne load`` (``--port`` and ``--server-pid``, so its
figures include the server's CPU), alternately, ``--reps`` times: the machine's
noise falls on both alike. The figure that compares servers whose rules differ
in who sends a forced pass (RULES P9: today the server applies them itself) is
the server's CPU per card move (``server_cpu_ms_per_card_move``: every play, pass
and cut, whoever made it); per action is printed too. ``--durable off`` (the
default) turns this checkout's durable tables off, so the table core is compared
and not the restart log (docs/restart.md: its own cost).

Prints one JSON line per run, then a summary: medians and the ratio this/other.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, today

from clients.load import LoadOptions, run_load

THIS = Path(__file__).resolve().parent.parent

# Run with the checkout's own Python in its folder: its load-settings server, then its port and pid
# on one line; it stops when its standard input closes. Knows the load settings' three homes: the
# client tools' package (today), the same inside ``server/`` before, and the first ``server/load.py``.
STARTER = """
import asyncio, json, os, sys
sys.path.insert(0, os.getcwd())
durable = sys.argv[1] == "on"
async def main():
    limits = "" if durable else "\\n[restart]\\ndurable_tables = false\\n"
    if os.path.exists("clients/serverproc.py"):
        from clients.serverproc import LOAD_LIMITS, ServerProcess
        srv = ServerProcess(LOAD_LIMITS + limits)
    elif os.path.exists("server/clients/serverproc.py"):
        from server.clients.serverproc import LOAD_LIMITS, ServerProcess
        srv = ServerProcess(LOAD_LIMITS + limits)
    else:
        from server.load import ServerProcess
        srv = ServerProcess()
    await srv.start()
    try:
        print(json.dumps({"port": srv.telnet_port, "pid": srv.pid}), flush=True)
        await asyncio.to_thread(sys.stdin.read)
    finally:
        await srv.stop()
asyncio.run(main())
"""


async def one_run(checkout: Path, args: argparse.Namespace) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        str(checkout / ".venv" / "bin" / "python"), "-c", STARTER, args.durable, cwd=checkout,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        if not line:
            raise SystemExit(f"{checkout}: its server did not start")
        info = json.loads(line)
        n = args.clients - args.clients % 4
        return await run_load(LoadOptions(clients=n, tables=n // 4, duration=args.duration, think=args.think,
                                          port=int(info["port"]), server_pid=int(info["pid"]), procs=args.procs,
                                          worker_loop=args.worker_loop))
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 60)


def figures(result: dict[str, Any]) -> dict[str, Any]:
    cpu, moves = result["server_cpu_s"], result["card_moves"]
    p = result.get("suspect_latency") or result
    return {"actions_per_s": result["actions_per_s"], "card_moves_per_s": round(moves / result["duration_s"], 1),
            "cpu_ms_per_action": result["server_cpu_ms_per_action"],
            "cpu_ms_per_card_move": round(1000 * cpu / moves, 3) if moves else None,
            "lines_per_card_move": round(result["lines_in_per_s"] * result["duration_s"] / moves, 2) if moves else None,
            "server_cpu_share": result["server_cpu_share"], "p50_ms": p.get("p50_ms"), "p99_ms": p.get("p99_ms"),
            "generator_flagged": bool(result["flagged"]), "errors": result["errors"]}


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--other", type=Path, required=True, help="another checkout of donne, with its .venv")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--duration", type=float, default=15.0)
    p.add_argument("--think", type=float, default=0.0)
    p.add_argument("--durable", choices=["off", "on"], default="off", help="this checkout's durable tables")
    p.add_argument("--procs", type=int, default=2, help="load worker processes (donne load --procs)")
    p.add_argument("--worker-loop", default="auto", choices=["asyncio", "uvloop", "auto"],
                   help="the load workers' event loop (donne load --worker-loop)")
    args = p.parse_args(argv)
    other = args.other.resolve()
    if not (other / ".venv" / "bin" / "python").exists():
        raise SystemExit(f"{other}: no .venv (make .venv/.installed there)")
    runs: dict[str, list[dict[str, Any]]] = {"other": [], "this": []}
    for rep in range(args.reps):
        for side, checkout in (("other", other), ("this", THIS)):
            load = Path("/proc/loadavg").read_text().split()[0]  # the machine's load just before
            got = {"load_avg": float(load), **figures(await one_run(checkout, args))}
            runs[side].append(got)
            print(json.dumps({"rep": rep, "side": side, **got}), flush=True)
    summary: dict[str, Any] = {"bench": "against", "date": today(), "machine": machine(), "clients": args.clients,
                               "think_s": args.think, "durable": args.durable, "reps": args.reps}
    for key in ("cpu_ms_per_card_move", "cpu_ms_per_action", "p50_ms", "p99_ms", "lines_per_card_move"):
        med = {side: statistics.median(r[key] for r in rs if r[key] is not None) for side, rs in runs.items()}
        summary[key] = {**med, "this_vs_other": round(med["this"] / med["other"], 3) if med["other"] else None}
    return summary


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
