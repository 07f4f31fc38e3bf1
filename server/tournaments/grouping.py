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

Every table is built from the first player left (its anchor) and members taken
after it in the order, so each partition is made exactly one way. The search is
a limited discrepancy search with branch and bound: its first descent is the
greedy partition (each member the nearest player adding the least cost); then it
allows one choice other than the greedy one anywhere, then two, and so on,
dropping every branch that cannot beat the best partition found, until the tree
is exhausted or ``budget`` choices were made. Members are chosen among the
``window`` nearest players left. Nothing here is random: the same input gives
the same partition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Cost = tuple[int, int, int]
ZERO: Cost = (0, 0, 0)


def _add(a: Cost, b: Cost) -> Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


class _Frame:
    __slots__ = ("cands", "chosen", "cost", "disc", "i")

    def __init__(self, cands: list[tuple[Cost, int]], cost: Cost, disc: int) -> None:
        self.cands = cands
        self.i = 0
        self.cost = cost
        self.disc = disc
        self.chosen: int | None = None


def partition(count: int, sizes: Sequence[int], repeats: Callable[[int, int], int],
              values: Sequence[int], *, budget: int = 20_000, window: int = 0) -> tuple[list[list[int]], Cost]:
    """The best partition found of players ``0 .. count−1`` (in order of preference) into
    tables of ``sizes``, and its cost (see the module). ``repeats(a, b)``: the times ``a``
    and ``b`` shared a table; ``values``: each player's points (non-increasing in the order
    is the usual case, not required)."""
    if sum(sizes) != count or any(s < 1 for s in sizes):
        raise ValueError(f"sizes {list(sizes)} do not seat {count} players")
    if count == 0:
        return [], ZERO
    window = window or 4 * max(sizes)
    slot_group: list[int] = []
    slot_first: list[int] = []  # the path position where each slot's group starts
    for g, size in enumerate(sizes):
        start = len(slot_group)
        slot_group.extend([g] * size)
        slot_first.extend([start] * size)
    group_end = [slot_first[p] + sizes[slot_group[p]] for p in range(count)]

    # the players left, as a doubly linked list over 0..count−1 with sentinels −1 and count
    nxt = list(range(1, count + 2))
    prv = list(range(-1, count))
    head = count + 1  # sentinel node index for "before 0" lives at the end of the arrays
    nxt.append(0)
    prv.append(-1)

    def first_free() -> int:
        return nxt[head]

    def after(i: int) -> int:
        return nxt[i] if i >= 0 else nxt[head]

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

    def candidates(pos: int) -> list[tuple[Cost, int]]:
        first = slot_first[pos]
        if pos == first:
            return [(ZERO, first_free())]
        anchor = path[first]
        members = path[first:pos]
        need = group_end[pos] - pos  # members still to choose, this one included
        seen: list[int] = []
        c = after(path[pos - 1])
        while c < count and len(seen) < window + need:
            seen.append(c)
            c = nxt[c]
        usable = seen if c < count else seen[: len(seen) - need + 1]
        out: list[tuple[Cost, int]] = []
        for c in usable[:window]:
            rep = 0
            for m in members:
                rep += repeats(c, m)
            out.append(((rep, values[anchor] - values[c], c - anchor), c))
        out.sort()
        return out

    best: Cost | None = None
    best_path: list[int] = []
    nodes = 0
    limit = 0
    while True:
        exhaustive = True
        stack = [_Frame(candidates(0), ZERO, 0)]
        while stack:
            frame = stack[-1]
            if frame.chosen is not None:
                relink(frame.chosen)
                path.pop()
                frame.chosen = None
            if best is not None and nodes >= budget:
                break
            moved = False
            while frame.i < len(frame.cands):
                rank = frame.i
                inc, c = frame.cands[rank]
                frame.i += 1
                disc = frame.disc + (1 if rank > 0 else 0)
                if disc > limit:
                    exhaustive = False
                    frame.i = len(frame.cands)
                    break
                cost = _add(frame.cost, inc)
                if best is not None and cost >= best:
                    frame.i = len(frame.cands)  # the rest cost at least as much
                    break
                unlink(c)
                path.append(c)
                frame.chosen = c
                nodes += 1
                moved = True
                if len(path) == count:
                    best, best_path = cost, list(path)
                else:
                    stack.append(_Frame(candidates(len(path)), cost, disc))
                break
            if not moved:
                stack.pop()
        # the stack may be left mid-way when the budget ran out: put every player back
        for frame in reversed(stack):
            if frame.chosen is not None:
                relink(frame.chosen)
                path.pop()
        if exhaustive or nodes >= budget or best == ZERO:
            break
        limit += 1
    assert best is not None
    groups = [best_path[slot_first[p]: slot_first[p] + sizes[slot_group[p]]]
              for p in range(count) if p == slot_first[p]]
    return groups, best
