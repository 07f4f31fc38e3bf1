"""``donne load`` at growing sizes: wire bots playing Président on one server process.

    python bench/bench_load.py [--sizes 100,500,1000] [--duration 30] [--rules classic] [--quick]
    python bench/bench_load.py --sizes 1000 --think 1.0                 # bots decide in 0.5-1.5 s
    python bench/bench_load.py --sizes 1000 --profile /tmp/donne.prof   # cProfile the server
    python bench/bench_load.py --sizes 1000 --procs 2                   # bots in 2 worker processes

Each size is a fresh server (``donne serve`` in a subprocess) with ``clients/4``
tables of 4 wire bots (greedy) spread over ``--procs`` worker processes, playing
as fast as the server answers for ``--duration`` seconds. Target (printed, not
asserted): 1,000 bots in 250 classic tables with p99 action latency < 100 ms.
A run whose workers lagged is ``flagged`` and its latencies are under
``suspect_latency`` (not the server's). With ``--profile`` the server's
cProfile statistics are written to that file and the top functions printed to
stderr.
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

from server.clients.load import LoadOptions, run_load


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
    p.add_argument("--max-lag-ms", type=float, default=20.0, help="flag a worker whose loop lag p99 is above")
    p.add_argument("--quick", action="store_true", help="sizes 40 and 200, 5 s")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.duration = "40,200", 5.0
    out: dict[str, Any] = {"bench": "load", "date": today(), "machine": machine(), "runs": []}
    for size in (int(x) for x in args.sizes.split(",")):
        opts = LoadOptions(clients=size, tables=size // args.seats, game=args.game, rules=args.rules,
                           duration=args.duration, transport=args.transport, think=args.think,
                           profile=args.profile, procs=args.procs, max_lag_ms=args.max_lag_ms)
        run = await run_load(opts)
        run["target_p99_ms"] = 100
        out["runs"].append(run)
        print(json.dumps(run), file=sys.stderr)
    if args.profile and Path(args.profile).exists():
        stats = pstats.Stats(args.profile, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(30)
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1:]))))
