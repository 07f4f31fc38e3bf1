"""The nodes' messages (server/cluster/wire.py): encoding, batches, and what a bad message becomes."""

from __future__ import annotations

import pytest

from server.cluster import wire
from server.protocol import encode


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


def test_a_batch_carries_a_nodes_messages_in_order_and_leaves_bad_ones_out():
    msgs = [{"t": "reply", "req": "n1.1", "ok": None}, {"t": "gone", "rid": "r1", "key": "bob"}]
    back = wire.decode(wire.encode({**wire.batch(msgs), "from": "n0"}))
    assert wire.read_batch(back) == [{**m, "from": "n0"} for m in msgs]
    odd = {"t": "batch", "from": "n0", "msgs": [3, {"t": "nope"}, {"t": "batch", "msgs": []}, msgs[0]]}
    assert wire.read_batch(odd) == [{**msgs[0], "from": "n0"}]
