"""The node's own connections to Redis for its messages: one publishes, one is subscribed.

A node publishes a message for each moment of a table a remote person sees and each command of a
person at another node's table: hundreds a second, mostly one at a time when people think. Through
redis-py each publish took a pool connection, built a pipeline and awaited its answer under a
time-out: about 80 µs of the node's CPU per message. Here the ``PUBLISH`` commands are written as
RESP on one connection kept open and the answers read by a task of their own (hiredis): a batch
is written at once, and the node never waits for an answer before writing the next one. One
socket, one writer: messages leave in the order they were made, and Redis runs one connection's
commands in order.

The connection counts the answers it waits for. When one is older than ``timeout`` (a Redis that
accepts but does not answer), or the connection breaks, :meth:`Publisher.check` raises
:class:`Unanswered`; the bus then drops the connection and what it held (as a publish that failed:
the connection is reset, so nothing it held arrives late, after newer messages), says Redis is away
and opens a new one when it tries again.

The subscribed connection (:class:`Subscriber`) reads this node's channel and the lobby channel the
same way: whole chunks of the socket parsed by hiredis, each message handed on as it is read
(redis-py's ``PubSub.get_message`` cost about 30 µs per message, under a time-out each). When the
connection has been quiet for ``timeout`` it sends ``PING``; no answer within ``timeout`` more and
the connection is taken as broken, as a connection that Redis closed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ssl
from collections.abc import Callable, Mapping

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError

ROOMY = 1 << 20
"""Bytes waiting in the publishing socket's buffer below which a message is written at once."""


class Unanswered(RedisConnectionError):
    """The publishing connection broke, or Redis left a publish unanswered past the time-out."""


def pack(channel: str, payload: str) -> bytes:
    """``PUBLISH channel payload`` in RESP."""
    c, p = channel.encode(), payload.encode()
    return b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%b\r\n$%d\r\n%b\r\n" % (len(c), c, len(p), p)


def _command(*words: str) -> bytes:
    parts = [b"*%d\r\n" % len(words)]
    for word in words:
        b = word.encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(b), b))
    return b"".join(parts)


def _tls(options: Mapping[str, object]) -> ssl.SSLContext:
    """TLS as the URL's options ask (``ssl_ca_certs``, ``ssl_cert_reqs``)."""
    cafile = options.get("ssl_ca_certs")
    context = ssl.create_default_context(cafile=cafile if isinstance(cafile, str) else None)
    if str(options.get("ssl_cert_reqs", "required")).lower() in ("none", "optional"):
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


async def _connect(url: str, timeout: float) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """A connection to the Redis of ``url`` (``redis://``, ``rediss://``, ``unix://``), ``timeout``
    seconds at most, and the ``AUTH`` its user and password need (empty without a password)."""
    options = parse_url(url)
    path = options.get("path")
    if path:
        opening = asyncio.open_unix_connection(path)
    else:
        cls = options.get("connection_class")
        tls = _tls(options) if cls is not None and "SSL" in cls.__name__ else None
        opening = asyncio.open_connection(options.get("host", "localhost"), int(options.get("port", 6379)), ssl=tls)
    reader, writer = await asyncio.wait_for(opening, timeout)
    password, username = options.get("password"), options.get("username")
    auth = _command("AUTH", *((username,) if username else ()), password) if password else b""
    return reader, writer, auth


