"""Failover's own bookkeeping: a table this node may no longer own, a table another node took."""

from __future__ import annotations

import time

import pytest

from server.cluster import wire
from server.cluster.lease import LeaseBook
from server.cluster.proxy import RemotePlace
from server.cluster.relay import Relay
from server.cluster.takeover import Takeover
from tests.server.cluster.fakes import FakeBus, FakeLobby, FakeRoom
from tests.server.lobby.fakes import online


class Node(FakeLobby):
    def __init__(self) -> None:
        super().__init__()
        self.book = LeaseBook("n1", 5.0, time.monotonic)
        self.leases = None
        self.bus = FakeBus()


def takeover() -> tuple[Takeover, Node, Relay]:
    node = Node()
    relay = Relay(node, "n1", node.bus)  # type: ignore[arg-type]
    t = Takeover(node, "n1", live=lambda: {"n1", "n2"}, place=relay.place,  # type: ignore[arg-type]
                 rooms_changed=lambda: None, just_back=lambda: False)
    return t, node, relay


async def test_a_lost_durable_table_stops_here_is_given_up_and_its_writes_fenced():
    t, node, _ = takeover()
    durable, plain = FakeRoom("r1", durable=True), FakeRoom("r2")
    node.rooms.update(r1=durable, r2=plain)
    node.book.took("r1", 3)
    node.book.took("r2", 4)
    t.lost("r1", "another node holds its lease")
    t.lost("r2", "its lease could not be taken again")
    await node.settle()
    assert "r1" not in node.rooms and t.given_up == {"r1": durable} and "r2" in node.rooms
    assert durable.stopped and plain.stopped and t.fenced == {"r1", "r2"} and node.book.held == {}
    assert t.moved_away("r1") and t.moved_away("r2") and not t.moved_away("r3")


async def test_when_another_node_took_a_table_over_this_node_s_people_follow_it_there():
    t, node, relay = takeover()
    room = FakeRoom("r1", durable=True)
    t.given_up["r1"] = room
    ana, gone = online("Ana"), online("Bob")
    gone.session = None
    for p in (ana, gone):
        p.room = room  # type: ignore[assignment]
        node.players[p.key] = p
    t.follow_owner("r1", "n2")
    await node.settle()
    place = relay.places["r1"]
    assert isinstance(place, RemotePlace) and place.owner == "n2" and ana.room is place
    assert "bob" not in node.players and "r1" in t.fenced and "r1" not in t.given_up
    assert [(to, msg["t"], msg["m"]["key"]) for to, msg in node.bus.sent] == [("n2", "conn", "ana")]  # her table again


def test_the_tables_listed_at_each_keep_alive_are_those_this_node_holds():
    t, node, _ = takeover()
    node.rooms["r1"] = FakeRoom("r1", durable=True)
    node.book.took("r1", 1)
    node.book.took("r9", 1)  # held but no room here (given up meanwhile): not listed

    class Pipe:
        def __init__(self) -> None:
            self.calls: list[tuple[str, dict]] = []

        def hset(self, key: str, mapping: dict) -> None:
            self.calls.append((key, mapping))

    pipe = Pipe()
    t.list_tables(pipe)  # type: ignore[arg-type]
    assert pipe.calls == [(wire.TABLES_KEY, {"r1": "n1"})]


class LeaseRedis:
    """The leases and the cluster's list of tables, as failover reads them."""

    def __init__(self) -> None:
        self.leases: dict[str, str] = {}
        self.tables: dict[str, str] = {}

    async def mget(self, keys: list[str]) -> list[str | None]:
        return [self.leases.get(k) for k in keys]

    async def hmget(self, key: str, fields: list[str]) -> list[str | None]:
        assert key == wire.TABLES_KEY
        return [self.tables.get(f) for f in fields]


async def test_people_follow_a_given_up_table_only_once_its_new_owner_lists_it_as_its_own():
    t, node, relay = takeover()
    redis = node.bus.redis = LeaseRedis()
    room = FakeRoom("r1", durable=True)
    t.given_up["r1"] = room
    ana = online("Ana")
    ana.room = room  # type: ignore[assignment]
    node.players["ana"] = ana
    redis.leases[wire.lease_key("r1")] = "n2 7"  # n2 took the lease, and is rebuilding the table
    await t.follow_given_up()
    assert ana.room is room and "r1" in t.given_up  # a redraw asked now would find no table at n2
    redis.tables["r1"] = "n2"  # rebuilt: n2 lists it
    await t.follow_given_up()
    await node.settle()
    assert ana.room is relay.places["r1"] and relay.places["r1"].owner == "n2" and "r1" not in t.given_up


async def test_a_table_given_up_cannot_write_through_the_fenced_store():
    from server.cluster.takeover import Fenced, FencedStore, tables_of
    from server.storage import api

    class Store:
        def __init__(self) -> None:
            self.applied: list = []
            self.ledger = "the ledger"

        async def apply(self, ops):
            self.applied.append(list(ops))
            return [None for _ in ops]

    log_r3 = api.TableLog("r3", 7, [{"k": "a"}])
    settle_r3 = api.SettleRound("r3-ab12cd34-2", {"alice": 10})
    log_r4 = api.TableLog("r4", 1, [{"k": "a"}])
    assert tables_of([log_r3, settle_r3, log_r4]) == {"r3", "r4"}
    assert tables_of([api.Transfer("alice", "bob", 5, "gift")]) == set()
    fenced: set[str] = set()
    inner = Store()
    store = FencedStore(inner, fenced)
    assert store.ledger == "the ledger"  # everything else is the store's
    await store.apply([log_r3])
    fenced.add("r3")  # its lease was lost
    for ops in ([log_r3], [settle_r3], [log_r4, settle_r3]):
        with pytest.raises(Fenced):
            await store.apply(ops)
    await store.apply([log_r4])
    assert inner.applied == [[log_r3], [log_r4]]  # nothing of r3 after it was given up
