"""Strength and speed of the ``search`` bots (level "hard") against ``greedy`` ("normal").

    python bench/bench_search.py [--quick] [--only classic,tdc,tdc3,speculation]
        [--rounds N] [--tdc3-rounds N] [--deals N] [--rollouts N | --budget-ms MS] [--seed N] [--out FILE]

Each scenario's figures also go to stderr as soon as it is done (long runs).

Scenarios (one JSON object on stdout, figures only, nothing asserted):

* ``classic``: Président classic, 4 seats, one ``search`` bot against three
  ``greedy``, matches of 5 rounds (P15). Mean points per round of the search
  seat and of the greedy seats, their difference per round with a 95%
  interval, and the match win rate of the search seat (ties share the win:
  a shared win counts 1/k) with a 95% interval.
* ``tdc``: Président tdc, 4 seats, one ``search`` against three ``greedy``,
  stake 10: chips per round of the search seat (and of the greedy seats).
* ``tdc3``: Président tdc, 3 seats: a table of three ``search`` bots and a
  table of three ``greedy`` bots; how often the Président keeps the title
  in the next round (rounds 2+), and in which rounds the exchange moved cards.
* ``speculation``: Speculation, 4 seats, one ``search`` against three
  ``greedy``: chips per deal of each seat.

Every scenario also reports the search bots' decision times (wall and CPU,
median and p99, over the decisions that searched and over all decisions)
and rollouts per searching decision. ``--rollouts N`` fixes the rollouts per
decision (deterministic, strength independent of the machine); otherwise
``--budget-ms`` (default 200) is the thinking budget. The seat of the search
bot rotates from match to match, so the deal order does not favour it.
The figures depend on the budget: say which one you quote.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import game_class
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import derive, seed_from_int


class Timed:
    """Wraps a search bot: times every decision (the bench may read clocks; the engine may not)."""

    def __init__(self, bot: Any, sink: dict[str, list[float]]) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.sink = sink
        self.observes = getattr(bot, "observes", True)

    def observe(self, event: Any) -> None:
        self.bot.observe(event)

    def decide(self, view: Any, legal: Any) -> Any:
        before = getattr(self.bot, "stats_rollouts", 0)
        searches = getattr(self.bot, "stats_searches", 0)
        w0 = time.perf_counter()
        c0 = time.process_time()
        action = self.bot.decide(view, legal)
        wall = (time.perf_counter() - w0) * 1000.0
        cpu = (time.process_time() - c0) * 1000.0
        self.sink["all_wall"].append(wall)
        self.sink["all_cpu"].append(cpu)
        if getattr(self.bot, "stats_searches", 0) > searches:
            self.sink["search_wall"].append(wall)
            self.sink["search_cpu"].append(cpu)
            self.sink["rollouts"].append(float(getattr(self.bot, "stats_rollouts", 0) - before))
        return action


def _interval(values: list[float]) -> dict[str, float]:
    n = len(values)
    if n == 0:
        return {"mean": 0.0, "ci95": 0.0, "n": 0}
    mean = sum(values) / n
    sd = statistics.stdev(values) if n > 1 else 0.0
    return {"mean": round(mean, 4), "ci95": round(1.96 * sd / math.sqrt(n), 4), "n": n}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 2)


def _times(sink: dict[str, list[float]]) -> dict[str, Any]:
    return {
        "decisions": len(sink["all_wall"]),
        "searching_decisions": len(sink["search_wall"]),
        "search_ms_wall": {"median": _pct(sink["search_wall"], 0.5), "p99": _pct(sink["search_wall"], 0.99)},
        "search_ms_cpu": {"median": _pct(sink["search_cpu"], 0.5), "p99": _pct(sink["search_cpu"], 0.99)},
        "all_ms_wall": {"median": _pct(sink["all_wall"], 0.5), "p99": _pct(sink["all_wall"], 0.99)},
        "rollouts_per_search": {
            "median": _pct(sink["rollouts"], 0.5),
            "mean": round(sum(sink["rollouts"]) / len(sink["rollouts"]), 1) if sink["rollouts"] else 0.0,
        },
    }


def _sink() -> dict[str, list[float]]:
    return {"all_wall": [], "all_cpu": [], "search_wall": [], "search_cpu": [], "rollouts": []}


def _opts(args: argparse.Namespace) -> dict[str, Any]:
    if args.rollouts:
        return {"rollouts": args.rollouts}
    return {"budget_ms": args.budget_ms}


def one_vs_greedy(args: argparse.Namespace, rules: str, seats: int, rounds: int) -> dict[str, Any]:
    """One search seat (rotating) against greedy bots; per-round points or chips."""
    cls = game_class("president")
    sink = _sink()
    base = seed_from_int(args.seed)
    per_match = 5 if rules == "classic" else 10
    stake = 10
    diffs: list[float] = []
    mine: list[float] = []
    others: list[float] = []
    wins: list[float] = []
    forbidden = [0, 0]
    played = 0
    i = 0
    t0 = time.perf_counter()
    while played < rounds:
        r = min(per_match, rounds - played)
        match_seed = derive(base, f"{rules}-{seats}-match-{i}")
        me = i % seats
        bots: list[Any] = []
        for s in range(seats):
            if s == me:
                bots.append(Timed(make_bot("president", "search", s, derive(match_seed, f"bot-{s}"), **_opts(args)), sink))
            else:
                bots.append(make_bot("president", "greedy", s, derive(match_seed, f"bot-{s}")))
        if rules == "classic":
            match = cls("classic", seats=seats, rounds=r)
        else:
            match = cls("tdc", seats=seats, stake=stake, rounds=r)

        def step(action: Any, events: tuple[Any, ...], me: int = me) -> None:
            for e in events:
                if e.name == "round_over":
                    values = e.scores if rules == "classic" else e.chips
                    v = [float(x or 0) for x in values]
                    rest = [v[s] for s in range(seats) if s != me]
                    mine.append(v[me])
                    others.extend(rest)
                    diffs.append(v[me] - sum(rest) / len(rest))
                elif e.name == "out" and getattr(e, "forbidden", False):
                    forbidden[0 if e.seat == me else 1] += 1
                elif e.name == "match_over":
                    wins.append(1.0 / len(e.winners) if me in e.winners else 0.0)

        play_match(match, bots, match_seed, step, check_every=0)
        played += r
        i += 1
    wall = time.perf_counter() - t0
    unit = "points" if rules == "classic" else "chips"
    out: dict[str, Any] = {
        "scenario": f"{rules}{seats}_search_vs_greedy",
        "rules": rules,
        "seats": seats,
        "rounds": len(mine),
        "matches": i,
        f"search_{unit}_per_round": _interval(mine),
        f"greedy_{unit}_per_round": _interval(others),
        f"search_minus_greedy_{unit}_per_round": _interval(diffs),
        "seconds": round(wall, 1),
    }
    if rules == "classic":
        out["search_match_win_rate"] = _interval(wins)
        out["fair_win_rate"] = round(1 / seats, 4)
    else:
        out["stake"] = stake
        out["forbidden_finishes"] = {"search": forbidden[0], "greedy": forbidden[1]}
    out["times"] = _times(sink)
    return out


def kept_title(args: argparse.Namespace, strategy: str, rounds: int) -> dict[str, Any]:
    """A 3-seat tdc table of one strategy: how often the Président keeps the title next round."""
    cls = game_class("president")
    sink = _sink()
    base = seed_from_int(args.seed)
    per_match = 20
    kept = pairs = 0
    played = 0
    i = 0
    t0 = time.perf_counter()
    while played < rounds:
        r = min(per_match, rounds - played)
        match_seed = derive(base, f"tdc3-{strategy}-match-{i}")
        bots: list[Any] = []
        for s in range(3):
            bot = make_bot(
                "president", strategy, s, derive(match_seed, f"bot-{s}"), **(_opts(args) if strategy == "search" else {})
            )
            bots.append(Timed(bot, sink) if strategy == "search" else bot)
        match = cls("tdc", seats=3, stake=10, rounds=r)
        last: list[int | None] = [None]

        def step(action: Any, events: tuple[Any, ...], last: list[int | None] = last) -> None:
            nonlocal kept, pairs
            for e in events:
                if e.name == "round_over":
                    president = e.ranking[0]
                    if last[0] is not None:
                        pairs += 1
                        kept += president == last[0]
                    last[0] = president

        play_match(match, bots, match_seed, step, check_every=0)
        played += r
        i += 1
    rate = kept / pairs if pairs else 0.0
    half = 1.96 * math.sqrt(rate * (1 - rate) / pairs) if pairs else 0.0
    out: dict[str, Any] = {
        "scenario": f"tdc3_three_{strategy}",
        "rounds": played,
        "round_pairs": pairs,
        "president_kept_title": {"mean": round(rate, 4), "ci95": round(half, 4), "n": pairs},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if strategy == "search":
        out["times"] = _times(sink)
    return out


def speculation(args: argparse.Namespace, deals: int) -> dict[str, Any]:
    """One search seat (rotating) against three greedy at a 4-seat Speculation table."""
    cls = game_class("speculation")
    sink = _sink()
    base = seed_from_int(args.seed)
    seats = 4
    per_match = 8
    mine: list[float] = []
    others: list[float] = []
    played = 0
    i = 0
    t0 = time.perf_counter()
    while played < deals:
        d = min(per_match, deals - played)
        match_seed = derive(base, f"spec-match-{i}")
        me = i % seats
        bots: list[Any] = []
        for s in range(seats):
            if s == me:
                bots.append(
                    Timed(make_bot("speculation", "search", s, derive(match_seed, f"bot-{s}"), **_opts(args)), sink)
                )
            else:
                bots.append(make_bot("speculation", "greedy", s, derive(match_seed, f"bot-{s}")))
        bank = 10_000
        match = cls(seats=seats, chips=[bank] * seats, ante=1, deals=d)
        play_match(match, bots, match_seed, None, check_every=0)
        chips = list(match.chips)
        mine.append((chips[me] - bank) / d)
        others.extend((chips[s] - bank) / d for s in range(seats) if s != me)
        played += d
        i += 1
    return {
        "scenario": "speculation4_search_vs_greedy",
        "deals": played,
        "search_chips_per_deal": _interval(mine),
        "greedy_chips_per_deal": _interval(others),
        "note": "intervals over matches of 8 deals (chips per deal averaged per match)",
        "seconds": round(time.perf_counter() - t0, 1),
        "times": _times(sink),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    p.add_argument("--only", default="classic,tdc,tdc3,speculation")
    p.add_argument("--rounds", type=int, default=None, help="rounds (deals) per scenario")
    p.add_argument("--tdc3-rounds", type=int, default=None, help="rounds of the three-search tdc table")
    p.add_argument("--deals", type=int, default=None, help="Speculation deals")
    p.add_argument("--rollouts", type=int, default=None, help="fixed rollouts per decision")
    p.add_argument("--budget-ms", type=float, default=200.0, help="thinking budget per decision")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cpu", type=int, default=None, help="pin to this core (os.sched_setaffinity)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    if args.quick:
        args.rollouts = args.rollouts or 16
    rounds = args.rounds or (10 if args.quick else 200)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    results: list[dict[str, Any]] = []

    def done(result: dict[str, Any]) -> None:
        results.append(result)
        print(json.dumps(result), file=sys.stderr, flush=True)  # progress of long runs

    if "classic" in only:
        done(one_vs_greedy(args, "classic", 4, rounds))
    if "tdc" in only:
        done(one_vs_greedy(args, "tdc", 4, rounds))
    if "tdc3" in only:
        done(kept_title(args, "search", args.tdc3_rounds or rounds))
        done(kept_title(args, "greedy", max(rounds, 2000)))
    if "speculation" in only:
        done(speculation(args, args.deals or rounds))
    figures = {
        "bench": "search",
        "python": platform.python_version(),
        "budget": {"rollouts": args.rollouts} if args.rollouts else {"budget_ms": args.budget_ms},
        "seed": args.seed,
        "results": results,
    }
    text = json.dumps(figures)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
