"""Simulator throughput: ``donne simulate`` in-process for the target configurations, one core.

    python bench/bench_simulate.py [--quick] [--cpu N] [--only classic,tdc,speculation]

Pins itself to one core (``os.sched_setaffinity``, where the OS has it) and
runs, through :func:`server.start.simulate.simulate`:

* ``classic``: Président classic, 4 greedy bots (target: 3,000 rounds per CPU-second
  with the invariants checked every 10 actions);
* ``tdc``: Président tdc, 3 greedy bots, stake 10;
* ``speculation``: Speculation, 5 seats (3 greedy, 2 random), when its bots exist;

each with the invariants checked after every action (the default), every 10
actions and never, so the cost of the checks is visible. Prints one JSON object: the figures
of every run, wall-clock and CPU-time rates (the CPU-time rate is the one to
compare when other processes share the machine).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.start.simulate import simulate

CONFIGS: dict[str, dict[str, Any]] = {
    "classic": {"game": "president", "rules": "classic", "players": 4, "rounds": 10_000, "bots": "greedy,greedy,greedy,greedy", "seed": 1},
    "tdc": {"game": "president", "rules": "tdc", "players": 3, "rounds": 20_000, "bots": "greedy,greedy,greedy", "seed": 7},
    "speculation": {"game": "speculation", "players": 5, "deals": 10_000, "bots": "greedy,greedy,greedy,random,random", "seed": 3},
}
QUICK = {"classic": 1_000, "tdc": 2_000, "speculation": 1_000}

KEEP = (
    "rounds", "deals", "matches", "actions", "seconds", "cpu_seconds", "rounds_per_s", "rounds_per_cpu_s",
    "deals_per_s", "deals_per_cpu_s", "actions_per_s", "invariant_checks", "president_kept_title",
    "mean_points_per_seat", "chips_per_seat", "cuts", "revolutions", "forbidden_finishes", "auctions", "trades",
)  # fmt: skip


def _namespace(config: dict[str, Any], size: int | None, check_every: int) -> argparse.Namespace:
    ns = argparse.Namespace(
        game="president", rules="classic", players=4, rounds=1000, deals=None, bots=None, seed=1,
        stake=10, ante=1, check_every=check_every, out=None, ask_forced=False,
    )  # fmt: skip
    for k, v in config.items():
        setattr(ns, k, v)
    if size is not None:
        if ns.game == "speculation":
            ns.deals = size
        else:
            ns.rounds = size
    return ns


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="small counts (a smoke run of a few seconds)")
    p.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the first one allowed)")
    p.add_argument("--only", default=None, help="comma-separated configurations: classic,tdc,speculation")
    args = p.parse_args(argv)
    pinned = None
    if hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        pinned = args.cpu if args.cpu is not None else allowed[0]
        os.sched_setaffinity(0, {pinned})
    names = list(CONFIGS) if not args.only else [n.strip() for n in args.only.split(",")]
    results: dict[str, Any] = {}
    for name in names:
        config = CONFIGS[name]
        if name == "speculation" and importlib.util.find_spec("engine.bots.speculation_greedy") is None:
            results[name] = {"skipped": "engine.bots.speculation_greedy is not there yet"}
            continue
        size = QUICK[name] if args.quick else None
        runs = {}
        for label, every in (("checked", 1), ("every_10", 10), ("unchecked", 0)):
            figures = simulate(_namespace(config, size, every))
            runs[label] = {k: figures[k] for k in KEEP if k in figures}
        results[name] = {"config": config | ({"size": size} if size else {}), **runs}
    out = {
        "bench": "simulate",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "cpu": pinned,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "quick": args.quick,
        "results": results,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
