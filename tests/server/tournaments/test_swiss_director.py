"""The Swiss director on a fake clock: rounds, byes, late joiners, withdrawals, the end, invariants."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments import (
    Absent,
    ByeGiven,
    Ended,
    Join,
    Leave,
    OpenTable,
    RoundStarted,
    Scoring,
    Stop,
    SwissConfig,
    SwissDirector,
    TableAborted,
    TableScored,
    TournamentError,
    record_of,
    replay,
)
from tests.server.tournaments.driver import Driver


def swiss(**kw: object) -> Driver:
    options: dict[str, object] = {"id": "s", "seats": 4, "rounds": 3, "starts_at": 100.0, "seed": "5eed",
                                  "round_pause": 10.0}
    options.update(kw)
    return Driver(SwissDirector(SwissConfig(**options)))  # type: ignore[arg-type]


def join(d: Driver, count: int, prefix: str = "r") -> None:
    for i in range(1, count + 1):
        d.send(Join(f"{prefix}{i}", rating=float(1000 - i)))  # r1 is the best rated


def rounds(d: Driver) -> dict[int, list[OpenTable]]:
    out: dict[int, list[OpenTable]] = {}
    for t in d.opened:
        out.setdefault(t.round, []).append(t)
    return out


def play_round(d: Driver) -> None:
    d.finish_all()
    wake = d.director.wake
    if wake is not None:
        d.at(wake)


def test_round_one_is_seeded_by_rating_in_snake_order() -> None:
    d = swiss()
    join(d, 12)
    assert d.director.wake == 100.0 and not d.opened
    d.at(100.0)
    tables = [set(t.people) for t in rounds(d)[1]]
    assert tables == [{"r1", "r6", "r7", "r12"}, {"r2", "r5", "r8", "r11"}, {"r3", "r4", "r9", "r10"}]
    started = [e for e in d.effects if isinstance(e, RoundStarted)]
    assert started == [RoundStarted(1, ("s.1", "s.2", "s.3"), ())]


def test_the_summary_and_the_top_table() -> None:
    d = swiss()
    join(d, 8)
    d.at(100.0)
    assert d.director.summary()["round"] == 1 and d.director.summary()["rounds"] == 3
    first, second = rounds(d)[1]
    d.finish(first, totals=[0, 0, 0, 0])  # 50 each
    d.finish(second, totals=[9, 0, 0, 0])  # 100 for one
    d.at(d.director.wake or 0)
    top = d.director.top_tables()[0]
    leader = d.director.standings().lines[0].name
    assert leader in top.people and d.director.summary()["tables"] == 2


def test_the_next_round_starts_a_pause_after_the_last_result() -> None:
    d = swiss()
    join(d, 8)
    d.at(100.0)
    first, second = rounds(d)[1]
    d.at(150.0)
    d.finish(first)
    assert d.director.wake is None  # a table still plays
    d.at(170.0)
    d.finish(second)
    assert d.director.wake == 180.0
    d.at(179.0)
    assert 2 not in rounds(d)
    d.at(180.0)
    assert len(rounds(d)[2]) == 2


def test_later_rounds_put_the_leaders_together() -> None:
    d = swiss(seats=3, rounds=2)
    join(d, 9)
    d.at(100.0)
    for table in rounds(d)[1]:
        d.finish(table, totals=[3 if n in ("r1", "r2", "r3") else 0 for n in table.seats])
    d.at(d.director.wake or 0)
    top = rounds(d)[2][0]
    assert set(top.people) == {"r1", "r2", "r3"}  # the three winners meet (they never shared a table)


def shared_pairs(tables: list[OpenTable]) -> set[frozenset[str]]:
    return {frozenset(p) for t in tables for p in itertools.combinations(t.people, 2)}


def test_repeats_are_avoided_where_possible() -> None:
    # nine players at tables of three: three rounds without two people meeting twice exist
    d = swiss(seats=3, rounds=3)
    join(d, 9)
    d.at(100.0)
    for _ in range(3):
        play_round(d)
    assert d.director.over
    met: list[frozenset[str]] = []
    for tables in rounds(d).values():
        met.extend(shared_pairs(tables))
    assert len(met) == len(set(met)) == 27


def test_byes_go_to_the_lowest_and_never_twice_when_avoidable() -> None:
    d = swiss(rounds=4)  # tables of four only: nine players leave one bye a round
    join(d, 9)
    d.at(100.0)
    for _ in range(4):
        play_round(d)
    byes = [e for e in d.effects if isinstance(e, ByeGiven)]
    assert [b.round for b in byes] == [1, 2, 3, 4] and byes[0].name == "r9"  # the lowest rated first
    assert len({b.name for b in byes}) == 4 and all(b.points == 50 and not b.late for b in byes)
    line = d.director.standings().line("r9")
    assert line is not None and line.byes == 1 and line.games == 3


def test_bots_fill_short_tables_instead_of_byes_when_allowed() -> None:
    d = swiss(seats=4, min_seats=3, bots=True)
    join(d, 5)
    d.at(100.0)
    assert sorted(len(t.people) for t in rounds(d)[1]) == [2, 3]
    assert sorted(t.seats.count(None) for t in rounds(d)[1]) == [0, 1]
    assert not any(isinstance(e, ByeGiven) for e in d.effects)


@pytest.mark.parametrize(("late", "points"), [("half", 50), ("zero", 0)])
def test_a_late_joiner_scores_the_rounds_they_missed_as_chosen(late: str, points: int) -> None:
    d = swiss(rounds=4, late_points=late, late_until=3, min_seats=3)
    join(d, 8)
    d.at(100.0)
    play_round(d)  # round 2 is on
    d.send(Join("late", rating=5000.0))
    credits = [e for e in d.effects if isinstance(e, ByeGiven)]
    assert credits == [ByeGiven("late", 1, points, late=True), ByeGiven("late", 2, points, late=True)]
    assert all("late" not in t.people for t in rounds(d)[2])
    play_round(d)
    assert any("late" in t.people for t in rounds(d)[3])
    line = d.director.standings().line("late")
    assert line is not None and line.byes == 0
    with pytest.raises(TournamentError) as err:  # round 3 began: the last a late joiner could play from
        d.send(Join("later"))
    assert err.value.code == "not_open"


def test_a_withdrawal_keeps_the_game_under_way_and_is_not_seated_again() -> None:
    d = swiss()
    join(d, 8)
    d.at(100.0)
    table = rounds(d)[1][0]
    quitter = table.people[0]
    d.send(Leave(quitter))
    d.finish(table, totals=[9, 0, 0, 0])
    play_round(d)
    assert all(quitter not in t.people for t in rounds(d)[2])
    line = d.director.standings().line(quitter)
    assert line is not None and line.points == 100 and line.status == "left"
    d.send(Join(quitter))  # back for the rounds left, without points for those missed
    play_round(d)
    assert any(quitter in t.people for t in rounds(d)[3])
    assert not any(isinstance(e, ByeGiven) and e.name == quitter for e in d.effects)


def test_too_few_players_end_the_event() -> None:
    d = swiss()
    join(d, 3)
    d.at(100.0)
    assert d.effects[-1] == Ended("too_few") and d.director.over

    d = swiss(min_seats=3)
    join(d, 6)
    d.at(100.0)
    for name in ("r1", "r2", "r3", "r4"):
        d.send(Leave(name))
    play_round(d)
    assert d.effects[-1] == Ended("too_few")


def test_the_event_ends_after_its_rounds_with_final_standings() -> None:
    d = swiss(scoring=Scoring("chips"))
    join(d, 8)
    d.at(100.0)
    for _ in range(3):
        play_round(d)
    assert d.effects[-1] == Ended("rounds") and d.director.wake is None
    st = d.director.standings()
    assert st.final and st.round == 3 and all(line.games == 3 for line in st.lines)
    assert sum(line.points for line in st.lines) == 0  # chips won and lost among the entrants
    with pytest.raises(TournamentError):
        d.send(Join("x"))


def test_a_stop_ends_the_event_after_the_round_under_way() -> None:
    d = swiss()
    join(d, 8)
    d.at(100.0)
    d.send(Stop())
    d.finish_all()
    assert d.effects[-1] == Ended("stopped") and 2 not in rounds(d)


def test_an_absent_player_forfeits_and_an_aborted_table_scores_nothing() -> None:
    d = swiss()
    join(d, 8)
    d.at(100.0)
    first, second = rounds(d)[1]
    d.send(Absent(first.table, (first.people[0],)))
    d.send(TableAborted(second.table))
    d.finish(first)
    scored = [e for e in d.effects if isinstance(e, TableScored)]
    assert len(scored) == 1 and scored[0].points[first.seats.index(first.people[0])] is None
    st = d.director.standings()
    assert st.line(first.people[0]).status == "left"  # type: ignore[union-attr]
    assert all(st.line(n).games == 0 for n in second.people)  # type: ignore[union-attr]


# -- invariants, on random events ---------------------------------------------------------------------

OPS = st.lists(st.tuples(st.sampled_from(["join", "leave", "finish", "finish", "finish", "abort", "absent", "wait", "wait", "stop"]),
                         st.integers(0, 13), st.integers(0, 10_000)), max_size=50)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 14), OPS, st.sampled_from([(4, 0), (4, 3), (5, 3), (3, 0)]), st.booleans(),
       st.sampled_from(["half", "zero"]))
def test_invariants_hold_in_any_swiss_event(entrants: int, ops: list[tuple[str, int, int]], seats: tuple[int, int],
                                            bots: bool, late: str) -> None:
    config = SwissConfig(id="s", seats=seats[0], min_seats=seats[1], rounds=4, starts_at=5.0, seed="c0ffee",
                         bots=bots, late_points="half" if late == "half" else "zero", round_pause=2.0,
                         search_budget=2_000)
    d = Driver(SwissDirector(config), random.Random(ops[0][2] if ops else 0))
    for i in range(entrants):
        d.send(Join(f"p{i}", rating=float(i % 5)))
    for op, who, n in ops:
        tables = list(d.director.event.tables.values())
        try:
            if op == "join":
                d.send(Join(f"p{who}", rating=float(n % 50)))
            elif op == "leave":
                d.send(Leave(f"p{who}"))
            elif op == "finish" and tables:
                d.finish(tables[n % len(tables)])
            elif op == "abort" and tables and n % 5 == 0:
                d.send(TableAborted(tables[n % len(tables)].table))
            elif op == "absent" and tables and n % 3 == 0:
                table = tables[n % len(tables)]
                d.send(Absent(table.table, (table.people[0],)))
            elif op == "wait":
                d.at(d.now + n / 1000)
            elif op == "stop" and n % 11 == 0:
                d.send(Stop())
        except TournamentError:
            pass
    for _ in range(10):
        d.finish_all()
        d.at(d.now + 100)
    assert d.director.over
    st_live = d.director.standings()
    again = replay(record_of(d.director))
    assert again.standings() == st_live
    assert [e.item for e in again.event.journal if isinstance(e.item, OpenTable)] == d.opened
    # every round: each active player at one table or with a bye, never both; a bye goes to
    # nobody who had more byes than someone seated that round
    had: dict[str, int] = {}
    for number, tables in sorted(rounds(d).items()):
        seated = [n for t in tables for n in t.people]
        byes = [e.name for e in d.effects if isinstance(e, ByeGiven) and e.round == number and not e.late]
        assert len(seated) == len(set(seated)) and not set(seated) & set(byes)
        if byes and seated:
            assert max(had.get(n, 0) for n in byes) <= min(had.get(n, 0) for n in seated)
        for name in byes:
            had[name] = had.get(name, 0) + 1
        if not bots:
            assert all(config.smallest <= len(t.seats) <= config.seats for t in tables)


def repeated_pairs(d: Driver) -> int:
    """Pairs of people seated together once more than the first time, over the whole event."""
    seen: set[frozenset[str]] = set()
    again = 0
    for t in d.opened:
        for a, b in itertools.combinations(t.people, 2):
            again += frozenset((a, b)) in seen
            seen.add(frozenset((a, b)))
    return again


def whole_event(players: int, seats: int, rounds: int) -> Driver:
    d = Driver(SwissDirector(SwissConfig(id="s", seats=seats, min_seats=3, rounds=rounds, starts_at=1.0,
                                         seed="bench", round_pause=0.0)), random.Random(2))
    join(d, players)
    d.at(1.0)
    while not d.director.over:
        play_round(d)
    return d


@pytest.mark.parametrize(("players", "seats", "rounds", "at_most"), [
    (64, 8, 5, 26),  # the constructive search alone seats about 40 pairs together again
    (30, 5, 5, 4),  # alone: 6
    (9, 3, 4, 0),  # a Kirkman-like design: everyone meets everyone exactly once
])
def test_hard_events_seat_few_pairs_together_again(players: int, seats: int, rounds: int, at_most: int) -> None:
    d = whole_event(players, seats, rounds)
    assert len({t.round for t in d.opened}) == rounds
    assert repeated_pairs(d) <= at_most


def test_the_same_event_is_seated_the_same_way() -> None:
    first, second = whole_event(30, 5, 4), whole_event(30, 5, 4)
    assert [(t.round, t.people) for t in first.opened] == [(t.round, t.people) for t in second.opened]
