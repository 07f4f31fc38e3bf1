"""Who sits at a table (server/table/people.py, the table's ``seating``): arrivals counted for the
newcomers of a deal (T12), a seat taken by a bot or a person, a free seat given back."""

from __future__ import annotations

from tests.server.table.harness import Harness


def test_T12_newcomers_are_those_who_sat_down_since_the_last_deal() -> None:
    h = Harness("classic", seats=4, bots=1)
    seating, table = h.table.seating, h.table
    h.join("alice", "bob")
    assert [s.arrived for s in table.seats] == [1, 3, 0, 2]  # alice, the bot she brought in, bob
    assert seating.newcomers([0, 1, 3]) == []  # no deal yet in this match: nobody is "new"
    table.dealt_arrivals = 2
    assert seating.newcomers([0, 1, 3]) == [1] and seating.newcomers(None) == []
    assert seating.arrival() == 4 and table.arrivals == 4


def test_a_person_leaving_before_the_match_frees_the_seat_and_its_claim() -> None:
    h = Harness("classic", seats=4, bots=0)
    h.join("alice", "bob")
    seat = h.table.seats[h.seat("bob")]
    h.ok("bob", "leave")
    assert seat.empty and seat.arrived == 0 and h.released == ["bob"]
    assert h.claims.holder("bob") is None and h.claims.holder("alice") == "t1"
