"""One person or program connected, whatever the transport.

A :class:`Session` knows who it is (name, guest, language), how to show
things (text or JSON mode, terminal width, colour, Unicode) and owns an
outbound queue drained by its own writer task: rooms and the lobby only ever
*enqueue*, so a slow or stuck client can never block them. When the queue
passes ``outbound_queue`` messages, or a drain takes longer than
``drain_timeout``, the client is too slow and is disconnected.

Transports (``server/transports/``) give the session a :class:`Conn`: line
input, raw output, echo control and terminal facts. :func:`serve_telnet` and
:func:`serve_ssh` run a connection from its first byte to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import json.encoder
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from server import ui
from server.dispatch import dispatch, rate_ok
from server.jsonmode import run_json
from server.limits import RateLimiter
from server.protocol import CommandError, Shared, encode
from server.transports.lines import TOO_LONG

if TYPE_CHECKING:
    from server.app import Running
    from server.lobby import Player

log = logging.getLogger(__name__)


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

    async def drain(self) -> None: ...

    def set_secret(self, secret: bool) -> None:
        """Stop (True) or restart (False) echoing what the client types (passwords)."""
        ...

    def close(self) -> None: ...


def term_caps(term: str | None) -> tuple[bool, bool]:
    """(colour, unicode) for a terminal type: dumb or unknown terminals get plain ASCII."""
    t = (term or "").lower()
    if not t or t in ("dumb", "unknown", "network", "vt52") or t.startswith("vt1"):
        return False, False
    color = any(k in t for k in ("xterm", "screen", "tmux", "rxvt", "linux", "color", "ansi", "putty",
                                  "konsole", "kitty", "alacritty", "iterm", "foot", "wezterm", "vt2",
                                  "st-", "gnome", "cygwin"))
    return color, color


_encode_str = json.encoder.encode_basestring  # type: ignore[attr-defined]  # a str as json.dumps writes it


class Session:
    _ids = itertools.count(1)

    def __init__(self, app: Running, conn: Conn, *, mode: str = "text") -> None:
        cfg = app.config
        self.id = next(self._ids)
        self.app = app
        self.conn = conn
        self.mode = mode  # "text" | "json"
        self.name: str | None = None
        self.guest = True
        self.lang = ui.lang_from_env(conn.env) or cfg.default_lang
        self.width = conn.width or 80
        self.height = conn.height or 24
        self.color, self.unicode = term_caps(conn.term)
        self.player: Player | None = None
        self.shown_state: Mapping[str, Any] | None = None  # text mode: the last state drawn
        self._countdowns: list[asyncio.TimerHandle] = []
        self._reading: asyncio.Future[Any] | None = None
        self.limiter = RateLimiter.of(cfg.commands_per_second, cfg.command_burst, cfg.flood_disconnect)
        self.closed = asyncio.Event()
        self.done = asyncio.Event()  # set once the connection is closed and the lobby told
        self.close_reason: str | None = None
        self.connected_at = time.monotonic()
        self.last_input = self.connected_at
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=cfg.outbound_queue)
        self._writer: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._closer: asyncio.Task[None] | None = None
        conn.on_resize = self._resized
        app.sessions.add(self)

    def __repr__(self) -> str:
        return f"<Session {self.id} {self.conn.kind} {self.name or '-'} {self.mode}>"

    # -- facts ----------------------------------------------------------------

    @property
    def logged_in(self) -> bool:
        return self.name is not None

    @property
    def style(self) -> Any:
        return ui.term_style(self.width, self.unicode, self.color)

    def gettext(self, msgid: str) -> str:
        return ui.translation(self.lang).gettext(msgid)

    def _resized(self, width: int, height: int) -> None:
        if width > 0 and height > 0:
            self.width, self.height = width, height

    # -- output ---------------------------------------------------------------

    def start(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_loop(), name=f"writer-{self.id}")
            self._arm_timer()

    def send_raw(self, text: str) -> None:
        """Queue text for the client (``\\n`` line ends); drops the client if it cannot keep up."""
        if self.closed.is_set() or not text:
            return
        if self.mode == "text" and self.conn.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.info("%r: outbound queue full, disconnecting a slow client", self)
            self.close("slow")

    def send_json(self, obj: Mapping[str, Any]) -> None:
        self.send_raw(encode(obj))

    def send_text(self, text: str) -> None:
        """A message for a person (text mode); ignored in JSON mode."""
        self.send_raw(self._text_line(text))

    async def _write_loop(self) -> None:
        timeout = self.app.config.drain_timeout
        try:
            done = False
            while not done:
                # everything queued goes out in one write (one send for a burst of events)
                batch: list[str] = []
                item = await self._queue.get()
                while item is not None:
                    batch.append(item)
                    if self._queue.empty() or len(batch) >= 256:
                        break
                    item = self._queue.get_nowait()
                done = item is None
                if batch:
                    self.conn.write("".join(batch))
                    async with asyncio.timeout(timeout):
                        await self.conn.drain()
        except TimeoutError:
            log.info("%r: client stopped reading, disconnecting", self)
            self.close("slow")
        except (ConnectionError, OSError, EOFError) as exc:
            log.debug("%r: write failed: %s", self, exc)
            self.close("lost")
        except Exception:
            log.exception("%r: writer failed", self)
            self.close("error")

    # -- pushes used by the lobby and rooms -------------------------------------

    def push_state(self, state: Mapping[str, Any], line: str | None = None) -> None:
        """``line``: ``state`` already encoded as its JSON-mode line (``{"type": "state", ...}``)."""
        if self.mode == "json":
            self.send_raw(line if line is not None else encode({"type": "state", **state}))
        else:
            # Text mode: the table only when it matters (the reader's turn, a new round...);
            # nothing drawn yet (or asked for): the whole table, with the alert if it is our turn.
            text = self._render(ui.state_update, self.shown_state or {}, state, self.lang, self.style)
            self.shown_state = state
            if text:
                self.send_text(text)
            self._countdown(state)

    def _countdown(self, state: Mapping[str, Any]) -> None:
        """Text mode: announce the time left on the reader's own decision at a few marks (30, 10, 5 s)."""
        for handle in self._countdowns:
            handle.cancel()
        self._countdowns = []
        deadline = state.get("deadline")
        if not isinstance(deadline, int | float) or deadline <= 0 or not ui.my_decision(state):
            return
        loop = asyncio.get_running_loop()
        for mark in ui.countdown_marks(deadline):
            self._countdowns.append(loop.call_later(deadline - mark, self._announce, state, mark))

    def _announce(self, state: Mapping[str, Any], seconds: int) -> None:
        if self.shown_state is state and not self.closed.is_set():
            self.send_text(ui.countdown_line(self.lang, self.style, seconds))

    def push_event(self, event: Mapping[str, Any], names: list[str] | None = None,
                   you: int | None = None) -> None:
        """An event as ``{"event": NAME, ...}``; its ``text`` is written in the session's language."""
        self.send_raw(self.event_line(event, names, you))

    def event_line(self, event: Mapping[str, Any], names: list[str] | None = None,
                   you: int | None = None) -> str:
        """What :meth:`push_event` queues for ``event`` (``""``: nothing to say)."""
        if self.mode == "json":
            text = self._render(ui.event_text, self.lang, event, names or [], you)
            return encode({"type": "event", **event, "text": text})
        return self._text_line(self._render(ui.render_event, event, self.lang, self.style, names or [], you))

    def push_shared(self, shared: Shared, you: int | None = None) -> None:
        """An event pushed to many sessions at once (see :class:`server.protocol.Shared`)."""
        self.send_raw(self.shared_line(shared, you))

    def shared_line(self, shared: Shared, you: int | None = None) -> str:
        """Exactly what ``push_event(shared.event, shared.names, you)`` would queue, made once per
        (:meth:`render_key`, ``you``): the words of an event depend only on the language (and, in
        text mode, the drawing) and on who reads it. In JSON mode the event's fields are encoded
        once and each reader's ``text`` is spliced in after them (the same bytes as encoding the
        whole object)."""
        key = (self.render_key(), you)
        line = shared.cache.get(key)
        if line is None:
            prefix = self._json_prefix(shared) if self.mode == "json" else ""
            text: Any = None
            if prefix:
                text = self._render(ui.event_text, self.lang, shared.event, shared.names or [], you)
            if isinstance(text, str):
                line = prefix + _encode_str(text) + "}\n"
            else:
                line = self.event_line(shared.event, list(shared.names) if shared.names else None, you)
            shared.cache[key] = line
        return line

    @staticmethod
    def _json_prefix(shared: Shared) -> str:
        """``{"type":"event",<fields>,"text":`` ("" when the event cannot be spliced)."""
        prefix = shared.cache.get("json-prefix")
        if prefix is None:
            event = shared.event
            if not event or "type" in event or "text" in event:
                prefix = ""
            else:
                prefix = '{"type":"event",' + encode(event)[1:-2] + ',"text":'
            shared.cache["json-prefix"] = prefix
        return prefix

    def render_key(self) -> tuple[Any, ...]:
        """Sessions with the same key are shown the same words for the same event and reader."""
        if self.mode == "json":
            return ("json", self.lang)
        return ("text", self.lang, self.width, self.unicode, self.color)

    def _text_line(self, text: str) -> str:
        """What :meth:`send_text` queues for ``text``."""
        if self.mode == "text" and text:
            return ui.fit_text(text.rstrip("\n"), self.style) + "\n"  # every line within the terminal
        return ""

    def reply_ok(self, req_id: Any, cmd: str, result: Mapping[str, Any] | None) -> None:
        if self.mode == "json":
            self.send_json({"type": "ok", "id": req_id, **(result or {})})
        else:
            text = self._render(ui.render_reply, cmd, {"type": "ok", **(result or {})}, self.lang, self.style)
            if text:
                self.send_text(text)

    def _render(self, fn: Callable[..., str], *args: Any) -> str:
        """Words for people; a rendering bug costs a sentence, never a room or a session."""
        try:
            return fn(*args) or ""
        except Exception:
            log.exception("%r: rendering with %s failed", self, getattr(fn, "__name__", fn))
            return ""

    def reply_error(self, req_id: Any, code: str, **params: Any) -> None:
        message = ui.error_message(self.lang, code, **params)
        if self.mode == "json":
            self.send_json({"type": "error", "id": req_id, "code": code, "message": message})
        else:
            self.send_text(message)

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

    def logged(self, name: str, guest: bool) -> None:
        self.name = name
        self.guest = guest
        self.touch()
        self._arm_timer()

    def notice(self, what: str, **params: Any) -> None:
        """A server notice (``{"event": "notice", "code": what}``) in the session's language."""
        self.push_event({"event": "notice", "code": what, **params})

    def close(self, reason: str = "closed") -> None:
        """End the session. Idempotent; queued output is flushed for a short while first."""
        if self.closed.is_set():
            return
        self.close_reason = reason
        self.closed.set()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for handle in self._countdowns:
            handle.cancel()
        if self._reading is not None:
            self._reading.cancel()
        self._closer = asyncio.get_running_loop().create_task(self._finish(reason), name=f"close-{self.id}")

    async def _finish(self, reason: str) -> None:
        writer = self._writer
        if writer is not None and not writer.done():
            if reason in ("slow", "lost"):
                writer.cancel()
            else:
                with contextlib.suppress(asyncio.QueueFull):
                    self._queue.put_nowait(None)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(writer), 2.0)
            writer.cancel()
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

        The read runs as a task that :meth:`close` cancels, so a session closed by
        the server (time-out, flood, shutdown) stops waiting for its client at once.
        """
        if self.closed.is_set():
            return None
        self._reading = read = asyncio.ensure_future(self.conn.readline())
        try:
            line = await read
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self.closed.is_set() and not (task is not None and task.cancelling()):
                return None  # close() cancelled the read, not someone cancelling us
            read.cancel()
            raise
        except (ConnectionError, OSError, EOFError):
            return None
        finally:
            self._reading = None
        if line is not None:
            self.touch()
        return line

    async def run_text(self) -> None:
        """People: commands typed in their language, tables drawn for their terminal."""
        self.mode = "text"
        self.send_text(ui.welcome_text(self.lang, self.name or ""))
        while True:
            line = await self.readline()
            if line is None:
                return
            if line is TOO_LONG:
                if rate_ok(self):
                    self.reply_error(None, "line_too_long", limit=self.app.config.max_line)
                continue
            assert isinstance(line, str)
            state, where = self.text_context()
            parsed = ui.parse_line(line, self.lang, state, where)
            if isinstance(parsed, ui.ParseError):
                if rate_ok(self):
                    self.send_text(parsed.message)
                continue
            if parsed.cmd == "quit":
                self.send_text(ui.goodbye_text(self.lang))
                self.close("quit")
                return
            if parsed.cmd == "help":
                if rate_ok(self):
                    topic = parsed.args.get("topic")
                    self.send_text(ui.help_text(self.lang, state, where, self.style,
                                                topic if isinstance(topic, str) else None))
                continue
            if parsed.cmd == "state" and where == "lobby":
                continue  # an empty line in the lobby: nothing to redraw
            if parsed.cmd == "state":
                self.shown_state = None  # asked for: draw the whole table
            await dispatch(self, parsed.cmd, parsed.args)

    def text_context(self) -> tuple[dict[str, Any] | None, str]:
        """The last state this person was shown, and where they are (``room`` or ``lobby``)."""
        player = self.player
        room = player.room if player else None
        if room is None or player is None:
            return None, "lobby"
        return room.last_state_for(player), "room"

    async def text_login(self) -> bool:
        """Ask a person for language, name and (for an account) password. True when logged in."""
        _ = self.gettext
        while not self.closed.is_set():
            self.send_raw(_("Name: "))
            line = await self.readline()
            if line is None:
                return False
            if line is TOO_LONG or not isinstance(line, str) or not line.strip():
                continue
            name = line.strip()
            password: str | None = None
            if await self.app.lobby.needs_password(name):
                self.conn.set_secret(True)
                self.send_raw(_("Password: "))
                try:
                    pline = await self.readline()
                finally:
                    self.conn.set_secret(False)
                self.send_raw("\n")
                if pline is None:
                    return False
                password = pline if isinstance(pline, str) else ""
            try:
                await self.app.lobby.login(self, name, password=password)
            except CommandError as exc:
                self.send_text(ui.error_message(self.lang, exc.code, **exc.params))
                continue
            return True
        return False


async def serve_telnet(app: Running, conn: Conn) -> None:
    """A telnet or raw TCP connection: the first line ``json`` selects machine mode.

    People are asked their language first (the answer ``json`` switches to
    machine mode instead), then their name.
    """
    session = Session(app, conn)
    session.start()
    try:
        session.send_raw(ui.language_prompt(session.lang))
        first = await session.readline()
        if first is None:
            return
        answer = first.strip().lower() if isinstance(first, str) else ""
        if answer == "json":
            await run_json(session)
            return
        lang = ui.pick_lang(answer)
        if lang:
            session.lang = lang
        if await session.text_login():
            await session.run_text()
    finally:
        session.close(session.close_reason or "eof")
        await session.done.wait()


async def serve_ssh(app: Running, conn: Conn, *, name: str, verified: bool, command: str | None,
                    guest_start: Any = None) -> None:
    """An SSH channel: ``json`` exec request = machine mode; a shell = a person (or a script).

    ``guest_start``: the guest account opened during authentication (:class:`server.lobby.GuestStart`).
    """
    session = Session(app, conn, mode="json" if command == "json" else "text")
    session.start()
    try:
        try:
            await app.lobby.login(session, name, verified=verified, guest_start=guest_start)
        except CommandError as exc:
            if command == "json":
                session.reply_error(None, exc.code, **exc.params)
            else:
                session.send_text(ui.error_message(session.lang, exc.code, **exc.params))
            return
        if command == "json":
            await run_json(session)
        elif command is None:
            await session.run_text()
        else:
            session.send_text(session.gettext("Unknown command. Connect without a command to play, "
                                              "or with the command json for the machine protocol."))
    finally:
        session.close(session.close_reason or "eof")
        await session.done.wait()
