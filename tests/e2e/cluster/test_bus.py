"""The node's Redis connections: a storm of commands waits for a free connection rather than
making a healthy Redis look away (which paused every table and refused every join)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket

import pytest

from server.cluster import bus as busmod
from server.cluster.bus import Bus
from server.cluster.publisher import Publisher, Subscriber, Unanswered

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
    monkeypatch.setattr(busmod, "POOL", 1)
    said: list[bool] = []
    bus = Bus(redis_server.url, "n0", lambda msg: None, said.append, timeout=0.3)
    await bus.start()
    await bus.redis.connection_pool.get_connection()  # the pool's one connection, in use
    try:
        assert not await bus.check()  # no connection for the question in 0.3 s ...
        assert bus.healthy and False not in said  # ... but that is this node's load, not Redis
    finally:
        await bus.stop()


async def test_messages_leave_and_arrive_on_their_own_connections_in_order_with_every_pool_connection_busy(
        redis_server, monkeypatch):
    monkeypatch.setattr(busmod, "POOL", 1)
    got: list[int] = []
    bus = Bus(redis_server.url, "n0", lambda msg: got.append(msg["ev"]["n"]), lambda ok: None, timeout=0.3)
    await bus.start()
    await bus.redis.connection_pool.get_connection()  # the pool's one connection, in use
    try:
        for n in range(300):
            bus.send("n0", {"t": "chat", "ev": {"n": n}})
            if n % 7 == 0:
                await asyncio.sleep(0)  # batches of several sizes
        for _ in range(500):
            if len(got) == 300 and bus.sent == 300:  # (counted once the socket took them)
                break
            await asyncio.sleep(0.01)
        assert got == list(range(300))
        assert bus.dropped == 0 and bus.sent == 300
        bus.send("n0", {"t": "chat", "ev": {"n": 300}})  # nothing queued before it: written at once,
        assert bus.sent == 301  # without waiting for a turn of the loop
    finally:
        await bus.stop()


async def silent_redis(answer_ping: bool) -> tuple[asyncio.Server, int]:
    """A server that accepts and reads everything; answers the first PING if told, then nothing."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = True
        while data := await reader.read(65536):
            if first and answer_ping and b"PING" in data:
                writer.write(b"+PONG\r\n")
                first = False

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def test_a_redis_that_accepts_but_never_answers_is_noticed_by_the_publisher():
    server, port = await silent_redis(answer_ping=False)
    try:
        with pytest.raises(TimeoutError):
            await Publisher.open(f"redis://127.0.0.1:{port}/0", 0.2)
    finally:
        server.close()
    server, port = await silent_redis(answer_ping=True)
    try:
        publisher = await Publisher.open(f"redis://127.0.0.1:{port}/0", 0.2)
        try:
            publisher.publish([("donne:n:b", "{}")])
            publisher.check()  # not overdue yet
            await asyncio.sleep(0.3)
            with pytest.raises(Unanswered):
                publisher.publish([("donne:n:b", "{}")])
        finally:
            await publisher.close()
    finally:
        server.close()


async def test_the_publisher_speaks_to_a_redis_with_a_password(redis_server):
    redis_server.command("CONFIG", "SET", "requirepass", "s3cret")
    try:
        with pytest.raises(Unanswered):
            await Publisher.open(redis_server.url, 1.0)  # no password: refused
        url = redis_server.url.replace("redis://", "redis://:s3cret@")
        publisher = await Publisher.open(url, 1.0)
        publisher.publish([("donne:n:b", "{}")] * 3)
        await asyncio.sleep(0.05)
        publisher.check()
        await publisher.close()
    finally:  # the session's Redis without a password again
        with socket.create_connection(("127.0.0.1", redis_server.port), timeout=5) as s:
            s.sendall(b'AUTH s3cret\r\nCONFIG SET requirepass ""\r\n')
            assert s.recv(100).startswith(b"+OK")
        assert redis_server.command("PING").startswith(b"+PONG")


async def test_a_subscribed_connection_that_hears_nothing_not_even_its_ping_is_taken_as_broken():
    server, port = await silent_redis(answer_ping=False)
    try:
        subscriber = Subscriber(f"redis://127.0.0.1:{port}/0", ("donne:n:a",), lambda c, p: None, 0.2)
        subscribed: list[bool] = []
        with pytest.raises((Unanswered, OSError)):
            await asyncio.wait_for(subscriber.run(lambda: subscribed.append(True)), 2)  # not the 2 s
        assert not subscribed
    finally:
        server.close()


async def test_a_subscriber_reads_messages_in_order_and_answers_its_own_pings(redis_server):
    got: list[tuple[str, str]] = []
    ready = asyncio.Event()
    subscriber = Subscriber(redis_server.url, ("donne:n:a", "donne:lobby"), lambda c, p: got.append((c, p)), 0.1)
    task = asyncio.get_running_loop().create_task(subscriber.run(ready.set))
    try:
        await asyncio.wait_for(ready.wait(), 2)
        await asyncio.sleep(0.5)  # quiet: pinged and answered several times, still subscribed
        assert not task.done()
        publisher = await Publisher.open(redis_server.url, 1.0)
        publisher.publish([("donne:n:a", f"m{i}") if i % 2 else ("donne:lobby", f"m{i}") for i in range(100)])
        for _ in range(100):
            if len(got) == 100:
                break
            await asyncio.sleep(0.01)
        await publisher.close()
        assert [p for _, p in got] == [f"m{i}" for i in range(100)]
        assert {c for c, _ in got} == {"donne:n:a", "donne:lobby"}
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_flush_waits_until_redis_answered_what_was_written(redis_server):
    bus = Bus(redis_server.url, "n0", lambda msg: None, lambda ok: None)
    await bus.start()
    try:
        bus.send("n1", {"t": "chat", "ev": {}})
        await bus.flush()
        loop = asyncio.get_running_loop()
        os.kill(redis_server.proc.pid, signal.SIGSTOP)  # written now, answered only once Redis runs again
        try:
            bus.send("n1", {"t": "chat", "ev": {}})
            t0 = loop.time()
            await bus.flush(timeout=0.3)
            assert loop.time() - t0 >= 0.25  # (a node stopping gives its leases up only after that)
        finally:
            os.kill(redis_server.proc.pid, signal.SIGCONT)
        await bus.flush()
        assert bus._ready is not None and bus._ready.answered()
    finally:
        await bus.stop()
