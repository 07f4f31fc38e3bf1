"""``donne simulate``: matches between engine bots, in-process; prints one JSON object of figures.

    donne simulate --game president --rules classic --players 4 --rounds 10000 \\
        --bots greedy,greedy,random,random --seed 1
    donne simulate --game president --rules tdc --players 3 --rounds 20000 --bots greedy,greedy,greedy --seed 7
    donne simulate --game speculation --players 5 --deals 10000 --bots greedy,greedy,greedy,random,random --seed 3

Classic matches are 5 rounds (P15), so ``--rounds 10000`` plays 2000 matches;
a tdc table or a Speculation table plays one long match of ``--rounds`` rounds
or ``--deals`` deals, every seat with a large bankroll so nobody drops out.
Every match runs through :func:`engine.bots.driver.play_match`, which checks the
engine's invariants every ``--check-every`` actions (default: after every one).
The exit status is 1 when an invariant fails or a bot is refused (the failure
goes to stderr), 2 for bad arguments.

Match ``i`` is seeded with ``derive(seed_from_int(seed), "match-<i>")``, its
round ``n`` with ``derive(match_seed, "round-<n>")`` and the bot of seat ``s``
with ``derive(match_seed, "bot-<s>")``: the same command prints the same
figures (but for the timings).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import sys
import time
from collections.abc import Callable
from itertools import compress
from typing import Protocol

from engine import game_class
from engine.api import Event, Match
from engine.bots import LEVELS, STRATEGIES, Bot, make_bot
from engine.bots.driver import DriverError, DriverStats, play_match
from engine.president import CutEvent, Out, Revolution, RoundOver
from engine.president.match import PresidentMatch
from engine.seeds import derive, seed_from_int
from server.protocol import JSONValue

BANKROLL = 10**9
"""Chips each seat starts a Speculation simulation with (the figures are net changes)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=("president", "speculation"), default="president")
    parser.add_argument("--rules", choices=("classic", "tdc"), default="classic", help="Président table rules")
    parser.add_argument("--players", type=int, default=4, help="seats at the table")
    parser.add_argument("--rounds", type=int, default=1000, help="Président rounds to play in all")
    parser.add_argument("--deals", type=int, default=None, help="Speculation deals (default: --rounds)")
    parser.add_argument(
        "--bots",
        default=None,
        help="comma-separated strategy per seat (random, greedy, search or easy/normal/hard); default all greedy",
    )
    parser.add_argument("--seed", type=int, default=1, help="the simulation's seed (an integer)")
    parser.add_argument("--stake", type=int, default=10, help="tdc stake per round (even, T13)")
    parser.add_argument("--ante", type=int, default=1, help="Speculation ante (S3)")
    parser.add_argument(
        "--check-every",
        type=int,
        default=1,
        metavar="N",
        help="run the engine's invariant checks every N actions (default 1: every action; 0: never)",
    )
    parser.add_argument(
        "--ask-forced",
        action="store_true",
        help="ask the bots even when a single action is legal (default: apply it without asking)",
    )
    parser.add_argument("--out", default=None, metavar="FILE", help="also write the JSON figures to FILE")


class Played(Match, Protocol):
    """A match as the figures read it at its end: each seat's chips too."""

    @property
    def chips(self) -> tuple[int, ...]: ...


_PRESIDENT_TALLIED = frozenset({RoundOver, Out, CutEvent, Revolution})
"""The Président events the figures count (the others, played, passed, trick_closed..., count for
nothing here): tested by type, which costs less than reading an event's name."""


