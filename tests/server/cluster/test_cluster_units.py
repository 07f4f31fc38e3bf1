"""The pure parts of the cluster: message encoding, routing of a table's outputs, lease timing."""

from __future__ import annotations

import pytest

from server.cluster import wire
from server.cluster.lease import LeaseBook, parse
from server.cluster.proxy import RemoteStates
from server.cluster.routing import NodeQueues
from server.protocol import encode


class FakeStates:
    """A StateSet's face: one state per seat, counting how often each is built."""

    def __init__(self, seats: int) -> None:
        self.built: list[int | None] = []
        self.seats = seats

    def state(self, seat: int | None) -> dict:
        self.built.append(seat)
        state = {"room": "r1", "you": seat, "seats": [{"seat": i} for i in range(self.seats)]}
        if seat is not None:
            state["hand"] = [f"{seat}c"]
        return state

    def line(self, seat: int | None) -> str:
        return encode({"type": "state", **self.state(seat)})


def test_messages_round_trip_and_bad_ones_are_refused():
    msg = {"t": "cmd", "from": "n1", "rid": "r3", "req": "n1.4", "cmd": "play", "args": {"cards": ["7c"]},
           "m": wire.member("ana", "Ana", True, {"autopass": True}, "fr", gen=7)}
    back = wire.decode(wire.encode(msg))
    assert back == msg
    assert wire.read_member(back) == {"key": "ana", "name": "Ana", "guest": True, "prefs": {"autopass": True},
                                      "lang": "fr", "gen": 7}
    assert wire.read_member({"m": {"key": "ana", "name": "Ana", "gen": True}})["gen"] == 0  # not a generation
    for raw in ("", "[]", "{", '{"t": "cmd"}', '{"t": "nope", "from": "n1"}', '{"t": "cmd", "from": 3}'):
        with pytest.raises(wire.BadMessage):
            wire.decode(raw)
    with pytest.raises(wire.BadMessage):
        wire.read_member({"m": {"key": 1}})
    with pytest.raises(wire.BadMessage):
        wire.read_states({"lines": [["x", "{}"]], "to": []})


def test_a_message_is_read_without_the_careful_reader_and_long_numbers_cross_exactly(monkeypatch):
    huge, long = 2**70, 1234567890123456789  # beyond 64 bits (the standard library writes it); 19 digits
    careful = wire.decode_line
    read_carefully: list[str] = []

    def counted(text: str):
        read_carefully.append(text)
        return careful(text)

    monkeypatch.setattr(wire, "decode_line", counted)
    lines = {0: encode({"type": "state", "you": 0, "clock": 12.5, "id": long})}
    msg = {"from": "n0", **wire.batch([wire.states_message("r1", lines, [("ana", 0)])] * 50)}
    assert wire.decode(wire.encode(msg)) == msg
    assert read_carefully == []  # what orjson wrote, orjson reads back exactly: no scan of the whole text
    for args in ({"n": huge}, {"n": -huge}, {"n": long}, {"n": [huge, 1.5, "Zoé"]}):
        sent = {"t": "cmd", "from": "n1", "rid": "r3", "req": "n1.4", "cmd": "join", "args": args}
        back = wire.decode(wire.encode(sent))
        assert back == sent and type(back["args"]["n"]) is type(args["n"])
    assert len(read_carefully) == 3  # the messages holding an integer beyond 64 bits


def test_a_node_receives_only_the_seats_it_holds_people_for_each_built_once():
    states = FakeStates(4)
    box = NodeQueues()
    box.state("n1", "r1", states, "bob", 1)
    box.state("n2", "r1", states, "carol", 2)
    box.state("n2", "r1", states, "erin", None)  # a spectator on n2
    box.state("n2", "r1", states, "finn", None)
    out = box.drain()
    assert [node for node, _ in out] == ["n1", "n2"]
    by_node = {node: wire.read_states(wire.decode(wire.encode({**msg, "from": "n0"}))) for node, msg in out}
    seats_n1, to_n1 = by_node["n1"]
    assert set(seats_n1) == {1} and to_n1 == [("bob", 1)]
    seats_n2, to_n2 = by_node["n2"]
    assert set(seats_n2) == {2, None} and "hand" not in RemoteStates(seats_n2).state(None)
    assert to_n2 == [("carol", 2), ("erin", None), ("finn", None)]
    assert sorted(states.built, key=str) == sorted([1, 2, None], key=str)  # the spectators' state once
    assert not box and box.drain() == []


