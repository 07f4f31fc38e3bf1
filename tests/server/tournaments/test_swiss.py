"""A Swiss round's pairing: sizes, byes, snake seeding, later rounds."""

from __future__ import annotations

import itertools

import pytest

from server.tournaments.swiss import Sizes, byes, later, sizes, snake


@pytest.mark.parametrize(("players", "seats", "smallest", "bots", "want"), [
    (8, 4, 4, False, Sizes((4, 4), (0, 0), 0)),
    (10, 4, 3, False, Sizes((4, 3, 3), (0, 0, 0), 0)),
    (9, 4, 4, False, Sizes((4, 4), (0, 0), 1)),  # one size only: the ninth has a bye
    (5, 4, 3, False, Sizes((4,), (0,), 1)),  # 3 + 2 is impossible: 4 and a bye
    (9, 8, 3, False, Sizes((5, 4), (0, 0), 0)),
    (2, 4, 3, False, Sizes((), (), 2)),  # too few for a table
    (5, 4, 3, True, Sizes((3, 2), (0, 1), 0)),  # bots fill the short table up to three
    (1, 4, 4, True, Sizes((1,), (3,), 0)),
    (0, 4, 3, False, Sizes((), (), 0)),
])
def test_table_sizes(players: int, seats: int, smallest: int, bots: bool, want: Sizes) -> None:
    assert sizes(players, seats, smallest, bots) == want


def test_byes_go_to_the_lowest_who_had_none() -> None:
    order = ["a", "b", "c", "d", "e"]
    assert byes(order, 1, {}) == ["e"]
    assert byes(order, 1, {"e": 1}) == ["d"]
    assert byes(order, 2, {"e": 1, "d": 1}) == ["b", "c"]
    assert byes(order, 1, {n: 1 for n in order}) == ["e"]  # everyone had one: the lowest again
    assert byes(order, 0, {}) == []


def test_round_one_is_dealt_in_snake_order() -> None:
    order = [f"r{i}" for i in range(1, 13)]  # best rating first
    assert snake(order, [4, 4, 4]) == [["r1", "r6", "r7", "r12"], ["r2", "r5", "r8", "r11"],
                                       ["r3", "r4", "r9", "r10"]]
    got = snake(order[:10], [4, 3, 3])
    assert [len(t) for t in got] == [4, 3, 3] and sorted(itertools.chain(*got)) == sorted(order[:10])


def test_later_rounds_group_by_points_and_avoid_repeats() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    met = {frozenset({"a", "b"})}

    def shared(x: str, y: str) -> int:
        return int(frozenset({x, y}) in met)

    points = dict(zip(order, [300, 290, 200, 190, 100, 0], strict=True))
    got = later(order, [3, 3], shared, points, budget=10_000)
    assert ["a", "b"] not in [sorted(t)[:2] for t in got]
    assert got[0][0] == "a" and "b" not in got[0]
    assert later(order, [3, 3], lambda x, y: 0, points, budget=10_000) == [["a", "b", "c"], ["d", "e", "f"]]
