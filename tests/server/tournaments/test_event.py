"""What every event keeps: tables under way, results that fit them, nobody seated twice."""

from __future__ import annotations

import pytest

from server.tournaments.config import SwissConfig
from server.tournaments.entrants import Entrant
from server.tournaments.errors import TournamentError
from server.tournaments.event import Event
from server.tournaments.io import Absent, OpenTable, TableOver, TableScored
from server.tournaments.scoring import Scoring


def event(mode: str = "place") -> Event:
    ev = Event(SwissConfig(id="e", seats=4, rounds=3, starts_at=0, seed="1", min_seats=3,
                           scoring=Scoring("chips" if mode == "chips" else "place"), options={"game": "x"}))
    for name in ("a", "b", "c", "d"):
        ev.entrants.add(Entrant(name, 0.0))
    ev.begin(5.0)
    return ev


def test_a_table_is_opened_with_the_event_s_options_and_logged() -> None:
    ev = event()
    table = ev.open_table(1, ("a", "b", None))
    assert table == OpenTable("e.1", 1, ("a", "b", None), {"game": "x"})
    assert ev.entrants["a"].table == "e.1" and ev.journal[-1].item == table and ev.journal[-1].at == 5.0


def test_nobody_is_seated_twice() -> None:
    ev = event()
    ev.open_table(1, ("a", "b", "c"))
    with pytest.raises(RuntimeError):
        ev.open_table(1, ("d", "a", None))
    assert list(ev.tables) == ["e.1"] and ev.entrants["d"].table is None


@pytest.mark.parametrize(("inp", "code"), [
    (TableOver("e.9", (1, 2, 3)), "unknown_table"),
    (TableOver("e.1", (1, 2)), "bad_result"),
    (TableOver("e.1", (1, 1, 1, 1)), "bad_result"),
    (TableOver("e.1", (1, 2, 3), (1, 2)), "bad_result"),
    (Absent("e.1", ("d",)), "bad_result"),
    (Absent("e.1", ()), "bad_result"),
    (Absent("e.1", ("a", "a")), "bad_result"),
])
def test_a_result_that_does_not_fit_its_table_is_refused(inp: TableOver | Absent, code: str) -> None:
    ev = event()
    ev.open_table(1, ("a", "b", "c"))
    with pytest.raises(TournamentError) as err:
        ev.check(inp)
    assert err.value.code == code


def test_a_result_that_fits_is_accepted() -> None:
    ev = event()
    ev.open_table(1, ("a", "b", "c"))
    ev.check(TableOver("e.1", (1, 2, 2)))  # a shared second place (P15)
    ev.check(TableOver("e.1", (1, 1, 1), (0, 0, 0)))
    ev.check(Absent("e.1", ("a", "c")))


def test_chips_scoring_needs_the_chips() -> None:
    ev = event("chips")
    ev.open_table(1, ("a", "b", "c"))
    with pytest.raises(TournamentError):
        ev.check(TableOver("e.1", (1, 2, 3)))
    ev.check(TableOver("e.1", (1, 2, 3), (4, 0, -4)))


def test_a_result_frees_the_players_present_and_is_scored() -> None:
    ev = event()
    ev.open_table(1, ("a", "b", "c", None))
    ev.table_absent(Absent("e.1", ("c",)))
    assert ev.accounted() and ev.playing() == ["a", "b"]
    ev.begin(9.0)
    _, freed = ev.table_over(TableOver("e.1", (2, 1, 3, 4)))
    assert freed == ["a", "b"] and ev.entrants["a"].since == 9.0 and not ev.tables
    scored = ev.journal[-1].item
    assert isinstance(scored, TableScored) and scored.points == (67, 100, None, None)
    assert ev.tally.line("c").games == 1 and ev.tally.line("c").points == 0