def test_messages_to_a_node_keep_their_order():
    states_a, states_b = FakeStates(3), FakeStates(3)
    box = NodeQueues()
    box.state("n1", "r1", states_a, "bob", 1)
    box.message("n1", {"t": "gone", "rid": "r1", "key": "bob"})
    box.state("n1", "r1", states_b, "bob", 1)
    kinds = [msg["t"] for _, msg in box.drain()]
    assert kinds == ["st", "gone", "st"]


def test_a_batch_carries_a_nodes_messages_in_order_and_leaves_bad_ones_out():
    msgs = [{"t": "reply", "req": "n1.1", "ok": None}, {"t": "gone", "rid": "r1", "key": "bob"}]
    back = wire.decode(wire.encode({**wire.batch(msgs), "from": "n0"}))
    assert wire.read_batch(back) == [{**m, "from": "n0"} for m in msgs]
    odd = {"t": "batch", "from": "n0", "msgs": [3, {"t": "nope"}, {"t": "batch", "msgs": []}, msgs[0]]}
    assert wire.read_batch(odd) == [{**msgs[0], "from": "n0"}]


def test_remote_states_give_the_same_json_line_as_the_owner():
    state = {"room": "r1", "you": 2, "hand": ["7c", "Qh"], "deadline": 12.5, "window": None, "name": "Zoé"}
    line = encode({"type": "state", **state})
    remote = RemoteStates(wire.read_states(wire.decode(wire.encode(
        {"from": "n0", **wire.states_message("r1", {2: line}, [("zoe", 2)])})))[0])
    assert remote.line(2) == encode({"type": "state", **state})
    assert remote.state(2) == state


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lease_renewal_is_due_every_third_and_lost_before_it_may_expire():
    clock = Clock()
    book = LeaseBook("n1", ttl=3.0, clock=clock)
    held = book.took("r1", 7)
    assert held.value("n1") == "n1 7" and parse("n1 7") == ("n1", 7)
    assert book.due() == [] and book.lost() == []
    clock.now += 1.0
    assert [h.rid for h in book.due()] == ["r1"]
    book.renewed("r1", clock.now)
    clock.now += 0.5
    assert book.due() == []
    clock.now += 1.9  # 2.4 s after the last renewal: 3 s - 0.6 s margin
    assert book.lost() == ["r1"]
    book.renewed("r1", clock.now - 3.0)  # an answer to an old renewal does not extend it
    assert book.lost() == ["r1"]
    assert book.dropped("r1") is held and book.lost() == []
    assert parse(None) is None and parse("n1") is None and parse("a b c 3") == ("a b c", 3)
    with pytest.raises(ValueError):
        LeaseBook("n1", ttl=0, clock=clock)


def test_a_lease_is_surely_held_only_within_its_margin_by_the_node_s_own_clock():
    """A process paused past the margin (the clock jumps forward as a monotonic clock does after
    SIGSTOP) holds no lease it may act on, until a renewal sent after the pause succeeds."""
    clock = Clock()
    book = LeaseBook("n1", ttl=3.0, clock=clock)
    assert not book.surely("r1")  # never taken
    book.took("r1", 4)
    clock.now += 2.39
    assert book.surely("r1")
    clock.now += 0.01 + 6.0  # a pause of twice the lease
    assert not book.surely("r1") and book.lost() == ["r1"]
    book.renewed("r1", clock.now - 7.0)  # the answer to a renewal sent before the pause
    assert not book.surely("r1")
    book.renewed("r1", clock.now)
    assert book.surely("r1")
    book.dropped("r1")
    assert not book.surely("r1")


def test_load_spreads_seats_over_the_nodes_ports():
    from clients.loadworker import WorkerSpec

    one = WorkerSpec(index=0, port=2323, tables=[0, 1], seats=3)
    assert {one.port_for(t, s) for t in range(3) for s in range(3)} == {2323}
    by_table = WorkerSpec(index=0, port=1, ports=[10, 20], spread="table", tables=[0, 1], seats=3)
    assert [[by_table.port_for(t, s) for s in range(3)] for t in range(3)] == [[10] * 3, [20] * 3, [10] * 3]
    by_seat = WorkerSpec(index=0, port=1, ports=[10, 20], spread="seat", tables=[0, 1], seats=3)
    assert [[by_seat.port_for(t, s) for s in range(3)] for t in range(2)] == [[10, 20, 10], [20, 10, 20]]
    assert WorkerSpec.from_json(by_seat.to_json()) == by_seat


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
