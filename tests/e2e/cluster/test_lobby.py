"""Two and three nodes sharing Redis and PostgreSQL: the lobby is one (who, rooms, chat, logins)."""

from __future__ import annotations

import asyncio
import socket

import pytest
import redis.asyncio as aioredis

from server.cluster import wire
from tests.e2e.cluster.conftest import settle
from tests.kits.servers import connect

pytestmark = pytest.mark.e2e


async def until(check, what: str, tries: int = 300) -> None:
    """Poll ``check()`` (each node's view follows the keep-alives), a bounded number of times."""
    for _ in range(tries):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


async def test_who_rooms_and_lobby_chat_cross_nodes(nodes):
    a, b, c = await nodes(3)
    alice = await connect(a, "alice")
    bob = await connect(b, "bob")
    carol = await connect(c, "carol")
    try:
        async def everyone() -> bool:
            names = [p["name"] for p in (await bob.request("who"))["players"]]
            return names == ["alice", "bob", "carol"]

        await until(everyone, "bob sees everyone")
        room = (await alice.request("create", game="president", rules="classic", seats=4))["room"]

        async def listed() -> bool:
            rooms = (await carol.request("rooms"))["rooms"]
            return [r["room"] for r in rooms] == [room] and rooms[0]["players"] == ["alice"]

        await until(listed, "carol sees alice's room")
        await bob.request("say", text="hello from n1")
        heard = await carol.next_event("chat", timeout=10)
        assert heard["name"] == "bob" and heard["message"] == "hello from n1"

        async def seated() -> bool:
            who = {p["name"]: p for p in (await carol.request("who"))["players"]}
            return who.get("alice", {}).get("room") == room and who["alice"]["seat"] == 0

        await until(seated, "carol sees where alice sits")
    finally:
        for client in (alice, bob, carol):
            await client.close()


async def test_logging_in_on_another_node_ends_the_older_session(nodes):
    a, b = await nodes(2)
    first = await connect(a, "dan")
    try:
        await first.request("register", password="correct horse 12")
        await settle([a, b])
        from clients.client import Client

        second = await Client.connect_tcp("127.0.0.1", b.telnet_port, timeout=10)
        notice = asyncio.ensure_future(first.next_event("notice", timeout=10))
        await second.login("dan", password="correct horse 12")
        assert (await notice)["code"] == "replaced"
        await asyncio.wait_for(first.closed.wait(), 10)
        assert (await second.request("whoami"))["name"] == "dan"
        await second.close()
    finally:
        await first.close()


async def test_a_guest_name_in_use_on_another_node_is_refused(nodes):
    a, b = await nodes(2)
    zoe = await connect(a, "zoe")
    try:
        await settle([a, b])
        from clients.client import Client

        third = await Client.connect_tcp("127.0.0.1", b.telnet_port, timeout=10)
        reply = await third.request_raw("login", name="zoe")
        await third.close()
        assert reply["type"] == "error" and reply["code"] == "name_taken"
    finally:
        await zoe.close()


async def test_a_guest_of_a_node_gone_silent_is_let_in_elsewhere_before_the_next_keep_alive(nodes):
    # zoe is online at a; a stops (its keep-alive expires: here deleted, as its expiry would), and b
    # has not read the keep-alives since: b must not go on refusing zoe's name until it does
    from server.cluster import wire

    a, b = await nodes(2)
    zoe = await connect(a, "zoe")
    try:
        await settle([a, b])
        for lobby in (a.lobby, b.lobby):  # nobody renews or reads the keep-alives from now on
            lobby._tick.cancel()
        await asyncio.gather(a.lobby._tick, b.lobby._tick, return_exceptions=True)
        assert "zoe" in b.lobby.keepalive.people  # b still has zoe at a
        await b.lobby.bus.redis.delete(wire.node_key(a.lobby.node))
        again = await connect(b, "zoe")
        assert (await again.request("whoami"))["name"] == "zoe"
        await again.close()
    finally:
        await zoe.close()


async def test_many_changes_in_one_turn_make_one_rewrite_of_the_nodes_entries(nodes, monkeypatch):
    (a,) = await nodes(1)
    lobby = a.lobby
    made: list[bool] = []
    entries = lobby.keepalive._entries

    def counted(pipe, *, presence=True, rooms=True):
        if presence != rooms:  # (the keep-alive's own rewrite of both is not counted)
            made.append(presence)
        return entries(pipe, presence=presence, rooms=rooms)

    monkeypatch.setattr(lobby.keepalive, "_entries", counted)
    for _ in range(100):  # a storm of logins: each asks for its people to be written again
        lobby.keepalive.write_presence_soon()
        lobby.keepalive.write_rooms_soon()

    async def written(count: int) -> None:  # (a write may wait for the keep-alive's, which holds the hashes)
        for _ in range(200):
            if len(made) >= count:
                break
            await asyncio.sleep(0.01)
        for _ in range(5):
            await asyncio.sleep(0)

    await written(2)
    assert sorted(made) == [False, True]
    lobby.keepalive.write_presence_soon()  # a change after the write started: written again
    await written(3)
    assert sorted(made) == [False, True, True]
    alice = await connect(a, "alice")
    try:
        r = aioredis.Redis.from_url(lobby.bus.url, decode_responses=True)
        try:
            for _ in range(100):
                if await r.hexists(wire.presence_key(lobby.node), "alice"):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("alice never written as present")
        finally:
            await r.aclose()
    finally:
        await alice.close()


def hset_calls(redis_server) -> int:
    """How many HSET commands Redis ran since it started (``INFO commandstats``)."""
    with socket.create_connection(("127.0.0.1", redis_server.port), timeout=5) as s:
        s.sendall(b"INFO commandstats\r\n")
        data = b""
        while b"\r\n\r\n" not in data[-4:] and (chunk := s.recv(65536)):
            data += chunk
    for line in data.decode().splitlines():
        if line.startswith("cmdstat_hset:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


async def test_keepalives_write_only_what_changed_and_write_whole_what_redis_lost(nodes, redis_server):
    (a,) = await nodes(1)
    lobby = a.lobby
    key = wire.presence_key(lobby.node)
    alice, bob = await connect(a, "alice"), await connect(a, "bob")
    r = aioredis.Redis.from_url(lobby.bus.url, decode_responses=True)

    async def present(names: set[str]) -> None:
        for _ in range(150):
            if set(await r.hkeys(key)) == names:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"present in Redis: {sorted(await r.hkeys(key))}, not {sorted(names)}")

    try:
        await present({"alice", "bob"})
        await settle([a])
        written = hset_calls(redis_server)
        await settle([a], rounds=3)  # nothing changed: the keep-alives renew the entries' expiry only
        assert hset_calls(redis_server) == written
        assert 0 < await r.pttl(key) <= lobby.config.lease_seconds * 1000
        await bob.close()  # his entry goes, alice's stays
        await present({"alice"})
        await r.delete(key)  # Redis lost the node's entries (restarted empty, or they expired)
        await present({"alice"})  # written whole again
        assert await r.pttl(key) > 0
    finally:
        await alice.close()
        await r.aclose()
