"""The connections a scripted client (:class:`clients.client.Client`) talks through.

Raw TCP (telnet commands removed) read by the client's reader task
(:class:`TcpTransport`) or pushed to it from the loop's read callback
(:class:`TcpProtocol` + :class:`TcpPushTransport`: no task woken per chunk, the
load generator's), and SSH (:class:`SshTransport`, :func:`ssh_connect`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from clients.framing import IacFilter, MccpFilter

if TYPE_CHECKING:
    import aiohttp
    import asyncssh


class Reader(Protocol):
    """What a pushed connection feeds (a :class:`~clients.client.Client`)."""

    def _feed(self, data: bytes) -> None: ...

    def _lost(self, source: TcpProtocol, reason: str) -> None: ...


class Transport:
    async def read(self) -> bytes:  # b"" at EOF
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    async def drain(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class TcpTransport(Transport):
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.iac = IacFilter()

    async def read(self) -> bytes:
        while True:
            chunk = await self.reader.read(65536)
            if not chunk:
                return b""
            data = self.iac.feed(chunk)
            if data:
                return data

    def write(self, data: bytes) -> None:
        self.writer.write(data)

    async def drain(self) -> None:
        await self.writer.drain()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 2)


class TcpProtocol(asyncio.Protocol):
    """The bytes of one TCP connection handed to its client as they arrive (no reader task).

    ``data_received`` removes the telnet commands and gives the data to
    its client's ``_feed`` at once: a chunk of lines is cut and dispatched in the
    loop's own read callback, where a :class:`TcpTransport` woke a reader
    task for every chunk (the load generator's CPU per action).
    """

    def __init__(self, mccp: bool = False) -> None:
        self.client: Reader | None = None
        self.iac: IacFilter | MccpFilter = MccpFilter() if mccp else IacFilter()  # mccp: asked for MCCP2
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._early: list[bytes] = []  # bytes received before the client took the connection
        self._early_lost: str | None = None
        self._paused = False
        self._drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream transport (uvloop's is no subclass)

    def data_received(self, data: bytes) -> None:
        data = self.iac.feed(data)
        if not data:
            return
        if self.client is None:
            self._early.append(data)
        else:
            self.client._feed(data)

    def eof_received(self) -> bool:
        return False  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        reason = "closed by server" if exc is None else f"connection lost: {exc}"
        if not self.lost.done():
            self.lost.set_result(None)
        self._wake_writer()
        if self.client is None:
            self._early_lost = reason
        else:
            self.client._lost(self, reason)

    def attach(self, client: Reader) -> None:
        """Give the connection to ``client``: what came before is fed to it now."""
        self.client = client
        early, self._early = self._early, []
        for data in early:
            client._feed(data)
        if self._early_lost is not None:
            client._lost(self, self._early_lost)

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        self._wake_writer()

    def _wake_writer(self) -> None:
        waiter, self._drained = self._drained, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def drained(self) -> None:
        if not self._paused or self.lost.done():
            return
        if self._drained is None:
            self._drained = asyncio.get_running_loop().create_future()
        await self._drained


class TcpPushTransport(Transport):
    """A TCP connection whose bytes are pushed to the client by :class:`TcpProtocol` (``read`` unused)."""

    def __init__(self, transport: asyncio.Transport, protocol: TcpProtocol) -> None:
        self.transport = transport
        self.protocol = protocol

    def write(self, data: bytes) -> None:
        self.transport.write(data)

    async def drain(self) -> None:
        await self.protocol.drained()

    async def close(self) -> None:
        self.transport.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self.protocol.lost), 2)


class SshTransport(Transport):
    def __init__(self, conn: asyncssh.SSHClientConnection, process: asyncssh.SSHClientProcess[bytes]) -> None:
        self.conn = conn
        self.process = process

    async def read(self) -> bytes:
        try:
            data: bytes = await self.process.stdout.read(65536)
        except Exception:  # ConnectionLost, BrokenPipeError: the end of the stream
            return b""
        return data

    def write(self, data: bytes) -> None:
        self.process.stdin.write(data)

    async def drain(self) -> None:
        await self.process.stdin.drain()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.process.stdin.write_eof()
        self.conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.wait_closed(), 2)


class WsTransport(Transport):
    """A WebSocket of the web port's ``/ws``: one JSON object per text frame, both ways.

    Reads give each frame as one line (``\n`` added); writes are cut at line ends and
    each line sent as one frame, in order, by one task.
    """

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.session = session  # the aiohttp.ClientSession, closed with the connection
        self.ws = ws
        self._out: asyncio.Queue[str | None] = asyncio.Queue()
        self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                frame = await self._out.get()
                try:
                    if frame is None:
                        return
                    await self.ws.send_str(frame)
                finally:
                    self._out.task_done()

    async def read(self) -> bytes:
        from aiohttp import WSMsgType

        while True:
            msg = await self.ws.receive()
            if msg.type == WSMsgType.TEXT:
                return str(msg.data).encode() + b"\n"
            if msg.type == WSMsgType.BINARY:
                return bytes(msg.data) + b"\n"
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return b""

    def write(self, data: bytes) -> None:
        for line in data.decode("utf-8", "replace").splitlines():
            if line:
                self._out.put_nowait(line)

    async def drain(self) -> None:
        await self._out.join()

    async def close(self) -> None:
        self._out.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._sender, 2)
        self._sender.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 2)
        with contextlib.suppress(Exception):
            await self.session.close()


async def ws_connect(url: str, *, origin: str | None = None, timeout: float = 10.0) -> WsTransport:
    """Open ``url`` (``ws://host:port/ws``); ``origin``: the ``Origin`` header a browser's page would send."""
    import aiohttp  # only WebSocket clients pay for the import

    session = aiohttp.ClientSession()
    try:
        headers = {"Origin": origin} if origin else {}
        ws = await asyncio.wait_for(session.ws_connect(url, headers=headers, max_msg_size=0), timeout)
    except BaseException:
        await session.close()
        raise
    return WsTransport(session, ws)


async def ssh_connect(host: str, port: int, username: str, password: str | None = None,
                      client_keys: Sequence[asyncssh.SSHKey] | None = None, *,
                      timeout: float = 10.0) -> asyncssh.SSHClientConnection:
    """An asyncssh client connection as every scripted client opens one (:meth:`Client.connect_ssh`,
    the idle connections of ``donne load``): host keys not checked, neither the agent nor ``~/.ssh``
    keys used unless ``client_keys`` is given."""
    import asyncssh  # only SSH clients pay for the import

    return await asyncio.wait_for(
        asyncssh.connect(
            host,
            port,
            username=username,
            password=password,
            client_keys=list(client_keys) if client_keys else None,
            known_hosts=None,
            agent_path=None,
            preferred_auth=("publickey,password,keyboard-interactive,none" if client_keys
                            else "password,keyboard-interactive,none"),
        ),
        timeout,
    )
