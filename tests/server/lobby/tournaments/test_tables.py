"""An event's tables (server/lobby/tournaments/tables.py): the room's seats for the director's, the
options it is opened with, and a match's result mapped back to the director's seats (P14, P15, S11)."""

from __future__ import annotations

from server.config import load_config
from server.lobby.tournaments.tables import TableLink, seat_plan, table_options
from server.storage.api import RoundRecord
from server.tournaments import OpenTable, TableOver


def _record(rules: str, result: dict[str, object], game: str = "president") -> RoundRecord:
    return RoundRecord(round_id="r9-u-match", game=game, rules=rules, seats=[], config={}, log=[], result=result)


def test_the_people_who_can_sit_come_first_and_bots_take_the_other_seats() -> None:
    plan, order = seat_plan(("ana", None, "bob", "cid"), ["cid", "ana"])
    assert plan == ["ana", "cid", None, None]  # bob cannot sit: a bot plays his seat
    assert order == [0, 3, 1, 2]


def test_the_room_is_opened_with_the_events_options_and_its_marks() -> None:
    effect = OpenTable("e4.2", 1, ("ana", None, "bob"), {"game": "president", "rules": "classic", "rounds": 1,
                                                          "rated": True})
    plan, _ = seat_plan(effect.seats, ["ana", "bob"])
    opts = table_options(effect, plan, load_config(None), "e4")
    assert (opts.seats, opts.bots, opts.rounds) == (3, 1, 1)
    assert opts.extra["rated"] is True  # as the event says, bots or not
    assert opts.extra["tournament"] == "e4" and opts.extra["table"] == "e4.2"
    assert opts.extra["plan"] == ["ana", "bob", None]


def test_P15_a_classic_match_ranks_by_its_totals_in_the_directors_seat_order() -> None:
    link = TableLink("e1", "e1.1", 0, ("ana", None, "bob", "cid"), order=[0, 2, 3, 1])
    # room seats: ana, bob, cid, bot; equal totals share a place
    over = link.result(_record("classic", {"event": "match_over", "winners": [1], "totals": [3, 9, 3, 5]}))
    assert over == TableOver("e1.1", (3, 2, 1, 3), (0, 0, 0, 0))


def test_tdc_chips_are_the_sum_of_its_rounds_and_speculation_ranks_by_what_each_seat_won() -> None:
    link = TableLink("e1", "e1.1", 0, ("ana", "bob", "cid"), order=[2, 0, 1])
    link.rounds = [{"event": "round_over", "chips": [4, -2, -2]}, {"event": "round_over", "chips": [-2, 4, -2]}]
    over = link.result(_record("tdc", {"event": "match_over", "winners": [0], "totals": [5, 4, 1]}))
    # room seat 0 is the director's seat 2 (cid)...
    assert over == TableOver("e1.1", (2, 3, 1), (2, -4, 2))
    link = TableLink("e1", "e1.2", 0, ("ana", "bob", "cid"), order=[0, 1, 2])
    over = link.result(_record("speculation", {"event": "match_over", "winners": [2], "totals": [9, 10, 17],
                                               "changes": [-3, -2, 5], "deals": 3}, game="speculation"))
    assert over == TableOver("e1.2", (3, 2, 1), (-3, -2, 5))


def test_a_record_that_does_not_fit_the_table_is_no_result() -> None:
    link = TableLink("e1", "e1.1", 0, ("ana", "bob", "cid"), order=[0, 1, 2])
    assert link.result(_record("classic", {"event": "match_over", "totals": [1, 2]})) is None
