"""The CPU of a step's states (``server.table.states.StateSet``), in process and deterministic.

Real tables (``server.table.core.Table`` with the real adapters, driven by the table tests'
harness) play whole matches among four people who choose a random legal move (seeded; a
spectator at every other table). Each time a table pushes everyone's states, the moment is kept:
a copy of the match and of the table's facts the states read. Then, timed alone, each kept moment
gets its states made again, as a room makes them: the set, the JSON line of each reader (what a
JSON session sends), and the durable step's ``state_hash`` of the same moment. The match's own
memos are reset first, as at a new version of it.

    PYTHONHASHSEED=0 .venv/bin/python bench/bench_states.py [--reps 20] [--rules classic,tdc,speculation]

Prints, per rule set, the moments and the microseconds per moment (``time.process_time`` around
a pass over them all, the best of ``--reps`` passes): the states alone, then with the hash. ``--passes N`` makes N passes and prints nothing: run it
under ``valgrind --tool=cachegrind --cache-sim=no`` with N and 2N, the difference of the two
instruction counts divided by N times the moments is the instructions per moment.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import server.table.sender as base_mod
from server.table.durable import state_hash
from server.table.states import StateSet
from tests.server.table.harness import Harness, command_of

PEOPLE = ["alice", "bob", "carol", "dave"]


def moment(table: Any, now: float, seats: tuple[int | None, ...],
           state_memo: dict[int, Any]) -> tuple[Any, float, tuple[int | None, ...]]:
    """What the states of this moment read, copied (the table plays on); ``state_memo``: the table's
    ``state_memo``, one for all the moments of a table (as the table's own, it carries a seat's fields
    from one moment to the next)."""
    match = table.match
    slots = [n for cls in type(match).__mro__ for n in getattr(cls, "__slots__", ())]
    fixed = [getattr(match, n, None) for n in slots] + list(getattr(match, "__dict__", {}).values())
    memo = {id(v): v for v in fixed if isinstance(v, tuple)}  # its tables: immutable, shared
    kept = SimpleNamespace(
        id=table.id, adapter=table.adapter, opts=table.opts, match=copy.deepcopy(match, memo),
        seats=[copy.copy(s) for s in table.seats], spectators=dict(table.spectators), status=table.status,
        deadlines=dict(table.deadlines), commitment=table.commitment, round_escrow=dict(table.round_escrow),
        window=table.window, state_memo=state_memo, answers=copy.deepcopy(table.answers),
        bank=copy.deepcopy(table.bank))
    return kept, now, seats


def chooser(rng: random.Random) -> Any:
    def act(h: Harness) -> bool:
        match = h.table.match
        if match is None or h.table.status != "playing" or match.needs_deal():
            return False
        awaited = sorted({p.seat for p in match.pending() if p.seat is not None})
        rng.shuffle(awaited)
        for seat in awaited:
            key = next((k for k in PEOPLE if h.table.seat_of(k) == seat), None)
            legal = list(match.legal_actions(seat)) if key is not None else []
            if not legal:
                continue
            cmd, args = command_of(rng.choice(legal))
            got = h.cmd(key, cmd, **args)
            return not hasattr(got, "code")
        return False
    return act


def moments(rules: str, matches: int) -> list[tuple[Any, float, tuple[int | None, ...]]]:
    kept: list[tuple[Any, float, tuple[int | None, ...]]] = []
    real = base_mod.StateSet
    memos: dict[int, tuple[Any, dict[int, Any]]] = {}  # id(table) -> (the table, kept alive: its id is its own; its memo)

    def keeping(table: Any, now: float, seats: Any = ()) -> StateSet:
        seats = tuple(seats)
        if len(seats) > 1 and table.match is not None:  # everyone's states (not one reader's, on joining)
            kept.append(moment(table, now, seats, memos.setdefault(id(table), (table, {}))[1]))
        return real(table, now, seats)

    base_mod.StateSet = keeping  # type: ignore[assignment,misc]
    try:
        for seed in range(matches):
            create: dict[str, Any] = {"seats": 4, "bots": 0, "rounds": 3}
            if rules == "tdc":
                create["stake"] = 4
            h = Harness(rules, probe=False, **create)
            if seed % 2:
                h.ok("zoe", "watch")
            h.join(*PEOPLE)
            h.run(lambda h=h: h.table.status == "over", act=chooser(random.Random(seed)), limit=100_000)
    finally:
        base_mod.StateSet = real  # type: ignore[misc]
    return kept


def fresh(table: Any) -> None:
    """The memos reset, as at a new version of the match (the views, the public view) and a new
    table (its seats' fields)."""
    table.state_memo.clear()
    match = table.match
    if hasattr(match, "_view_version"):
        match._view_version = -1
    if hasattr(match, "_public_step"):
        match._public_step = -1


def one_pass(kept: list[tuple[Any, float, tuple[int | None, ...]]], hashes: bool) -> float:
    """The CPU seconds of making every kept moment's states (``hashes``: and its ``state_hash``
    right after, as the durable step does). Timed around the whole pass: a clock read costs more
    than a moment's states here."""
    for table, _, _ in kept:
        fresh(table)
    t0 = time.process_time()
    for table, now, seats in kept:
        states = StateSet(table, now, seats)
        for seat in seats:
            states.line(seat)
        if hashes:
            state_hash(table.match)
    return time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--passes", type=int, default=0)
    parser.add_argument("--alone", action="store_true", help="with --passes: the states without the hash")
    parser.add_argument("--rules", default="classic,tdc,speculation")
    parser.add_argument("--quick", action="store_true", help="a smoke run: one match, three passes")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.matches = 3, 1
    result: dict[str, Any] = {"bench": "states"}
    for rules in args.rules.split(","):
        kept = moments(rules, args.matches)
        gc.collect()
        gc.freeze()  # the kept moments: not the collector's work of a step
        if args.passes:
            for _ in range(args.passes):
                one_pass(kept, not args.alone)
            continue
        alone = min(one_pass(kept, False) for _ in range(args.reps)) / len(kept) * 1e6
        both = min(one_pass(kept, True) for _ in range(args.reps)) / len(kept) * 1e6
        print(f"{rules:12s} moments {len(kept):5d}  states {alone:6.1f} us  with state_hash {both:6.1f} us"
              f"  (best of {args.reps})")
        result[rules] = {"moments": len(kept), "states_us": round(alone, 1), "with_hash_us": round(both, 1)}
    if not args.passes:
        print(json.dumps(result))  # the last line: what bench/run_all.py collects


if __name__ == "__main__":
    main()
