"""The node's Redis connections: a storm of commands waits for a free connection rather than
making a healthy Redis look away (which paused every table and refused every join)."""

from __future__ import annotations

import asyncio

import pytest

from server.cluster import bus as busmod
from server.cluster.bus import Bus

pytestmark = pytest.mark.e2e


async def test_more_commands_at_once_than_connections_all_succeed_and_redis_stays_healthy(redis_server):
    said: list[bool] = []
    bus = Bus(redis_server.url, "n0", lambda msg: None, said.append)
    await bus.start()
    try:
        # a thousand logins at once each ask Redis something: three times the pool
        await asyncio.gather(*(bus.redis.exists(f"donne:node:n{i}") for i in range(3 * busmod.POOL)))
        assert await bus.check()
        assert bus.healthy and False not in said
    finally:
        await bus.stop()


async def test_a_node_whose_connections_are_all_busy_does_not_take_redis_as_away(redis_server, monkeypatch):
    monkeypatch.setattr(busmod, "POOL", 1)  # the subscription holds the one connection
    said: list[bool] = []
    bus = Bus(redis_server.url, "n0", lambda msg: None, said.append, timeout=0.3)
    await bus.start()
    try:
        assert not await bus.check()  # no connection for the question in 0.3 s ...
        assert bus.healthy and False not in said  # ... but that is this node's load, not Redis
    finally:
        await bus.stop()
