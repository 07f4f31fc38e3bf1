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


def test_at_a_tournament_table_each_person_sits_only_at_the_seat_planned_for_them_and_no_rematch() -> None:
    import dataclasses

    h = Harness("classic", seats=3, bots=1, rounds=1)
    plan = ["bob", "alice", None]
    h.table.opts = dataclasses.replace(h.table.opts, extra={**h.table.opts.extra, "tournament": "e1",
                                                             "table": "e1.1", "plan": plan})
    assert h.refused("carol", "join").code == "not_allowed"  # not one of the table's people
    assert h.ok("alice", "join", seat=0) == {"seat": 1}  # her planned seat, whatever she asked for
    assert h.ok("bob", "join") == {"seat": 0}
    assert h.table.seats[2].bot is not None and h.table.status == "playing"
    h.table.status = "over"
    refused = h.refused("alice", "rematch")
    assert refused.code == "not_allowed" and refused.params.get("reason") == "tournament"
