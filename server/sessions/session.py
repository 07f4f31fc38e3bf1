"""One person or program connected, whatever the transport.

A :class:`Session` knows who it is (name, guest, language), what its terminal
can show (width, colour, Unicode), and owns an outbound queue: rooms and the
lobby only ever *enqueue*, so a slow or stuck client can never block them.
What is queued during one turn of the event loop goes out at the next in one
write (one send for a state and its events; one loop callback writes every
session that has something, :class:`Flushes`); only a client whose transport
holds unsent bytes gets a task that waits for it to read them. When the
queue passes ``outbound_queue`` messages, or such a wait takes longer than
``drain_timeout``, the client is too slow and is disconnected.

How things are shown and how input lines are read is the job of one presenter
(:mod:`server.presenters`), chosen with the mode: text for a person, JSON for a
program. :meth:`Session.run` reads lines until the end, hands each to the
presenter, and runs the commands it makes through :func:`server.sessions.dispatch.dispatch`.

Transports (``server/transports/``) give the session a :class:`Conn`: line
input, raw output, echo control and terminal facts. Logging in and choosing the
mode and language happen before, in :mod:`server.sessions.frontdoor`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from server.lobby.moderation import MARKS, ignored_origin
from server.messages.terminal import TermStyle
from server.messages.translations import lang_from_env, translation
from server.operations import metrics
from server.operations.limits import RateLimiter
from server.people.flushes import DROPPED, Flushes
from server.people.players import Player
from server.presenters import Local, Presenter, Quit, Request
from server.presenters.gmcp import GmcpFeed
from server.presenters.json import JsonPresenter
from server.presenters.text import TextPresenter
from server.protocol import Shared, encode, has_surrogate
from server.sessions.dispatch import dispatch, rate_ok
from server.storage.names import name_key
from server.transports.lines import TOO_LONG

log = logging.getLogger(__name__)

IGNORABLE = frozenset({"chat", "tell", "message"})
"""Events a person never sees from someone they ignore: chat, tells, offline messages (announcements
are not among them)."""


class Conn(Protocol):
    """What a transport gives a session."""

    kind: str  # "telnet" | "ssh"
    peer: str  # client address, for limits and logs
    term: str | None  # terminal type, None without a terminal
    width: int
    height: int
    env: Mapping[str, str]  # LANG, LC_* ... as the client sent them
    crlf: bool  # text output needs "\r\n" line ends
    on_resize: Callable[[int, int], None] | None

    async def readline(self) -> str | object | None:
        """The next line without its end; ``TOO_LONG`` for a refused line; ``None`` at the end."""
        ...

    def write(self, text: str) -> None: ...

    # optional: ``write_lines(lines)``, what ``write("".join(lines))`` writes, made more cheaply; it
    # returns backlog() when it knows it without a call, else None

    def backlog(self) -> int:
        """Bytes written that the network has not taken yet (``drain`` can only wait when there are)."""
        ...

    async def drain(self) -> None: ...

    def set_secret(self, secret: bool) -> None:
        """Stop (True) or restart (False) echoing what the client types (passwords)."""
        ...

    def close(self) -> None: ...


class Host(Protocol):
    """What a session needs of the server: its settings, the lobby to leave, the open sessions."""

    @property
    def config(self) -> Any: ...
    @property
    def lobby(self) -> Any: ...
    @property
    def sessions(self) -> set[Any]: ...


def term_caps(term: str | None) -> tuple[bool, bool]:
    """(colour, unicode) for a terminal type: dumb or unknown terminals get plain ASCII."""
    t = (term or "").lower()
    if not t or t in ("dumb", "unknown", "network", "vt52") or t.startswith("vt1"):
        return False, False
    color = any(k in t for k in ("xterm", "screen", "tmux", "rxvt", "linux", "color", "ansi", "putty",
                                  "konsole", "kitty", "alacritty", "iterm", "foot", "wezterm", "vt2",
                                  "st-", "gnome", "cygwin"))
    return color, color


class Session:
    _ids = itertools.count(1)

    def __init__(self, app: Host, conn: Conn, *, mode: str = "text") -> None:
        cfg = app.config
        self.id = next(self._ids)
        self.app = app
        self.conn = conn
        self.name: str | None = None
        self.guest = True
        self.lang = lang_from_env(conn.env) or cfg.default_lang
        self.width = conn.width or 80
        self.height = conn.height or 24
        self.color, self.unicode = term_caps(conn.term)
        self._screen_reader: bool | None = None  # screen-reader mode once chosen (``reader on``); else MTTS's
        self.player: Player | None = None
        self.welcomed = False  # greeted at the door already (an account coming back)
        self.presenter: Presenter = JsonPresenter(self) if mode == "json" else TextPresenter(self)
        self._crlf = self.presenter.mode == "text" and conn.crlf  # text written with "\r\n" line ends
        self._last_state: Mapping[str, Any] | None = None  # the last state received (text: for the parser)
        self._last_states: tuple[Any, int | None] | None = None  # (StateSet, seat) it is read from, if not made yet
        self._reader: asyncio.Task[Any] | None = None  # the task waiting in readline(), for close()
        self._stopping_read = False  # close() cancelled that wait (not someone else)
        self.limiter = RateLimiter.of(cfg.commands_per_second, cfg.command_burst, cfg.flood_disconnect)
        self.closed = asyncio.Event()
        self.done = asyncio.Event()  # set once the connection is closed and the lobby told
        self.close_reason: str | None = None
        self.connected_at = time.monotonic()
        self.last_input = self.connected_at
        self._out: list[str] = []  # queued, not written yet (at most ``outbound_queue``)
        write_lines = getattr(conn, "write_lines", None)
        self._write_lines: Callable[[list[str]], int | None] = write_lines if write_lines is not None else \
            (lambda lines: conn.write("".join(lines)))
        self._max_out = cfg.outbound_queue
        self._loop: asyncio.AbstractEventLoop | None = None  # set by start(): output may flow
        self._flushes: Flushes | None = None  # the loop's writer of queued output (set with _loop)
        self._flush_due = False  # a flush is scheduled for the next turn of the loop
        self._drainer: asyncio.Task[None] | None = None  # waiting for the client to read a backlog
        self._queued = 0  # lines put in the queue, ever ...
        self._written = 0  # ... and written
        self._stamps: collections.deque[tuple[int, metrics.Stamp]] = collections.deque()  # (line, its command)
        self._timer: asyncio.TimerHandle | None = None
        self._closer: asyncio.Task[None] | None = None
        conn.on_resize = self._resized
        self.gmcp: GmcpFeed | None = None  # GMCP beside the text (a telnet MUD client): see _gmcp_feed
        self._gmcp_link: Any = getattr(conn, "gmcp", None)
        if self._gmcp_link is not None and self.presenter.mode == "text":
            self.gmcp = self._gmcp_feed()
        app.sessions.add(self)

    def __repr__(self) -> str:
        return f"<Session {self.id} {self.conn.kind} {self.name or '-'} {self.mode}>"

    # -- facts ----------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self.presenter.mode

    @mode.setter
    def mode(self, mode: str) -> None:
        """Choose the presenter (``text`` or ``json``)."""
        if mode != self.presenter.mode:
            self.presenter.close()
            self.presenter = JsonPresenter(self) if mode == "json" else TextPresenter(self)
            self._crlf = self.presenter.mode == "text" and self.conn.crlf
            self.gmcp = self._gmcp_feed() if self._gmcp_link is not None and mode == "text" else None

    def _gmcp_feed(self) -> GmcpFeed:
        """GMCP beside the text (docs/gmcp.md): the same states and events as the JSON mode."""
        def place() -> tuple[str | None, int | None]:
            player = self.player
            room = player.room if player is not None else None
            if room is None or player is None:
                return None, None
            return room.id, player.seat

        def rooms() -> list[dict[str, Any]]:
            return [summary for summary, _free in self.app.lobby.room_list()]

        return GmcpFeed(self, self._gmcp_link, place, rooms)

    @property
    def logged_in(self) -> bool:
        return self.name is not None

    @property
    def style(self) -> TermStyle:
        if self.reader:
            return TermStyle(width=self.width, unicode=self.unicode, color=False, reader=True)
        return TermStyle(width=self.width, unicode=self.unicode, color=self.color)

    @property
    def reader(self) -> bool:
        """Screen-reader mode (docs/playing.md): chosen with ``reader on|off``, else what the client's
        MTTS said (its screen-reader bit)."""
        chosen = self._screen_reader
        if chosen is not None:
            return chosen
        return bool(getattr(self.conn, "screen_reader", False))

    @reader.setter
    def reader(self, on: bool) -> None:
        self._screen_reader = on
        if hasattr(self.conn, "reader_mode"):
            self.conn.reader_mode = on  # (telnet: nothing redrawn in place in that mode)

    def gettext(self, msgid: str) -> str:
        return translation(self.lang).gettext(msgid)

    def where(self) -> tuple[Mapping[str, Any] | None, str]:
        """The last state received at the reader's table (None before the first), and where they are."""
        player = self.player
        room = player.room if player is not None else None
        if room is None:
            return None, "lobby"
        state = self.last_state
        if state is None or state.get("room") != room.id:
            return None, "room"
        return state, "room"

    @property
    def last_state(self) -> Mapping[str, Any] | None:
        """The last state received (None before the first)."""
        got = self._last_states
        if got is not None:  # pushed by push_states in JSON mode: read from its StateSet when asked
            self._last_states = None
            self._last_state = got[0].reader(got[1])
        return self._last_state

    def _resized(self, width: int, height: int) -> None:
        if width > 0 and height > 0:
            self.width, self.height = width, height

    # -- output ---------------------------------------------------------------

    def start(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._flushes = Flushes.of(self._loop)
            self._schedule_flush()  # what was queued before
            self._arm_timer()

    def send_raw(self, text: str) -> None:
        """Queue text for the client (``\\n`` line ends); drops the client if it cannot keep up."""
        if not text or self.close_reason is not None:  # (closed: set with it, without a call)
            return
        if self._crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        out = self._out
        if len(out) >= self._max_out:
            log.info("%r: outbound queue full, disconnecting a slow client", self)
            metrics.queue_drop()
            self.close("slow")
            return
        out.append(text)
        self._queued = queued = self._queued + 1
        metrics.line_queued_to(self._stamps, queued)
        if not self._flush_due:
            self._schedule_flush()

    def _wrote(self, lines: int) -> None:
        """``lines`` more were written: the commands waiting for them are told."""
        self._written = written = self._written + lines
        stamps = self._stamps
        while stamps and stamps[0][0] <= written:
            stamps.popleft()[1].release()

    def send_json(self, obj: Mapping[str, Any]) -> None:
        self.send_raw(encode(obj))

    def send_text(self, text: str) -> None:
        """A sentence for a person (text mode); nothing in JSON mode."""
        self.send_raw(self.presenter.text(text))

    def _schedule_flush(self) -> None:
        """The queue goes out at the next turn of the loop, unless a drain is under way (it writes)."""
        loop, flushes = self._loop, self._flushes
        if loop is not None and flushes is not None and self._out and not self._flush_due and self._drainer is None:
            self._flush_due = True
            flushes.add(self, loop)

    def _write_out(self) -> bool:
        """Everything queued in one write; True when the transport took it all (nothing to wait for)."""
        out = self._out
        self._out = []
        conn = self.conn
        try:
            left = self._write_lines(out)
        except (ConnectionError, OSError, EOFError) as exc:
            log.debug("%r: write failed: %s", self, exc)
            self.close("lost")
            return False
        except Exception:
            log.exception("%r: writer failed", self)
            self.close("error")
            return False
        self._written = written = self._written + len(out)  # (_wrote)
        stamps = self._stamps
        while stamps and stamps[0][0] <= written:
            stamps.popleft()[1].release()
        if conn.backlog() if left is None else left:  # (most writes go straight to the socket: nothing to wait for)
            if self._drainer is None and self._loop is not None:
                self._drainer = self._loop.create_task(self._drain(), name=f"drain-{self.id}")
            return False
        return True

    async def _drain(self) -> None:
        """The client has unread bytes: wait (``drain_timeout`` at most each time) and write what
        was queued meanwhile, until the transport is clear."""
        timeout = self.app.config.drain_timeout
        try:
            while True:
                async with asyncio.timeout(timeout):
                    await self.conn.drain()
                if not self._out or self.close_reason in DROPPED or self._write_out():
                    return
        except TimeoutError:
            log.info("%r: client stopped reading, disconnecting", self)
            metrics.drain_timeout()
            self.close("slow")
        except (ConnectionError, OSError, EOFError) as exc:  # the drain's (a write's: _write_out's own)
            log.debug("%r: write failed: %s", self, exc)
            self.close("lost")
        except Exception:
            log.exception("%r: writer failed", self)
            self.close("error")
        finally:
            self._drainer = None
            if self.close_reason is None:
                self._schedule_flush()

    # -- what the lobby, rooms and the dispatcher push ------------------------------

    def push_state(self, state: Mapping[str, Any], line: str | None = None) -> None:
        """``line``: ``state`` already encoded as its JSON-mode line (``{"type": "state", ...}``)."""
        self._last_states = None
        self._last_state = state
        self.send_raw(self.presenter.state(state, line))
        if self.gmcp is not None:
            self.gmcp.state(state)

    def push_states(self, states: Any, seat: int | None) -> None:
        """This reader's state out of a table's :class:`~server.table.states.StateSet`."""
        if self.presenter.mode == "json":  # the line is enough; the dict is made if the last state is read
            self._last_states = (states, seat)
            self.send_raw(states.line(seat))
            return
        state = states.state(seat)
        self._last_states = None
        self._last_state = state
        self.send_raw(self.presenter.state(state))
        if self.gmcp is not None:
            self.gmcp.state(state)

    def push_event(self, event: Mapping[str, Any], names: tuple[str, ...] | list[str] | None = None,
                   you: int | None = None) -> None:
        """An event as ``{"event": NAME, ...}``; its ``text`` is written in the session's language."""
        self.send_raw(self.event_line(event, names, you))

    def event_line(self, event: Mapping[str, Any], names: tuple[str, ...] | list[str] | None = None,
                   you: int | None = None) -> str:
        """What :meth:`push_event` queues for ``event`` (``""``: nothing to say)."""
        if self._ignored(event):
            return ""
        if self.gmcp is not None:
            self.gmcp.event(event, tuple(names) if names is not None else None, you)
        return self.presenter.event(event, tuple(names) if names is not None else None, you)

    def _ignored(self, event: Mapping[str, Any]) -> bool:
        """Chat and tells from someone this person ignores (``ignore NAME``) are not shown to them."""
        if event.get("event") not in IGNORABLE or self.player is None:
            return False
        ignores = self.player.extra.get("ignores")
        if not ignores:
            return False
        speaker = event.get("name") or event.get("from")
        if not isinstance(speaker, str):
            return False
        if name_key(speaker) in ignores:
            return True
        marks = self.player.extra.get(MARKS)  # a guest ignored: whoever comes from its address or key
        return isinstance(marks, dict) and ignored_origin(ignores, marks, self.app.lobby.players.get(name_key(speaker)))

    def push_shared(self, shared: Shared, you: int | None = None) -> None:
        """An event pushed to many sessions at once (see :class:`server.protocol.Shared`)."""
        self.send_raw(self.shared_line(shared, you))

    def shared_line(self, shared: Shared, you: int | None = None) -> str:
        """Exactly what ``push_event(shared.event, shared.names, you)`` would queue, made once per
        kind of reader (:meth:`render_key`) and reading (the seat, when the event's words name it:
        ``server.messages.kit.reading``)."""
        event = shared.event
        if event.get("event") in IGNORABLE and self._ignored(event):
            return ""
        if self.gmcp is not None:
            self.gmcp.shared(shared, you)
        return self.presenter.shared(shared, you)

    def render_key(self) -> tuple[Any, ...]:
        """Sessions with the same key are shown the same words for the same event and reader."""
        return self.presenter.render_key()

    def reply_ok(self, req_id: Any, cmd: str, result: Mapping[str, Any] | None) -> None:
        self.send_raw(self.presenter.ok(req_id, cmd, result))
        if self.gmcp is not None:
            self.gmcp.status()  # (a command may have moved them: join, leave, watch, lang)

    def reply_error(self, req_id: Any, code: str, **params: Any) -> None:
        params.pop("style", None)
        self.send_raw(self.presenter.error(req_id, code, params))

    def notice(self, what: str, **params: Any) -> None:
        """A server notice (``{"event": "notice", "code": what}``) in the session's language.

        ``resume_code`` (a guest sat down) carries the guest's own code, known to this session's
        player only (with a table on another node, the code never travels: it is added here)."""
        if what == "resume_code":
            code = getattr(self.player, "code", None)
            if not code:
                return
            params = {**params, "resume": code, "name": getattr(self.player, "name", "")}
        self.push_event({"event": "notice", "code": what, **params})

    async def ask_secret(self, prompt: str) -> str | None:
        """A person types something without echo (a password), prompted with ``prompt`` (a sentence
        in the session's language); ``None`` for a program, which gives it as an argument."""
        if self.presenter.mode != "text":
            return None
        self.conn.set_secret(True)
        self.send_raw(prompt)
        try:
            line = await self.readline()
        finally:
            self.conn.set_secret(False)
        self.send_raw("\n")
        return line if isinstance(line, str) else ""

    # -- lifetime ---------------------------------------------------------------

    def touch(self) -> None:
        self.last_input = time.monotonic()

    def _arm_timer(self) -> None:
        """One timer for the login time-out, then for the idle time-out outside a seat."""
        if self._timer is not None:
            self._timer.cancel()
        cfg = self.app.config
        if not self.logged_in:
            delay = cfg.login_timeout - (time.monotonic() - self.connected_at)
        elif cfg.idle_timeout > 0:
            delay = cfg.idle_timeout - (time.monotonic() - self.last_input)
        else:
            self._timer = None
            return
        self._timer = asyncio.get_running_loop().call_later(max(delay, 0.05), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self.closed.is_set():
            return
        cfg = self.app.config
        now = time.monotonic()
        if not self.logged_in:
            if now - self.connected_at >= cfg.login_timeout:
                self.notice("login_timeout")
                self.close("login timeout")
                return
        elif now - self.last_input >= cfg.idle_timeout and not (self.player and self.player.seated):
            self.notice("idle")
            self.close("idle")
            return
        elif self.player and self.player.seated:
            self.last_input = now  # a seated player is never idle-kicked; the room's timers act
        self._arm_timer()

    @property
    def resume_code(self) -> str | None:
        """A guest's resume code, for their own eyes (help, whoami); None for an account."""
        player = self.player
        return player.code if player is not None and player.guest else None

    def logged(self, name: str, guest: bool) -> None:
        self.name = name
        self.guest = guest
        self.touch()
        self._arm_timer()
        if self.mode == "text" and not self.welcomed:
            # A person is greeted now, before a table they get back is drawn and prompts them
            # (the room draws it as soon as the login returns, before run() starts reading).
            self.send_raw(self.presenter.start())
            self.welcomed = True
        if self.gmcp is not None:
            self.gmcp.logged()

    def close(self, reason: str = "closed") -> None:
        """End the session. Idempotent; queued output is flushed for a short while first."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.presenter.close()
        reader = self._reader
        if reader is not None and not self._stopping_read and reader is not asyncio.current_task():
            self._stopping_read = True  # readline() tells this cancellation from anyone else's
            reader.cancel()
        self._closer = asyncio.get_running_loop().create_task(self._finish(reason), name=f"close-{self.id}")

    async def _finish(self, reason: str) -> None:
        drainer = self._drainer
        if reason in DROPPED:  # a client that cannot take more, or is gone: nothing more goes out
            self._out = []
            if drainer is not None:
                drainer.cancel()
        elif self._loop is not None:  # what was queued goes out first, for two seconds at most
            with contextlib.suppress(BaseException):
                async with asyncio.timeout(2.0):
                    if drainer is not None:
                        await asyncio.shield(drainer)
                    if self._out and self._drainer is None:
                        self._write_out()  # (starts a drain when the client has not read it all)
                    if self._drainer is not None:
                        await asyncio.shield(self._drainer)
            if self._drainer is not None:
                self._drainer.cancel()
        with contextlib.suppress(Exception):
            self.conn.close()
        self._wrote(self._queued - self._written)  # never written: the commands waiting are done with it
        try:
            await self.app.lobby.detach(self)
        except Exception:
            log.exception("%r: detach failed", self)
        finally:
            self.app.sessions.discard(self)
            self.done.set()

    # -- input ------------------------------------------------------------------

    async def readline(self) -> str | object | None:
        """The next line, or ``None`` when the session is over (EOF, close, time-out).

        The read is awaited in the caller's own task (no task per line): :meth:`close`, called
        from elsewhere (time-out, flood, shutdown), cancels that task while it waits here, and
        the cancellation is taken back (:meth:`asyncio.Task.uncancel`) and turned into ``None``.
        A cancellation from anyone else goes on as one.
        """
        task = asyncio.current_task()
        assert task is not None
        return await self._readline(task)

    async def _readline(self, task: asyncio.Task[Any]) -> str | object | None:
        """:meth:`readline` in ``task``, the caller's (:meth:`run` asks for it once, not per line)."""
        if self.close_reason is not None:  # (closed: set with it)
            return None
        before = task.cancelling()
        self._reader = task
        try:
            line = await self.conn.readline()
        except asyncio.CancelledError:
            if self._stopping_read:
                self._stopping_read = False
                if task.uncancel() <= before:
                    return None  # close() stopped the read, and nobody else cancels us
            raise
        except (ConnectionError, OSError, EOFError):
            return None
        finally:
            self._reader = None
        if self._stopping_read:  # the transport swallowed close()'s cancellation: it is taken back
            self._stopping_read = False
            task.uncancel()
            return None
        if line is not None:
            self.last_input = time.monotonic()  # (touch())
            if isinstance(line, str) and self.presenter.mode == "text" and has_surrogate(line):
                # a decoder that can make one (UTF-7...): the line is refused as unreadable, and
                # reads as an empty one (JSON mode: decode refuses it as bad JSON)
                if rate_ok(self):
                    self.reply_error(None, "bad_text")
                return ""
        return line

    async def run(self) -> None:
        """Read lines until the end: each is a command, an answer of the presenter's own, or nothing."""
        machine = getattr(self.conn, "set_machine", None)
        if self.presenter.mode == "json" and machine is not None:
            machine()  # no echo (telnet, SSH PTY), and over telnet nothing but JSON lines from now on
        self.send_raw(self.presenter.start())
        task = asyncio.current_task()
        assert task is not None
        while True:
            line = await self._readline(task)
            read_at = time.perf_counter()
            if line is None:
                return
            if line is TOO_LONG:
                if rate_ok(self):
                    self.reply_error(None, "line_too_long", limit=self.app.config.max_line)
                continue
            assert isinstance(line, str)
            action = self.presenter.read(line)
            if isinstance(action, Request):
                await dispatch(self, action.cmd, action.args, action.req_id, read_at)
            elif isinstance(action, Local):
                if rate_ok(self):
                    self.send_raw(action.text)
            elif isinstance(action, Quit):
                self.send_raw(action.text)
                self.close("quit")
                return
