"""A WebSocket as a :class:`server.sessions.session.Conn`: the same session as telnet's, over frames.

Two kinds, like the telnet port's two modes:

* ``/ws`` (JSON): one JSON object per text frame, both ways. Each frame is one
  input line; each line the session writes goes out as one frame (without its
  line end).
* ``/term/ws`` (a terminal page): text in both directions. A frame from the page
  is ``d`` then typed characters (keys, pastes), or ``r`` then ``COLSxROWS`` for
  a resize (what NAWS tells a telnet server). Lines are assembled and echoed as
  a telnet server in character mode does (:class:`~server.transports.lines.LineAssembler`).

The input is metered like the other doors' (``input_bytes_per_second``,
``input_burst``): over budget, the client hears why and the connection is cut.
Output frames go straight to the socket (through aiohttp's writer only when
permessage-deflate was agreed); :meth:`WsConn.backlog` counts what waits, so
the session's slow-client rules (``outbound_queue``, ``drain_timeout``) apply
as on the other doors.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from aiohttp import WSMessage, WSMsgType, web

if TYPE_CHECKING:
    from aiohttp.web_protocol import RequestHandler

from server.operations.limits import TokenBucket
from server.transports.lines import CUT_GRACE, INPUT_FLOOD, TOO_LONG, LineAssembler, cut_notice

MIN_SIZE, MAX_SIZE = 20, 500
"""Terminal sizes a page may report (columns or rows); others are clamped."""


def _text_frame(text: str) -> bytes:
    """One unmasked, final text frame (RFC 6455 §5.2), as a server sends it."""
    data = text.encode("utf-8", "replace")
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + data
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + data


class WsConn:
    """One WebSocket: frames in, lines to the session; text out, frames to the browser."""

    crlf = True

    def __init__(self, ws: web.WebSocketResponse, peer: str, *, machine: bool, max_line: int,
                 input_rate: float, input_burst: float, insecure: bool = False,
                 lang: str | None = None) -> None:
        self.ws = ws
        self.peer = peer
        self.machine = machine
        self.kind = "web" if machine else "webterm"
        self.term: str | None = None if machine else "xterm-256color"
        self.width, self.height = 80, 24
        self.env: Mapping[str, str] = {"LANG": lang} if lang else {}
        self.insecure = insecure
        """Plain HTTP from a remote address: passwords are refused (``docs/web.md``)."""
        self.on_resize: Callable[[int, int], None] | None = None
        self.on_cut: Callable[[str], None] | None = None
        self.cut_reason: str | None = None
        self._budget = TokenBucket(input_rate, input_burst)
        self._lines = LineAssembler(max_line)
        self._max_line = max_line
        self._ready: deque[str | object] = deque()
        self._eof = False
        self._wake = asyncio.Event()
        self._out: deque[str] = deque()
        self._out_bytes = 0
        self._out_wake = asyncio.Event()
        self._sent = asyncio.Event()
        self._sent.set()
        self._closing = False
        self._sender: asyncio.Task[None] | None = None
        request = ws._req
        self._transport: asyncio.Transport | None = request.transport if request is not None else None
        self._protocol: RequestHandler | None = request.protocol if request is not None else None
        self._direct = self._transport if not ws.compress else None
        """Frames written straight to the transport (what aiohttp's writer does for an uncompressed
        frame, without a task switch per frame); a compressed socket goes through aiohttp's writer."""

    # -- input (fed by the handler's reading loop) -----------------------------

    def feed(self, msg: WSMessage) -> bool:
        """One frame from the client; False once the connection should stop reading."""
        if self.cut_reason is not None:
            return False
        if msg.type != WSMsgType.TEXT:
            if msg.type == WSMsgType.BINARY:
                return self._metered(len(msg.data))  # not part of either protocol: counted, ignored
            return False
        data: str = msg.data
        if not self._metered(len(data)):
            return False
        if self.machine:
            if len(data) > self._max_line:
                self._ready.append(TOO_LONG)
            else:
                # one frame, one line: a line end inside would make two requests of one frame
                self._ready.append(data.replace("\r", " ").replace("\n", " "))
        elif data[:1] == "r":
            self._resize(data[1:])
            return True
        elif data[:1] == "d":
            fed = self._lines.feed(data[1:])
            if fed.echo:
                self.write(fed.echo)
            self._ready.extend(fed.lines)
        self._wake.set()
        return True

    def _metered(self, size: int) -> bool:
        if self._budget.take(time.monotonic(), max(size, 1)):
            return True
        self._cut(INPUT_FLOOD)
        return False

    def _resize(self, text: str) -> None:
        cols, _, rows = text.partition("x")
        try:
            width, height = int(cols), int(rows)
        except ValueError:
            return
        width = min(max(width, MIN_SIZE), MAX_SIZE)
        height = min(max(height, MIN_SIZE // 2), MAX_SIZE)
        if (width, height) == (self.width, self.height):
            return
        self.width, self.height = width, height
        if self.on_resize is not None:
            self.on_resize(width, height)

    def _cut(self, reason: str) -> None:
        if self.cut_reason is not None:
            return
        self.cut_reason = reason
        if self.on_cut is not None:
            self.on_cut(reason)
        else:
            self.write(cut_notice(reason, machine=self.machine, crlf=not self.machine))
        self.end_of_input()
        asyncio.get_running_loop().call_later(CUT_GRACE, self._close_now)

    def end_of_input(self) -> None:
        self._eof = True
        self._wake.set()

    async def readline(self) -> str | object | None:
        while not self._ready:
            if self._eof or self.cut_reason is not None:
                return None
            self._wake.clear()
            await self._wake.wait()
        return self._ready.popleft()

    # -- output --------------------------------------------------------------

    def write(self, text: str) -> None:
        if self._closing or not text:
            return
        frames = [line for line in text.split("\n") if line] if self.machine else [text]
        if not frames:
            return
        transport = self._direct
        if transport is not None:
            if not transport.is_closing():
                transport.write(b"".join(map(_text_frame, frames)))
            return
        for frame in frames:
            self._queue(frame)

    def write_lines(self, lines: list[str]) -> int | None:
        """What ``write("".join(lines))`` writes, in one write; then :meth:`backlog` (None: ask it)."""
        transport = self._direct
        if transport is None or not self.machine or self._closing:
            self.write("".join(lines))
            return None
        if transport.is_closing():
            return None
        transport.write(b"".join([_text_frame(line) for part in lines for line in part.split("\n") if line]))
        return int(transport.get_write_buffer_size())

    def _queue(self, frame: str) -> None:
        self._out.append(frame)
        self._out_bytes += len(frame)
        self._sent.clear()
        self._out_wake.set()
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send_loop())

    async def _send_loop(self) -> None:
        """Compressed sockets only (permessage-deflate: aiohttp's writer compresses each frame)."""
        ws = self.ws
        try:
            while True:
                while not self._out:
                    self._sent.set()
                    if self._closing:
                        return
                    self._out_wake.clear()
                    await self._out_wake.wait()
                frame = self._out.popleft()
                self._out_bytes -= len(frame)
                await ws.send_str(frame)
        except (ConnectionError, RuntimeError, asyncio.CancelledError):
            self._out.clear()
            self._out_bytes = 0
            self._sent.set()
            self.end_of_input()

    def backlog(self) -> int:
        buffered = self._transport.get_write_buffer_size() if self._transport is not None else 0
        return self._out_bytes + int(buffered)

    async def drain(self) -> None:
        await self._sent.wait()
        helper = getattr(self._protocol, "_drain_helper", None)
        if self._transport is not None and not self._transport.is_closing() and helper is not None:
            await helper()  # the transport's flow control (paused above its high-water mark)

    def set_secret(self, secret: bool) -> None:
        self._lines.secret = secret

    def set_machine(self) -> None:
        """JSON mode: already frames of JSON (nothing to stop, unlike telnet's negotiation)."""

    def close(self) -> None:
        """Send what is queued (for :data:`CUT_GRACE` seconds at most), then close."""
        if self._closing:
            return
        self._closing = True
        self._out_wake.set()
        self.end_of_input()
        asyncio.get_running_loop().create_task(self._close_after_sent())

    async def _close_after_sent(self) -> None:
        with contextlib.suppress(BaseException):
            async with asyncio.timeout(CUT_GRACE):
                await self.drain()
        await self._close_now_async()

    def _close_now(self) -> None:
        asyncio.get_running_loop().create_task(self._close_now_async())

    async def _close_now_async(self) -> None:
        self._closing = True
        if self._sender is not None:
            self._sender.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.ws.close(), 2)
