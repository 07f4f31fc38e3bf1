"""Tournaments in a cluster, one node's part (server/cluster/events.py) on fakes: the event's lease
and fencing token, a lost lease stopping the event here, commands forwarded and answered, an
event of a dead node taken over with its fence raised before its journal is read."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from server.cluster import events as events_module
from server.cluster import proxy, wire
from server.cluster.events import Events, event_of
from server.cluster.lease import Held, LeaseBook
from server.cluster.relay import Relay
from server.cluster.takeover import Takeover
from server.protocol import CommandError
from server.storage.api import Fence, Op, OpResult, StaleOwner
from server.storage.api_tournaments import StoredTournament
from tests.server.cluster.fakes import FakeBus, FakeLobby
from tests.server.lobby.fakes import online


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Redis:
    """The hashes and keys events.py reads and writes."""

    def __init__(self) -> None:
        self.hashes: dict[str, dict[str, str]] = {}
        self.keys: dict[str, str] = {}

    async def hset(self, key: str, field: str | None = None, value: str | None = None,
                   mapping: dict[str, str] | None = None) -> int:
        h = self.hashes.setdefault(key, {})
        if field is not None and value is not None:
            h[field] = value
        h.update(mapping or {})
        return 1

    async def hget(self, key: str, field: str) -> str | None:
        return self.hashes.get(key, {}).get(field)

    async def hgetall(self, key: str) -> dict[str, str]:
        return dict(self.hashes.get(key, {}))

    async def hdel(self, key: str, *fields: str) -> int:
        return sum(self.hashes.get(key, {}).pop(f, None) is not None for f in fields)

    async def mget(self, keys: Sequence[str]) -> list[str | None]:
        return [self.keys.get(k) for k in keys]


class Leases:
    def __init__(self, book: LeaseBook, redis: Redis) -> None:
        self.book = book
        self.redis = redis
        self.epoch = 0
        self.released: list[str] = []

    async def take(self, rid: str, floor: int = 0) -> Held | None:
        if wire.lease_key(rid) in self.redis.keys:
            return None
        self.epoch = max(self.epoch, floor) + 1
        self.redis.keys[wire.lease_key(rid)] = f"{self.book.node} {self.epoch}"
        return self.book.took(rid, self.epoch)

    async def release(self, rid: str, held: Held | None = None) -> None:
        self.book.dropped(rid)
        self.redis.keys.pop(wire.lease_key(rid), None)
        self.released.append(rid)


class Store:
    def __init__(self) -> None:
        self.applied: list[list[Op]] = []
        self.fence_at = 0  # the epoch the database holds for the event
        self.stored: StoredTournament | None = None
        self.tournaments = self

    async def apply(self, ops: Sequence[Op]) -> list[OpResult]:
        self.applied.append(list(ops))
        fence = ops[0]
        if isinstance(fence, Fence) and fence.take:
            if fence.epoch <= self.fence_at:
                raise StaleOwner("behind", current=self.fence_at)
            before, self.fence_at = self.fence_at, fence.epoch
            return [before]
        return [None] * len(ops)

    async def get(self, tid: str) -> StoredTournament | None:
        return self.stored

    async def events(self, status: str | None = None) -> list[Any]:
        return []


class Hall:
    def __init__(self) -> None:
        self.events: dict[str, object] = {}
        self.stale_ones: list[str] = []
        self.adopted: list[str] = []

    def stale(self, tid: str) -> None:
        self.stale_ones.append(tid)

    async def adopt(self, stored: StoredTournament) -> bool:
        self.adopted.append(stored.tournament_id)
        self.events[stored.tournament_id] = object()
        return True

    async def follow_far(self) -> None:
        return None


class Node(FakeLobby):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.book = LeaseBook("n1", 5.0, clock)
        self.bus = FakeBus()
        self.redis = Redis()
        self.bus.redis = self.redis
        self.leases = Leases(self.book, self.redis)
        self.store = Store()
        self.hall = Hall()


def part(live: set[str] | None = None) -> tuple[Events, Node, Relay, Clock]:
    clock = Clock()
    node = Node(clock)
    relay = Relay(node, "n1", node.bus)  # type: ignore[arg-type]
    events = Events(node, "n1", relay, live=lambda: live or {"n1", "n2"},  # type: ignore[arg-type]
                    fenced=set(), just_back=lambda: False)
    return events, node, relay, clock


async def test_a_new_event_is_owned_by_a_lease_whose_epoch_fences_its_writes() -> None:
    events, node, _, clock = part()
    await events.own("e1")
    assert events.fence("e1") == Fence("tour:e1", 1)
    assert node.redis.keys[wire.lease_key("tour:e1")] == "n1 1"  # donne:lease:tour:e1
    assert node.redis.hashes[wire.TOURNAMENTS_KEY] == {"e1": "n1"}
    assert events.acting("e1")
    clock.now += 4.0 + 0.01  # not renewed for ttl - ttl/5: no longer surely held
    assert not events.acting("e1")


async def test_a_lost_lease_stops_the_event_here_and_a_tables_is_none_of_its_business() -> None:
    events, node, _, _ = part()
    await events.own("e1")
    assert event_of("tour:e1") == "e1" and event_of("r1") is None
    events.lost("r1")
    events.lost("tour:e1")
    assert node.hall.stale_ones == ["e1"] and events.fence("e1") is None


async def test_failover_hands_an_event_s_lost_lease_to_the_events_part_not_to_the_rooms() -> None:
    clock = Clock()
    node = Node(clock)
    relay = Relay(node, "n1", node.bus)  # type: ignore[arg-type]
    lost: list[str] = []
    t = Takeover(node, "n1", live=lambda: {"n1"}, place=relay.place,  # type: ignore[arg-type]
                 rooms_changed=lambda: None, just_back=lambda: False, on_lost=lost.append)
    node.book.took("tour:e1", 2)
    t.lost("tour:e1", "another node holds its lease")
    assert lost == ["tour:e1"] and "tour:e1" in t.fenced and node.book.held == {}


async def test_a_command_goes_to_the_event_s_owner_and_its_answer_comes_back() -> None:
    events, node, relay, _ = part()
    node.redis.hashes[wire.TOURNAMENTS_KEY] = {"e1": "n2", "e2": "n3"}
    assert await events.owner("e1") == "n2"
    with pytest.raises(CommandError) as err:
        await events.owner("e2")  # its node is dead: being taken over
    assert err.value.code == "server_trouble"
    assert await events.owner("e9") is None
    asking = asyncio.ensure_future(events.forward("n2", "tournament_join", {"tournament": "e1"}, "bob", False))
    for _ in range(3):
        await asyncio.sleep(0)
    node_to, msg = node.bus.sent[-1]
    assert node_to == "n2" and msg["t"] == "tcmd" and msg["cmd"] == "tournament_join" and msg["name"] == "bob"
    relay.handle({"t": "reply", "req": msg["req"], "err": "tournament_full", "params": {"tournament": "e1"},
                  "from": "n2"}, "n2")
    with pytest.raises(CommandError) as err:
        await asking
    assert err.value.code == "tournament_full" and err.value.params == {"tournament": "e1"}


async def test_the_owner_runs_a_forwarded_command_once_and_answers_it(monkeypatch: pytest.MonkeyPatch) -> None:
    events, node, _, _ = part()
    ran: list[tuple[str, str, bool]] = []

    async def act(hall: object, cmd: str, args: object, name: str, staff: bool) -> dict[str, object]:
        ran.append((cmd, name, staff))
        if cmd == "tournament_stop":
            raise CommandError("not_allowed", reason="organiser_only")
        return {"tournament": "e1"}

    monkeypatch.setattr(events_module, "act", act)
    events.handle({"t": "tcmd", "req": "n2.t1", "cmd": "tournament_join", "args": {"tournament": "e1"},
                   "name": "bob", "staff": False}, "n2")
    events.handle({"t": "tcmd", "req": "n2.t2", "cmd": "tournament_stop", "args": {"tournament": "e1"},
                   "name": "bob", "staff": False}, "n2")
    events.handle({"t": "tcmd", "req": "n2.t3", "cmd": "tournament_create", "args": {}, "name": "bob"}, "n2")
    await node.settle()
    await asyncio.sleep(0)
    replies = {m["req"]: m for _, m in node.bus.sent if m.get("t") == "reply"}
    replies.update({m["req"]: m for _, sent in node.bus.sent if sent.get("t") == "batch"
                    for m in sent["msgs"]})
    assert ran == [("tournament_join", "bob", False), ("tournament_stop", "bob", False)]
    assert replies["n2.t1"]["ok"] == {"tournament": "e1"}
    assert replies["n2.t2"]["err"] == "not_allowed" and replies["n2.t2"]["params"] == {"reason": "organiser_only"}
    assert replies["n2.t3"]["err"] == "bad_command"  # only the commands an owner runs for others


def stored(tid: str = "e1") -> StoredTournament:
    return StoredTournament(tournament_id=tid, config={}, organiser="ora", status="open", created_at=0.0,
                            closed_at=None, entries=(), next_seq=0, standings=None, tables=())


async def test_an_event_of_a_dead_node_is_taken_over_its_fence_raised_before_its_journal_is_read() -> None:
    events, node, _, _ = part(live={"n1"})
    node.redis.hashes[wire.TOURNAMENTS_KEY] = {"e1": "n0"}  # n0 is dead, its lease expired
    node.store.stored = stored()
    node.store.fence_at = node.leases.epoch = 1  # n0's epoch
    await events.claim()
    assert node.hall.adopted == ["e1"]
    assert node.store.applied[0] == [Fence("tour:e1", 2, take=True)]
    assert events.fence("e1") == Fence("tour:e1", 2)
    assert node.redis.hashes[wire.TOURNAMENTS_KEY] == {"e1": "n1"}
    await events.claim()  # its own now: not taken twice
    assert node.hall.adopted == ["e1"]


async def test_an_epoch_behind_the_database_s_fence_takes_nothing_and_is_raised_next_time() -> None:
    events, node, _, _ = part(live={"n1"})
    node.redis.hashes[wire.TOURNAMENTS_KEY] = {"e1": "n0"}
    node.store.stored = stored()
    node.store.fence_at = 5  # Redis lost its counter: the database is ahead
    await events.claim()
    assert node.hall.adopted == [] and node.leases.released == ["tour:e1"] and events.floors == {"e1": 5}
    await events.claim()
    assert node.hall.adopted == ["e1"] and events.fence("e1") == Fence("tour:e1", 6)


async def test_an_event_whose_owner_lives_or_whose_lease_is_held_is_left_alone() -> None:
    events, node, _, _ = part(live={"n1", "n2"})
    node.redis.hashes[wire.TOURNAMENTS_KEY] = {"e1": "n2", "e2": "n0"}
    node.redis.keys[wire.lease_key("tour:e2")] = "n0 4"  # n0's lease has not expired yet
    node.store.stored = stored()
    await events.claim()
    assert node.hall.adopted == [] and node.store.applied == []


async def test_a_person_s_node_does_not_take_them_from_another_table_to_seat_them() -> None:
    events, node, relay, _ = part()
    ana = online("Ana")
    node.players[ana.key] = ana
    elsewhere = relay.place("r3", "n3")  # a table of another node, still playing
    ana.room, ana.seat = elsewhere, 1
    events.handle({"t": "tseat", "req": "n2.t9", "rid": "r5", "key": ana.key, "free": []}, "n2")
    await node.settle()
    await asyncio.sleep(0)
    replies = [m for _, m in node.bus.sent if m.get("t") == "reply"]
    assert replies and replies[-1]["err"] == "already_in_room" and ana.room is elsewhere
    assert not [m for _, m in node.bus.sent if m.get("t") == "cmd"]  # no leave, no join


async def test_a_person_leaves_the_event_s_finished_table_on_another_node_and_joins_the_next() -> None:
    events, node, relay, _ = part()
    ana = online("Ana")
    node.players[ana.key] = ana
    finished = relay.place("r3", "n3")  # the event's table, taken over by n3 and reported over
    ana.room, ana.seat = finished, 1
    events.handle({"t": "tseat", "req": "n2.t9", "rid": "r5", "key": ana.key, "free": ["r3"]}, "n2")
    for _ in range(5):
        await asyncio.sleep(0)
    cmds = [(to, m) for to, m in node.bus.sent if m.get("t") == "cmd"]
    assert cmds and cmds[0][0] == "n3" and cmds[0][1]["cmd"] == "leave"
    relay.handle({"t": "reply", "req": cmds[0][1]["req"], "ok": {}, "from": "n3"}, "n3")
    ana.room = None  # (n3's ``gone``)
    for _ in range(5):
        await asyncio.sleep(0)
    cmds = [(to, m) for to, m in node.bus.sent if m.get("t") == "cmd"]
    assert cmds[-1][0] == "n2" and cmds[-1][1]["cmd"] == "join" and cmds[-1][1]["rid"] == "r5"
    relay.handle({"t": "reply", "req": cmds[-1][1]["req"], "ok": {"room": "r5", "seat": 0}, "from": "n2"}, "n2")
    await node.settle()
    await asyncio.sleep(0)
    replies = [m for _, m in node.bus.sent if m.get("t") == "reply"]
    assert replies[-1] == {"t": "reply", "req": "n2.t9", "ok": {"room": "r5"}}


async def test_the_lease_of_an_event_over_here_lost_while_it_is_let_go_stops_nothing() -> None:
    events, node, _, _ = part()
    await events.own("e1")
    events.over("e1")  # its lease let go (a renewal under way may find it gone)
    events.lost("tour:e1")
    await node.settle()
    assert node.hall.stale_ones == [] and node.redis.hashes.get(wire.TOURNAMENTS_KEY, {}) == {}


async def test_a_forwarded_command_unanswered_is_sent_again_and_the_owner_runs_it_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(A message can be lost while a node subscribes again after an outage of Redis.)"""
    monkeypatch.setattr(proxy, "RESEND", 0.01)
    events, node, relay, _ = part()
    asking = asyncio.ensure_future(events.forward("n2", "tournament_join", {"tournament": "e1"}, "bob", False))
    for _ in range(200):
        sent = [m for to, m in node.bus.sent if to == "n2" and m.get("t") == "tcmd"]
        if len(sent) >= 2:
            break
        await asyncio.sleep(0.005)
    assert len(sent) >= 2 and len({m["req"] for m in sent}) == 1  # the same request, sent again
    relay.handle({"t": "reply", "req": sent[0]["req"], "ok": {"tournament": "e1"}, "from": "n2"}, "n2")
    assert await asking == {"tournament": "e1"}

    owner, onode, _, _ = part()
    ran: list[str] = []

    async def act(hall: object, cmd: str, args: object, name: str, staff: bool) -> dict[str, object]:
        ran.append(cmd)
        return {"tournament": "e1"}

    monkeypatch.setattr(events_module, "act", act)
    copy = {"t": "tcmd", "req": "n2.ab.t1", "cmd": "tournament_join", "args": {"tournament": "e1"}, "name": "bob",
            "staff": False}
    owner.handle(dict(copy), "n2")
    owner.handle(dict(copy), "n2")  # while it runs: not run again
    await onode.settle()
    await asyncio.sleep(0)
    owner.handle(dict(copy), "n2")  # once answered: answered again
    await onode.settle()
    replies = [m for _, m in onode.bus.sent if m.get("t") == "reply"]
    replies += [m for _, sent in onode.bus.sent if sent.get("t") == "batch" for m in sent["msgs"]]
    assert ran == ["tournament_join"] and len(replies) == 2
    assert all(r == {"t": "reply", "req": "n2.ab.t1", "ok": {"tournament": "e1"}} for r in replies)


