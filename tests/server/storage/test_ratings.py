"""The rating model (OpenSkill Plackett–Luce): ratings move the right way for a ranking.

Properties over random tables: the first never loses rating, the last never gains;
among equal priors the change follows the place; ties share the change; a bot's
place never changes the people's new ratings.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from server.storage import ratings

priors = st.tuples(st.floats(5, 45), st.floats(1, 8.4))


@settings(max_examples=200, deadline=None)
@given(st.lists(priors, min_size=2, max_size=8), st.randoms(use_true_random=False))
def test_first_gains_last_loses(table: list[tuple[float, float]], rnd: object) -> None:
    keys = [f"p{i}" for i in range(len(table))]
    order = list(range(len(table)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    scores = {keys[seat]: float(len(order) - place) for place, seat in enumerate(order)}
    current = dict(zip(keys, table, strict=True))
    new = ratings.update(current, [(k, scores[k]) for k in keys])
    first, last = keys[order[0]], keys[order[-1]]
    assert new[first][0] >= current[first][0]
    assert new[last][0] <= current[last][0]


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 8), st.randoms(use_true_random=False))
def test_equal_priors_move_by_place(n: int, rnd: object) -> None:
    keys = [f"p{i}" for i in range(n)]
    rnd.shuffle(keys)  # type: ignore[attr-defined]
    people = [(k, float(n - place)) for place, k in enumerate(keys)]  # keys[0] first
    new = ratings.update({}, people)
    mus = [new[k][0] for k in keys]
    assert all(a > b for a, b in itertools.pairwise(mus)), mus
    assert mus[0] > ratings.MU > mus[-1]


def test_ties_share_the_change() -> None:
    new = ratings.update({}, [("a", 3.0), ("b", 1.0), ("c", 1.0)])
    assert new["b"] == new["c"] and new["a"][0] > new["b"][0]
    assert ratings.ranks_of([5, 9, 5]) == [2, 1, 2]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=0, max_size=4), st.floats(-20, 20), st.floats(-20, 20))
def test_bots_never_move_a_person(bot_scores: list[float], alice: float, bob: float) -> None:
    people = [("alice", alice), ("bob", bob)]
    alone = ratings.update({}, people)
    with_bots = ratings.update({}, people, [("bot:normal", s) for s in bot_scores])
    assert with_bots["alice"] == alone["alice"] and with_bots["bob"] == alone["bob"]
    assert ("bot:normal" in with_bots) == bool(bot_scores)


def test_one_person_alone_is_not_rated() -> None:
    assert ratings.update({}, [("alice", 1.0)]) == {}
    assert set(ratings.update({}, [("alice", 1.0)], [("bot:hard", 2.0)])) == {"bot:hard"}
