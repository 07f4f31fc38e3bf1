"""A table's outputs for other nodes (server/cluster/routing.py): each node gets the seats it holds people for, in order."""

from __future__ import annotations

from server.cluster import wire
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
