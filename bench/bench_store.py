"""The store's cost per table step: ``apply([TableLog(...)])`` through the real SQLite store.

    python bench/bench_store.py [--per-turn 1,6,30] [--steps 12000] [--tables 600] [--other DIR]

A busy server writes one log step per table move, and the steps of one event-loop
turn reach the database thread together (docs/storage.md, "group commit"). This
opens a store in a fresh folder, opens ``--tables`` tables, then writes ``--steps``
steps, ``--per-turn`` tables' steps at a time (``asyncio.gather``), and prints the
process CPU (both threads: the event loop's and the database thread's) and the wall
time per step. ``--other DIR`` runs the same in another checkout (its own code, this
Python) first, alternately, so the two are compared in one sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ENTRY = [{"k": "a", "a": {"cmd": "play", "seat": 2, "cards": ["9h", "9s"]}}, {"k": "s", "h": "0123456789abcdef"}]


async def measure(per_turn: int, steps: int, tables: int) -> dict[str, float]:
    from server.storage import open_store
    from server.storage.api import TableLog, TableOpened

    with tempfile.TemporaryDirectory(prefix="donne-bench-store-") as folder:
        store = await open_store(os.path.join(folder, "donne.sqlite3"), {"scrypt_n": 1024})
        try:
            for i in range(tables):
                await store.apply([TableOpened(f"t{i}", {"game": "president"})])
            seq = [0] * tables
            turns = max(1, steps // per_turn)
            cpu, wall = time.process_time(), time.perf_counter()
            for turn in range(turns):
                ids = [(turn * per_turn + j) % tables for j in range(per_turn)]
                done = await asyncio.gather(*(store.apply([TableLog(f"t{i}", seq[i], ENTRY)]) for i in ids))
                for i, result in zip(ids, done, strict=True):
                    seq[i] = result[0]
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        finally:
            await store.close()
    n = turns * per_turn
    return {"per_turn": per_turn, "steps": n, "cpu_us_per_step": round(1e6 * cpu / n, 1),
            "wall_us_per_step": round(1e6 * wall / n, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-turn", default="1,6,30", help="tables' steps written at once (comma separated)")
    parser.add_argument("--steps", type=int, default=12000)
    parser.add_argument("--tables", type=int, default=600)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--other", help="another checkout: the same figures there, alternately")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a single measurement (the child)
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(asyncio.run(measure(args.one, args.steps, args.tables))))
        return
    sides = [("other", Path(args.other).resolve())] if args.other else []
    sides.append(("this", ROOT))
    for _ in range(args.reps):
        for k in (int(x) for x in args.per_turn.split(",")):
            for side, tree in sides:
                out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_store.py"), "--one", str(k),
                                      "--steps", str(args.steps), "--tables", str(args.tables)],
                                     cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                                     capture_output=True, text=True, check=True)
                print(json.dumps({"side": side, "load_avg": round(os.getloadavg()[0], 2),
                                  **json.loads(out.stdout.strip().splitlines()[-1])}), flush=True)


if __name__ == "__main__":
    main()
