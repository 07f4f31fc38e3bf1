"""An arena through the server's event shell and the real store: a table's end to its players seated again.

    python bench/bench_tournament_server.py [--entrants N] [--results N] [--out FILE]

An arena of ``--entrants`` (1,000) at tables of four (250 under way) runs in its asyncio shell
(``server/lobby/tournaments/shell.py``): every call of the director in a worker thread, its journal
written to a real SQLite store (``store.apply``, durable) before its effects are performed. Results
arrive one by one (``--results``, 2,000), each as a table's report would (``TableOver`` queued to
the shell). Measured (one JSON object on stdout, nothing asserted):

* ``seat_again_ms``: from a table's result queued to the shell to its players' new table being
  performed (``OpenTable`` handed to the host: where the server opens the room and seats them),
  the journal written first — p50 / p99 / max;
* ``standings_query_ms``: the ``tournament_standings`` reply built on the event loop (the first 50
  lines and the asker's), asked every millisecond by another task while results arrive — p50 / p99;
* ``loop_lag_ms``: how late a 1 ms timer of the event loop fires meanwhile (the director runs off
  the loop; its thread still shares the GIL) — p50 / p99 / max;
* ``write_ms``: one journal write (``TournamentLog``) — p50 / p99.

No room is opened (a table "ends" when the driver says so): this is the event's own path. The
rooms' side is ``bench/bench_load.py``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import machine, today
from server.lobby.tournaments.hall import Hall
from server.lobby.tournaments.shell import EventShell
from server.storage import open_store
from server.storage.api import Op, OpResult, Store
from server.storage.api_tournaments import TournamentOpened
from server.tournaments import ArenaConfig, ArenaDirector, Effect, Join, OpenTable, TableOver
from server.tournaments.scoring import places_from_totals


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def ms(x: float) -> float:
    return round(x * 1000, 2)


def spread(xs: list[float]) -> dict[str, float]:
    return {"p50": ms(quantile(xs, .5)), "p99": ms(quantile(xs, .99)), "max": ms(max(xs, default=0.0))}


class Host:
    """The hall's side, reduced to the store's writes and a note of each table opened."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.under_way: dict[str, OpenTable] = {}
        self.ended_at: dict[str, float] = {}  # a person -> when the table they left reported
        self.seat_again: list[float] = []
        self.writes: list[float] = []

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
        t0 = time.perf_counter()
        out = await self.store.apply(list(ops))
        self.writes.append(time.perf_counter() - t0)
        return out

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        if isinstance(effect, OpenTable):
            now = time.perf_counter()
            self.under_way[effect.table] = effect
            for name in effect.people:
                ended = self.ended_at.pop(name, None)
                if ended is not None:
                    self.seat_again.append(now - ended)

    def finished(self, shell: EventShell) -> None:
        pass


async def arena(entrants: int, results: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(Path(folder))
        try:
            return await _arena(store, entrants, results)
        finally:
            await store.close()


async def _arena(store: Store, entrants: int, results: int) -> dict[str, Any]:
    host = Host(store)
    rng = random.Random(1)
    start = time.time() + 1.0
    config = ArenaConfig(id="e1", seats=4, starts_at=start, length=1e9, seed="bench")
    await store.apply([TournamentOpened("e1", config.to_dict(), "bench")])
    shell = EventShell(ArenaDirector(config), host, time.time)
    hall = Hall(cast(Any, None))  # (its standings reply only)
    shell.start()
    for i in range(entrants):
        await shell.ask(Join(f"p{i}", rating=rng.random() * 30))
    while len(host.under_way) < entrants // 4:
        await asyncio.sleep(0.05)
    queries: list[float] = []
    lags: list[float] = []
    running = True

    async def ask_standings() -> None:
        k = 0
        while running:
            t0 = time.perf_counter()
            hall.standings(shell, f"p{k % entrants}")
            queries.append(time.perf_counter() - t0)
            k += 1
            t1 = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(max(0.0, time.perf_counter() - t1 - 0.001))

    asker = asyncio.get_running_loop().create_task(ask_standings())
    host.writes.clear()
    t_start = time.perf_counter()
    for _ in range(results):
        table = rng.choice(sorted(host.under_way))
        effect = host.under_way.pop(table)
        places = tuple(places_from_totals([rng.randrange(10) for _ in effect.seats]))
        now = time.perf_counter()
        for name in effect.people:
            host.ended_at[name] = now
        await shell.ask(TableOver(table, places, (0,) * len(places)))
    elapsed = time.perf_counter() - t_start
    running = False
    await asker
    await shell.stop()
    return {"entrants": entrants, "seats": 4, "results": results, "tables_under_way": len(host.under_way),
            "results_per_s": round(results / elapsed, 1),
            "seat_again_ms": spread(host.seat_again), "standings_query_ms": spread(queries),
            "loop_lag_ms": spread(lags), "write_ms": spread(host.writes),
            "journal_entries": shell.seq}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--results", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 entrants, 300 results")
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    entrants, results = (200, 300) if args.quick else (args.entrants, args.results)
    out = {"bench": "tournament_server", "when": today(), "machine": machine(),
           "arena": asyncio.run(arena(entrants, results))}
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
