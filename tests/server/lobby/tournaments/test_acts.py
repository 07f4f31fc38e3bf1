"""What the tournament commands ask of an event's owner (server/lobby/tournaments/acts.py), on the hall's
fakes: a leave before the start takes the entry back and says so; after it, the entrant has left."""

from __future__ import annotations

import asyncio

from server.lobby.tournaments.acts import act
from server.lobby.tournaments.hall import Hall
from server.tournaments import ArenaConfig, Join
from tests.server.lobby.tournaments.test_hall import Lobby


async def _event(hall: Hall, starts_at: float) -> str:
    shell = await hall.open(ArenaConfig(id="e1", seats=3, starts_at=starts_at, length=600, seed="ab"), "org")
    for name in ("ana", "bob"):
        await hall.ask(shell, Join(name, 0.0))
    return shell.id


async def test_a_leave_before_the_start_says_the_entry_is_withdrawn() -> None:
    hall = Hall(Lobby(), clock=lambda: 0.0)  # type: ignore[arg-type]
    tid = await _event(hall, starts_at=100.0)
    reply = await act(hall, "tournament_leave", {"tournament": tid}, "ana", False)
    assert reply == {"tournament": tid, "withdrawn": True}
    assert [line.name for line in hall.events[tid].seen().standings.lines] == ["bob"]
    await hall.shutdown()


async def test_a_leave_after_the_start_is_a_leave_not_a_withdrawal() -> None:
    hall = Hall(Lobby(), clock=lambda: 10.0)  # type: ignore[arg-type]
    tid = await _event(hall, starts_at=0.0)
    await asyncio.sleep(0)
    reply = await act(hall, "tournament_leave", {"tournament": tid}, "ana", False)
    assert reply == {"tournament": tid, "withdrawn": False}
    assert [line.status for line in hall.events[tid].seen().standings.lines if line.name == "ana"] == ["left"]
    await hall.shutdown()
