"""An arena's pairing: who is seated, with whom."""

from __future__ import annotations

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
