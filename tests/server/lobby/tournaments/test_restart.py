"""An event's restart (server/lobby/tournaments/restart.py): a rebuilt room's seats mapped back to the
director's from its plan (the whole restart runs on real servers: tests/e2e/tournaments/)."""

from __future__ import annotations

from server.lobby.tournaments.restart import _order
from server.lobby.tournaments.tables import seat_plan


def test_a_rebuilt_rooms_seats_map_back_as_when_it_opened() -> None:
    seats = ("ana", None, "bob", "cid")
    for can in (["ana", "bob", "cid"], ["cid"], ["bob", "ana"], []):
        plan, order = seat_plan(seats, can)
        assert _order(plan, seats) == order
    assert _order(None, ("ana", "bob", None)) == [0, 1, 2]  # no plan: every seat as the director's
