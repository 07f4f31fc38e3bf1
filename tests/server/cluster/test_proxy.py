"""A remote table as a node sees it (server/cluster/proxy.py)."""

from __future__ import annotations

from server.cluster import wire
from server.cluster.proxy import RemoteStates
from server.protocol import encode


def test_remote_states_give_the_same_json_line_as_the_owner():
    state = {"room": "r1", "you": 2, "hand": ["7c", "Qh"], "deadline": 12.5, "window": None, "name": "Zoé"}
    line = encode({"type": "state", **state})
    remote = RemoteStates(wire.read_states(wire.decode(wire.encode(
        {"from": "n0", **wire.states_message("r1", {2: line}, [("zoe", 2)])})))[0])
    assert remote.line(2) == encode({"type": "state", **state})
    assert remote.state(2) == state
