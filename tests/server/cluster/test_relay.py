"""The relay: a table's messages between its owner and its people's fronts, with a fake bus."""

from __future__ import annotations

import asyncio

from server.cluster import wire
from server.cluster.proxy import RemoteClient, RemotePlace
from server.cluster.relay import Relay
from tests.server.cluster.fakes import FakeBus, FakeLobby, FakeRoom
from tests.server.lobby.fakes import FakeSession, online

MEMBER = wire.member("ana", "Ana", False, {}, "fr", gen=1)


def relay() -> tuple[Relay, FakeLobby, FakeBus]:
    lobby, bus = FakeLobby(), FakeBus()
    return Relay(lobby, "n1", bus), lobby, bus  # type: ignore[arg-type]


async def test_what_one_turn_makes_for_a_node_leaves_as_one_batch_in_order():
    r, _, bus = relay()
    r.send("n2", {"t": "ev", "key": "a"})
    r.send("n3", {"t": "ev", "key": "c"})
    r.send("n2", {"t": "notice", "key": "b"})
    assert bus.sent == []
    await asyncio.sleep(0)
    assert bus.sent == [("n2", wire.batch([{"t": "ev", "key": "a"}, {"t": "notice", "key": "b"}])),
                        ("n3", {"t": "ev", "key": "c"})]


async def test_a_message_for_this_node_comes_back_through_the_bus_s_handler():
    r, _, bus = relay()
    heard: list[dict] = []
    bus.handler = heard.append
    r.send("n1", {"t": "conn", "rid": "r1"})
    await asyncio.sleep(0)
    assert heard == [{"t": "conn", "rid": "r1", "from": "n1"}] and bus.sent == []


async def test_a_command_runs_once_and_every_copy_is_answered():
    r, lobby, bus = relay()
    room = lobby.rooms["r1"] = FakeRoom("r1")
    cmd = {"t": "cmd", "rid": "r1", "req": "n2.1", "m": MEMBER, "cmd": "say", "args": {"text": "hi"}}
    r.handle(cmd, "n2")
    await lobby.settle()
    r.handle(cmd, "n2")  # sent again (the front heard nothing in time)
    await lobby.settle()
    assert room.ran == [("ana", "say")]
    answers = [msg for _, sent in bus.sent for msg in (sent.get("msgs") or [sent])]
    assert answers == [{"t": "reply", "req": "n2.1", "ok": {"done": "say"}}] * 2
    session = lobby.players["ana"].session
    assert isinstance(session, RemoteClient) and session.node == "n2"


async def test_a_command_for_a_table_that_moved_away_is_not_answered_an_unknown_one_is_refused():
    r, lobby, bus = relay()
    lobby.away.add("r7")
    r.handle({"t": "cmd", "rid": "r7", "req": "n2.1", "m": MEMBER, "cmd": "say", "args": {}}, "n2")
    r.handle({"t": "cmd", "rid": "r8", "req": "n2.2", "m": MEMBER, "cmd": "say", "args": {}}, "n2")
    await lobby.settle()
    assert bus.sent == [("n2", {"t": "reply", "req": "n2.2", "err": "no_such_room", "params": {"room": "r8"}})]


async def test_events_for_a_person_of_this_node_reach_their_own_session_and_gone_releases_them():
    r, lobby, _ = relay()
    ana = online("Ana")
    lobby.players["ana"] = ana
    place = r.place("r3", "n2")
    ana.room = place
    r.handle({"t": "ev", "key": "ana", "ev": {"event": "tell", "message": "hi"}}, "n2")
    r.handle({"t": "notice", "key": "ana", "what": "server_trouble", "params": {}}, "n2")
    session = ana.session
    assert isinstance(session, FakeSession)
    assert session.events == [{"event": "tell", "message": "hi"}] and session.notices == ["server_trouble"]
    r.handle({"t": "gone", "rid": "r3", "key": "ana"}, "n2")
    await lobby.settle()
    assert ana.room is None and lobby.released == ["ana"]


async def test_a_place_is_one_per_table_and_follows_its_owner():
    r, _, _ = relay()
    place = r.place("r3", "n2")
    assert isinstance(place, RemotePlace) and r.place("r3", "n4") is place and place.owner == "n4"
