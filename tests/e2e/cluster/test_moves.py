"""A table that moves while its former owner is held back (``docs/cluster.md``, failover): the
former owner's people follow it even if the ``owner`` message is lost, and a command on its way
to the former owner reaches the table where it is now.

In-process nodes: the former owner gives the table up (as it does when it finds its lease no
longer surely held) and another node takes it over from its log.
"""

from __future__ import annotations

import asyncio

import pytest

from server.cluster.lobby import ClusterLobby
from server.rooms.room import Room
from tests.e2e.cluster.test_lobby import until
from tests.e2e.cluster.test_play import listed_everywhere
from tests.kits.servers import connect, play_simply

pytestmark = pytest.mark.e2e


def lobby(node) -> ClusterLobby:
    assert isinstance(node.lobby, ClusterLobby)
    return node.lobby


async def _table_on_a(a, b, alice, bob) -> str:
    room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=2, stake=10,
                                rounds=1))["room"]
    await listed_everywhere([bob], room)
    await bob.request("join", room=room)
    await bob.next_state(lambda s: s.get("status") == "playing", timeout=20, current=True)
    assert room in lobby(a).rooms
    return room


async def _give_up_and_take_over(a, b, room: str) -> None:
    """a stops the table (as after a pause) and releases its lease; b takes it over from its log."""
    la, lb = lobby(a), lobby(b)
    held = la.book.held[room]
    la.stale(la.rooms[room])
    assert la.leases is not None and lb.leases is not None
    await la.leases.release(room, held)
    await lb.takeover.take_over(room)
    assert room in lb.rooms and isinstance(lb.rooms[room], Room)


async def test_the_former_owner_s_people_follow_the_table_without_the_owner_message(nodes):
    a, b = await nodes(2)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    try:
        room = await _table_on_a(a, b, alice, bob)
        lobby(a)._on_owner = lambda msg, sender: None  # the owner message lost (sent while a was stopped)
        await _give_up_and_take_over(a, b, room)

        async def followed() -> bool:
            return room not in lobby(a).takeover.given_up and lobby(a).players["alice"].room is lobby(a).relay.places.get(room)

        await until(followed, "alice follows her table to b")
        state = await alice.next_state(lambda s: s.get("room") == room, timeout=20, current=True)
        assert state["status"] == "playing"
        assert (await alice.request("whoami"))["room"] == room
    finally:
        await alice.close()
        await bob.close()


async def test_a_command_on_its_way_to_the_former_owner_reaches_the_table_taken_over_here(nodes):
    a, b = await nodes(2)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    try:
        room = await _table_on_a(a, b, alice, bob)
        lobby(a)._on_cmd = lambda msg, sender: None  # a held back: it hears nothing
        said = asyncio.ensure_future(bob.request_raw("say", text="still here?", timeout=30))
        await asyncio.sleep(0.3)
        await _give_up_and_take_over(a, b, room)
        started = asyncio.get_running_loop().time()
        reply = await said
        assert reply["type"] == "ok", reply  # run by b, which holds the table now
        assert asyncio.get_running_loop().time() - started < 5  # not after the remote time-out
    finally:
        await alice.close()
        await bob.close()


async def test_after_redis_lost_its_counters_a_lease_is_taken_again_above_the_database_s_epoch(nodes, redis_server):
    """Redis restarted empty: its epoch counters start again from nothing. The owner takes its lease
    again above the table's epoch in PostgreSQL (tokens only grow), its fence follows, and the table
    plays on where it was, without being given up."""
    (a,) = await nodes(1)
    alice = await connect(a, "alice")
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=3, bots=2, stake=10,
                                    rounds=1))["room"]
        await alice.next_state(lambda s: s.get("status") == "playing", timeout=20, current=True)
        la = lobby(a)
        before = la.book.held[room].epoch
        the_room = la.rooms[room]
        redis_server.command("FLUSHALL")  # as a Redis restarted empty

        async def again() -> bool:
            held = la.book.held.get(room)
            return held is not None and held.epoch > before and la.takeover.epochs[room] == held.epoch and la.acting(room)

        await until(again, "the lease taken again", tries=500)
        assert la.book.held[room].epoch == before + 1 and la.takeover.epochs[room] == before + 1
        assert la.rooms[room] is the_room and not the_room.moved  # never stopped, never rebuilt
        final = await asyncio.wait_for(play_simply(alice), 90)
        assert final["status"] == "over"
        audit = await a.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
    finally:
        await alice.close()
