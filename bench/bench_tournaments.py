"""The tournaments' core alone (no server): an arena's seating and standings, a Swiss round's pairing.

    python bench/bench_tournaments.py [--quick] [--entrants N] [--results N] [--out FILE]

Scenarios (one JSON object on stdout, figures only, nothing asserted):

* ``arena``: an arena of ``--entrants`` (1,000) at tables of four, every table
  under way, results arriving one by one (``--results``, 6,000): the time from a
  result to its players seated again (the director's ``handle``, pairing
  included), p50 / p99 / max; the standings asked 20 times after each result
  (made once after a change, then cached): p50 / p99 of a query, and the time of
  one build.
* ``swiss``: Swiss events of 1,000 players at tables of four, 64 at tables of
  four and of eight, 30 at tables of five, five rounds each, random results:
  the time to pair each round, wall and CPU (the search's bound,
  ``search_budget``, at its default), the pairs of people seated together
  over the event and how many of them had already shared a table.

Results come from a seeded ``random.Random``: the same run gives the same
events; only the times move with the machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import machine, today
from server.tournaments import (
    ArenaConfig,
    ArenaDirector,
    Join,
    OpenTable,
    SwissConfig,
    SwissDirector,
    TableOver,
)
from server.tournaments.scoring import places_from_totals


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def ms(x: float) -> float:
    return round(x * 1000, 2)


def arena(entrants: int, results: int) -> dict[str, Any]:
    d = ArenaDirector(ArenaConfig(id="a", seats=4, starts_at=0.0, length=1e9, seed="bench"))
    rng = random.Random(1)
    for i in range(entrants):
        d.handle(0.0, Join(f"p{i}", rating=rng.random() * 30))
    d.tick(0.0)
    now = 0.0
    handle: list[float] = []
    queries: list[float] = []
    builds: list[float] = []
    for _ in range(results):
        now += rng.random() * 2.4
        wake = d.wake
        if wake is not None and wake <= now:
            d.tick(now)
        if not d.event.tables:
            continue
        table = rng.choice(sorted(d.event.tables))
        size = len(d.event.tables[table].seats)
        result = TableOver(table, tuple(places_from_totals([rng.randrange(10) for _ in range(size)])))
        t0 = time.perf_counter()
        d.handle(now, result)
        handle.append(time.perf_counter() - t0)
        for k in range(20):
            t0 = time.perf_counter()
            d.standings()
            took = time.perf_counter() - t0
            queries.append(took)
            if k == 0:
                builds.append(took)
    return {"entrants": entrants, "seats": 4, "results": len(handle), "tables_under_way": len(d.event.tables),
            "seat_again_ms": {"p50": ms(quantile(handle, .5)), "p99": ms(quantile(handle, .99)),
                              "max": ms(max(handle))},
            "standings_query_ms": {"p50": ms(quantile(queries, .5)), "p99": ms(quantile(queries, .99))},
            "standings_build_ms": {"p50": ms(quantile(builds, .5)), "p99": ms(quantile(builds, .99))}}


def swiss(players: int, seats: int, rounds: int) -> dict[str, Any]:
    config = SwissConfig(id="s", seats=seats, min_seats=3, rounds=rounds, starts_at=1.0, seed="bench",
                         round_pause=0.0)
    d = SwissDirector(config)
    rng = random.Random(2)
    for i in range(players):
        d.handle(0.0, Join(f"p{i}", rating=rng.random() * 30))
    times: list[float] = []
    cpu: list[float] = []
    t0, c0 = time.perf_counter(), time.process_time()
    d.tick(1.0)
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
    now = 1.0
    while not d.over:
        tables = sorted(d.event.tables)
        for k, table in enumerate(tables):
            size = len(d.event.tables[table].seats)
            now += 0.01
            t0, c0 = time.perf_counter(), time.process_time()
            d.handle(now, TableOver(table, tuple(places_from_totals([rng.randrange(10) for _ in range(size)]))))
            if k == len(tables) - 1 and not d.over:
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
    seen: set[frozenset[str]] = set()
    again = seated = 0
    for entry in d.event.journal:
        if isinstance(entry.item, OpenTable):
            people = entry.item.people
            for i, a in enumerate(people):
                for b in people[i + 1:]:
                    pair = frozenset((a, b))
                    seated += 1
                    again += pair in seen
                    seen.add(pair)
    return {"players": players, "seats": seats, "rounds": rounds, "budget": config.search_budget,
            "pairing_ms": [ms(t) for t in times],
            "pairing_cpu_ms": [ms(t) for t in cpu], "pairs_seated": seated, "pairs_seated_again": again}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a smoke run: small events")
    p.add_argument("--entrants", type=int, default=1000)
    p.add_argument("--results", type=int, default=6000)
    p.add_argument("--out")
    args = p.parse_args(argv)
    started = time.perf_counter()
    if args.quick:
        out: dict[str, Any] = {"arena": arena(100, 300), "swiss": [swiss(30, 5, 3)]}
    else:
        out = {"arena": arena(args.entrants, args.results),
               "swiss": [swiss(1000, 4, 5), swiss(64, 4, 5), swiss(64, 8, 5), swiss(30, 5, 5)]}
    out.update({"bench": "tournaments", "date": today(), "machine": machine(),
                "seconds": round(time.perf_counter() - started, 1)})
    line = json.dumps(out)
    print(line)
    if args.out:
        Path(args.out).write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
