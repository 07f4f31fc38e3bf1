"""The hall of a cluster node on fakes (server/lobby/tournaments/hall.py with a ``HallCluster``): the
event's fence first in every write, a stale owner's write refused before the store and by it, and
then nothing more performed or announced here; the commands of an event another node runs
forwarded to it; people of other nodes seated through their node."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from server.lobby.tournaments.acts import act
from server.lobby.tournaments.hall import Hall, NotOwner
from server.lobby.tournaments.shell import EventShell
from server.lobby.tournaments.tables import TableLink
from server.protocol import Args, CommandError, JSONValue
from server.rooms.room import Room
from server.storage.api import Fence, Op, OpResult, RoundRecord, StaleOwner
from server.storage.api_tournaments import StoredTournament, TournamentLog
from server.tournaments import ArenaConfig, ArenaDirector, Join, Started, TableAborted, TableOver, record_of
from tests.server.lobby.fakes import online
from tests.server.lobby.tournaments.test_hall import Lobby


class Cluster:
    """A cluster as the hall sees it: the lease surely held or not, what was given up, forwarded."""

    def __init__(self) -> None:
        self.surely = True
        self.epoch = 3
        self.dropped: list[str] = []
        self.ended: list[str] = []
        self.forwarded: list[tuple[str, str, dict[str, JSONValue], str, bool]] = []
        self.elsewhere: dict[str, str] = {}

    def fence(self, tid: str) -> Fence | None:
        return Fence("tour:" + tid, self.epoch)

    def acting(self, tid: str) -> bool:
        return self.surely

    async def own(self, tid: str) -> None:
        return None

    def over(self, tid: str) -> None:
        self.ended.append(tid)

    def gone(self, tid: str) -> None:
        self.dropped.append(tid)

    async def owner(self, tid: str) -> str | None:
        return self.elsewhere.get(tid)

    async def forward(self, node: str, cmd: str, args: Args, name: str, staff: bool) -> dict[str, JSONValue]:
        self.forwarded.append((node, cmd, dict(args), name, staff))
        return {"tournament": str(args.get("tournament"))}

    async def listing(self, asker: str | None) -> list[dict[str, JSONValue]]:
        return []

    async def seat(self, room: Room, name: str, finished: Sequence[str]) -> bool:
        return False


class Performed(Hall):
    def __init__(self, lobby: Any) -> None:
        super().__init__(lobby)
        self.performed: list[object] = []

    async def perform(self, shell: EventShell, effect: Any) -> None:
        self.performed.append(effect)


def event(hall: Hall, clock: list[float]) -> EventShell:
    config = ArenaConfig(id="e1", seats=3, starts_at=clock[0] + 10, length=100, seed="ab")
    shell = EventShell(ArenaDirector(config), hall, lambda: clock[0])
    hall.events[shell.id] = shell
    return shell


async def ended(shell: EventShell) -> None:
    """Until the event's task ended (the director's call runs in a worker thread)."""
    assert shell._task is not None
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(shell._task, 10)


async def joined(shell: EventShell) -> None:
    for name in ("ana", "bob", "cid"):
        await shell.ask(Join(name))


async def test_every_write_of_the_event_carries_its_fence_first() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell.start()
    await joined(shell)
    assert lobby.store.applied and all(ops[0] == Fence("tour:e1", 3) for ops in lobby.store.applied)
    assert all(isinstance(ops[1], TournamentLog) for ops in lobby.store.applied)
    await shell.stop()


async def test_a_node_no_longer_sure_of_its_lease_writes_nothing_and_stops_driving_the_event() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell.start()
    await joined(shell)
    writes = len(lobby.store.applied)
    cluster.surely = False  # (the process was held back past its lease)
    clock[0] += 10  # the start is due: its decision would open a table
    shell.tell(Join("dan"))
    await ended(shell)
    assert len(lobby.store.applied) == writes  # refused before the store
    assert hall.performed == []  # no table opened, nothing announced
    assert "e1" not in hall.events and cluster.dropped == ["e1"] and cluster.ended == []
    assert isinstance(shell.failure, NotOwner)
    with pytest.raises(CommandError) as err:
        hall.get("e1")
    assert err.value.code == "no_such_tournament"


async def test_a_write_the_fence_refuses_stops_the_event_here_before_any_effect() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell.start()
    await joined(shell)

    async def refused(ops: Sequence[Op]) -> list[OpResult]:
        raise StaleOwner("another node took it", current=4)

    lobby.store.apply = refused  # type: ignore[method-assign]  # another node raised the fence
    clock[0] += 10
    await asyncio.sleep(0)
    shell.tell(Join("dan"))
    await ended(shell)
    assert not any(isinstance(e, Started) for e in hall.performed) and hall.performed == []
    assert "e1" not in hall.events and cluster.dropped == ["e1"]


async def test_an_event_over_gives_its_lease_up() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell._task = asyncio.get_running_loop().create_task(asyncio.sleep(0))
    await shell._task
    hall.finished(shell)
    assert cluster.ended == ["e1"] and cluster.dropped == []


async def test_the_owner_runs_a_command_of_a_person_of_another_node() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell.start()
    assert await act(hall, "tournament_join", {"tournament": "e1"}, "zoe", False) == {"tournament": "e1"}
    listed = await act(hall, "tournaments", {}, "zoe", False)
    summaries = listed["tournaments"]
    assert isinstance(summaries, list) and isinstance(summaries[0], dict) and summaries[0]["joined"] is True
    with pytest.raises(CommandError) as err:
        await act(hall, "tournament_stop", {"tournament": "e1"}, "zoe", False)
    assert err.value.params == {"reason": "organiser_only"}
    with pytest.raises(CommandError) as err:
        await act(hall, "tournament_create", {}, "zoe", True)
    assert err.value.code == "unknown_command"
    await shell.stop()


async def test_a_person_online_at_another_node_is_seated_through_the_cluster() -> None:
    lobby, cluster = Lobby(), Cluster()
    lobby.elsewhere = lambda name: {"name": name} if name == "bob" else None  # type: ignore[method-assign]
    hall = Hall(lobby)  # type: ignore[arg-type]
    hall.cluster = cluster
    asked: list[str] = []

    async def seat(room: Room, name: str, finished: Sequence[str]) -> bool:
        asked.append(name)
        return True

    cluster.seat = seat  # type: ignore[method-assign]
    assert hall.can_sit(["ana", "bob"]) == ["bob"]  # ana is not online; bob is, at another node
    assert await hall._seat(object(), ["bob", None]) == [] and asked == ["bob"]  # type: ignore[arg-type]


class Rounds:
    """The store's records of the event's tables, and their status."""

    def __init__(self) -> None:
        self.records: list[RoundRecord] = []
        self.status: dict[str, str] = {}
        self.tournaments = self
        self.tables = self

    async def rounds(self, tid: str) -> list[RoundRecord]:
        return list(self.records)

    async def get(self, rid: str) -> Any:
        status = self.status.get(rid)
        return None if status is None else SimpleNamespace(status=status)


async def test_a_table_another_node_holds_is_reported_from_the_store_once_its_match_is_recorded() -> None:
    lobby, clock = Lobby(), [1000.0]
    store = Rounds()
    lobby.store = store  # type: ignore[assignment]
    hall = Performed(lobby)
    shell = event(hall, clock)
    told: list[object] = []
    shell.tell = told.append  # type: ignore[method-assign]
    hall.far["r7"] = TableLink("e1", "e1.1", 0, ("ana", None, "bob"), order=[0, 2, 1])
    hall.far["r8"] = TableLink("e1", "e1.2", 0, ("cid", "dan", None), order=[0, 1, 2])
    store.status.update(r7="open", r8="open")
    await hall.follow_far()
    assert told == [] and set(hall.far) == {"r7", "r8"}  # both still playing at the other node
    store.records.append(RoundRecord(round_id="r7-u1-match", game="president", rules="classic", seats=[],
                                     config={}, log=[], result={"event": "match_over", "totals": [9, 3, 5]}))
    store.status["r8"] = "aside"  # closed there without a match
    await hall.follow_far()
    assert told == [TableOver("e1.1", (1, 2, 3), (0, 0, 0)), TableAborted("e1.2")]
    assert hall.far == {} and hall.done_far == {"r7", "r8"}
    assert hall.far_seated == {"ana": "r7", "bob": "r7", "cid": "r8", "dan": "r8"}  # told the news as at a table
    await hall.follow_far()
    assert len(told) == 2  # reported once


async def test_an_event_whose_first_write_fails_gives_its_lease_up() -> None:
    lobby, cluster = Lobby(), Cluster()
    hall = Hall(lobby)  # type: ignore[arg-type]
    hall.cluster = cluster

    async def away(ops: Sequence[Op]) -> list[OpResult]:
        raise OSError("the database is away")

    lobby.store.apply = away  # type: ignore[method-assign]
    with pytest.raises(OSError):
        await hall.open(ArenaConfig(id="e5", seats=3, starts_at=0.0, length=10, seed="ab"), "ora")
    assert cluster.ended == ["e5"] and "e5" not in hall.events


async def test_the_people_still_at_a_finished_table_of_another_node_hear_the_event_s_news() -> None:
    lobby, cluster, clock = Lobby(), Cluster(), [1000.0]
    hall = Performed(lobby)
    hall.cluster = cluster
    shell = event(hall, clock)
    shell.start()
    await joined(shell)
    reached: list[tuple[str, object]] = []
    lobby.elsewhere = lambda name: {"name": name} if name == "bob" else None  # type: ignore[method-assign]
    lobby.reach = lambda key, event, reply_to=None: reached.append((key, event))  # type: ignore[method-assign]
    hall.far_seated["bob"] = "r7"  # bob's node still seats him at r7, over, held by a third node
    hall._news(shell, {"event": "tournament_ended", "tournament": "e1"})
    assert lobby.news == [{"event": "tournament_ended", "tournament": "e1"}]  # the lobbies
    assert reached == [("bob", {"event": "tournament_ended", "tournament": "e1"})]  # and bob, at his table
    await shell.stop()


class HeldRoom:
    """A table this node took over from a dead node: its plan, its status, who left it."""

    def __init__(self, rid: str, plan: list[str | None], tid: str | None = "e1", status: str = "playing") -> None:
        self.id = rid
        self.opts = SimpleNamespace(extra={"tournament": tid, "table": "e1.1", "plan": plan} if tid else {})
        self.table = SimpleNamespace(status=status)
        self.watcher: object = None
        self.left: list[str] = []

    def watched_by(self, watcher: object) -> None:
        self.watcher = watcher

    async def submit(self, player: Any, cmd: str, args: Args) -> None:
        assert cmd == "leave"
        self.left.append(player.name)
        player.room = None


def match(rid: str) -> RoundRecord:
    return RoundRecord(round_id=f"{rid}-u1-match", game="president", rules="classic", seats=[], config={}, log=[],
                       result={"event": "match_over", "totals": [9, 3, 5]})


async def test_a_table_of_another_node_s_event_taken_over_here_frees_its_people_when_its_match_ends() -> None:
    """(The event's node reads the result from the store; the table's node makes its people leave,
    free for their next table wherever it opens.)"""
    lobby = Lobby()
    hall = Hall(lobby)  # type: ignore[arg-type]
    ana, bob = online("ana"), online("bob")
    room = HeldRoom("r7", ["ana", "bob", None])
    for p in (ana, bob):
        lobby.players[p.key] = p
        p.room, p.seat = room, 0
    hall.took(room)  # type: ignore[arg-type]
    hall.took(HeldRoom("r8", [], tid=None))  # type: ignore[arg-type]  # a table of no event: none of its business
    assert room.watcher is hall and set(hall.held) == {"r7"}
    hall.recorded(room, RoundRecord(round_id="r7-u1-1", game="president", rules="classic", seats=[], config={},  # type: ignore[arg-type]
                                    log=[], result={}))
    await asyncio.gather(*lobby.tasks)
    assert room.left == []  # a round: they play on
    hall.recorded(room, match("r7"))  # type: ignore[arg-type]
    await asyncio.gather(*lobby.tasks)
    assert room.left == ["ana", "bob"] and ana.room is None and hall.held == {}


async def test_a_table_taken_over_already_over_frees_its_people_at_once_and_one_its_event_links_is_its_own() -> None:
    lobby = Lobby()
    hall = Hall(lobby)  # type: ignore[arg-type]
    cid = online("cid")
    lobby.players[cid.key] = cid
    over = HeldRoom("r9", ["cid", None, None], status="over")
    cid.room = over
    hall.took(over)  # type: ignore[arg-type]
    await asyncio.gather(*lobby.tasks)
    assert over.left == ["cid"] and hall.held == {}
    linked = HeldRoom("r5", ["dan", None, None])
    hall.links["r5"] = TableLink("e1", "e1.1", 0, ("dan", None, None), [0, 1, 2], room=linked)  # type: ignore[arg-type]
    hall.took(linked)  # type: ignore[arg-type]
    assert hall.held == {} and linked.watcher is None  # the event runs here: its own report frees them


class Tables:
    """The store's tables (their configuration) and the event's records, for a take-over."""

    def __init__(self, configs: dict[str, dict[str, Any]]) -> None:
        self.configs = configs
        self.tournaments = self
        self.tables = self
        self.applied: list[list[Op]] = []

    async def rounds(self, tid: str) -> list[RoundRecord]:
        return []  # (the table's first round is not over yet)

    async def get(self, rid: str) -> Any:
        config = self.configs.get(rid)
        return None if config is None else SimpleNamespace(status="open", config=config)

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        self.applied.append(list(ops))
        return [None] * len(ops)


async def test_an_event_taken_over_follows_its_table_another_node_holds_before_its_first_round_ends() -> None:
    """Its table is known from its configuration in the store, not opened a second time."""
    director = ArenaDirector(ArenaConfig(id="e1", seats=3, starts_at=10.0, length=100, seed="ab"))
    for name in ("ana", "bob", "cid"):
        director.handle(0.0, Join(name))
    director.tick(11.0)  # its first table opened: r7, held by another node now
    record = record_of(director).to_dict()
    entries = record["entries"]
    assert isinstance(entries, list)
    plan = ["bob", "ana", "cid"]
    lobby = Lobby()
    lobby.store = Tables({"r7": {"extra": {"tournament": "e1", "table": "e1.1", "plan": plan}}})  # type: ignore[assignment]
    hall = Hall(lobby, clock=lambda: 12.0)  # type: ignore[arg-type]
    hall.cluster = Cluster()
    stored = StoredTournament(tournament_id="e1", config=director.config.to_dict(), organiser="ora", status="open",
                              created_at=0.0, entries=[e for e in entries if isinstance(e, dict)],
                              next_seq=len(entries), tables=[("r7", 0)])
    assert await hall.adopt(stored)
    try:
        assert set(hall.far) == {"r7"} and hall.far["r7"].table == "e1.1" and hall.far["r7"].order == [0, 1, 2]
        assert lobby.tasks == []  # no table opened again
    finally:
        await hall.events["e1"].stop()
