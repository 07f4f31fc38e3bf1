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
sans-I/O, in :mod:`clients.framing`, and tested without a network.

One reader task per client reads the lines; a TCP client connected with
``pushed=True`` (the load generator's) has its bytes cut into lines and
dispatched in the event loop's own read callback instead (:class:`~clients.transports.TcpProtocol`:
no task woken per chunk). Replies go to the request awaiting their ``id``
(:meth:`Client.request`, or the future of :meth:`Client.start_request` for
callers driven by callbacks); ``state`` and ``event`` pushes go to the push
queue (:meth:`Client.pushes`), to the waiters of :meth:`Client.next_state` /
:meth:`Client.next_event`, and the latest state is kept in
:attr:`Client.state`. :meth:`Client.light_events` queues events by their
name alone, unparsed (the load generator's bots only count them).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

import orjson

from clients.errors import ClientClosed, ClientError, ClientTimeout
from clients.framing import DO_MCCP2, WONT_TTYPE, LineSplitter, LineTooLong, Message, parse_line
from clients.jsontypes import JSONValue
from clients.transports import (
    SshTransport,
    TcpProtocol,
    TcpPushTransport,
    TcpTransport,
    Transport,
    ssh_connect,
    ws_connect,
)

if TYPE_CHECKING:
    from asyncssh import SSHKey

Predicate = Callable[[Message], bool]

_EVENT_HEAD = b'{"type":"event","event":"'
"""How the server starts every event line (``{"type": "event", **event}``, compact): the name follows."""
_NAME_AT = len(_EVENT_HEAD)


# ---------------------------------------------------------------------------
# the client

_T = TypeVar("_T")


def _time_out(fut: asyncio.Future[_T], message: str) -> None:
    if not fut.done():
        fut.set_exception(ClientTimeout(message))


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
        self.on_chunk: Callable[[], None] | None = None
        """Called (synchronously, in the reader) once the lines of one read were dispatched; while
        they are, :attr:`reading` is true (a wire bot then takes the whole read as one batch, at once)."""
        self.reading = False
        self.on_close: Callable[[], None] | None = None
        """Called (synchronously) once the connection is closed, after pending requests and waiters failed."""
        self.on_reply: Callable[[Message], None] | None = None
        """Called (synchronously, in the reader task) for every reply, before its request sees it:
        what was pushed before a reply was pushed before the server handled the request."""
        self._transport: Transport | None = None
        self._splitter = LineSplitter()
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[object, asyncio.Future[Message]] = {}  # by request id
        self._waiters: list[_Waiter] = []
        self._pushes: collections.deque[Message] = collections.deque(maxlen=keep_pushes or None)
        self._push_waiters: list[asyncio.Future[None]] = []
        self._json_seen = False
        self._connect: Callable[[], Awaitable[Transport]] | None = None
        self._credentials: tuple[str, str | None] | None = None
        self.resume: str | None = None
        """The guest's resume code the server gave at login (server/people/resume.py), or None."""
        self.dropped_pushes = 0
        """Pushes dropped because nobody consumed the queue (``keep_pushes`` oldest are kept)."""
        self._skip: tuple[bytes, ...] = ()
        self.skipped = 0
        """Events left unread (:meth:`skip_events`)."""
        self._light: frozenset[bytes] | None = None
        self.light = 0
        """Events queued by their name alone (:meth:`light_events`)."""

    # -- connecting -------------------------------------------------------

    @classmethod
    async def connect_tcp(
        cls, host: str, port: int, *, timeout: float = 10.0, keep_pushes: int = 10_000,
        local_addr: str | None = None, pushed: bool = False, mccp: bool = False,
    ) -> Client:
        """Connect to the telnet port as a raw TCP client and enter JSON mode.

        Sends ``IAC WONT TTYPE`` (the telnet server starts the shell at once
        instead of waiting for a negotiation) then the line ``json``; telnet
        commands the server sends are skipped, never answered. ``local_addr``:
        the address to connect from (tests and benchmarks play many addresses
        with ``127.0.0.N``). ``pushed``: the bytes are dispatched in the loop's
        read callback (:class:`TcpProtocol`, the load generator's clients)
        instead of by a reader task; the same lines, one task switch less per
        read, and the connection's end is seen a loop turn sooner. ``mccp`` (with
        ``pushed``): ask for MCCP2 (``IAC DO MCCP2`` first) and inflate what comes.
        """
        client = cls(timeout=timeout, keep_pushes=keep_pushes)
        local = None if local_addr is None else (local_addr, 0)

        async def connect() -> Transport:
            if not pushed:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local),
                                                        timeout)
                writer.write(WONT_TTYPE + b"json\r\n")
                return TcpTransport(reader, writer)
            loop = asyncio.get_running_loop()
            transport, protocol = await asyncio.wait_for(
                loop.create_connection(lambda: TcpProtocol(mccp), host, port, local_addr=local), timeout)
            transport.write(WONT_TTYPE + (DO_MCCP2 if mccp else b"") + b"json\r\n")
            return TcpPushTransport(transport, protocol)

        await client._start(connect)
        return client

    @classmethod
    async def connect_ssh(
        cls,
        host: str,
        port: int,
        username: str,
        password: str | None = None,
        client_keys: Sequence[SSHKey] | None = None,
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

        async def connect() -> Transport:
            conn = await ssh_connect(host, port, username, password, client_keys, timeout=timeout)
            try:
                process = await asyncio.wait_for(conn.create_process("json", encoding=None), timeout)
            except BaseException:
                conn.close()
                raise
            return SshTransport(conn, process)

        await client._start(connect)
        client._credentials = (username, password)
        return client

    @classmethod
    async def connect_ws(cls, url: str, *, origin: str | None = None, timeout: float = 10.0,
                         keep_pushes: int = 10_000) -> Client:
        """Connect to the web port's JSON WebSocket (``ws://host:port/ws``); then ``login`` as over TCP.

        ``origin``: the ``Origin`` header to send (a browser's page always sends one; a
        foreign origin is refused)."""
        client = cls(timeout=timeout, keep_pushes=keep_pushes)

        async def connect() -> Transport:
            return await ws_connect(url, origin=origin, timeout=timeout)

        await client._start(connect)
        return client

    async def _start(self, connect: Callable[[], Awaitable[Transport]]) -> None:
        self._connect = connect
        self._begin(await connect())

    def _begin(self, transport: Transport) -> None:
        """Read ``transport``: a pushing one (:class:`TcpPushTransport`) feeds :meth:`_feed` itself,
        any other is read by a reader task."""
        self._transport = transport
        if isinstance(transport, TcpPushTransport):
            transport.protocol.attach(self)
        else:
            self._reader = asyncio.get_running_loop().create_task(self._read_loop(transport))

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
        self._begin(await self._connect())
        if self._credentials is not None and not isinstance(self._transport, SshTransport):
            name, password = self._credentials
            await self.login(name, password, resume=self.resume)
        elif self._credentials is not None and self.resume is not None:
            # SSH logs a guest in by its name, unless that name holds a seat: then the session waits
            # for a login with the code (an account, or a guest holding nothing: already logged in)
            credentials = self._credentials
            try:
                await self.login(credentials[0], resume=self.resume)
            except ClientError as exc:
                if exc.code != "already_logged_in":
                    raise
            finally:
                self._credentials = credentials

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
        self._wake_pushes()
        if self.on_close is not None:
            self.on_close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- reading ------------------------------------------------------------

    async def _read_loop(self, transport: Transport) -> None:
        reason = "closed by server"
        try:
            while True:
                data = await transport.read()
                if not data:
                    break
                self._dispatch_chunk(self._splitter.feed(data))
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

    def _feed(self, data: bytes) -> None:
        """The data bytes of one chunk from a pushing transport: its lines dispatched now."""
        try:
            lines = self._splitter.feed(data)
        except LineTooLong as exc:
            transport, self._transport = self._transport, None
            if isinstance(transport, TcpPushTransport):
                transport.transport.close()
            self._fail_all(str(exc))
            return
        self._dispatch_chunk(lines)

    def _dispatch_chunk(self, lines: list[bytes]) -> None:
        """The lines of one read, then :attr:`on_chunk`."""
        self.reading = True
        try:
            for line in lines:
                self._dispatch_line(line)
        finally:
            self.reading = False
        if self.on_chunk is not None:
            self.on_chunk()

    def _lost(self, protocol: TcpProtocol, reason: str) -> None:
        """The connection of ``protocol`` ended (a pushing transport's end of stream)."""
        transport = self._transport
        if isinstance(transport, TcpPushTransport) and transport.protocol is protocol:
            self._transport = None
            self._fail_all(reason)

    def skip_events(self, *names: str) -> None:
        """Leave these pushed events unread: counted in :attr:`received` and :attr:`skipped`, never
        parsed nor queued (a load client in the lobby is told of every room opened; parsing that
        news is most of its work while thousands are seated).

        The test is on bytes: a line that starts as an event and holds ``"event":"NAME"`` outside
        any string (inside one, JSON escapes the quotes), so it costs no parse.
        """
        self._skip = tuple(b'"event":' + json.dumps(n).encode() for n in names)

    def light_events(self, *parsed: str) -> None:
        """Queue pushed events by their name alone, unparsed: ``{"type": "event", "event": NAME}``, except
        the events named in ``parsed`` (a wire bot whose strategy observes no event only counts them by
        name; parsing them was a good part of a load client's work).

        Only a line that starts exactly as the server writes an event (``{"type":"event","event":"NAME"``)
        is taken by its name; any other line, and any line while a :meth:`next_state` /
        :meth:`next_event` waiter is pending (its predicate may read the fields), is parsed whole.
        """
        self._light = frozenset(n.encode() for n in parsed)

    def full_events(self) -> None:
        """Parse every pushed event again (the default; undoes :meth:`light_events`)."""
        self._light = None

    def _dispatch_line(self, line: bytes) -> None:
        if self._json_seen and line.startswith(b'{"type":"event"'):
            if self._skip:
                for marker in self._skip:
                    if marker in line:
                        self.received += 1
                        self.skipped += 1
                        return
            if self._light is not None and not self._waiters and line.startswith(_EVENT_HEAD):
                end = line.find(b'"', _NAME_AT)
                name = line[_NAME_AT:end]
                if end > _NAME_AT and name not in self._light and b"\\" not in name:
                    self.received += 1
                    self.light += 1
                    self.dispatch({"type": "event", "event": name.decode(errors="replace")})
                    return
        if self._json_seen and line[:1] == b"{":  # JSON mode: the line is one object (parse_line, less a copy)
            try:
                msg = orjson.loads(line)
            except ValueError:  # orjson.JSONDecodeError
                msg = None
            if not isinstance(msg, dict):
                msg = None
        else:
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
        elif msg.get("event") == "notice" and msg.get("code") == "resume_code" \
                and isinstance(resume := msg.get("resume"), str):
            self.resume = resume  # a guest sat down: the code that takes the seat back
        if self.on_push is not None:
            self.on_push(msg)
        if self._pushes.maxlen is not None and len(self._pushes) == self._pushes.maxlen:
            self.dropped_pushes += 1
        self._pushes.append(msg)
        if self._push_waiters:
            self._wake_pushes()
        if self._waiters:
            for w in list(self._waiters):
                if w.future.done():
                    self._waiters.remove(w)
                elif (w.kind == "any" or w.kind == kind) and (w.predicate is None or w.predicate(msg)):
                    self._waiters.remove(w)
                    w.future.set_result(msg)

    # -- requests -------------------------------------------------------------

    def send(self, cmd: str, **args: JSONValue) -> JSONValue:
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
        try:  # the bytes of the standard library's compact, non-ASCII encoder, in a fraction of its time
            line = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # orjson.JSONEncodeError: what orjson refuses (an int beyond 64 bits)
            line = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        self._transport.write(line)
        self.sent += 1

    def send_raw(self, line: bytes) -> None:
        """Send bytes as they are (tests of bad input); a line end is added when missing."""
        if self._transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        self._transport.write(line if line.endswith(b"\n") else line + b"\n")

    async def request(self, cmd: str, *, timeout: float | None = None, **args: JSONValue) -> Message:
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

    def start_request(self, cmd: str, *, timeout: float | None = None,
                      on_done: Callable[[asyncio.Future[Message]], None] | None = None,
                      **args: JSONValue) -> asyncio.Future[Message]:
        """Send ``{"cmd": cmd, **args}`` now; the future of its reply (``ok`` or ``error``), for a caller
        driven by callbacks (the wire bots): it fails with :class:`ClientTimeout` after ``timeout``
        seconds (default: the client's), with :class:`ClientClosed` when the connection ends first.
        Cancelling it forgets the request. ``on_done(future)`` is called once it is done (the
        future's own done callback: no second one to schedule)."""
        if self._transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        rid = next(self._ids)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Message] = loop.create_future()
        timer = loop.call_later(self.timeout if timeout is None else timeout, _time_out, fut,
                                f"no reply to {cmd!r} in time")

        def forget(_: asyncio.Future[Message]) -> None:
            timer.cancel()
            if self._pending.get(rid) is fut:
                del self._pending[rid]
            if on_done is not None:
                on_done(fut)

        fut.add_done_callback(forget)
        self._pending[rid] = fut
        try:
            self._write({"cmd": cmd, **args, "id": rid})
        except BaseException:
            fut.cancel()
            raise
        return fut

    async def request_raw(self, cmd: str, *, timeout: float | None = None, **args: JSONValue) -> Message:
        """Like :meth:`request` but returns an ``error`` reply instead of raising it."""
        if self._transport is None:
            raise ClientClosed(self.close_reason or "not connected")
        rid = next(self._ids)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Message] = loop.create_future()
        self._pending[rid] = fut
        # one timer, no ``wait_for`` (its task and callbacks were much of a load client's CPU)
        timer = loop.call_later(self.timeout if timeout is None else timeout, _time_out, fut,
                                f"no reply to {cmd!r} in time")
        try:
            self._write({"cmd": cmd, **args, "id": rid})
            return await fut
        finally:
            timer.cancel()
            self._pending.pop(rid, None)

    async def drain(self) -> None:
        if self._transport is not None:
            await self._transport.drain()

    # -- conveniences -------------------------------------------------------

    async def login(self, name: str, password: str | None = None, resume: str | None = None) -> Message:
        """Log in (telnet/TCP); a name without an account is a guest. Remembered for :meth:`reconnect`.

        ``resume``: a guest's resume code, to take back a guest name that holds a seat; the code the
        server gives a guest is kept in :attr:`resume` (and given again by :meth:`reconnect`)."""
        args: dict[str, JSONValue] = {"name": name}
        if password is not None:
            args["password"] = password
        if resume is not None:
            args["resume"] = resume
        reply = await self.request("login", timeout=None, **args)
        self._credentials = (name, password)
        code = reply.get("resume") if isinstance(reply, Mapping) else None
        if isinstance(code, str):
            self.resume = code
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
            await self._push_arrival(timeout)

    async def _push_arrival(self, timeout: float | None) -> None:
        """Wait for the next push (or the end of the connection); :class:`ClientTimeout` after ``timeout``."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._push_waiters.append(fut)
        timer = None if timeout is None else loop.call_later(timeout, _time_out, fut, "no push in time")
        try:
            await fut
        finally:
            if timer is not None:
                timer.cancel()
            if fut in self._push_waiters:  # timed out, or cancelled from outside
                self._push_waiters.remove(fut)

    def _wake_pushes(self) -> None:
        waiters, self._push_waiters = self._push_waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

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

