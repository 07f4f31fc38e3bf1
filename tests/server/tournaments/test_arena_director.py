"""The arena's director on a fake clock: seating, waiting, bots, the end, refusals, invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments import (
    Absent,
    ArenaConfig,
    ArenaDirector,
    Ended,
    Join,
    Leave,
    OpenTable,
    Scoring,
    Started,
    Stop,
    TableAborted,
    TableOver,
    TableScored,
    TournamentError,
    record_of,
    replay,
)
from tests.server.tournaments.driver import Driver


def arena(**kw: object) -> Driver:
    options: dict[str, object] = {"id": "a", "seats": 4, "starts_at": 100.0, "length": 1000.0, "seed": "5eed",
                                  "options": {"game": "president", "rules": "classic"}}
    options.update(kw)
    return Driver(ArenaDirector(ArenaConfig(**options)))  # type: ignore[arg-type]


def opened(d: Driver) -> list[OpenTable]:
    return [e for e in d.effects if isinstance(e, OpenTable)]


def join(d: Driver, *names: str) -> None:
    for i, name in enumerate(names):
        d.now += 1.0
        d.send(Join(name, rating=float(len(names) - i)))


def test_nobody_is_seated_before_the_start_then_full_tables_open() -> None:
    d = arena()
    join(d, *"abcdefghij")
    assert not opened(d) and d.director.wake == 100.0
    d.at(100.0)
    assert isinstance(d.effects[0], Started) and d.effects[0].entrants == tuple("abcdefghij")
    tables = opened(d)
    assert [len(t.seats) for t in tables] == [4, 4]
    assert all(t.options == {"game": "president", "rules": "classic"} and t.round == 0 for t in tables)
    seated = {n for t in tables for n in t.people}
    assert len(seated) == 8  # the remainder of two waits (the latest to join)
    assert seated == set("abcdefgh")
    assert d.director.wake == 1100.0  # nothing else due before the end


def test_the_summary_and_the_table_to_watch() -> None:
    d = arena()
    join(d, *"abcdefghij")
    assert d.director.summary()["phase"] == "registering"
    d.at(100.0)
    summary = d.director.summary()
    assert summary == {"id": "a", "kind": "arena", "phase": "running", "seats": 4,
                       "options": {"game": "president", "rules": "classic"},
                       "scoring": {"mode": "place", "streak": False}, "starts_at": 100.0, "entrants": 10,
                       "playing": 8, "tables": 2, "round": 0, "ends_at": 1100.0}
    first, second = opened(d)
    assert d.director.top_tables() == [first, second]  # nobody has points: in the order opened
    d.finish(first, totals=[0, 0, 0, 0])  # a shared first place: 50 each
    d.finish(second, totals=[9, 0, 0, 0])  # 100 for its winner
    st = d.director.standings()
    top = d.director.top_tables()

    def best(table: OpenTable) -> int:
        return max(st.line(n).points for n in table.people)  # type: ignore[union-attr]

    assert len(top) == 2 and best(top[0]) >= best(top[1]) and best(top[0]) > 0


def test_players_back_from_a_table_are_seated_again_with_others() -> None:
    d = arena()
    join(d, *"abcdefgh")
    d.at(100.0)
    first, second = opened(d)
    d.at(150.0)
    d.finish(first)
    assert len(opened(d)) == 2  # four wait: they would be the same table again; others come soon
    assert d.director.wake == 160.0
    d.at(155.0)
    d.finish(second)
    again = opened(d)[2:]
    assert len(again) == 2
    for table in again:  # never with the same table-mates when others wait
        assert len(set(table.people) & set(first.people)) == 2
        assert len(set(table.people) & set(second.people)) == 2


def test_the_same_table_plays_again_after_rematch_wait_or_at_once_when_told() -> None:
    d = arena()
    join(d, *"abcd")
    d.at(100.0)
    d.at(200.0)
    d.finish(opened(d)[0])
    assert len(opened(d)) == 1 and d.director.wake == 210.0
    d.at(210.0)
    assert len(opened(d)) == 2 and set(opened(d)[1].people) == set("abcd")

    d = arena(rematch_wait=0.0)
    join(d, *"abcd")
    d.at(100.0)
    d.finish(opened(d)[0])
    assert len(opened(d)) == 2


def test_one_newcomer_breaks_the_same_table_at_once() -> None:
    d = arena()
    join(d, *"abcde")
    d.at(100.0)
    d.at(200.0)
    first = opened(d)[0]
    d.finish(first)  # four back and e waiting: e and three of them play, the fourth waits
    table = opened(d)[1]
    assert "e" in table.people and len(set(table.people) & set(first.people)) == 3


def test_a_remainder_is_filled_with_bots_only_when_allowed_and_after_waiting() -> None:
    d = arena()
    join(d, *"abcde")
    d.at(100.0)
    d.at(900.0)
    assert len(opened(d)) == 1  # e waits: no bots

    d = arena(bots=True, bot_wait=20.0)
    join(d, *"abcde")
    d.at(100.0)
    assert len(opened(d)) == 1 and d.director.wake == 120.0  # e joined at 0: waits from then
    d.at(120.0)
    bot_table = opened(d)[1]
    assert bot_table.seats == ("e", None, None, None)
    d.finish(bot_table, totals=[0, 3, 2, 1])  # the bots take the three first places
    scored = [e for e in d.effects if isinstance(e, TableScored)][-1]
    assert scored.points == (0, None, None, None)  # bots score nothing


def test_a_player_who_leaves_keeps_their_points_and_can_come_back() -> None:
    d = arena()
    join(d, *"abcdefgh")
    d.at(100.0)
    first = opened(d)[0]
    d.send(Leave(first.people[0]))
    d.finish(first, totals=[9, 1, 1, 1])
    line = d.director.standings().line(first.people[0])
    assert line is not None and line.points == 100 and line.status == "left"
    assert all(first.people[0] not in t.people for t in opened(d)[2:])
    d.send(Join(first.people[0]))
    assert d.director.standings().line(first.people[0]).status == "active"  # type: ignore[union-attr]


def test_leaving_before_the_start_takes_the_entry_back() -> None:
    d = arena()
    join(d, "a", "b")
    d.send(Leave("a"))
    d.at(100.0)
    assert [line.name for line in d.director.standings().lines] == ["b"]


def test_the_end_lets_tables_finish_and_count() -> None:
    d = arena()
    join(d, *"abcdefgh")
    d.at(100.0)
    first, second = opened(d)
    d.at(1100.0)
    assert d.director.wake is None and not d.director.over
    with pytest.raises(TournamentError) as err:
        d.send(Join("late"))
    assert err.value.code == "not_open"
    d.finish(first)
    assert len(opened(d)) == 2  # no new table after the end
    d.finish(second)
    assert d.effects[-1] == Ended("time") and d.director.over
    st = d.director.standings()
    assert st.final and sum(line.games for line in st.lines) == 8


def test_the_organiser_can_stop_the_event() -> None:
    d = arena()
    join(d, *"abcd")
    d.at(100.0)
    d.send(Stop())
    assert not d.director.over
    d.finish(opened(d)[0])
    assert d.effects[-1] == Ended("stopped")
    with pytest.raises(TournamentError):
        d.send(Stop())


def test_an_absent_player_forfeits_and_is_paused() -> None:
    d = arena()
    join(d, *"abcd")
    d.at(100.0)
    table = opened(d)[0]
    d.send(Absent(table.table, (table.people[0],)))
    d.finish(table, totals=[9, 0, 0, 0])  # their seat's bot won: it scores for nobody
    line = d.director.standings().line(table.people[0])
    assert line is not None and line.points == 0 and line.games == 1 and line.status == "left"


def test_an_aborted_table_scores_nothing_and_frees_its_players() -> None:
    d = arena()
    join(d, *"abcd")
    d.at(100.0)
    d.send(TableAborted(opened(d)[0].table))
    assert all(line.games == 0 for line in d.director.standings().lines)
    assert len(opened(d)) == 2  # seated again at once


def test_the_streak_doubles_a_third_win_in_a_row() -> None:
    d = arena(scoring=Scoring("place", streak=True), rematch_wait=0.0)
    join(d, *"abcd")
    d.at(100.0)
    got = []
    for _ in range(4):
        table = opened(d)[-1]
        totals = [9 if name == "a" else 0 for name in table.seats]
        d.finish(table, totals=totals)
        got.append(d.director.standings().line("a").points)  # type: ignore[union-attr]
    assert got == [100, 200, 400, 600]
    assert d.director.standings().line("a").on_fire  # type: ignore[union-attr]


@pytest.mark.parametrize(("inp", "code"), [
    (Join("a"), "already_entered"),
    (Leave("zed"), "not_entered"),
    (TableOver("a.99", (1, 2, 3, 4)), "unknown_table"),
    (TableOver("a.1", (1, 2, 3)), "bad_result"),
    (Absent("a.1", ("zed",)), "bad_result"),
])
def test_a_refused_input_changes_nothing(inp: Join, code: str) -> None:
    d = arena(max_entrants=5)
    join(d, *"abcd")
    d.at(100.0)
    before = list(d.director.event.journal)
    with pytest.raises(TournamentError) as err:
        d.send(inp)
    assert err.value.code == code
    assert d.director.event.journal == before
    d.send(Join("e"))
    with pytest.raises(TournamentError) as err:
        d.send(Join("f"))
    assert err.value.code == "full"


# -- invariants, on random events ---------------------------------------------------------------------

OPS = st.lists(st.tuples(st.sampled_from(["join", "leave", "finish", "finish", "finish", "abort", "absent", "wait", "wait", "stop"]),
                         st.integers(0, 11), st.integers(0, 10_000)), max_size=60)


def play(config: ArenaConfig, entrants: int, ops: list[tuple[str, int, int]]) -> Driver:
    d = Driver(ArenaDirector(config), random.Random(ops[0][2] if ops else 0))
    for i in range(entrants):
        d.send(Join(f"p{i}", rating=float(i % 5)))
    for op, who, n in ops:
        name = f"p{who}"
        tables = list(d.director.event.tables.values())
        try:
            if op == "join":
                d.send(Join(name, rating=float(n % 50)))
            elif op == "leave":
                d.send(Leave(name))
            elif op == "finish" and tables:
                d.finish(tables[n % len(tables)])
            elif op == "abort" and tables:
                d.send(TableAborted(tables[n % len(tables)].table))
            elif op == "absent" and tables:
                table = tables[n % len(tables)]
                d.send(Absent(table.table, (table.people[0],)))
            elif op == "wait":
                d.at(d.now + n / 1000)
            elif op == "stop" and n % 7 == 0:
                d.send(Stop())
        except TournamentError:
            pass
    d.at(config.ends_at)
    while d.director.event.tables:
        d.finish_all()
    return d


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 12), OPS, st.booleans(), st.sampled_from([0.0, 5.0]), st.booleans())
def test_invariants_hold_in_any_arena(entrants: int, ops: list[tuple[str, int, int]], bots: bool, rematch: float,
                                      streak: bool) -> None:
    config = ArenaConfig(id="a", seats=3, starts_at=0.0, length=60.0, seed="c0ffee", bots=bots, bot_wait=3.0,
                         rematch_wait=rematch, scoring=Scoring("place", streak=streak))
    d = play(config, entrants, ops)  # the driver checks after every call: nobody twice, everyone accounted for,
    assert d.director.over  # live standings == recomputed from the record
    record = record_of(d.director)
    again = replay(record)  # the same decisions from the record's inputs
    assert again.standings() == d.director.standings()
    assert [e.item for e in again.event.journal if isinstance(e.item, OpenTable)] == d.opened
    # every game counted once: games in the standings == people's seats scored + forfeits
    scored = [e for e in d.effects if isinstance(e, TableScored)]
    forfeits = sum(len(e.item.names) for e in record.entries if isinstance(e.item, Absent))
    assert sum(line.games for line in d.director.standings().lines) == forfeits + sum(
        sum(1 for p in s.points if p is not None) for s in scored)
