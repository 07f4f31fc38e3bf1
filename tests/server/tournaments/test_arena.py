"""An arena's pairing: who is seated, with whom."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.arena import Proposal, Waiting, pair


def waiting(*rows: tuple[str, float, int]) -> list[Waiting]:
    return [Waiting(name, since, score, 0.0) for name, since, score in rows]


def tables(proposals: list[Proposal]) -> list[set[str]]:
    return [set(p.names) for p in proposals]


def test_fewer_than_a_table_wait() -> None:
    assert pair(waiting(("a", 0, 0), ("b", 0, 0)), 3, {}, seed="s", salt="0") == []


def test_those_who_waited_longest_are_seated_first() -> None:
    rows = waiting(("new", 9.0, 500), ("a", 1.0, 0), ("b", 2.0, 0), ("c", 3.0, 0), ("d", 4.0, 0))
    got = pair(rows, 4, {}, seed="s", salt="0")
    assert tables(got) == [{"a", "b", "c", "d"}]


def test_close_scores_sit_together() -> None:
    rows = waiting(*[(f"p{i}", 0.0, score) for i, score in enumerate([0, 700, 10, 650, 5, 690, 0, 710])])
    got = tables(pair(rows, 4, {}, seed="s", salt="0"))
    assert {"p1", "p3", "p5", "p7"} in got and {"p0", "p2", "p4", "p6"} in got


def test_never_the_previous_table_mates_when_others_wait() -> None:
    before = frozenset({"a", "b", "c"})
    previous = {n: before - {n} for n in before}
    rows = waiting(("a", 0, 100), ("b", 0, 100), ("c", 0, 100), *[(f"x{i}", 0, 0) for i in range(6)])
    got = pair(rows, 3, previous, seed="s", salt="0")
    assert len(got) == 3
    assert all(len(t & before) == 1 for t in tables(got))
    assert all(p.repeats == 0 for p in got)


def test_alone_together_they_play_again_and_it_shows() -> None:
    before = frozenset({"a", "b", "c"})
    previous = {n: before - {n} for n in before}
    got = pair(waiting(("a", 0, 1), ("b", 0, 2), ("c", 0, 3)), 3, previous, seed="s", salt="0")
    assert tables(got) == [{"a", "b", "c"}] and got[0].repeats == 3


def test_the_same_pool_gives_the_same_tables_and_the_seed_breaks_ties() -> None:
    rows = waiting(*[(f"p{i}", 0.0, 0) for i in range(12)])
    first = pair(rows, 4, {}, seed="s", salt="0")
    assert pair(list(reversed(rows)), 4, {}, seed="s", salt="0") == first
    others = [pair(rows, 4, {}, seed=seed, salt="0") for seed in ("t", "u", "v")]
    assert any(o != first for o in others)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 3), st.lists(st.integers(0, 3), min_size=6, max_size=9), st.lists(st.integers(0, 900),
       min_size=9, max_size=9))
def test_previous_table_mates_meet_again_only_when_nobody_else_can_sit_between(
        tables: int, before: list[int], scores: list[int]) -> None:
    # 3 × tables players, each of them in one of four previous tables (0-3) or none (beyond the list)
    names = [f"p{i}" for i in range(3 * tables)]
    previous_table = {n: before[i] if i < len(before) else 100 + i for i, n in enumerate(names)}
    previous = {n: frozenset(m for m in names if m != n and previous_table[m] == previous_table[n])
                for n in names}
    rows = waiting(*[(n, 0.0, scores[i]) for i, n in enumerate(names)])
    got = pair(rows, 3, previous, seed="s", salt="0")

    def reps(group: Iterable[str]) -> int:
        return sum(1 for a, b in itertools.combinations(sorted(group), 2) if b in previous[a])

    fewest = min(sum(reps(g) for g in split) for split in splits(names, 3))
    assert sum(p.repeats for p in got) == sum(reps(p.names) for p in got) == fewest


def splits(items: list[str], size: int) -> Iterator[list[tuple[str, ...]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for members in itertools.combinations(rest, size - 1):
        left = [i for i in rest if i not in members]
        for tail in splits(left, size):
            yield [(first, *members), *tail]