async def test_the_list_shows_the_open_events_of_a_node_that_does_not_answer_as_stored(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events_module, "LIST_WAIT", 0.05)
    monkeypatch.setattr(proxy, "RESEND", 0.02)
    events, node, _, _ = part(live={"n1", "n2"})
    node.redis.hashes[wire.TOURNAMENTS_KEY] = {"e3": "n2", "e4": "n1"}
    asked: list[str] = []

    async def stored_summary(tid: str, asker: str | None) -> dict[str, object]:
        asked.append(tid)
        return {"id": tid, "as_stored": True}

    node.hall.stored_summary = stored_summary  # type: ignore[attr-defined]
    assert await events.listing("bob") == [{"id": "e3", "as_stored": True}]  # n2 is silent
    assert asked == ["e3"]  # (this node's own events are listed by its hall)


async def test_a_person_whose_finished_table_is_gone_is_still_seated_at_the_next_and_gets_its_states() -> None:
    events, node, relay, _ = part()
    ana = online("Ana")
    node.players[ana.key] = ana
    finished = relay.place("r3", "n3")
    ana.room, ana.seat = finished, 1
    events.handle({"t": "tseat", "req": "n2.t9", "rid": "r5", "key": ana.key, "free": ["r3"]}, "n2")
    for _ in range(5):
        await asyncio.sleep(0)
    leave = next(m for _, m in node.bus.sent if m.get("t") == "cmd")
    relay.handle({"t": "reply", "req": leave["req"], "err": "no_such_room", "params": {"room": "r3"}, "from": "n3"},
                 "n3")  # n3 closed it already: no ``gone`` comes
    for _ in range(5):
        await asyncio.sleep(0)
    join = [m for _, m in node.bus.sent if m.get("t") == "cmd"][-1]
    assert join["cmd"] == "join" and join["rid"] == "r5" and ana.room is None
    relay.handle({"t": "reply", "req": join["req"], "ok": {"room": "r5", "seat": 2}, "from": "n2"}, "n2")
    await node.settle()
    await asyncio.sleep(0)
    assert ana.room is relay.places["r5"] and ana.seat == 2  # r5's states are hers now
