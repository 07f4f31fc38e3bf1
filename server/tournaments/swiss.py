"""A Swiss round's pairing for tables of three to eight (or nine).

**Table sizes** (:func:`sizes`): as few tables as seat everyone, as even as
possible (sizes differ by one at most, the larger ones first), none smaller
than the event's smallest table. When the active players cannot all be seated
so, the fewest possible get a **bye**; with bots allowed, nobody does: short
tables are filled with bots up to the smallest size.

**Byes** (:func:`byes`): to the players with the fewest byes so far, and among
them the lowest in the round's order, so nobody gets a second bye while someone
has none. A bye scores half a win (``Scoring.bye_points``).

**Round 1** (:func:`snake`): players by rating, best first, dealt into the
tables in snake order (1 2 3 3 2 1 1 2 3 …), so every table gets a fair share of
strong and weak players.

**Later rounds** (:func:`later`): players by points, then opponents' points,
then rating (ties by the event's seed), grouped by the bounded search of
``server.tournaments.grouping``: the fewest pairs of people who already shared
a table (counting each game they shared), then close points together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from server.tournaments.grouping import partition


@dataclass(frozen=True, slots=True)
class Sizes:
    """How many people each table seats (top table first), its bots, and how many get a bye."""

    people: tuple[int, ...]
    bots: tuple[int, ...]
    byes: int


def sizes(players: int, seats: int, smallest: int, bots: bool) -> Sizes:
    """The tables for ``players`` active players (see the module)."""
    if players <= 0:
        return Sizes((), (), 0)
    tables = -(-players // seats)
    seated = players
    if not bots and players < tables * smallest:
        tables -= 1
        seated = tables * seats
    if tables == 0:
        return Sizes((), (), players)
    q, r = divmod(seated, tables)
    people = tuple([q + 1] * r + [q] * (tables - r))
    extra = tuple(max(0, smallest - p) if bots else 0 for p in people)
    return Sizes(people, extra, players - seated)


def byes(order: Sequence[str], count: int, had: Mapping[str, int]) -> list[str]:
    """Who sits this round out: ``count`` players, the fewest byes so far first, then the lowest
    in ``order`` (best first)."""
    if count <= 0:
        return []
    ranked = sorted(range(len(order)), key=lambda i: (had.get(order[i], 0), -i))
    return [order[i] for i in sorted(ranked[:count])]


def snake(order: Sequence[str], people: Sequence[int]) -> list[list[str]]:
    """Round 1: ``order`` (by rating, best first) dealt into tables of ``people`` in snake order."""
    tables: list[list[str]] = [[] for _ in people]
    t, step = 0, 1
    for name in order:
        while len(tables[t]) >= people[t]:
            t, step = _turn(t, step, len(people))
        tables[t].append(name)
        t, step = _turn(t, step, len(people))
    return tables


def _turn(t: int, step: int, count: int) -> tuple[int, int]:
    nxt = t + step
    if 0 <= nxt < count:
        return nxt, step
    return t, -step  # the end of a row: the same table starts the next one


def later(order: Sequence[str], people: Sequence[int], shared: Callable[[str, str], int],
          points: Mapping[str, int], budget: int) -> list[list[str]]:
    """A later round: ``order`` (by points, opponents' points, rating) into tables of the sizes
    ``people`` (the top table is not always the largest: a size goes where it avoids repeats),
    avoiding repeats (see the module)."""
    def repeats(a: int, b: int) -> int:
        return shared(order[a], order[b])

    groups, _ = partition(len(order), people, repeats, [points.get(n, 0) for n in order], budget=budget)
    return [[order[i] for i in group] for group in groups]
