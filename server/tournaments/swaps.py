"""A partition made better by swapping players between tables: repeats first, then points.

The constructive search of ``server.tournaments.grouping`` builds tables from the
top of the order; when every table of the order's top has been filled well, the
players left at the bottom may only sit with people they already met. This
local search starts from that partition and swaps two players of two tables
(any two tables of its *zone*), in two phases:

1. **repeats** (a tabu search, after Dotú and Van Hentenryck's local search for
   the social golfer problem): each step makes the swap that lowers the repeats
   most, or raises them least, among the swaps that move a player seated with
   someone they already met (every such swap looked at); a player may not go
   back to the table they just left for a few steps (unless that reaches fewer
   repeats than ever); among
   equally good swaps the closest in points wins, then a draw from a
   ``random.Random`` seeded by the input (its ``random()`` only). It stops at
   no repeat left, or after ``moves`` steps or ``looks`` swaps looked at (by
   default 2,000 a step: a zone full of repeats has fewer, costlier steps), and
   keeps the partition with the fewest repeats seen.
2. **points**: swaps that lower the partition's cost (repeats, distance,
   spread: the order of ``grouping``) are made while there are any, so it never
   adds a repeat; at most ``tries`` swaps are looked at.

The zone is every table when ``count`` is small (the pairs' repeats are all
asked once); otherwise the tables seating a repeat and those near them, up
to ``EVERY_PAIR`` players. The same
input gives the same partition.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Sequence

EVERY_PAIR = 160  # up to this many players, every pair's repeats are asked once, every table is in the zone
REACH = 8  # otherwise, the tables this close to one seating a repeat
TENURE = (3, 10)  # a player may not go back to the table they left for this many steps


def improve(groups: Sequence[Sequence[int]], repeats: Callable[[int, int], int], values: Sequence[int],
            *, moves: int, tries: int, looks: int = 0) -> list[list[int]]:
    """``groups`` (a partition of players ``0 .. n−1``, in order of preference) made better (see
    the module); the tables keep their sizes, in the same order."""
    out = [list(g) for g in groups]
    count = sum(len(g) for g in out)
    zone = _zone(out, repeats, count)
    if len(zone) < 2:
        return out
    people = sorted(p for t in zone for p in out[t])  # local numbers keep the order
    number = {p: k for k, p in enumerate(people)}
    local = _Zone([[number[p] for p in out[t]] for t in zone], people, repeats, values)
    seed = zlib.crc32(",".join(" ".join(map(str, g)) for g in out).encode())
    local.tabu(moves, looks or moves * 2_000, random.Random(seed))
    local.points(tries)
    for k, t in enumerate(zone):
        out[t] = [people[p] for p in local.members[k]]
    return out


def matrix(count: int, repeats: Callable[[int, int], int]) -> list[list[int]]:
    """Every pair's repeats, asked once: ``matrix[a][b]``."""
    out = [[0] * count for _ in range(count)]
    for a in range(count):
        row = out[a]
        for b in range(a + 1, count):
            r = repeats(a, b)
            if r:
                row[b] = r
                out[b][a] = r
    return out


def _below(rng: random.Random, n: int) -> int:
    """A draw in ``0 .. n−1`` from ``random()`` alone: the one method whose sequence for a seed
    Python keeps across versions, so a recorded event is seated the same way by a newer Python."""
    return min(n - 1, int(rng.random() * n))


def _zone(groups: list[list[int]], repeats: Callable[[int, int], int], count: int) -> list[int]:
    """The tables the swaps may touch: all of them for a small event; otherwise the tables seating
    a repeat, then those nearest to them (at most ``REACH`` away), while the zone seats at most
    ``EVERY_PAIR`` players (the first such table always)."""
    if count <= EVERY_PAIR:
        return list(range(len(groups)))
    hit = [t for t, g in enumerate(groups) if any(repeats(a, b) for i, a in enumerate(g) for b in g[i + 1:])]
    if not hit:
        return []
    near = sorted((min(abs(t - h) for h in hit), t) for t in range(len(groups)))
    zone: list[int] = []
    seated = 0
    for gap, t in near:
        if gap > REACH or (zone and seated + len(groups[t]) > EVERY_PAIR):
            break
        zone.append(t)
        seated += len(groups[t])
    return sorted(zone)


