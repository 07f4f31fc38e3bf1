"""An arena's pairing: the players waiting, seated at new tables by score.

Whenever at least a table's worth of players wait, :func:`pair` makes as many
full tables as the waiting players fill:

1. who is seated: those who have waited longest (ties by the event's seed); a
   remainder smaller than a table keeps waiting;
2. how: by score, close scores together, and never with someone they shared
   their previous game with when others wait (``server.tournaments.grouping``:
   repeats first, then score distance; a table that still seats two players of
   one previous game says so, see :attr:`Proposal.repeats`).

The same waiting list, scores, previous tables and seed give the same tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.tournaments.grouping import partition
from server.tournaments.ties import tie_key


@dataclass(frozen=True, slots=True)
class Waiting:
    name: str
    since: float  # when they started waiting
    score: int
    rating: float


@dataclass(frozen=True, slots=True)
class Proposal:
    """A table to open: its players in seat order, and how many pairs of them shared their
    previous game."""

    names: tuple[str, ...]
    repeats: int


def pair(waiting: Sequence[Waiting], seats: int, previous: Mapping[str, frozenset[str]], *,
         seed: str, salt: str, budget: int = 5_000) -> list[Proposal]:
    """Tables for the ``waiting`` players (see the module). ``previous``: each player's table-mates
    of their previous game."""
    tables = len(waiting) // seats
    if tables == 0:
        return []
    first = sorted(waiting, key=lambda w: (w.since, tie_key(seed, salt, w.name)))[: tables * seats]
    order = sorted(first, key=lambda w: (-w.score, -w.rating, tie_key(seed, salt, w.name)))
    names = [w.name for w in order]
    empty: frozenset[str] = frozenset()

    def repeats(a: int, b: int) -> int:
        x, y = names[a], names[b]
        return 1 if y in previous.get(x, empty) or x in previous.get(y, empty) else 0

    groups, _ = partition(len(order), [seats] * tables, repeats, [w.score for w in order], budget=budget)
    out = []
    for group in groups:
        reps = sum(repeats(a, b) for i, a in enumerate(group) for b in group[i + 1:])
        seated = sorted((names[i] for i in group), key=lambda n: tie_key(seed, salt + "/seat", n))
        out.append(Proposal(tuple(seated), reps))
    return out
