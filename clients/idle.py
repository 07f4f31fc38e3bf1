"""Idle connections of ``donne load --idle``: logged in, in the lobby, never playing; their bytes counted.

An :class:`IdleConnection` opens its connection as the wire bots do
(telnet/raw TCP: ``IAC WONT TTYPE``, the line ``json``, then ``login`` with a
guest name; SSH: exec ``json`` as that name, then ``whoami``), waits for the
reply to that first request (``id`` 1: the session is in, in the lobby), and
from then on never sends anything. Whatever the server pushes to a person in
the lobby (the room-list news of every table opened and closed, lobby chat,
seeks) still reaches it: that cost is what idle connections are for.

They must not make the load generator what is measured, so after the reply
nothing is read the way :class:`~clients.client.Client` reads: no task
per connection, no line cut, no JSON parsed. The bytes go straight from the
transport's callback to an :class:`IdleCounter`, which counts them, counts
line ends, and counts error replies by a search of their bytes
(``"type":"error"`` cannot occur inside a JSON string, where quotes are
escaped). The end of the connection is its ``connection_lost`` callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from clients.errors import ClientClosed, ClientError, ClientTimeout
from clients.framing import WONT_TTYPE, IacFilter, LineSplitter, Message, parse_line
from clients.transports import ssh_connect

if TYPE_CHECKING:
    import asyncssh

ERROR_MARK = b'"type":"error"'
"""The bytes an error reply holds (outside any string): counted, never parsed."""

FIRST_ID = 1
"""The ``id`` of the one request an idle connection sends (``login`` or ``whoami``)."""


class IdleCounter:
    """Sans-I/O: the bytes one idle connection receives (tested in ``tests/e2e/load/test_load_idle.py``).

    Until the reply to the first request (``id`` :data:`FIRST_ID`) the stream
    is read as the bots read it (telnet commands removed, lines cut, JSON
    parsed, a text prompt before the first object allowed): :meth:`feed`
    returns that reply once it is complete. Nothing before it is counted.
    From then on each chunk is only counted: :attr:`bytes`, :attr:`lines`
    (line ends) and :attr:`errors` (error replies, found across chunk
    boundaries too).
    """

    __slots__ = ("_iac", "_splitter", "_tail", "bytes", "errors", "lines", "reply")

    def __init__(self) -> None:
        self._iac: IacFilter | None = IacFilter()
        self._splitter: LineSplitter | None = LineSplitter()
        self._tail = b""
        self.reply: Message | None = None
        self.bytes = 0
        self.lines = 0
        self.errors = 0

    def feed(self, data: bytes) -> Message | None:
        """Take one chunk; the reply to the first request when this chunk completed it, else ``None``."""
        if self.reply is not None:
            self._count(data)
            return None
        assert self._iac is not None and self._splitter is not None
        lines = self._splitter.feed(self._iac.feed(data))
        for k, line in enumerate(lines):
            msg = parse_line(line, lenient=True)
            if msg is not None and msg.get("type") in ("ok", "error") and msg.get("id") == FIRST_ID:
                self.reply = msg
                rest = b"".join(x + b"\n" for x in lines[k + 1:]) + self._splitter.pending
                self._iac = self._splitter = None  # the reading is over: the rest is counted
                if rest:
                    self._count(rest)
                return msg
        return None

    def _count(self, data: bytes) -> None:
        self.bytes += len(data)
        self.lines += data.count(b"\n")
        mark = len(ERROR_MARK) - 1
        errors = data.count(ERROR_MARK)
        if self._tail:  # a mark cut by the chunks: only such a mark fits in tail + head
            errors += (self._tail + data[:mark]).count(ERROR_MARK)
        # the last bytes received, the chunk's own unless it is shorter than that
        self._tail = data[-mark:] if len(data) >= mark else (self._tail + data)[-mark:]
        self.errors += errors


class IdleConnection:
    """One idle connection: open with :meth:`connect_tcp` or :meth:`connect_ssh`, :meth:`close` at the end.

    :attr:`counter` holds what it received since the reply to its first
    request; :attr:`closed` is true once the connection ended, and
    :attr:`dropped` when it was not :meth:`close` that ended it.
    """

    __slots__ = ("_closer", "_reply", "closed", "counter", "dropped")

    def __init__(self) -> None:
        self.counter = IdleCounter()
        self.closed = False
        self.dropped = False
        self._closer: Callable[[], object] | None = None
        self._reply: asyncio.Future[Message] = asyncio.get_running_loop().create_future()

    # -- the transports' callbacks ------------------------------------------------

    def data(self, data: bytes) -> None:
        reply = self.counter.feed(data)
        if reply is not None and not self._reply.done():
            self._reply.set_result(reply)

    def lost(self) -> None:
        if not self.closed:
            self.closed = self.dropped = True
        if not self._reply.done():
            self._reply.set_exception(ClientClosed("closed by server before the reply"))

    # -- opening --------------------------------------------------------------

    @classmethod
    async def connect_tcp(cls, host: str, port: int, name: str, *, timeout: float = 60.0) -> IdleConnection:
        """Connect to the telnet port as the bots do and log in as the guest ``name``."""
        self = cls()
        loop = asyncio.get_running_loop()
        transport, _ = await asyncio.wait_for(loop.create_connection(lambda: TcpProtocol(self), host, port),
                                              timeout)
        self._closer = transport.close
        transport.write(WONT_TTYPE + b"json\r\n")
        transport.write(_request("login", name=name))
        await self._await_reply(timeout)
        return self

    @classmethod
    async def connect_ssh(cls, host: str, port: int, name: str, *, timeout: float = 60.0) -> IdleConnection:
        """Connect over SSH as the guest ``name`` (exec ``json``) and ask ``whoami``."""
        self = cls()
        conn = await ssh_connect(host, port, name, timeout=timeout)

        def close() -> None:
            conn.close()

        self._closer = close
        try:
            chan, _ = await asyncio.wait_for(conn.create_session(_ssh_session_factory(self), "json",
                                                                 encoding=None), timeout)
        except BaseException:
            conn.close()
            raise
        chan.write(_request("whoami"))
        await self._await_reply(timeout)
        return self

    async def _await_reply(self, timeout: float) -> None:
        try:
            reply = await asyncio.wait_for(asyncio.shield(self._reply), timeout)
        except TimeoutError:
            self.close()
            raise ClientTimeout("no reply to the login in time") from None
        except BaseException:
            self.close()
            raise
        if reply.get("type") == "error":
            self.close()
            raise ClientError(str(reply.get("code")), str(reply.get("message", "")), reply)

    def close(self) -> None:
        """End the connection (idempotent); not counted as dropped."""
        if not self.closed:
            self.closed = True
            closer, self._closer = self._closer, None
            if closer is not None:
                with contextlib.suppress(Exception):
                    closer()
        if not self._reply.done():
            self._reply.cancel()


def _request(cmd: str, **args: object) -> bytes:
    """The line of a request, written as :class:`~clients.client.Client` writes it."""
    return json.dumps({"cmd": cmd, **args, "id": FIRST_ID}, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


class TcpProtocol(asyncio.Protocol):
    __slots__ = ("conn",)

    def __init__(self, conn: IdleConnection) -> None:
        self.conn = conn

    def data_received(self, data: bytes) -> None:
        self.conn.data(data)

    def eof_received(self) -> bool | None:
        return None  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.conn.lost()


def _ssh_session_factory(conn: IdleConnection) -> Callable[[], asyncssh.SSHClientSession[bytes]]:
    """An asyncssh client session feeding ``conn`` (asyncssh is imported only by SSH runs)."""
    import asyncssh

    class _SshSession(asyncssh.SSHClientSession[bytes]):
        def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
            conn.data(data)

        def connection_lost(self, exc: Exception | None) -> None:
            conn.lost()

    return _SshSession
