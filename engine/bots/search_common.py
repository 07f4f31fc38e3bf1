"""What the ``search`` bots share: a thinking budget, seeded generators, and a racing loop.

The search bots (:mod:`engine.bots.search_president`,
:mod:`engine.bots.search_speculation`) decide by determinized Monte-Carlo
search: they sample the cards their seat cannot see, consistently with what
it has seen (a *world*), play the rest out with a cheap policy for each
candidate action (a *rollout*), and keep the candidate with the best mean
result. Every candidate is played in the same worlds (common random
numbers), so the comparison between two candidates is paired and needs far
fewer rollouts than independent samples would.

The budget is deterministic by default. engine/ reads no clock (STYLE 8),
so ``budget_ms`` is converted into *work*: a number of simulated moves, from
:data:`STEPS_PER_MS`, measured on one core of the project's machine by
``bench/bench_search.py``. The same seed and the same situation therefore
give the same decision, whatever the load of the machine. A caller that
wants a hard wall-clock bound as well (a server under load) passes
``clock=`` (a callable returning seconds, e.g. ``time.monotonic``): the search
then also stops at ``budget_ms`` of that clock. ``rollouts=N`` fixes the
number of rollouts per decision instead (tests, benchmarks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.seeds import derive

STEPS_PER_MS = 500
"""Simulated moves per millisecond of one core (the work unit of ``budget_ms``).

Measured by ``bench/bench_search.py`` (``steps_per_ms`` in its output); a
slower machine simply thinks longer for the same strength.
"""

MIN_WORLDS = 4
"""Worlds every candidate is played in before anything is eliminated."""
SAME_WORLDS = 32
"""After this many worlds, candidates with the same result in every world are a tie: stop."""
MAX_WORLDS = 4096
"""No decision plays more worlds than this (the estimate no longer moves)."""


def make_rng(seed: bytes, label: str) -> random.Random:
    """A private generator for one purpose of one bot (never the global ``random``).

    ``random.Random`` is used for speed in rollouts; it is seeded from
    :func:`engine.seeds.derive`, so the bot's play depends only on its seed.
    """
    return random.Random(int.from_bytes(derive(seed, label)[:16], "big"))


@dataclass(slots=True)
class Budget:
    """When one decision's search stops: fixed rollouts, or work (and optionally a clock)."""

    rollouts: int | None = None
    """Total rollouts for the decision (deterministic mode); ``None``: use ``steps``."""
    steps: int = 200 * STEPS_PER_MS
    """Simulated moves allowed (the deterministic translation of ``budget_ms``)."""
    clock: Callable[[], float] | None = None
    deadline: float = math.inf
    used_steps: int = 0
    used_rollouts: int = 0

    @classmethod
    def make(
        cls, budget_ms: float, rollouts: int | None, clock: Callable[[], float] | None = None
    ) -> Budget:
        if rollouts is not None:
            return cls(rollouts=max(1, int(rollouts)))
        steps = max(1, int(budget_ms * STEPS_PER_MS))
        if clock is None:
            return cls(steps=steps)
        return cls(steps=steps, clock=clock, deadline=clock() + budget_ms / 1000.0)

    def exhausted(self) -> bool:
        if self.rollouts is not None:
            return self.used_rollouts >= self.rollouts
        if self.used_steps >= self.steps:
            return True
        return self.clock is not None and self.clock() >= self.deadline


@dataclass(slots=True)
class RaceResult:
    """The outcome of :func:`race`: the chosen candidate and the statistics behind it."""

    best: int
    means: list[float]
    counts: list[int]
    worlds: int
    rollouts: int
    steps: int
    alive: list[int] = field(default_factory=list)


def race(
    n: int,
    evaluate: Callable[[int, Sequence[int]], Sequence[float]],
    budget: Budget,
    *,
    z: float = 2.0,
) -> RaceResult:
    """Choose among ``n`` candidates by paired Monte-Carlo racing.

    ``evaluate(world, alive)`` samples world number ``world`` and returns one
    rollout result per candidate of ``alive`` (in that order), all played in
    that same world; it adds the work done to ``budget.used_steps``.
    Candidates whose paired difference with the leader is significantly
    negative (``z`` standard errors) are dropped, and the field is halved
    whenever the number of worlds doubles, so the budget goes to the close
    contenders. Candidate 0 should be the prior favourite: it wins ties.
    """
    sums = [0.0] * n
    counts = [0] * n
    # paired statistics against every other candidate would be O(n^2);
    # keep per-world results of the alive ones instead (worlds are few).
    history: list[list[float]] = [[] for _ in range(n)]
    alive = list(range(n))
    worlds = 0
    next_cut = 2 * MIN_WORLDS
    while len(alive) > 1:
        if worlds >= MIN_WORLDS and budget.exhausted():
            break
        # fixed mode: never exceed the rollouts, even in the middle of a world
        if (
            budget.rollouts is not None
            and worlds >= MIN_WORLDS
            and budget.used_rollouts + len(alive) > budget.rollouts
        ):
            break
        values = evaluate(worlds, alive)
        worlds += 1
        budget.used_rollouts += len(alive)
        for c, v in zip(alive, values, strict=True):
            sums[c] += v
            counts[c] += 1
            history[c].append(v)
        if worlds >= MIN_WORLDS:
            at_cut = worlds >= next_cut
            alive = _prune(alive, history, sums, counts, z, halve=at_cut)
            if at_cut:
                next_cut *= 2
                if worlds >= SAME_WORLDS and _all_equal(alive, history):
                    break  # the candidates never differ: more worlds will not tell them apart
            if worlds >= MAX_WORLDS:
                break
    means = [sums[c] / counts[c] if counts[c] else -math.inf for c in range(n)]
    best = max(alive, key=lambda c: (means[c], -c))
    return RaceResult(best, means, counts, worlds, budget.used_rollouts, budget.used_steps, alive)


def _prune(
    alive: list[int],
    history: list[list[float]],
    sums: list[float],
    counts: list[int],
    z: float,
    *,
    halve: bool,
) -> list[int]:
    leader = max(alive, key=lambda c: (sums[c] / counts[c], -c))
    lead = history[leader]
    keep: list[tuple[float, int]] = []
    for c in alive:
        if c == leader:
            keep.append((0.0, c))
            continue
        # all alive candidates were played in the same worlds, from the first on
        h = history[c]
        m = len(h)
        diffs = [h[i] - lead[i] for i in range(m)]
        mean = sum(diffs) / m
        var = sum((d - mean) ** 2 for d in diffs) / (m - 1) if m > 1 else 0.0
        se = math.sqrt(var / m)
        if mean + z * se < 0.0:
            continue
        keep.append((mean, c))
    if halve and len(keep) > 2:
        keep.sort(key=lambda t: (-t[0], t[1]))
        keep = keep[: max(2, (len(keep) + 1) // 2)]
    return sorted(c for _, c in keep)


def _all_equal(alive: list[int], history: list[list[float]]) -> bool:
    first = history[alive[0]]
    return all(history[c] == first for c in alive[1:])
