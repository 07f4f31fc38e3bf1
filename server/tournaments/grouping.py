"""Players into tables: a deterministic, bounded search for the best partition.

Both pairings come here with the players in their order of preference (best
standing first), the sizes of the tables to fill (in order, top table first),
how many times two players already shared a table (or, in an arena, whether
they just did), and a value per player (their points). The cost of a partition,
compared in this order:

1. **repeats**: over every pair seated together, the times they already shared
   a table (an arena: 1 if they shared the previous one);
2. **distance**: over every table, the points of its top player less each
   other player's points (close scores together);
3. **spread**: the same in positions of the order (with equal points, keep the
   order's neighbours together).

Every table is built from the first player left (its anchor), in one of the
sizes left, and members taken after it in the order, so each partition is made
exactly one way. The search is
a limited discrepancy search with branch and bound: its first descent is the
greedy partition (each member the nearest player adding the least cost); then it
allows one choice other than the greedy one anywhere, then two, and so on,
dropping every branch that cannot beat the best partition found, until the tree
is exhausted or ``budget`` choices were made (a quarter of it when the best
partition found still seats a repeat). Members are chosen among the ``window``
nearest players left. When the tree was not exhausted, the local search of
``server.tournaments.swaps`` takes the partition over: swaps of two players
between any two tables, a tabu search on the repeats, then swaps that lower the
whole cost (``budget`` // 20 steps, at least 100, and ``budget`` swaps looked
at, at least 2,000; see that module for its own bound). When it found a partition costing less, the tree is
searched again below that cost, up to half the budget in all. Up to
``EVERY_PAIR`` players, every pair's repeats are asked once. Nothing depends on
anything but the input: the same input gives the same partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.tournaments.swaps import EVERY_PAIR, improve, matrix

Cost = tuple[int, int, int]
ZERO: Cost = (0, 0, 0)


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


class _Frame:
    __slots__ = ("cands", "chosen", "cost", "disc", "i", "size", "start")

    def __init__(self, cands: list[tuple[Cost, int, int]], cost: Cost, disc: int, start: int, size: int) -> None:
        self.cands = cands  # (cost added, player, the size of the table it opens: 0 for a member)
        self.i = 0
        self.cost = cost
        self.disc = disc
        self.start = start  # the path position of this table's anchor
        self.size = size  # this table's size (for an anchor's frame: once chosen)
        self.chosen: tuple[int, int] | None = None


def partition(count: int, sizes: Sequence[int], repeats: Callable[[int, int], int],
              values: Sequence[int], *, budget: int = 20_000, window: int = 0) -> tuple[list[list[int]], Cost]:
    """The best partition found of players ``0 .. count−1`` (in order of preference) into
    tables of ``sizes`` (in any order: each table's anchor takes one of the sizes left, the
    largest first), and its cost (see the module). ``repeats(a, b)``: the times ``a`` and ``b``
    shared a table; ``values``: each player's points (non-increasing in the order is the usual
    case, not required). Tables come top first (by their first player)."""
    if sum(sizes) != count or any(s < 1 for s in sizes):
        raise ValueError(f"sizes {list(sizes)} do not seat {count} players")
    if count == 0:
        return [], ZERO
    window = window or 4 * max(sizes)
    rows: list[list[int]] | None = None
    ask = repeats
    if count <= EVERY_PAIR:  # a small event: every pair asked once, then looked up
        rows = matrix(count, repeats)
        ask = rows_of(rows)
    left: dict[int, int] = {}
    for size in sizes:
        left[size] = left.get(size, 0) + 1

    # the players left, as a doubly linked list over 0..count−1 (``count``: the end; ``head``: before 0)
    head = count + 1
    nxt = [*range(1, count + 2), 0]
    prv = [*range(-1, count), -1]

    def unlink(i: int) -> None:
        before = prv[i] if prv[i] >= 0 else head
        nxt[before] = nxt[i]
        if nxt[i] < count:
            prv[nxt[i]] = prv[i]

    def relink(i: int) -> None:
        before = prv[i] if prv[i] >= 0 else head
        nxt[before] = i
        if nxt[i] < count:
            prv[nxt[i]] = i

    path: list[int] = []
    tables: list[int] = []  # the size of each table opened on the path

    def frame(pos: int, cost: Cost, disc: int, start: int, size: int) -> _Frame:
        if pos - start == size:  # a new table: the first player left anchors it, in any size left
            anchor = nxt[head]
            cands = [(ZERO, anchor, s) for s in sorted((s for s, n in left.items() if n), reverse=True)]
            return _Frame(cands, cost, disc, pos, 0)
        anchor = path[start]
        members = path[start:pos]
        need = start + size - pos  # members still to choose, this one included
        seen: list[int] = []
        c = nxt[path[pos - 1]]
        while c < count and len(seen) < window + need:
            seen.append(c)
            c = nxt[c]
        usable = seen if c < count else seen[: len(seen) - need + 1]
        out: list[tuple[Cost, int, int]] = []
        for c in usable[:window]:
            rep = 0
            if rows is None:
                for m in members:
                    rep += repeats(c, m)
            else:
                row = rows[c]
                for m in members:
                    rep += row[m]
            out.append(((rep, values[anchor] - values[c], c - anchor), c, 0))
        out.sort()
        return _Frame(out, cost, disc, start, size)

    def undo(top: _Frame) -> None:
        """Take ``top``'s choice back: its player among the candidates again, its table closed."""
        assert top.chosen is not None
        player, opened = top.chosen
        relink(player)
        path.pop()
        if opened:
            left[opened] += 1
            tables.pop()
        top.chosen = None

    best: Cost | None = None
    best_groups: list[list[int]] = []
    nodes = 0

    def search(stop: int, early: int) -> bool:
        """The limited discrepancy search, from no discrepancy up, dropping every branch that costs
        at least ``best``; until ``stop`` choices were made in all (``early`` when the best seats a
        repeat). True when the tree was exhausted."""
        nonlocal best, best_groups, nodes
        limit = 0
        while True:
            exhaustive = True
            stack = [frame(0, ZERO, 0, 0, 0)]
            while stack:
                top = stack[-1]
                if top.chosen is not None:
                    undo(top)
                if best is not None and nodes >= (early if best[0] else stop):
                    exhaustive = False  # stopped by the budget
                    break
                moved = False
                while top.i < len(top.cands):
                    rank = top.i
                    inc, c, opened = top.cands[rank]
                    top.i += 1
                    disc = top.disc + (1 if rank > 0 else 0)
                    if disc > limit:
                        exhaustive = False
                        top.i = len(top.cands)
                        break
                    cost = _add(top.cost, inc)
                    if best is not None and cost >= best:
                        top.i = len(top.cands)  # the rest cost at least as much
                        break
                    unlink(c)
                    path.append(c)
                    if opened:
                        left[opened] -= 1
                        tables.append(opened)
                        top.size = opened
                    top.chosen = (c, opened)
                    nodes += 1
                    moved = True
                    if len(path) == count:
                        best = cost
                        best_groups, at = [], 0
                        for size in tables:
                            best_groups.append(path[at: at + size])
                            at += size
                    else:
                        stack.append(frame(len(path), cost, disc, top.start, top.size))
                    break
                if not moved:
                    stack.pop()
            # the stack may be left mid-way when the budget ran out: put every player back
            for top in reversed(stack):
                if top.chosen is not None:
                    undo(top)
            if exhaustive:
                return True
            if best == ZERO or (best is not None and nodes >= (early if best[0] else stop)):
                return False
            limit += 1

    if search(budget, budget // 4):
        assert best is not None
        return best_groups, best
    assert best is not None
    better = improve(best_groups, ask, values, moves=max(100, budget // 20), tries=max(2_000, budget))
    cost = ZERO
    for group in better:
        cost = _add(cost, _cost(group, ask, values))
    if cost < best:
        best, best_groups = cost, sorted((sorted(g) for g in better), key=lambda g: g[0])
        if nodes < budget // 2:  # the tree again, for a partition costing less still
            search(budget // 2, budget // 2)
    return best_groups, best


def rows_of(rows: list[list[int]]) -> Callable[[int, int], int]:
    def repeats(a: int, b: int) -> int:
        return rows[a][b]
    return repeats


def _cost(group: Sequence[int], repeats: Callable[[int, int], int], values: Sequence[int]) -> Cost:
    """One table's part of a partition's cost (its anchor: its first player in the order)."""
    anchor = min(group)
    rep = 0
    for i, a in enumerate(group):
        for b in group[i + 1:]:
            rep += repeats(a, b)
    return (rep, sum(values[anchor] - values[m] for m in group), sum(m - anchor for m in group))