class Publisher:
    """One open connection that publishes; :meth:`open` it, :meth:`publish`, :meth:`close`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> None:
        self._reader = reader
        self._writer = writer
        self.timeout = timeout
        self._waiting: collections.deque[float] = collections.deque()  # when each unanswered command left
        self._broken: BaseException | None = None
        self._task = asyncio.get_running_loop().create_task(self._answers(), name="cluster-publish-answers")

    @classmethod
    async def open(cls, url: str, timeout: float) -> Publisher:
        """Connect to the Redis of ``url``, ``timeout`` seconds at most, and check that it answers."""
        reader, writer, auth = await _connect(url, timeout)
        publisher = cls(reader, writer, timeout)
        try:
            if auth:
                publisher._write(auth)
            publisher._write(_command("PING"))
            await asyncio.wait_for(publisher._settled(), timeout)
            publisher.check()
        except BaseException:
            await publisher.close()
            raise
        return publisher

    def _write(self, data: bytes, count: int = 1) -> None:
        now = asyncio.get_running_loop().time()
        self._waiting.extend(now for _ in range(count))
        self._writer.write(data)

    def publish(self, batch: list[tuple[str, str]]) -> None:
        """Write ``PUBLISH`` for every ``(channel, payload)`` of ``batch``, in order (answers are read
        by the connection's own task)."""
        self.check()
        self._write(b"".join(pack(channel, payload) for channel, payload in batch), len(batch))

    def roomy(self) -> bool:
        """Little is waiting in the socket's buffer: a message may be written without :meth:`drain`."""
        return self._writer.transport.get_write_buffer_size() < ROOMY

    async def drain(self) -> None:
        """Wait while the socket's buffer is full (Redis reads slowly), ``timeout`` at most."""
        try:
            await asyncio.wait_for(self._writer.drain(), self.timeout)
        except (OSError, TimeoutError) as exc:
            raise Unanswered(f"publishing: {exc or 'Redis reads nothing'}") from exc

    def check(self) -> None:
        """Raise :class:`Unanswered` if the connection broke or an answer is overdue."""
        if self._broken is not None:
            raise Unanswered(f"publishing connection lost ({self._broken})")
        if self._waiting and asyncio.get_running_loop().time() - self._waiting[0] > self.timeout:
            raise Unanswered(f"Redis left a publish unanswered {self.timeout:g} s")

    def answered(self) -> bool:
        """Redis answered every command written so far (or the connection broke)."""
        return not self._waiting or self._broken is not None

    async def _settled(self) -> None:
        while not self.answered():
            await asyncio.sleep(0.005)

    async def _answers(self) -> None:
        parser = hiredis.Reader()
        try:
            while True:
                data = await self._reader.read(65536)
                if not data:
                    raise ConnectionResetError("Redis closed the connection")
                parser.feed(data)
                while (answer := parser.gets()) is not False:
                    if self._waiting:
                        self._waiting.popleft()
                    if isinstance(answer, hiredis.ReplyError):
                        raise Unanswered(f"Redis refused: {answer}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._broken = exc

    async def close(self, *, reset: bool = False) -> None:
        """Close the connection; ``reset``: given up, what it still holds is thrown away rather than
        delivered late, after the messages of the connection that replaces it."""
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task
        if reset:
            self._writer.transport.abort()
            return
        self._writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._writer.wait_closed(), 1)


class Subscriber:
    """One connection subscribed to ``channels``: :meth:`run` hands each message to ``handler``
    (its channel and payload), in order, until the connection breaks (raises :class:`Unanswered`)."""

    def __init__(self, url: str, channels: tuple[str, ...], handler: Callable[[str, str], None],
                 timeout: float) -> None:
        self.url = url
        self.channels = channels
        self.handler = handler
        self.timeout = timeout

    async def run(self, subscribed: Callable[[], None]) -> None:
        """Connect, subscribe (``subscribed()`` once Redis confirmed every channel), then read."""
        reader, writer, auth = await _connect(self.url, self.timeout)
        parser = hiredis.Reader(encoding="utf-8", errors="replace")
        loop = asyncio.get_running_loop()
        heard = loop.time()
        pinged: float | None = None

        def watch() -> None:  # quiet for ``timeout``: ask; unanswered ``timeout`` later: broken
            nonlocal pinged
            now = loop.time()
            if pinged is not None and now - pinged > self.timeout:
                writer.transport.abort()
                return
            if pinged is None and now - heard >= self.timeout:
                pinged = now
                writer.write(_command("PING"))
            timer[0] = loop.call_later(self.timeout / 2, watch)

        timer = [loop.call_later(self.timeout / 2, watch)]
        try:
            writer.write(auth + _command("SUBSCRIBE", *self.channels))
            confirmed = 0
            while True:
                data = await reader.read(65536)
                if not data:
                    raise Unanswered("Redis closed the subscribed connection")
                heard, pinged = loop.time(), None
                parser.feed(data)
                while (item := parser.gets()) is not False:
                    if isinstance(item, hiredis.ReplyError):
                        raise Unanswered(f"Redis refused: {item}")
                    if not isinstance(item, list) or not item:
                        continue  # +OK of AUTH
                    kind = item[0]
                    if kind == "message":
                        self.handler(item[1], item[2])
                    elif kind == "subscribe":
                        confirmed += 1
                        if confirmed == len(self.channels):
                            subscribed()
        finally:
            timer[0].cancel()
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1)
