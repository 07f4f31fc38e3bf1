"""The durable step's CPU, in process: what ``Journal.take`` costs the main thread per step, and what
the database thread's Python costs per step (``table_logs``: the JSON of the entries, the statements'
parameters), on real tables (``server.table.core.Table`` with the real adapters) played to the end.

Each game is a table of the test harness (fake clock, ledger in memory) played by seeded people at
random, with fair deals; the room's own effects (``server.rooms.effects.Effects``) take the journal
where the room takes it (before each write: a chip movement, or the step's messages), and only that
call is timed (``time.process_time``).
The entries taken go, one step a ``TableLog``, through ``table_logs`` in groups of 64 (the database
thread's ``MAX_BATCH``) against a transaction that runs no SQL: only the Python is timed. The collector
is off while a game is played (the harness keeps every message it delivered: its passes would land in
whatever is being timed); it runs between games.

The digest printed is of every entry's stored JSON text: two versions of the code that print the same
digest wrote the same log, byte for byte (hashes included).

    .venv/bin/python bench/journal_step.py [--games 12] [--reps 5] [--kinds classic,tdc,speculation]

Instructions (deterministic, on a shared machine): the same games with ``--part stub`` (the journal
emptied, nothing else), ``--part take`` and ``--part all``, one repetition each; the journal's work is
take - stub, the database thread's db - take (divide by the takes and steps printed)::

    for part in stub take db; do PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no \
        --cachegrind-out-file=/dev/null .venv/bin/python bench/journal_step.py --kinds classic --games 2 \
        --reps 1 --part $part 2>&1 | grep -E "I *refs|steps"; done
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.rooms.effects import Effects
from server.storage import api
from server.storage.sql import tables
from server.table import durable
from tests.server.table.harness import Harness, command_of

TABLES: dict[str, dict[str, Any]] = {
    "classic": {"rules": "classic", "seats": 4, "rounds": 6},
    "tdc": {"rules": "tdc", "seats": 4, "stake": 10, "rounds": 6},
    "speculation": {"rules": "speculation", "seats": 4, "ante": 2, "rounds": 3},
}
PEOPLE = ["alice", "bob", "carol", "dave"]


@dataclass
class TimedJournal(durable.Journal):
    """The room's journal, its ``take`` timed (``stub``: the entries only emptied, nothing written)."""

    stub: bool = False
    spent: float = 0.0
    takes: int = 0
    steps: list[list[dict[str, Any]]] = field(default_factory=list)

    def take(self) -> list[dict[str, Any]]:
        if self.stub:
            assert self.table.journal is not None
            self.table.journal.clear()
            return []
        started = time.process_time()
        entries = super().take()
        self.spent += time.process_time() - started
        self.takes += 1
        if entries:
            self.steps.append(entries)
        return entries


class Timed(Harness):
    """The harness, its table durable: the room's own effects take the journal where the room takes
    it (before each write) and write it to the in-memory store; only the take is timed."""

    stub = False  # the journal emptied and nothing else: what the rest of the game costs

    def __init__(self, rules: str, **kw: Any) -> None:
        super().__init__(rules, probe=False, fair=True, **kw)
        durable.enable(self.table)
        self.room = Effects(self.table, self.room.owner, lambda: self.clock.now)
        self.journal = self.room.journal = TimedJournal(self.table, stub=self.stub)

    @property
    def spent(self) -> float:
        return self.journal.spent

    @property
    def takes(self) -> int:
        return self.journal.takes

    @property
    def steps(self) -> list[list[dict[str, Any]]]:
        return self.journal.steps


def _act(rng: random.Random) -> Any:
    def act(h: Harness) -> bool:
        m = h.table.match
        if m is None or h.table.status != "playing" or m.needs_deal():
            return False
        for key in rng.sample(PEOPLE, len(PEOPLE)):
            seat = h.table.seat_of(key)
            if seat is None:
                continue
            legal = [a for a in m.legal_actions(seat) if a.to_dict()["cmd"] != "cut" or rng.random() < 0.5]
            if not legal:
                continue
            cmd, args = command_of(rng.choice(legal))
            h.cmd(key, cmd, **args)
            return True
        return False

    return act


def play(kind: str, seed: int) -> Timed:
    spec = dict(TABLES[kind])
    h = Timed(spec.pop("rules"), **spec)
    h.join(*PEOPLE)
    h.run(lambda: h.table.status == "over", act=_act(random.Random(seed)), limit=100_000)
    return h


class NoSQL:
    """A transaction that runs nothing (every UPDATE moves every row): only the Python is timed."""

    class _Cursor:
        rowcount = 0

    def execute(self, sql: str, params: Any = ()) -> Any:
        cursor = NoSQL._Cursor()
        cursor.rowcount = len(params) // 3
        return cursor


def db_part(steps: list[tuple[str, int, list[dict[str, Any]]]], reps: int) -> float:
    """The best CPU seconds of ``table_logs`` over all the steps, in groups of 64."""
    best = float("inf")
    tx: Any = NoSQL()
    groups = [[api.TableLog(t, seq, e) for t, seq, e in steps[i:i + 64]] for i in range(0, len(steps), 64)]
    for _ in range(reps):
        started = time.process_time()
        for ops in groups:
            got = tables.table_logs(tx, ops)
            assert got is not None
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=12, help="games of each kind")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (the best is kept)")
    parser.add_argument("--kinds", default="classic,tdc,speculation")
    parser.add_argument("--part", choices=("all", "db", "take", "stub"), default="all",
                        help="db: no digest; take: nor the database part; stub: nor the journal's work")
    args = parser.parse_args()
    Timed.stub = args.part == "stub"
    digest = hashlib.blake2b(digest_size=8)
    gc.disable()  # the harness keeps every message: the collector's passes would land in what is timed
    for kind in args.kinds.split(","):
        best = float("inf")
        takes = written = 0
        steps: list[tuple[str, int, list[dict[str, Any]]]] = []
        for rep in range(args.reps):
            spent = 0.0
            takes = 0
            for game in range(args.games):
                h = play(kind, seed=game)
                gc.collect()
                spent += h.spent
                takes += h.takes
                if rep == 0 and args.part in ("all", "db"):
                    seq = 0
                    for i, entries in enumerate(h.steps):  # a group holds one step of each table
                        steps.append((f"{kind}-{game}-{i}", seq, entries))
                        seq += len(entries)
                        for entry in entries if args.part == "all" else ():
                            digest.update(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
            best = min(best, spent)
        written = len(steps)
        if args.part == "stub":
            print(f"{kind:12} {args.games} games (the journal's work left out)", flush=True)
            continue
        line = (f"{kind:12} {args.games} games: {takes} takes, {written} steps written; "
                f"take {best / takes * 1e6:.2f} us/take, {best / written * 1e6:.2f} us/step written")
        if args.part in ("all", "db"):
            db = db_part(steps, args.reps)
            line += f"; database thread's Python {db / written * 1e6:.2f} us/step"
        print(line, flush=True)
    print("digest of every entry written:", digest.hexdigest())


if __name__ == "__main__":
    main()
