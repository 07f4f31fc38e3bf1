"""Speculation throughput on one core: deals per second with 5 bots, and the engine alone.

    python bench/bench_speculation.py [--deals N] [--cpu N]

Pins itself to one core (``os.sched_setaffinity``, where the OS has it) and runs:

* ``bots_checked``: ``donne simulate --game speculation --players 5 --bots
  greedy,greedy,greedy,random,random`` (the in-process driver polling every bot
  after every action), the engine's invariants checked after every action;
* ``bots_unchecked``: the same without invariant checks;
* ``engine_only``: no bots: every pending decision is answered by its time-out
  action (a keep for each auction, a turn for each turn), the engine's floor;
* ``view``: microseconds to build one seat's view and its ``to_dict()``, as a room
  does for each player after each change.

Prints one JSON object. Rates are given per wall-clock second and per CPU
second; the CPU-time rate is the one to compare when other processes share
the machine. The target is 1,000 deals/s for 5 bots on one core.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.seeds import derive, seed_from_int
from engine.speculation import SpeculationMatch
from server.start.simulate import simulate

TARGET = 1000
BOTS = "greedy,greedy,greedy,random,random"
KEEP = (
    "deals", "actions", "seconds", "cpu_seconds", "deals_per_s", "deals_per_cpu_s", "invariant_checks",
    "chips_per_seat", "auctions", "sold", "trades",
)  # fmt: skip


def bots_run(deals: int, check_every: int) -> dict[str, Any]:
    ns = argparse.Namespace(
        game="speculation", rules="classic", players=5, rounds=deals, deals=deals, bots=BOTS, seed=3,
        stake=10, ante=1, check_every=check_every, out=None, ask_forced=False,
    )  # fmt: skip
    figures = simulate(ns)
    return {k: figures[k] for k in KEEP if k in figures}


def engine_only(deals: int) -> dict[str, Any]:
    m = SpeculationMatch(seats=5, chips=[10**9] * 5, deals=deals)
    seed = seed_from_int(3)
    actions = 0
    wall, cpu = time.perf_counter(), time.process_time()
    n = 0
    while not m.over:
        if m.needs_deal():
            n += 1
            m.apply(m.deal_action(derive(seed, f"round-{n}")))
        else:
            m.apply(m.pending()[0].on_timeout)
        actions += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "deals": m.round,
        "actions": actions,
        "seconds": round(wall, 3),
        "deals_per_s": round(m.round / wall, 1),
        "deals_per_cpu_s": round(m.round / cpu, 1) if cpu > 0 else None,
    }


def view_cost(samples: int = 20000) -> dict[str, Any]:
    m = SpeculationMatch(seats=5, chips=[100] * 5, first_dealer=0)
    m.apply(m.deal_action(seed_from_int(1)))
    m.apply(m.pending()[0].on_timeout)
    t = time.process_time()
    for i in range(samples):
        m._steps += 1  # a fresh state each time, as after an action (white-box: defeats the cache)
        m.view(i % 5).to_dict()
    per = (time.process_time() - t) / samples
    return {"view_to_dict_us": round(per * 1e6, 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deals", type=int, default=10_000, help="deals per run (default 10000)")
    p.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the first one allowed)")
    args = p.parse_args(argv)
    pinned = None
    if hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        pinned = args.cpu if args.cpu is not None else allowed[0]
        os.sched_setaffinity(0, {pinned})
    checked = bots_run(args.deals, 1)
    unchecked = bots_run(args.deals, 0)
    out = {
        "bench": "speculation",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "cpu": pinned,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "bots": BOTS,
        "target_deals_per_s": TARGET,
        "bots_checked": checked,
        "bots_unchecked": unchecked,
        "engine_only": engine_only(args.deals),
        "view": view_cost(),
        "meets_target_cpu": {
            "checked": (checked.get("deals_per_cpu_s") or 0) >= TARGET,
            "unchecked": (unchecked.get("deals_per_cpu_s") or 0) >= TARGET,
        },
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
