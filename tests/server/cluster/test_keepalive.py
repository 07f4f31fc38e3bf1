"""The keep-alive: what a node writes of itself, and its view of the other nodes (fake Redis)."""

from __future__ import annotations

import asyncio
import types

import orjson

from server.cluster import wire
from server.cluster.keepalive import KeepAlive
from tests.server.cluster.fakes import FakeBus, FakeRedis


def keepalive(people=None, rooms=None, seats=None, just_back=False):
    bus = FakeBus()
    bus.redis = FakeRedis()
    tasks: list[asyncio.Task] = []
    config = types.SimpleNamespace(lease_seconds=5.0, keepalive_seconds=1.0)
    k = KeepAlive("n1", config, bus, people=lambda: people or [], rooms=lambda: rooms or [],  # type: ignore[arg-type]
                  seats=lambda: seats or {}, spawn=lambda c: tasks.append(asyncio.ensure_future(c)),
                  just_back=lambda: just_back)
    return k, bus.redis, tasks


def other_node(redis: FakeRedis, node: str, who: str, rid: str) -> None:
    redis.data[wire.node_key(node)] = "{}"
    redis.data[wire.presence_key(node)] = {who: orjson.dumps({"name": who, "guest": False}).decode()}
    redis.data[wire.rooms_key(node)] = {rid: orjson.dumps([{"room": rid}, True]).decode()}
    redis.data[wire.seats_key(node)] = {who: rid}


async def test_many_changes_in_one_turn_make_one_write_of_each_hash():
    people = [{"name": "Ana", "guest": False, "room": None, "seat": None}]
    k, redis, tasks = keepalive(people=people)
    for _ in range(50):
        k.write_presence_soon()
        k.write_rooms_soon()
    await asyncio.gather(*tasks)
    assert len(tasks) == 2 and redis.executed == 2
    assert set(redis.data[wire.presence_key("n1")]) == {"ana"}
    k.write_presence_soon()  # a change after the write: written again
    await asyncio.gather(*tasks)
    assert redis.executed == 3


async def test_a_beat_says_the_node_is_alive_and_reads_the_others():
    k, redis, _ = keepalive(seats={"bob": "r1"}, rooms=[({"room": "r1"}, False)])
    other_node(redis, "n2", "zoe", "r5")
    dead = await k.beat(lambda pipe: None)
    assert dead == set() and k.live == {"n1", "n2"} and k.ticks == 0
    assert wire.node_key("n1") in redis.data and redis.data[wire.seats_key("n1")] == {"bob": "r1"}
    assert k.people == {"zoe": {"name": "zoe", "guest": False}}
    assert k.rooms == {"r5": ("n2", {"room": "r5"}, True)} and k.seats == {"zoe": ("n2", "r5")}
    del redis.data[wire.node_key("n2")]  # n2's keep-alive expired
    assert await k.beat(lambda pipe: None) == {"n2"}
    assert k.live == {"n1"} and k.people == {} and k.rooms == {}


async def test_just_back_from_an_outage_no_node_is_counted_dead_yet():
    k, redis, _ = keepalive(just_back=True)
    other_node(redis, "n2", "zoe", "r5")
    await k.beat(lambda pipe: None)
    del redis.data[wire.node_key("n2")]
    assert await k.beat(lambda pipe: None) == set() and "n2" in k.live


async def test_what_failover_lists_goes_in_the_beat_s_own_write():
    k, redis, _ = keepalive()
    await k.beat(lambda pipe: pipe.hset(wire.TABLES_KEY, mapping={"r9": "n1"}))
    assert redis.data[wire.TABLES_KEY] == {"r9": "n1"} and redis.executed == 1


async def test_a_keep_alive_stands_until_a_fifth_of_a_lease_before_it_expires():
    k, _, _ = keepalive()
    assert k.surely_alive()
    k.alive_at -= 4.1  # lease_seconds 5: it may expire within a second
    assert not k.surely_alive()


async def test_a_write_sends_what_changed_and_the_whole_hash_again_when_redis_lost_it():
    people = [{"name": "Ana", "guest": False, "room": None, "seat": None}]
    k, redis, tasks = keepalive(people=people)
    key = wire.presence_key("n1")

    async def write() -> list[str]:
        redis.commands.clear()
        k.write_presence_soon()
        await asyncio.gather(*tasks)
        return [cmd for cmd, at in redis.commands if at == key]

    assert await write() == ["delete", "hset", "pexpire"]  # the first write: whole
    assert await write() == ["pexpire"]  # nothing changed: its expiry only
    people.append({"name": "Bob", "guest": True, "room": None, "seat": None})
    assert await write() == ["pexpire", "hset", "pexpire"] and set(redis.data[key]) == {"ana", "bob"}
    people.pop(0)
    assert await write() == ["pexpire", "hdel"] and set(redis.data[key]) == {"bob"}
    del redis.data[key]  # Redis lost it (restarted empty, or it expired)
    assert await write() == ["pexpire", "delete", "hset", "pexpire"]  # found gone: written whole again
    assert set(redis.data[key]) == {"bob"}
    k.bus.outages += 1  # Redis was away since: what it holds is unknown
    assert await write() == ["delete", "hset", "pexpire"]