class _Tally:
    """Figures gathered from the events of every applied action (the global, uncensored form)."""

    __slots__ = (
        "auctions",
        "cuts",
        "forbidden",
        "kept_pairs",
        "kept_title",
        "last_president",
        "points",
        "revolutions",
        "round_chips",
        "rounds",
        "sold",
        "trades",
    )

    def __init__(self, seats: int) -> None:
        self.points = [0] * seats
        self.round_chips = [0] * seats
        self.rounds = 0
        self.kept_pairs = 0
        self.kept_title = 0
        self.last_president: int | None = None
        self.cuts = 0
        self.revolutions = 0
        self.forbidden = 0
        self.auctions = 0
        self.trades = 0
        self.sold = 0

    def new_match(self) -> None:
        self.last_president = None

    def president_events(self, events: list[Event]) -> None:
        """Tally a match's events (every applied action's, in order)."""
        tallied = _PRESIDENT_TALLIED
        for e in compress(events, map(tallied.__contains__, map(type, events))):
            if isinstance(e, RoundOver):
                self.rounds += 1
                points = self.points
                for s, p in enumerate(e.scores):
                    if p is not None:
                        points[s] += p
                if e.chips is not None:
                    rc = self.round_chips
                    for s, c in enumerate(e.chips):
                        rc[s] += c
                president = e.ranking[0] if e.ranking else None
                if self.last_president is not None:
                    self.kept_pairs += 1
                    if president == self.last_president:
                        self.kept_title += 1
                self.last_president = president
            elif isinstance(e, Out):
                if e.forbidden:
                    self.forbidden += 1
            elif isinstance(e, CutEvent):
                self.cuts += 1
            elif isinstance(e, Revolution):
                self.revolutions += 1

    def classic_round(self, match: PresidentMatch) -> None:
        """Tally a classic round from the match itself, read when it awaits nothing (the driver's
        ``on_idle``: before each deal and at the match's end): the same figures as
        :meth:`president_events` from the round's ``round_over`` (its ranking; the points are the
        match's totals, the sum of its rounds' scores), without collecting every action's events."""
        ranking = match.last_ranking
        if not ranking:  # before the first deal
            return
        self.rounds += 1
        president = ranking[0]
        if self.last_president is not None:
            self.kept_pairs += 1
            if president == self.last_president:
                self.kept_title += 1
        self.last_president = president
        if match.over:
            points = self.points
            for s, p in enumerate(match.totals):
                points[s] += p

    def speculation_events(self, events: list[Event]) -> None:
        """Tally a match's events (every applied action's, in order)."""
        for e in events:
            name = e.name
            if name == "auction":
                self.auctions += 1
            elif name == "traded":
                self.trades += 1
            elif name == "sold":
                self.sold += 1
            elif name == "deal_over":
                self.rounds += 1


def _bots(game: str, names: list[str], match_seed: bytes) -> list[Bot]:
    return [make_bot(game, name, seat, derive(match_seed, f"bot-{seat}")) for seat, name in enumerate(names)]


def _strategy_names(game: str, text: str | None, players: int) -> list[str]:
    names = ["greedy"] * players if text is None else [t.strip() for t in text.split(",") if t.strip()]
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} strategies for {players} players")
    for name in names:
        if (game, LEVELS.get(name, name)) not in STRATEGIES:
            raise ValueError(f"no strategy {name!r} for {game}")
    return names


_YOUNG_THRESHOLD = 10_000
"""The cyclic collector's first threshold during a simulation (see :func:`simulate`)."""


