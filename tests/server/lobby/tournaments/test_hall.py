"""The lobby's hall (server/lobby/tournaments/hall.py) on fakes: a table nobody can sit at, a table
that cannot open, the list kept short, the writes going through the one fenced method."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any

from server.config import load_config
from server.lobby.tournaments.acts import act
from server.lobby.tournaments.hall import KEEP_OVER, Hall
from server.lobby.tournaments.shell import EventShell
from server.rooms.claims import SeatClaims
from server.storage.api import Fence, Op, OpResult
from server.storage.api_tournaments import TournamentLog
from server.tournaments import (
    Absent,
    ArenaConfig,
    ArenaDirector,
    Input,
    Join,
    OpenTable,
    TableAborted,
)
from tests.server.lobby.fakes import online


class Store:
    def __init__(self) -> None:
        self.applied: list[list[Op]] = []

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        self.applied.append(list(ops))
        return [None] * len(ops)


class Lobby:
    def __init__(self, *, rooms_fail: bool = False) -> None:
        self.config = load_config(None)
        self.store = Store()
        self.players: dict[str, Any] = {}
        self.rooms: dict[str, Any] = {}
        self.seats = SeatClaims()
        self.closing = False
        self.rooms_fail = rooms_fail
        self.news: list[Any] = []
        self.tasks: list[asyncio.Task[object]] = []

    async def open_room(self, opts: Any, owner: str, opener: Any = None) -> Any:
        raise RuntimeError("the store is away")

    def broadcast(self, event: Any, *, news: bool = False) -> None:
        self.news.append(event)

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        self.tasks.append(asyncio.get_running_loop().create_task(coro))

    def elsewhere(self, name: str) -> Any:
        return None

    def reach(self, key: str, event: Any, *, reply_to: str | None = None) -> None:
        raise AssertionError("nobody is elsewhere in one process")


class Shell:
    """An event's shell as the hall uses it: what it was told."""

    def __init__(self, tid: str = "e1") -> None:
        self.id = tid
        self.organiser = "org"
        self.told: list[Input] = []
        self.ended = False

    def tell(self, inp: Input) -> None:
        self.told.append(inp)


TABLE = OpenTable("e1.1", 0, ("ana", None, "bob"), {"game": "president", "rules": "classic", "rounds": 1,
                                                     "rated": True})


async def test_a_table_nobody_can_sit_at_is_reported_absent_then_aborted() -> None:
    lobby = Lobby()
    hall = Hall(lobby)  # type: ignore[arg-type]
    shell = Shell()
    await hall.perform(shell, TABLE)  # type: ignore[arg-type]  # nobody online
    await asyncio.gather(*lobby.tasks)  # (the table opens beside the event's task)
    assert shell.told == [Absent("e1.1", ("ana", "bob")), TableAborted("e1.1")]
    assert lobby.store.applied == []


async def test_a_table_that_cannot_open_frees_its_people() -> None:
    lobby = Lobby()
    for name in ("ana", "bob"):
        player = online(name)
        lobby.players[player.key] = player
    hall = Hall(lobby)  # type: ignore[arg-type]
    shell = Shell()
    await hall.perform(shell, TABLE)  # type: ignore[arg-type]  # open_room raises
    await asyncio.gather(*lobby.tasks)
    assert shell.told == [TableAborted("e1.1")]


async def test_a_cluster_owners_fence_goes_first_in_every_write_of_the_event() -> None:
    lobby = Lobby()

    class Fenced(Hall):
        def fence(self, tid: str) -> Fence | None:
            return Fence("tour:" + tid, 7)

    hall = Fenced(lobby)  # type: ignore[arg-type]
    log = TournamentLog("e1", 0, [{"at": 1.0, "k": "stop"}])
    results = await hall.write("e1", [log])
    assert lobby.store.applied == [[Fence("tour:e1", 7), log]] and results == [None]


async def test_the_list_keeps_only_the_latest_events_over() -> None:
    lobby = Lobby()
    hall = Hall(lobby)  # type: ignore[arg-type]
    shells = []
    for i in range(KEEP_OVER + 3):
        config = ArenaConfig(id=f"e{i}", seats=3, starts_at=0.0, length=10, seed="ab")
        shell = EventShell(ArenaDirector(config), hall, lambda: 0.0)
        hall.events[shell.id] = shell
        shells.append(shell)
    for shell in shells:
        shell._task = asyncio.get_running_loop().create_task(asyncio.sleep(0))
        await shell._task
        hall.finished(shell)
    assert list(hall.events) == [f"e{i}" for i in range(3, KEEP_OVER + 3)]


class SlowLobby(Lobby):
    """Its rooms take for ever to open: the event's tables stay under way."""

    async def open_room(self, opts: Any, owner: str, opener: Any = None) -> Any:
        await asyncio.Event().wait()


async def _arena_under_way(lobby: Lobby, hall: Hall) -> str:
    for name in ("ana", "bob", "cid"):
        player = online(name)
        lobby.players[player.key] = player
    shell = await hall.open(ArenaConfig(id="e1", seats=3, starts_at=0.0, length=600, seed="ab",
                                        options=TABLE.options), "org")
    for name in ("ana", "bob", "cid"):
        await hall.ask(shell, Join(name, 0.0))
    await asyncio.sleep(0.01)  # (the table opens beside the event's task: its room never comes)
    assert len(shell.seen().top) == 1  # a table under way
    return shell.id


async def test_an_arenas_start_says_until_when() -> None:
    lobby = SlowLobby()
    hall = Hall(lobby, clock=lambda: 10.0)  # type: ignore[arg-type]
    await _arena_under_way(lobby, hall)
    started = [e for e in lobby.news if e["event"] == "tournament_started"]
    assert started == [{"event": "tournament_started", "tournament": "e1", "kind": "arena", "entrants": 0,
                        "ends_at": 600.0}]
    for task in lobby.tasks:
        task.cancel()
    await hall.shutdown()


async def test_a_stop_is_announced_at_once_while_its_tables_play_on() -> None:
    lobby = SlowLobby()
    hall = Hall(lobby, clock=lambda: 10.0)  # type: ignore[arg-type]
    tid = await _arena_under_way(lobby, hall)
    await act(hall, "tournament_stop", {"tournament": tid}, "org", False)
    assert [e for e in lobby.news if e["event"] == "tournament_stopping"] == [
        {"event": "tournament_stopping", "tournament": tid, "tables": 1}]
    assert not [e for e in lobby.news if e["event"] == "tournament_ended"]  # its table still plays
    for task in lobby.tasks:
        task.cancel()
    await hall.shutdown()


async def test_a_stop_with_no_table_under_way_is_the_end_news_alone() -> None:
    lobby = Lobby()
    hall = Hall(lobby, clock=lambda: 0.0)  # type: ignore[arg-type]
    shell = await hall.open(ArenaConfig(id="e1", seats=3, starts_at=100.0, length=600, seed="ab"), "org")
    await act(hall, "tournament_stop", {"tournament": shell.id}, "org", False)
    await asyncio.sleep(0)
    assert [e["event"] for e in lobby.news] == ["tournament_opened", "tournament_ended"]
    await hall.shutdown()
