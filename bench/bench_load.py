"""``donne load`` at growing sizes: wire bots playing Président on one server process.

    python bench/bench_load.py [--sizes 100,500,1000] [--duration 30] [--rules classic] [--quick]
    python bench/bench_load.py --sizes 1000 --think 1.0                 # bots decide in 0.5-1.5 s
    python bench/bench_load.py --sizes 1000 --profile /tmp/donne.prof   # cProfile the server
    python bench/bench_load.py --sizes 1000 --procs 2                   # bots in 2 worker processes
    python bench/bench_load.py --sizes 1000,2500,5000 --think 1.0 --duration 20 --baseline
    python bench/bench_load.py --sizes 5000 --think 1.0 --server-key 'gc_freeze_seconds = 0'  # CPython's GC
    python bench/bench_load.py --sizes 5000 --idle 5000 --think 1.0 --duration 20   # 10,000 connections

Each size is a fresh server (``donne serve`` in a subprocess) with ``clients/4``
tables of 4 wire bots (greedy) spread over ``--procs`` worker processes, playing
as fast as the server answers for ``--duration`` seconds. Target (printed, not
asserted): 1,000 bots in 250 classic tables with p99 action latency < 100 ms.
A run whose workers lagged is ``flagged`` and its latencies are under
``suspect_latency`` (not the server's). With ``--profile`` the server's
cProfile statistics are written to that file and the top functions printed to
stderr. ``--baseline`` also runs, right before each size, the bare telnetlib3
echo server (``bench/echo_servers.py``) with as many clients, each echoing as
fast as it can for ``--baseline-seconds``: the ratio of the server CPU per line
written (donne: replies, states, events; echo: echoes) is stable when the
machine is noisy. The table on stderr at the end has one row per size:
clients, setup_s, actions/s, p50/p95/p99 (the clients'; ``*`` when a worker
was flagged), the server's own p99 (reading a move to writing its last line),
server CPU per action and share, the load generator's own CPU per action (with
its workers' shares of their cores: the generator must not be what is
measured), and the flags. ``--worker-loop`` picks the load workers' loop (``auto``: uvloop when installed).

``--idle M`` adds, to every size, M connections that log in, stay in the lobby
for the whole run and never play (``donne load --idle``): "N players + M
idle" is ``--sizes N --idle M``. The row's ``idle`` column is how many were
connected, then how many were still connected at the end, their errors, and
the lines a second the server pushed them all (the lobby's news).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pstats
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import machine, today

from clients.load import LoadOptions, run_load


def _row(run: dict[str, Any]) -> str:
    lat = run.get("suspect_latency") or {k: run.get(k) for k in ("p50_ms", "p95_ms", "p99_ms")}
    star = "*" if run.get("flagged") else ""
    side = (run.get("server_side") or {}).get("action_latency") or {}
    base = run.get("baseline") or {}
    idle = (f"{run['idle_clients']:,} ({run['idle_connected_at_end']:,} at end, {run['idle_errors']} errors, "
            f"{run['idle_lines_per_s']} lines/s)" if run.get("idle") else "0")
    return (f"| {run['clients']:,} | {idle} | {run['setup_s']} | {run['actions_per_s']} | "
            f"{lat.get('p50_ms')}{star} / {lat.get('p95_ms')}{star} / {lat.get('p99_ms')}{star} | "
            f"≤ {side.get('p99_ms')} | {run.get('server_cpu_ms_per_action')} | {run.get('server_cpu_share')} | "
            f"{base.get('cpu_ratio', '')} | {_client_cost(run)} | {run['errors']} / {run['disconnects']} | "
            f"{'; '.join(run['flagged']) or '-'} |")


def _client_cost(run: dict[str, Any]) -> str:
    """The load generator's own CPU per action, and its workers' shares of their cores."""
    per = run.get("client_cpu_ms_per_action") or "-"
    shares = " / ".join(str(w.get("cpu_share")) for w in run.get("workers") or [])
    return f"{per} ({shares})"


TABLE_HEAD = ("| clients | idle | setup_s | actions/s | p50 / p95 / p99 ms | server p99 ms | server CPU ms/action | "
              "server CPU share | CPU/line vs echo | load gen CPU ms/action (workers' shares) | errors / disconnects | flags |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="100,500,1000")
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--rules", default="classic")
    p.add_argument("--game", default="president")
    p.add_argument("--transport", default="tcp")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--think", type=float, default=0.0, help="seconds per decision (0: at once)")
    p.add_argument("--profile")
    p.add_argument("--procs", type=int, default=1, help="worker processes of the load generator")
    p.add_argument("--idle", type=int, default=0, metavar="M",
                   help="M more connections at every size that stay in the lobby and never play")
    p.add_argument("--max-lag-ms", type=float, default=20.0, help="flag a worker whose loop lag p99 is above")
    p.add_argument("--server-key", action="append", default=[], metavar="'KEY = VALUE'",
                   help="a line of the server's [server] section, e.g. 'gc_freeze_seconds = 0'")
    p.add_argument("--worker-gc-freeze", type=float, default=1.0, help="0: CPython's collector in the workers")
    p.add_argument("--worker-loop", choices=("asyncio", "uvloop", "auto"), default="auto",
                   help="the load workers' event loop (default auto: uvloop when installed); the server keeps its own")
    p.add_argument("--profile-workers", metavar="PREFIX", help="cProfile each load worker into PREFIX.N")
    p.add_argument("--baseline", action="store_true", help="the bare telnetlib3 echo server first, same clients")
    p.add_argument("--baseline-seconds", type=float, default=10.0)
    p.add_argument("--quick", action="store_true", help="sizes 40 and 200, 5 s")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.duration = "40,200", 5.0
    out: dict[str, Any] = {"bench": "load", "date": today(), "machine": machine(), "runs": []}
    for size in (int(x) for x in args.sizes.split(",")):
        opts = LoadOptions(clients=size, tables=size // args.seats, game=args.game, rules=args.rules,
                           duration=args.duration, transport=args.transport, think=args.think,
                           profile=args.profile, procs=args.procs, max_lag_ms=args.max_lag_ms,
                           server_keys=tuple(args.server_key), profile_workers=args.profile_workers,
                           worker_gc_freeze=args.worker_gc_freeze, worker_loop=args.worker_loop, idle=args.idle)
        baseline = await _baseline(size, args.baseline_seconds) if args.baseline else None
        run = await run_load(opts)
        run["target_p99_ms"] = 100
        if baseline is not None:
            run["baseline"] = baseline
            donne = _cpu_per_line(run.get("server_cpu_s"), run.get("lines_in_per_s"), run.get("duration_s"))
            echo = baseline.get("server_cpu_us_per_line")
            baseline["donne_server_cpu_us_per_line"] = donne
            baseline["cpu_ratio"] = round(donne / echo, 2) if donne and echo else None
        out["runs"].append(run)
        print(json.dumps(run), file=sys.stderr)
    print("\n" + TABLE_HEAD, file=sys.stderr)
    for run in out["runs"]:
        print(_row(run), file=sys.stderr)
    if args.profile and Path(args.profile).exists():
        stats = pstats.Stats(args.profile, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(30)
    return out


def _cpu_per_line(cpu_s: float | None, lines_per_s: float | None, seconds: float | None) -> float | None:
    if not cpu_s or not lines_per_s or not seconds:
        return None
    return round(1e6 * cpu_s / (lines_per_s * seconds), 1)


async def _baseline(clients: int, seconds: float) -> dict[str, Any]:
    """The bare telnetlib3 echo server with ``clients`` connections echoing as fast as they can."""
    from bench_baselines import echo_throughput

    got = await echo_throughput("telnet", clients, seconds)
    share = got.get("server_cpu_share")
    per_s = got.get("lines_per_s")
    got["server_cpu_us_per_line"] = round(1e6 * share / per_s, 1) if share and per_s else None
    return got


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
