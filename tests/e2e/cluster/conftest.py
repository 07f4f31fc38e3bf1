"""Fixtures of the cluster tests: a private redis-server and PostgreSQL, and nodes sharing them.

``redis_server`` is one per test session (skipped, with the reason, only when ``redis-server`` is
truly missing: ``make test`` installs it), emptied before each test. ``nodes(n)`` starts ``n`` nodes
in this test's event loop (each a whole server: telnet and SSH on free loopback ports, its own data
folder), sharing one fresh PostgreSQL database and the Redis; they stop at the end of the test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from server.start.app import Running
from tests.kits.pgserver import PgServer
from tests.kits.redisserver import RedisServer, find_redis
from tests.kits.servers import start_server
from tests.kits.storefixtures import TEMPLATE

CLUSTER = {"keepalive_seconds": 0.2, "lease_seconds": 3.0, "remote_timeout": 10.0}
"""Keep-alives five times a second; a node missing for 3 s is dead (a loaded machine may hold a
node's loop back for more than a second: shorter leases would see live nodes die)."""


@pytest.fixture(scope="session")
def redis_session() -> Iterator[RedisServer]:
    binary = find_redis()
    if binary is None:
        pytest.skip("redis-server not found: `make tools` installs it")
    server = RedisServer(binary)
    try:
        server.start()
    except Exception as exc:  # pragma: no cover - a machine that cannot run it
        server.stop()
        pytest.skip(f"could not start redis-server: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_server(redis_session: RedisServer) -> RedisServer:
    if not redis_session.ping():
        redis_session.restart()
    redis_session.command("FLUSHALL")
    return redis_session


@pytest.fixture
def pg_url(postgres: PgServer) -> str:
    return postgres.new_database(TEMPLATE)


NodeMaker = Callable[..., Any]


@pytest_asyncio.fixture
async def nodes(tmp_path: Path, redis_server: RedisServer, pg_url: str) -> AsyncIterator[NodeMaker]:
    running: list[Running] = []

    async def make(count: int = 2, **overrides: Any) -> list[Running]:
        out = []
        for _ in range(count):
            i = len(running)
            node = await start_server(tmp_path / f"n{i}", url=pg_url, redis_url=redis_server.url,
                                      node=f"n{i}", **{**CLUSTER, **overrides})
            running.append(node)
            out.append(node)
        await settle(running)
        return out

    try:
        yield make
    finally:
        await asyncio.gather(*(asyncio.wait_for(r.stop(), 20) for r in running), return_exceptions=True)


async def settle(running: list[Running], rounds: int = 2) -> None:
    """Wait until each node has read every other node's keep-alive ``rounds`` times."""
    from server.cluster.lobby import ClusterLobby

    lobbies = [r.lobby for r in running if isinstance(r.lobby, ClusterLobby)]
    start = [lobby.keepalive.ticks for lobby in lobbies]
    for _ in range(500):
        if all(lobby.keepalive.ticks >= t + rounds for lobby, t in zip(lobbies, start, strict=True)):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the nodes' keep-alives did not run")
