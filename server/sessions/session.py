"""One person or program connected, whatever the transport.

A :class:`Session` is made of parts it owns, each with a small interface of its own:

* :class:`~server.sessions.outbox.Outbox`, the outbound queue and its flushing: rooms and the lobby
  only ever *enqueue*, so a slow or stuck client can never block them, and is disconnected;
* :class:`~server.sessions.screen.Screen`, what the terminal can show (width, colour, Unicode, the
  screen-reader mode) and the style the renderers draw for;
* :class:`~server.sessions.deadlines.Deadlines`, the login and idle time-outs (the session owns the
  one timer that looks at them);
* :class:`~server.sessions.identity.Identity`, who is connected (nobody yet, a guest, an account);
* the presenter (:mod:`server.presenters`), chosen with the mode: text for a person, JSON for a
  program, and GMCP beside the text for a MUD client (:mod:`server.sessions.presenting`, which also
  keeps the last state received).

:meth:`Session.run` reads lines until the end, hands each to the presenter, and runs the commands
it makes through :func:`server.sessions.dispatch.dispatch`.

Transports (``server/transports/``) give the session a :class:`Conn`: line input, raw output, echo
control and terminal facts. Logging in and choosing the mode and language happen before, in
:mod:`server.sessions.frontdoor`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Protocol

from server.config import Config
from server.lobby.moderation import MARKS, ignored_origin
from server.messages.terminal import TermStyle
from server.messages.translations import lang_from_env, translation
from server.operations.limits import RateLimiter
from server.people.players import Player, States
from server.presenters import Local, Presenter, Quit, Request
from server.presenters.gmcp import GmcpFeed, Link
from server.protocol import JSONValue, Push, Result, Shared, encode, has_surrogate
from server.sessions import presenting
from server.sessions.deadlines import Deadlines
from server.sessions.dispatch import dispatch, rate_ok
from server.sessions.identity import Identity
from server.sessions.outbox import Outbox, Sink
from server.sessions.screen import Screen, Terminal, term_caps
from server.storage.names import name_key
from server.transports.lines import TOO_LONG

if TYPE_CHECKING:
    from server.lobby.lobby import Lobby

__all__ = ["IGNORABLE", "Conn", "Session", "SessionHost", "term_caps"]

log = logging.getLogger(__name__)

IGNORABLE = frozenset({"chat", "tell", "message"})
"""Events a person never sees from someone they ignore: chat, tells, offline messages (announcements
are not among them)."""


class Conn(Sink, Terminal, Protocol):
    """What a transport gives a session: raw output (:class:`~server.sessions.outbox.Sink`), terminal
    facts (:class:`~server.sessions.screen.Terminal`), line input and echo control."""

    kind: str  # "telnet" | "ssh"
    peer: str  # client address, for limits and logs
    env: Mapping[str, str]  # LANG, LC_* ... as the client sent them
    crlf: bool  # text output needs "\r\n" line ends
    on_resize: Callable[[int, int], None] | None

    async def readline(self) -> str | object | None:
        """The next line without its end; ``TOO_LONG`` for a refused line; ``None`` at the end."""
        ...

    def set_secret(self, secret: bool) -> None:
        """Stop (True) or restart (False) echoing what the client types (passwords)."""
        ...

    def close(self) -> None: ...


class SessionHost(Protocol):
    """What a session needs of the server: its settings, the lobby to leave, the open sessions."""

    @property
    def config(self) -> Config: ...
    @property
    def lobby(self) -> Lobby: ...
    @property
    def sessions(self) -> set[Session]: ...


class Session:
    """One connection's life: its parts (outbox, screen, deadlines, identity, presenter), what the
    lobby and rooms push through them, its input loop, and its end."""

    _ids = itertools.count(1)

    def __init__(self, app: SessionHost, conn: Conn, *, mode: str = "text") -> None:
        cfg = app.config
        self.id = next(self._ids)
        self.app = app
        self.conn = conn
        self.identity = Identity()
        self.lang = lang_from_env(conn.env) or cfg.default_lang  # (read at every line: the session's own)
        self.screen = Screen(conn)
        self.player: Player | None = None
        self.outbox = Outbox(conn, limit=cfg.outbound_queue, drain_timeout=cfg.drain_timeout, drop=self.close,
                             owner=self, name=str(self.id))
        self.send_raw: Callable[[str], None] = self.outbox.put
        """Queue text for the client (``\\n`` line ends); drops the client if it cannot keep up."""
        self._gmcp_link: Link | None = getattr(conn, "gmcp", None)
        self.presenter: Presenter
        self.gmcp: GmcpFeed | None  # GMCP beside the text (a telnet MUD client)
        self.presenter, self.gmcp = presenting.present(self, mode, self._gmcp_link)
        self.outbox.crlf = self.presenter.mode == "text" and conn.crlf
        self.last = presenting.LastState()
        self._reader: asyncio.Task[str | object | None] | None = None  # the task waiting in readline(), for close()
        self._stopping_read = False  # close() cancelled that wait (not someone else)
        self.limiter = RateLimiter.of(cfg.commands_per_second, cfg.command_burst, cfg.flood_disconnect)
        self.closed = asyncio.Event()
        self.done = asyncio.Event()  # set once the connection is closed and the lobby told
        self.close_reason: str | None = None
        self.deadlines = Deadlines(cfg.login_timeout, cfg.idle_timeout, time.monotonic())
        self._timer: asyncio.TimerHandle | None = None
        self._closer: asyncio.Task[None] | None = None
        conn.on_resize = self.screen.resized
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
            self.presenter, self.gmcp = presenting.present(self, mode, self._gmcp_link)
            self.outbox.crlf = self.presenter.mode == "text" and self.conn.crlf

    @property
    def name(self) -> str | None:
        return self.identity.name

    @name.setter
    def name(self, name: str | None) -> None:
        self.identity.name = name

    @property
    def guest(self) -> bool:
        return self.identity.guest

    @guest.setter
    def guest(self, guest: bool) -> None:
        self.identity.guest = guest

    @property
    def welcomed(self) -> bool:
        """Greeted at the door already (an account coming back)."""
        return self.identity.welcomed

    @welcomed.setter
    def welcomed(self, welcomed: bool) -> None:
        self.identity.welcomed = welcomed

    @property
    def logged_in(self) -> bool:
        return self.identity.name is not None

    @property
    def width(self) -> int:
        return self.screen.width

    @width.setter
    def width(self, width: int) -> None:
        self.screen.width = width

    @property
    def height(self) -> int:
        return self.screen.height

    @height.setter
    def height(self, height: int) -> None:
        self.screen.height = height

    @property
    def color(self) -> bool:
        return self.screen.color

    @color.setter
    def color(self, on: bool) -> None:
        self.screen.color = on

    @property
    def unicode(self) -> bool:
        return self.screen.unicode

    @unicode.setter
    def unicode(self, on: bool) -> None:
        self.screen.unicode = on

    @property
    def reader(self) -> bool:
        """Screen-reader mode (:attr:`Screen.reader <server.sessions.screen.Screen.reader>`)."""
        return self.screen.reader

    @reader.setter
    def reader(self, on: bool) -> None:
        self.screen.reader = on

    @property
    def style(self) -> TermStyle:
        return self.screen.style

    def gettext(self, msgid: str) -> str:
        return translation(self.lang).gettext(msgid)

    def where(self) -> tuple[Push | None, str]:
        """The last state received at the reader's table (None before the first), and where they are."""
        player = self.player
        room = player.room if player is not None else None
        if room is None:
            return None, "lobby"
        state = self.last.state
        if state is None or state.get("room") != room.id:
            return None, "room"
        return state, "room"

    @property
    def last_state(self) -> Push | None:
        """The last state received (None before the first)."""
        return self.last.state

    # -- output ---------------------------------------------------------------

    def start(self) -> None:
        if not self.outbox.started:
            self.outbox.start(asyncio.get_running_loop())  # what was queued before goes out
            self._arm_timer()

    def send_json(self, obj: Push) -> None:
        self.send_raw(encode(obj))

    def send_text(self, text: str) -> None:
        """A sentence for a person (text mode); nothing in JSON mode."""
        self.send_raw(self.presenter.text(text))

    # -- what the lobby, rooms and the dispatcher push ------------------------------

    def push_states(self, states: States, seat: int | None) -> None:
        """This reader's state out of a table's :class:`~server.table.states.StateSet`."""
        if self.presenter.mode == "json":  # the line is enough; the dict is made if the last state is read
            self.last.keep_later(states, seat)
            self.send_raw(states.line(seat))
            return
        state = states.state(seat)
        self.last.keep(state)
        self.send_raw(self.presenter.state(state))
        if self.gmcp is not None:
            self.gmcp.state(state)

    def push_event(self, event: Push, names: tuple[str, ...] | list[str] | None = None,
                   you: int | None = None) -> None:
        """An event as ``{"event": NAME, ...}``; its ``text`` is written in the session's language."""
        self.send_raw(self.event_line(event, names, you))

    def event_line(self, event: Push, names: tuple[str, ...] | list[str] | None = None,
                   you: int | None = None) -> str:
        """What :meth:`push_event` queues for ``event`` (``""``: nothing to say)."""
        if self._ignored(event):
            return ""
        if self.gmcp is not None:
            self.gmcp.event(event, tuple(names) if names is not None else None, you)
        return self.presenter.event(event, tuple(names) if names is not None else None, you)

    def _ignored(self, event: Push) -> bool:
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

    def render_key(self) -> tuple[Hashable, ...]:
        """Sessions with the same key are shown the same words for the same event and reader."""
        return self.presenter.render_key()

    def reply_ok(self, req_id: JSONValue, cmd: str, result: Result | None) -> None:
        self.send_raw(self.presenter.ok(req_id, cmd, result))
        if self.gmcp is not None:
            self.gmcp.status()  # (a command may have moved them: join, leave, watch, lang)

    def reply_error(self, req_id: JSONValue, code: str, **params: object) -> None:
        params.pop("style", None)
        self.send_raw(self.presenter.error(req_id, code, params))

    def notice(self, what: str, **params: JSONValue) -> None:
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
        self.deadlines.touch(time.monotonic())

    def _arm_timer(self) -> None:
        """One timer for the login time-out, then for the idle time-out outside a seat."""
        if self._timer is not None:
            self._timer.cancel()
        wait = self.deadlines.wait(time.monotonic(), self.logged_in)
        self._timer = None if wait is None else asyncio.get_running_loop().call_later(wait, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self.closed.is_set():
            return
        player = self.player
        expired = self.deadlines.expired(time.monotonic(), self.logged_in, bool(player and player.seated))
        if expired is not None:
            self.notice(expired)
            self.close("login timeout" if expired == "login_timeout" else expired)
            return
        self._arm_timer()

    @property
    def resume_code(self) -> str | None:
        """A guest's resume code, for their own eyes (help, whoami); None for an account."""
        player = self.player
        return player.code if player is not None and player.guest else None

    def logged(self, name: str, guest: bool) -> None:
        self.identity.logged(name, guest)
        self.touch()
        self._arm_timer()
        if self.mode == "text" and not self.identity.welcomed:
            # A person is greeted now, before a table they get back is drawn and prompts them
            # (the room draws it as soon as the login returns, before run() starts reading).
            self.send_raw(self.presenter.start())
            self.identity.welcomed = True
        if self.gmcp is not None:
            self.gmcp.logged()

    def close(self, reason: str = "closed") -> None:
        """End the session. Idempotent; queued output is flushed for a short while first."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.outbox.stop(reason)
        self.closed.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.presenter.close()
        reader = self._reader
        if reader is not None and not self._stopping_read and reader is not asyncio.current_task():
            self._stopping_read = True  # readline() tells this cancellation from anyone else's
            reader.cancel()
        self._closer = asyncio.get_running_loop().create_task(self._finish(), name=f"close-{self.id}")

    async def _finish(self) -> None:
        await self.outbox.finish()
        with contextlib.suppress(Exception):
            self.conn.close()
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

    async def _readline(self, task: asyncio.Task[str | object | None]) -> str | object | None:
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
            self.touch()
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
