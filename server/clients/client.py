"""A small asyncio client for donne's JSON mode (``PROTOCOL.md``), over telnet/raw TCP or SSH.

Used by the wire bots (``donne bot``), the load generator (``donne load``),
the benchmarks and the end-to-end tests::

    client = await Client.connect_tcp("127.0.0.1", 2323)
    await client.login("alice")
    reply = await client.request("create", game="president", rules="classic", seats=4, bots=3)
    state = await client.next_state(lambda s: s.get("turn") == s.get("you"), timeout=10)
    await client.request("play", cards=state["hand"][:1])
    await client.close()

The byte-level work (telnet commands removed, lines cut, JSON read) is
sans-I/O, in :mod:`server.clients.framing`, and tested without a network.

One reader task per client parses every line: replies go to the request
awaiting their ``id``; ``state`` and ``event`` pushes go to the push queue
(:meth:`Client.pushes`), to the waiters of :meth:`Client.next_state` /
:meth:`Client.next_event`, and the latest state is kept in
:attr:`Client.state`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from server.clients.framing import WONT_TTYPE, IacFilter, LineSplitter, LineTooLong, Message, parse_line

Predicate = Callable[[Message], bool]


class ClientError(Exception):
    """An error reply (``code``, ``message``), or a client-side failure (``timeout``, ``closed``)."""

    def __init__(self, code: str, message: str = "", reply: Message | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.reply = reply or {}


class ClientTimeout(ClientError, TimeoutError):
    """No reply (or no awaited push) within the time allowed."""

    def __init__(self, message: str = "") -> None:
        super().__init__("timeout", message)


class ClientClosed(ClientError, ConnectionError):
    """The connection is closed (by us or by the server)."""

    def __init__(self, message: str = "connection closed") -> None:
        super().__init__("closed", message)


# ---------------------------------------------------------------------------
# transports: read bytes / write bytes / close


class _Transport:
    async def read(self) -> bytes:  # b"" at EOF
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    async def drain(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class _TcpTransport(_Transport):
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


class _SshTransport(_Transport):
    def __init__(self, conn: Any, process: Any) -> None:
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


async def ssh_connect(host: str, port: int, username: str, password: str | None = None,
                      client_keys: Sequence[Any] | None = None, *, timeout: float = 10.0) -> Any:
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


# ---------------------------------------------------------------------------
# the client


class _Waiter:
    __slots__ = ("future", "kind", "predicate")

    def __init__(self, kind: str, predicate: Predicate | None, future: asyncio.Future[Message]) -> None:
        self.kind = kind
        self.predicate = predicate
        self.future = future


class Client:
    """One connection in JSON mode. Create with :meth:`connect_tcp` or :meth:`connect_ssh`.

    Attributes: :attr:`state` (the latest pushed state, or ``None``),
    :attr:`closed` (an :class:`asyncio.Event`), :attr:`noise` (non-JSON lines
    received, e.g. a text banner before JSON mode started), :attr:`orphans`
    (replies that matched no pending request, e.g. ``bad_json`` with no id).
    """

    def __init__(self, *, timeout: float = 10.0, keep_pushes: int = 10_000) -> None:
        self.timeout = timeout
        self.state: Message | None = None
        self.closed = asyncio.Event()
        self.close_reason: str | None = None
        self.noise = 0
        self.orphans: list[Message] = []
        self.received = 0
        self.sent = 0
        self.on_push: Callable[[Message], None] | None = None
        """Called (synchronously, in the reader task) for every state or event pushed."""
        self.on_reply: Callable[[Message], None] | None = None
        """Called (synchronously, in the reader task) for every reply, before its request sees it:
        what was pushed before a reply was pushed before the server handled the request."""
        self._transport: _Transport | None = None
        self._splitter = LineSplitter()
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[Message]] = {}
        self._waiters: list[_Waiter] = []
        self._pushes: collections.deque[Message] = collections.deque(maxlen=keep_pushes or None)
        self._push_ready = asyncio.Event()
        self._json_seen = False
        self._connect: Callable[[], Any] | None = None
        self._credentials: tuple[str, str | None] | None = None
        self.dropped_pushes = 0
        """Pushes dropped because nobody consumed the queue (``keep_pushes`` oldest are kept)."""
        self._skip: tuple[bytes, ...] = ()
        self.skipped = 0
        """Events left unread (:meth:`skip_events`)."""

    # -- connecting -------------------------------------------------------

    @classmethod
    async def connect_tcp(
        cls, host: str, port: int, *, timeout: float = 10.0, keep_pushes: int = 10_000,
        local_addr: str | None = None,
    ) -> Client:
        """Connect to the telnet port as a raw TCP client and enter JSON mode.

        Sends ``IAC WONT TTYPE`` (the telnet server starts the shell at once
        instead of waiting for a negotiation) then the line ``json``; telnet
        commands the server sends are skipped, never answered. ``local_addr``:
        the address to connect from (tests and benchmarks play many addresses
        with ``127.0.0.N``).
        """
        client = cls(timeout=timeout, keep_pushes=keep_pushes)
        local = None if local_addr is None else (local_addr, 0)

        async def connect() -> _Transport:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), timeout)
            writer.write(WONT_TTYPE + b"json\r\n")
            return _TcpTransport(reader, writer)

        await client._start(connect)
        return client

    @classmethod
    async def connect_ssh(
        cls,
        host: str,
        port: int,
        username: str,
        password: str | None = None,
        client_keys: Sequence[Any] | None = None,
        *,
        timeout: float = 10.0,
        keep_pushes: int = 10_000,
    ) -> Client:
        """Connect over SSH and open an exec channel with the command ``json``.

        SSH authentication decides who ``username`` is (PROTOCOL.md): no
        ``login`` is needed. Host keys are not checked (``known_hosts=None``)
        and neither the agent nor ``~/.ssh`` keys are used unless
        ``client_keys`` is given.
        """
        client = cls(timeout=timeout, keep_pushes=keep_pushes)

        async def connect() -> _Transport:
            conn = await ssh_connect(host, port, username, password, client_keys, timeout=timeout)
            try:
                process = await asyncio.wait_for(conn.create_process("json", encoding=None), timeout)
            except BaseException:
                conn.close()
                raise
            return _SshTransport(conn, process)

        await client._start(connect)
        client._credentials = (username, password)
        return client

    async def _start(self, connect: Callable[[], Any]) -> None:
        self._connect = connect
        self._transport = await connect()
        self._reader = asyncio.get_running_loop().create_task(self._read_loop(self._transport))

    async def reconnect(self) -> None:
        """Drop the connection, open a new one the same way and log in again as before.

        Pending requests fail with :class:`ClientClosed`; the latest state is
        forgotten (the server pushes a fresh one after the login or a ``state``
        request).
        """
        if self._connect is None:
            raise ClientClosed("never connected")
        await self._drop("reconnecting")
        self.closed = asyncio.Event()
        self.close_reason = None
        self._splitter = LineSplitter()
        self._json_seen = False
        self.state = None
        self._transport = await self._connect()
        self._reader = asyncio.get_running_loop().create_task(self._read_loop(self._transport))
        if self._credentials is not None and not isinstance(self._transport, _SshTransport):
            name, password = self._credentials
            await self.login(name, password)

    async def close(self) -> None:
        """Close the connection. Idempotent."""
        await self._drop("closed by client")

    async def _drop(self, reason: str) -> None:
        transport, self._transport = self._transport, None
        reader, self._reader = self._reader, None
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.close()
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        self._fail_all(reason)

    def _fail_all(self, reason: str) -> None:
        if self.close_reason is None or not self.closed.is_set():
            self.close_reason = reason
        self.closed.set()
        pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(ClientClosed(reason))
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.future.done():
                w.future.set_exception(ClientClosed(reason))
        self._push_ready.set()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- reading ------------------------------------------------------------

    async def _read_loop(self, transport: _Transport) -> None:
        reason = "closed by server"
        try:
            while True:
                data = await transport.read()
                if not data:
                    break
                for line in self._splitter.feed(data):
                    self._dispatch_line(line)
        except asyncio.CancelledError:
            raise
        except LineTooLong as exc:
            reason = str(exc)
        except (OSError, EOFError) as exc:
            reason = f"connection lost: {exc}"
        if self._transport is transport:
            self._transport = None
            with contextlib.suppress(Exception):
                await transport.close()
        self._fail_all(reason)

    def skip_events(self, *names: str) -> None:
        """Leave these pushed events unread: counted in :attr:`received` and :attr:`skipped`, never
        parsed nor queued (a load client in the lobby is told of every room opened; parsing that
        news is most of its work while thousands are seated).

        The test is on bytes: a line that starts as an event and holds ``"event":"NAME"`` outside
        any string (inside one, JSON escapes the quotes), so it costs no parse.
        """
        self._skip = tuple(b'"event":' + json.dumps(n).encode() for n in names)

    def _dispatch_line(self, line: bytes) -> None:
        if self._skip and self._json_seen and line.startswith(b'{"type":"event"'):
            for marker in self._skip:
                if marker in line:
                    self.received += 1
                    self.skipped += 1
                    return
        msg = parse_line(line, lenient=not self._json_seen)
        if msg is None:
            if line.strip():
                self.noise += 1
            return
        self._json_seen = True
        self.received += 1
        self.dispatch(msg)

    def dispatch(self, msg: Message) -> None:
        """Route one message from the server (public for tests and custom transports)."""
        kind = msg.get("type")
        if kind in ("ok", "error"):
            if self.on_reply is not None:
                self.on_reply(msg)
            fut = self._pending.pop(msg.get("id"), None) if "id" in msg else None
            if fut is None:
                self.orphans.append(msg)
                del self.orphans[:-100]
            elif not fut.done():
                fut.set_result(msg)
            return
        if kind == "state":
            self.state = msg
        if self.on_push is not None:
            self.on_push(msg)
        if self._pushes.maxlen is not None and len(self._pushes) == self._pushes.maxlen:
            self.dropped_pushes += 1
        self._pushes.append(msg)
        self._push_ready.set()
        if self._waiters:
            for w in list(self._waiters):
                if w.future.done():
                    self._waiters.remove(w)
                elif (w.kind == "any" or w.kind == kind) and (w.predicate is None or w.predicate(msg)):
                    self._waiters.remove(w)
                    w.future.set_result(msg)

    # -- requests -------------------------------------------------------------

    def send(self, cmd: str, **args: Any) -> Any:
        """Send a request without waiting for its reply; returns its ``id`` (reply goes to :attr:`orphans`)."""
        transport = self._transport
        if transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        rid = args.pop("id", None)
        if rid is None:
            rid = next(self._ids)
        self._write({"cmd": cmd, **args, "id": rid})
        return rid

    def _write(self, obj: Message) -> None:
        assert self._transport is not None
        self._transport.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
        self.sent += 1

    def send_raw(self, line: bytes) -> None:
        """Send bytes as they are (tests of bad input); a line end is added when missing."""
        if self._transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        self._transport.write(line if line.endswith(b"\n") else line + b"\n")

    async def request(self, cmd: str, *, timeout: float | None = None, **args: Any) -> Message:
        """Send ``{"cmd": cmd, **args}`` and return the ``ok`` reply.

        Raises :class:`ClientError` (``code``, ``message``) for an ``error``
        reply, :class:`ClientTimeout` when no reply comes in ``timeout``
        seconds (default: the client's), :class:`ClientClosed` when the
        connection ends first.
        """
        reply = await self.request_raw(cmd, timeout=timeout, **args)
        if reply.get("type") == "error":
            raise ClientError(str(reply.get("code")), str(reply.get("message", "")), reply)
        return reply

    async def request_raw(self, cmd: str, *, timeout: float | None = None, **args: Any) -> Message:
        """Like :meth:`request` but returns an ``error`` reply instead of raising it."""
        if self._transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        rid = next(self._ids)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            self._write({"cmd": cmd, **args, "id": rid})
            return await asyncio.wait_for(fut, self.timeout if timeout is None else timeout)
        except TimeoutError:
            raise ClientTimeout(f"no reply to {cmd!r} in time") from None
        finally:
            self._pending.pop(rid, None)

    async def drain(self) -> None:
        if self._transport is not None:
            await self._transport.drain()

    # -- conveniences -------------------------------------------------------

    async def login(self, name: str, password: str | None = None) -> Message:
        """Log in (telnet/TCP); a name without an account is a guest. Remembered for :meth:`reconnect`."""
        args: dict[str, Any] = {"name": name}
        if password is not None:
            args["password"] = password
        reply = await self.request("login", **args)
        self._credentials = (name, password)
        return reply

    async def register(self, name: str, password: str) -> Message:
        """Create an account and log in with it."""
        reply = await self.request("register", name=name, password=password)
        self._credentials = (name, password)
        return reply

    # -- pushes ---------------------------------------------------------------

    async def pushes(self, timeout: float | None = None) -> AsyncIterator[Message]:
        """Every pushed ``state`` and ``event`` in arrival order, until the connection closes.

        ``timeout``: raise :class:`ClientTimeout` when nothing arrives for that long.
        """
        while True:
            msg = self.next_push_nowait()
            if msg is not None:
                yield msg
                continue
            if self.closed.is_set():
                return
            self._push_ready.clear()
            try:
                await asyncio.wait_for(self._push_ready.wait(), timeout)
            except TimeoutError:
                raise ClientTimeout("no push in time") from None

    def next_push_nowait(self) -> Message | None:
        """The oldest push not consumed yet, or ``None``."""
        return self._pushes.popleft() if self._pushes else None

    def pending_pushes(self) -> int:
        return len(self._pushes)

    def clear_pushes(self) -> None:
        self._pushes.clear()

    async def next_state(
        self, predicate: Predicate | None = None, timeout: float | None = None, *, current: bool = False
    ) -> Message:
        """The next pushed state (matching ``predicate``).

        ``current=True`` first checks the latest state already received.
        Pushes seen here are still delivered by :meth:`pushes`.
        """
        if current and self.state is not None and (predicate is None or predicate(self.state)):
            return self.state
        return await self._wait("state", predicate, timeout)

    async def next_event(self, name: str | None = None, timeout: float | None = None,
                         predicate: Predicate | None = None) -> Message:
        """The next pushed event named ``name`` (any event when ``None``) matching ``predicate``."""

        def match(msg: Message) -> bool:
            return (name is None or msg.get("event") == name) and (predicate is None or predicate(msg))

        return await self._wait("event", match, timeout)

    async def _wait(self, kind: str, predicate: Predicate | None, timeout: float | None) -> Message:
        if self.closed.is_set():
            raise ClientClosed(self.close_reason or "closed")
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(kind, predicate, fut)
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(fut, self.timeout if timeout is None else timeout)
        except TimeoutError:
            raise ClientTimeout(f"no {kind} push in time") from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

