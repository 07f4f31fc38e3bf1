"""Login generations across nodes (``docs/cluster.md``): only a newer login ends an older session.

A node that was held back (a pause of its process) may wake with messages of a session that a
newer login on another node already ended: a late ``kick``, a command or a reconnection of the old
session for the table's owner, a login that waited in its socket. None of them may end the live
session elsewhere.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from clients.client import Client
from server.cluster import wire
from server.cluster.lobby import ClusterLobby
from tests.e2e.cluster.conftest import settle
from tests.e2e.cluster.test_lobby import until
from tests.kits.servers import connect

pytestmark = pytest.mark.e2e


def lobby(node) -> ClusterLobby:
    assert isinstance(node.lobby, ClusterLobby)
    return node.lobby


async def test_a_late_kick_of_an_older_login_ends_no_live_session(nodes):
    a, b = await nodes(2)
    first = await connect(a, "dan")
    second = None
    try:
        await first.request("register", password="correct horse 12")
        older = lobby(a).players["dan"].extra["gen"]
        await settle([a, b])
        second = await Client.connect_tcp("127.0.0.1", b.telnet_port, timeout=10)
        await second.login("dan", password="correct horse 12")
        await asyncio.wait_for(first.closed.wait(), 10)  # the newer login ended the older session
        newer = lobby(b).players["dan"].extra["gen"]
        assert newer > older
        # a's kick of the older login, sent late (a was held back between its login and its kick)
        lobby(a).bus.broadcast({"t": "kick", "key": "dan", "gen": older})
        lobby(a).bus.broadcast({"t": "kick", "key": "dan"})  # (and one of a node that counts none)
        await settle([a, b])
        assert (await second.request("whoami"))["name"] == "dan"
        assert not second.closed.is_set()
    finally:
        await first.close()
        if second is not None:
            await second.close()


async def test_the_old_session_s_node_cannot_replace_the_live_one_at_the_table_s_owner(nodes):
    """dan plays at a table owned by b from a; he logs in again on b (a newer login). A then sends
    what its old session still had (a reconnection, a command): b runs none of it and dan's live
    session on b stays."""
    a, b = await nodes(2)
    bob = await connect(b, "bob")
    first = await connect(a, "dan")
    second = None
    try:
        await first.request("register", password="correct horse 12")
        room = (await bob.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await settle([a, b])
        await first.request("join", room=room)
        member = lobby(a).relay.member_of(lobby(a).players["dan"])
        second = await Client.connect_tcp("127.0.0.1", b.telnet_port, timeout=10)
        await second.login("dan", password="correct horse 12")
        assert (await second.request("whoami"))["room"] == room
        await asyncio.wait_for(first.closed.wait(), 10)
        lobby(a).relay.send(lobby(b).node, {"t": "conn", "rid": room, "m": member})
        lobby(a).relay.send(lobby(b).node, {"t": "cmd", "rid": room, "req": "a.stale-1", "m": member, "cmd": "say",
                            "args": {"text": "from the past"}})
        await settle([a, b])
        assert not second.closed.is_set()
        assert (await second.request("whoami"))["name"] == "dan"
        assert "a.stale-1" not in lobby(b).relay.answers  # not run
    finally:
        for client in (bob, first, second):
            if client is not None:
                await client.close()


async def test_a_node_held_back_past_its_keep_alive_refuses_a_login_until_it_is_alive_again(nodes):
    """A login read just after a pause may be older than one made elsewhere meanwhile: refused
    (``server_trouble``, try again), no kick sent; once the keep-alive stands again it is let in."""
    a, b = await nodes(2)
    live = await connect(b, "eve")
    try:
        await live.request("register", password="correct horse 12")
        await settle([a, b])
        late = await Client.connect_tcp("127.0.0.1", a.telnet_port, timeout=10)
        # a's keep-alive held back (a tick already under way would write its time over the one set
        # below, before the login is read: on a loaded machine it did), its last one as after a pause
        waiting, go_on = asyncio.Event(), asyncio.Event()
        keepalive = lobby(a)._keepalive

        async def held_back() -> None:
            waiting.set()
            await go_on.wait()
            await keepalive()

        lobby(a)._keepalive = held_back
        await asyncio.wait_for(waiting.wait(), 10)
        lobby(a).keepalive.alive_at = time.monotonic() - 3 * a.config.lease_seconds
        reply = await late.request_raw("login", name="eve", password="correct horse 12")
        assert reply["type"] == "error" and reply["code"] == "server_trouble"
        go_on.set()
        await settle([a, b])
        assert not live.closed.is_set()

        async def alive() -> bool:
            return lobby(a)._surely_alive()

        await until(alive, "a's keep-alive stands again")
        await late.login("eve", password="correct horse 12")  # a newer login now: the older session ends
        await asyncio.wait_for(live.closed.wait(), 10)
        await late.close()
    finally:
        await live.close()


def test_a_generation_is_read_only_from_a_whole_number() -> None:
    assert [wire.generation(v) for v in (3, 0, -1, True, "4", None, 2.5)] == [3, 0, 0, 0, 0, 0, 0]