class _Zone:
    """The zone's players (local numbers ``0 .. z−1``, in the order), their repeats with each other
    (``rep``), and per player and table the repeats they would have there (``at``)."""

    def __init__(self, members: list[list[int]], people: list[int], repeats: Callable[[int, int], int],
                 values: Sequence[int]) -> None:
        z = len(people)
        self.members = members
        self.pos = people  # each local player's position in the whole order
        self.value = [values[p] for p in people]
        self.rep = matrix(z, lambda a, b: repeats(people[a], people[b]))
        self.where = [0] * z
        for t, g in enumerate(members):
            for p in g:
                self.where[p] = t
        self.at: list[list[int]] = []
        self._count_at()

    def _count_at(self) -> None:
        self.at[:] = [[sum(row[m] for m in g) for g in self.members] for row in self.rep]  # in place: aliases see it

    def repeats(self) -> int:
        return sum(self.at[p][self.where[p]] for p in range(len(self.pos))) // 2

    def _swap(self, x: int, y: int) -> None:
        i, j = self.where[x], self.where[y]
        gi, gj = self.members[i], self.members[j]
        gi[gi.index(x)] = y
        gj[gj.index(y)] = x
        self.where[x], self.where[y] = j, i
        rx, ry = self.rep[x], self.rep[y]
        for p, row in enumerate(self.at):
            d = ry[p] - rx[p]
            if d:
                row[i] += d
                row[j] -= d

    def tabu(self, moves: int, looks: int, rng: random.Random) -> None:
        """Phase 1 (see the module)."""
        total = self.repeats()
        best, kept = total, [list(g) for g in self.members]
        tables = len(self.members)
        banned = [[0] * tables for _ in self.pos]  # until which step a player may not enter a table
        at, rep, where, value, members = self.at, self.rep, self.where, self.value, self.members
        step = 0
        none = 1 << 30
        looked = 0
        while total and step < moves and looked < looks:
            step += 1
            top_d, top_close = none, none
            picks: list[tuple[int, int]] = []
            for x in range(len(self.pos)):
                i = where[x]
                ax = at[x]
                if not ax[i]:
                    continue
                rx, vx, bx = rep[x], value[x], banned[x]
                for j in range(tables):
                    if j == i:
                        continue
                    base = ax[j] - ax[i]
                    x_banned = bx[j] > step
                    looked += len(members[j])
                    for y in members[j]:
                        ay = at[y]
                        d = base + ay[i] - ay[j] - 2 * rx[y]
                        if d > top_d or ((x_banned or banned[y][i] > step) and total + d >= best):
                            continue
                        close = abs(vx - value[y])
                        if d < top_d or close < top_close:
                            top_d, top_close, picks = d, close, [(x, y)]
                        elif close == top_close:
                            picks.append((x, y))
            if not picks:
                break
            x, y = picks[_below(rng, len(picks))] if len(picks) > 1 else picks[0]
            i, j = where[x], where[y]
            self._swap(x, y)
            total += top_d
            banned[x][i] = step + TENURE[0] + _below(rng, TENURE[1] - TENURE[0] + 1)
            banned[y][j] = step + TENURE[0] + _below(rng, TENURE[1] - TENURE[0] + 1)
            if total < best:
                best, kept = total, [list(g) for g in members]
        if kept != self.members:
            self._reset(kept)

    def _reset(self, members: list[list[int]]) -> None:
        for t, g in enumerate(members):
            self.members[t][:] = g
            for p in g:
                self.where[p] = t
        self._count_at()

    def points(self, tries: int) -> None:
        """Phase 2 (see the module): first-improvement swaps on (repeats, distance, spread)."""
        at, rep, value, pos, members = self.at, self.rep, self.value, self.pos, self.members
        sums = [(sum(value[m] for m in g), sum(pos[m] for m in g)) for g in members]
        anchors = [min(g) for g in members]  # local numbers follow the order: the smallest is the top

        def moved(t: int, out: int, into: int) -> tuple[int, int, int]:
            """Table ``t`` with ``into`` for ``out``: its anchor, distance and spread."""
            g = members[t]
            a = anchors[t]
            if out == a:
                a = min([into, *(m for m in g if m != out)])
            elif into < a:
                a = into
            sv, sp = sums[t]
            n = len(g)
            return a, n * value[a] - (sv - value[out] + value[into]), (sp - pos[out] + pos[into]) - n * pos[a]

        def cost(t: int) -> tuple[int, int]:
            n = len(members[t])
            a = anchors[t]
            return n * value[a] - sums[t][0], sums[t][1] - n * pos[a]

        tables = len(members)
        tried = 0
        improved = True
        while improved and tried < tries:
            improved = False
            for i in range(tables):
                for j in range(i + 1, tables):
                    gi, gj = members[i], members[j]
                    for k in range(len(gi)):
                        x = gi[k]
                        ax, rx = at[x], rep[x]
                        base = ax[j] - ax[i]
                        for y in gj:
                            tried += 1
                            ay = at[y]
                            d = base + ay[i] - ay[j] - 2 * rx[y]
                            if d > 0:
                                continue
                            ai, ndi, nsi = moved(i, x, y)
                            aj, ndj, nsj = moved(j, y, x)
                            if d == 0:
                                di, si = cost(i)
                                dj, sj = cost(j)
                                if (ndi + ndj, nsi + nsj) >= (di + dj, si + sj):
                                    continue
                            sums[i] = (sums[i][0] - value[x] + value[y], sums[i][1] - pos[x] + pos[y])
                            sums[j] = (sums[j][0] - value[y] + value[x], sums[j][1] - pos[y] + pos[x])
                            anchors[i], anchors[j] = ai, aj
                            self._swap(x, y)
                            improved = True
                            break
                    if tried >= tries:
                        return