def simulate(args: argparse.Namespace) -> dict[str, JSONValue]:
    """Play what ``args`` asks; the figures (raises AssertionError / DriverError on failure).

    The collector's young generation is collected every 10,000 net allocations instead of 700
    meanwhile: the matches make no reference cycles (reference counting frees them), and most of
    what a low threshold traverses, and promotes to be traversed again, is freed a few actions
    later anyway (about 1.3% of a classic round)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _YOUNG_THRESHOLD), *thresholds[1:])
    try:
        return _simulate(args)
    finally:
        gc.set_threshold(*thresholds)


def _simulate(args: argparse.Namespace) -> dict[str, JSONValue]:
    game = args.game
    players = args.players
    names = _strategy_names(game, args.bots, players)
    base = seed_from_int(args.seed)
    tally = _Tally(players)
    total = DriverStats()
    cls = game_class(game)
    plans: list[tuple[Callable[[], Played], int]] = []  # (match factory, rounds it plays)
    # a match's events tallied at its end; or, for classic rounds (no chips, cuts, revolutions or
    # forbidden finishes to count), each round read from the match between rounds instead
    tally_events: Callable[[list[Event]], None] | None
    tally_round: Callable[[PresidentMatch], None] | None = None
    if game == "president":
        if args.rules == "classic":
            per = 5  # P15
            left = args.rounds
            while left > 0:
                r = min(per, left)
                plans.append((functools.partial(cls, "classic", seats=players, rounds=r), r))
                left -= r
            tally_events, tally_round = None, tally.classic_round
        else:
            stake = args.stake
            plans.append(((lambda: cls("tdc", seats=players, stake=stake, rounds=args.rounds)), args.rounds))
            tally_events = tally.president_events
    else:
        deals = args.deals if args.deals is not None else args.rounds
        chips = [BANKROLL] * players
        plans.append(((lambda: cls(seats=players, chips=chips, ante=args.ante, deals=deals)), deals))
        tally_events = tally.speculation_events
    matches = 0
    chips_net = [0] * players
    wall0 = time.perf_counter()
    cpu0 = time.process_time()
    for i, (factory, _) in enumerate(plans):
        match_seed = derive(base, f"match-{i}")
        match = factory()
        bots = _bots(game, names, match_seed)
        tally.new_match()
        events: list[Event] = []
        try:
            stats = play_match(
                match,
                bots,
                match_seed,
                check_every=args.check_every,
                ask_forced=args.ask_forced,
                on_events=None if tally_events is None else events.extend,
                on_idle=tally_round,
            )
        except (AssertionError, DriverError) as exc:
            raise SimulationFailure(i, match, exc) from exc
        if tally_events is not None:
            tally_events(events)
        matches += 1
        total.actions += stats.actions
        total.deals += stats.deals
        total.checks += stats.checks
        total.timeouts += stats.timeouts
        total.reactions += stats.reactions
        total.forced += stats.forced
        if game == "speculation":
            for s, c in enumerate(match.chips):
                chips_net[s] += c - BANKROLL
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    rounds = tally.rounds
    out: dict[str, JSONValue] = {
        "game": game,
        "players": players,
        "bots": names,
        "seed": args.seed,
        "check_every": args.check_every,
        "ask_forced": args.ask_forced,
    }
    if game == "president":
        out["rules"] = args.rules
        out["rounds"] = rounds
    else:
        out["deals"] = rounds
    out["matches"] = matches
    out["actions"] = total.actions
    out["seconds"] = round(wall, 3)
    out["cpu_seconds"] = round(cpu, 3)
    per_s = "rounds_per_s" if game == "president" else "deals_per_s"
    out[per_s] = round(rounds / wall, 1) if wall > 0 else None
    out["actions_per_s"] = round(total.actions / wall, 1) if wall > 0 else None
    out[per_s.replace("_per_s", "_per_cpu_s")] = round(rounds / cpu, 1) if cpu > 0 else None
    out["invariant_checks"] = total.checks
    out["timeouts"] = total.timeouts
    out["forced"] = total.forced
    if game == "president":
        out["mean_points_per_seat"] = [round(p / rounds, 4) if rounds else 0.0 for p in tally.points]
        out["president_kept_title"] = (
            round(tally.kept_title / tally.kept_pairs, 4) if tally.kept_pairs else None
        )
        out["round_pairs"] = tally.kept_pairs
        if args.rules == "tdc":
            out["stake"] = args.stake
            out["chips_per_seat"] = tally.round_chips
            out["cuts"] = tally.cuts
            out["revolutions"] = tally.revolutions
            out["forbidden_finishes"] = tally.forbidden
    else:
        out["ante"] = args.ante
        out["chips_per_seat"] = chips_net
        out["auctions"] = tally.auctions
        out["sold"] = tally.sold
        out["trades"] = tally.trades
        out["out_of_turn_actions"] = total.reactions
    return out


class SimulationFailure(Exception):
    """An invariant failed or a bot was refused in match ``index``."""

    def __init__(self, index: int, match: object, cause: BaseException) -> None:
        super().__init__(f"match {index}, round {getattr(match, 'round', '?')}: {type(cause).__name__}: {cause}")
        self.index = index
        self.cause = cause


def run(args: argparse.Namespace) -> int:
    if args.players < 3:
        print("donne simulate: --players must be at least 3", file=sys.stderr)
        return 2
    if args.rounds < 1 or (args.deals is not None and args.deals < 1):
        print("donne simulate: --rounds/--deals must be positive", file=sys.stderr)
        return 2
    if args.check_every < 0:
        print("donne simulate: --check-every must be 0 or more", file=sys.stderr)
        return 2
    try:
        figures = simulate(args)
    except SimulationFailure as failure:
        print(f"donne simulate: invariant or rules failure in {failure}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, ImportError) as exc:
        print(f"donne simulate: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(figures)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0
