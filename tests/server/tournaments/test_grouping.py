"""The bounded search that groups players into tables."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.grouping import partition


def no_repeats(a: int, b: int) -> int:
    return 0


def pairs_cost(groups: list[list[int]], repeats: object) -> int:
    return sum(repeats(a, b) for g in groups for a, b in itertools.combinations(g, 2))  # type: ignore[operator]


def all_partitions(items: list[int], sizes: list[int]) -> list[list[list[int]]]:
    """Every partition of ``items`` into tables whose sizes are ``sizes`` (in any order)."""
    if not sizes:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for size in sorted(set(sizes)):
        others = list(sizes)
        others.remove(size)
        for members in itertools.combinations(rest, size - 1):
            left = [i for i in rest if i not in members]
            for tail in all_partitions(left, others):
                out.append([[first, *members], *tail])
    return out


def test_without_repeats_the_order_is_cut_into_consecutive_tables() -> None:
    groups, cost = partition(10, [4, 3, 3], no_repeats, [0] * 10)
    assert groups == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert cost[0] == 0


def test_two_previous_tables_are_mixed_when_they_meet_again() -> None:
    # 0-3 played together, 4-7 played together: two new tables of four mix them two and two
    before = [{0, 1, 2, 3}, {4, 5, 6, 7}]

    def repeats(a: int, b: int) -> int:
        return int(any(a in t and b in t for t in before))

    groups, cost = partition(8, [4, 4], repeats, [0] * 8)
    assert cost[0] == pairs_cost(groups, repeats) == 4  # the fewest possible: two pairs per table
    assert sorted(i for g in groups for i in g) == list(range(8))


def test_close_points_stay_together_when_repeats_allow() -> None:
    values = [9, 9, 9, 8, 2, 1, 1, 0]
    groups, _ = partition(8, [4, 4], no_repeats, values)
    assert groups == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_a_repeat_is_avoided_at_the_price_of_distance() -> None:
    # 0 and 1 already shared a table: 1 drops to the second table, the nearest player comes up
    def repeats(a: int, b: int) -> int:
        return int({a, b} == {0, 1})

    groups, cost = partition(6, [3, 3], repeats, [5, 5, 4, 3, 2, 1])
    assert cost[0] == 0
    assert groups == [[0, 2, 3], [1, 4, 5]]


def test_a_repeat_the_first_descent_leaves_is_swapped_away() -> None:
    # with a budget of one, the search stops at its greedy partition ([0 1 2] [3 4 5], 3 and 4
    # meeting again); one swap with the table above removes the repeat
    def repeats(a: int, b: int) -> int:
        return int({a, b} == {3, 4})

    groups, cost = partition(6, [3, 3], repeats, [0] * 6, budget=1)
    assert cost[0] == 0 and pairs_cost(groups, repeats) == 0
    assert sorted(i for g in groups for i in g) == list(range(6)) and groups[0][0] == 0


def total_cost(groups: list[list[int]], repeats: object, values: list[int]) -> tuple[int, int, int]:
    """A partition's cost as the module defines it (a table's anchor: its first player)."""
    out = [0, 0, 0]
    for g in groups:
        anchor = min(g)
        out[0] += sum(repeats(a, b) for a, b in itertools.combinations(g, 2))  # type: ignore[operator]
        out[1] += sum(values[anchor] - values[m] for m in g)
        out[2] += sum(m - anchor for m in g)
    return out[0], out[1], out[2]


def test_after_the_swaps_the_tree_is_searched_again_below_their_cost() -> None:
    # a budget too small for the tree: the constructive search stops at a repeat, the swaps find a
    # partition with one repeat, and the tree searched again below that cost finds the best one
    met = {(0, 3), (0, 4), (0, 5), (0, 8), (1, 3), (1, 4), (1, 6), (1, 7), (1, 8), (2, 5), (2, 6), (4, 5),
           (4, 7), (5, 7), (5, 8), (6, 8)}

    def repeats(a: int, b: int) -> int:
        return int((min(a, b), max(a, b)) in met)

    values = [7, 7, 6, 6, 6, 5, 1, 1, 0]
    groups, cost = partition(9, [3, 3, 3], repeats, values, budget=80)
    best = min(total_cost(p, repeats, values) for p in all_partitions(list(range(9)), [3, 3, 3]))
    assert cost == total_cost(groups, repeats, values) == best == (1, 15, 12)


def test_the_same_input_gives_the_same_partition() -> None:
    rng = random.Random(7)
    table = {(a, b): rng.randrange(2) for a in range(24) for b in range(a)}

    def repeats(a: int, b: int) -> int:
        return table[(max(a, b), min(a, b))]

    values = sorted((rng.randrange(10) for _ in range(24)), reverse=True)
    first = partition(24, [4] * 6, repeats, values, budget=3000)
    assert all(partition(24, [4] * 6, repeats, values, budget=3000) == first for _ in range(3))


def test_a_small_budget_still_seats_everyone_once() -> None:
    rng = random.Random(3)
    table = {(a, b): rng.randrange(3) for a in range(40) for b in range(a)}

    def repeats(a: int, b: int) -> int:
        return table[(max(a, b), min(a, b))]

    small, cost_small = partition(40, [5] * 8, repeats, [0] * 40, budget=1)
    large, cost_large = partition(40, [5] * 8, repeats, [0] * 40, budget=20_000)
    for groups in (small, large):
        assert sorted(i for g in groups for i in g) == list(range(40))
        assert [len(g) for g in groups] == [5] * 8
    assert cost_large <= cost_small


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_with_enough_budget_the_fewest_repeats_are_found(data: st.DataObject) -> None:
    sizes = data.draw(st.sampled_from([[3, 3], [3, 3, 3], [4, 3], [4, 4], [3, 3, 2], [4, 4, 3]]))
    n = sum(sizes)
    shared = data.draw(st.lists(st.integers(0, 2), min_size=n * n, max_size=n * n))

    def repeats(a: int, b: int) -> int:
        return shared[min(a, b) * n + max(a, b)]

    values = sorted(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), reverse=True)
    groups, cost = partition(n, sizes, repeats, values, budget=1_000_000)
    best = min(pairs_cost(p, repeats) for p in all_partitions(list(range(n)), sizes))
    assert cost[0] == pairs_cost(groups, repeats) == best
    assert sorted(len(g) for g in groups) == sorted(sizes)
    assert sorted(i for g in groups for i in g) == list(range(n))


def test_the_top_player_takes_a_smaller_table_when_that_avoids_repeats() -> None:
    # 0 already met 1, 2 and 3: at tables of 3 and 2, 0 goes to the table of two with 4
    def repeats(a: int, b: int) -> int:
        return int(0 in (a, b) and {a, b} != {0, 4})

    groups, cost = partition(5, [3, 2], repeats, [0] * 5)
    assert cost[0] == 0 and groups == [[0, 4], [1, 2, 3]]


def test_sizes_must_seat_everyone() -> None:
    with pytest.raises(ValueError):
        partition(7, [4, 4], no_repeats, [0] * 7)
    assert partition(0, [], no_repeats, []) == ([], (0, 0, 0))
