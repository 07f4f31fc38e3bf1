"""The node's Redis connection: its own channel and the lobby channel, messages out in order, health.

One connection of its own publishes (:mod:`server.cluster.publisher`): a message is written to it
at once when nothing waits before it, else queued for a task that writes the queue in order; so
messages to one channel leave in the order they were made, and Redis hands them to the subscriber
in that order; one subscribed connection of its own reads this node's channel and
the lobby channel and hands each message, in order, to ``handler``; after subscribing again (Redis
was away) it calls ``on_subscribed``. When Redis goes away both sides say so (``on_health(False)``,
logged once), keep trying every ``retry`` seconds, and say so again when it is back
(``on_health(True)``). Messages
made while it is away are dropped (counted in the log): commands are answered by a time-out,
states are whole and the next one replaces them, and the keep-alives rewrite the lobby's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from server.cluster import wire
from server.cluster.publisher import Publisher, Subscriber
from server.protocol import JSONValue

log = logging.getLogger("donne.cluster")

MAX_BATCH = 500

POOL = 100
"""Connections to Redis one node opens at most (a command waits for a free one, ``timeout`` at most)."""


class Busy(RedisConnectionError):
    """Every connection of this node's pool stayed in use for ``timeout``: this node is overloaded
    (a storm of logins), which says nothing of Redis. Not taken as Redis away."""


class _Pool(aioredis.BlockingConnectionPool):
    """The node's connections: a command waits for a free one, rather than failing at once when
    they are all in use (redis-py's plain pool raises "Too many connections": under a thousand
    logins at once it made a healthy Redis look away, pausing every table and refusing joins)."""

    async def get_connection(self, *args: object, **kwargs: object) -> AbstractConnection:
        try:  # (redis-py leaves this method of its blocking pool unannotated)
            connection: AbstractConnection = await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
            return connection
        except RedisConnectionError as exc:
            if isinstance(exc.__cause__, TimeoutError):
                raise Busy(f"all {self.max_connections} connections to Redis in use") from exc
            raise


def still_wanted() -> None:
    """Raise :class:`asyncio.CancelledError` when the running task was cancelled, even if the
    cancellation never reached it as an exception.

    redis-py sends each command under ``asyncio.wait_for`` (it has a ``socket_timeout``); on
    Python 3.11 ``wait_for`` returns the result instead of raising when the task is cancelled in
    the moment the send has just finished, so a ``cancel()`` of a task busy with Redis is often
    lost (measured: 277 of 300 cancels of a task sending commands in a loop). The task still
    counts the cancellation (``Task.cancelling()``): a loop that calls this at every turn ends
    there, where ``while True`` would run (and be awaited) for ever."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Bus:
    def __init__(self, url: str, node: str, handler: Callable[[wire.Message], None],
                 on_health: Callable[[bool], None], *, retry: float = 0.5,
                 on_subscribed: Callable[[], None] | None = None, timeout: float = 2.0) -> None:
        self.url = url
        self.node = node
        self.handler = handler
        self.on_health = on_health
        self.retry = retry
        self.on_subscribed = on_subscribed
        self.timeout = timeout
        self._redis: aioredis.Redis | None = None
        self.healthy = False
        self.dropped = 0
        self.outages = 0  # times Redis went away: what it held may be gone (the keep-alive writes all again)
        self.sent = 0
        self.received = 0
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        # the publishing connection while it is open and the sending task holds nothing unwritten:
        # a message is then written at once when nothing is queued before it (order kept)
        self._ready: Publisher | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    @property
    def redis(self) -> aioredis.Redis:
        """The node's Redis client, made by :meth:`start` (before it: AttributeError, as of no client)."""
        redis = self._redis
        if redis is None:
            raise AttributeError("redis: the bus is not started")
        return redis

    @redis.setter
    def redis(self, client: aioredis.Redis) -> None:
        self._redis = client

    @property
    def started(self) -> bool:
        """:meth:`start` made the Redis client (whether Redis answers now or not)."""
        return self._redis is not None

    async def start(self) -> None:
        """Connect (Redis must answer now: a node does not start without it) and subscribe."""
        # a connection of the pool that broke while Redis was away is tried again on a fresh one at
        # once, rather than failing one command each after Redis is back; a command Redis does not
        # answer (a Redis that accepts but is stopped, or a network that drops everything) fails
        # after ``timeout``, once: tried again, the wait would double and the outage go unnoticed
        pool = _Pool.from_url(self.url, decode_responses=True, socket_connect_timeout=self.timeout,
                              socket_timeout=self.timeout, health_check_interval=2,
                              retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 2,
                                          supported_errors=(RedisConnectionError,)),
                              retry_on_error=[RedisConnectionError], max_connections=POOL, timeout=self.timeout)
        self.redis = aioredis.Redis(connection_pool=pool)
        await self.redis.ping()
        self.healthy = True
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read_loop(), name="cluster-read"),
                       loop.create_task(self._send_loop(), name="cluster-send")]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until what was sent so far is published and Redis answered it (or it is dropped),
        ``timeout`` seconds at most."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            ready = self._ready
            if self._queue.empty() and (ready is None or ready.answered()):
                return
            await asyncio.sleep(0.01)

    # -- out -----------------------------------------------------------------------------------

    def send(self, node: str, msg: Mapping[str, JSONValue]) -> None:
        self._put(wire.node_channel(node), msg)

    def broadcast(self, msg: Mapping[str, JSONValue]) -> None:
        self._put(wire.LOBBY_CHANNEL, msg)

    def _put(self, channel: str, msg: Mapping[str, JSONValue]) -> None:
        item = (channel, wire.encode({**msg, "from": self.node}))
        publisher = self._ready
        if publisher is not None and self._queue.empty() and publisher.roomy():
            # nothing waits before it: written now, without a turn of the loop for the sending task
            try:
                publisher.publish([item])
                self.sent += 1
                return
            except (RedisError, OSError):
                pass  # the sending task finds the connection broken and says so
        self._queue.put_nowait(item)

    async def _send_loop(self) -> None:
        publisher: Publisher | None = None
        try:
            while True:
                still_wanted()
                batch = [await self._queue.get()]
                while len(batch) < MAX_BATCH and not self._queue.empty():
                    batch.append(self._queue.get_nowait())
                try:
                    if publisher is None:
                        publisher = await Publisher.open(self.url, self.timeout)
                    publisher.publish(batch)
                    self._ready = publisher  # (from here on, a message written at once follows the batch)
                    await publisher.drain()
                    self.sent += len(batch)
                except (RedisError, OSError, TimeoutError) as exc:
                    self._ready = None
                    self.dropped += len(batch)
                    if publisher is not None:  # what it held is lost with it, as a publish that failed
                        await publisher.close(reset=True)
                        publisher = None
                    self._health(False, exc)
                    log.warning("cluster: %d message(s) not sent (Redis unreachable)", len(batch))
                    await asyncio.sleep(self.retry)
        finally:
            self._ready = None
            if publisher is not None:
                await publisher.close()

    # -- in ------------------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        subscriber = Subscriber(self.url, (wire.node_channel(self.node), wire.LOBBY_CHANNEL), self._on_payload,
                                self.timeout)
        while True:
            still_wanted()
            try:
                await subscriber.run(self._on_subscribed)
            except (RedisError, OSError, TimeoutError) as exc:
                self._health(False, exc)
                await asyncio.sleep(self.retry)

    def _on_subscribed(self) -> None:
        again = self._subscribed.is_set()
        self._subscribed.set()
        self._health(True)
        if again and self.on_subscribed is not None:
            try:  # what was published to this node meanwhile is lost: ask again
                self.on_subscribed()
            except Exception:  # the reading goes on whatever the lobby does with it
                log.exception("cluster: asking again after subscribing again failed")

    def _on_payload(self, channel: str, payload: str) -> None:
        try:
            msg = wire.decode(payload)
        except wire.BadMessage as exc:
            log.warning("cluster: dropped a message on %s: %s", channel, exc)
            return
        self.received += 1
        try:
            self.handler(msg)
        except Exception:
            log.exception("cluster: handling a %r message failed", msg.get("t"))

    def _health(self, ok: bool, exc: BaseException | None = None) -> None:
        if not ok and isinstance(exc, Busy):
            log.warning("cluster: %s", exc)  # this node is overloaded; Redis may answer well
            return
        if ok == self.healthy:
            return
        self.healthy = ok
        if not ok:
            self.outages += 1
        if ok:
            log.warning("cluster: Redis is reachable again")
        else:
            log.error("cluster: Redis is unreachable (%s); tables are paused, no new table opens", exc)
        try:
            self.on_health(ok)
        except Exception:  # the reading and sending loops go on whatever the lobby does with it
            log.exception("cluster: telling the lobby Redis is %s failed", "back" if ok else "away")

    async def check(self) -> bool:
        """Ping Redis (the keep-alive does it every turn): the health as it is now."""
        try:
            await self.redis.ping()
        except (RedisError, OSError) as exc:
            self._health(False, exc)
            return False
        self._health(True)
        return True
