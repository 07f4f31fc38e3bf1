"""The way in: from a new connection to a logged-in session in its mode and language.

Telnet or raw TCP (:func:`serve_telnet`): the first line ``json`` selects machine
mode; people are asked their language, then their name (and password when the
name has an account). SSH (:func:`serve_ssh`): the SSH authentication already
said who it is; an exec request ``json`` is machine mode, a shell is a person.
Then the session runs (:meth:`server.sessions.session.Session.run`) until the end.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.messages.greetings import LANGUAGE_HINT, language_prompt, welcome_back
from server.messages.moderation import refusal_params
from server.messages.translations import lang_from_env, pick_lang
from server.protocol import CommandError
from server.sessions.session import Conn, Session, SessionHost
from server.transports.lines import TOO_LONG, cut_notice

__all__ = ["language_prompt", "serve_ssh", "serve_telnet", "text_login"]

REFUSED = frozenset({"banned", "locked"})
"""Login refusals that end the connection (a ban, a lock: trying another name would not help)."""

_greetings: set[asyncio.Future[None]] = set()

LANG_WORDS = frozenset({"lang", "language", "langue", "idioma", "lengua"})
"""At the menu, ``langue fr`` is ``fr`` too (the menu says so)."""


def menu_lang(answer: str) -> str | None:
    """The language chosen at the telnet menu: ``2``, ``fr``, ``français``, ``langue fr``…"""
    words = answer.split()
    if len(words) == 2 and words[0].lower() in LANG_WORDS:
        return pick_lang(words[1])
    return pick_lang(answer)


class _WelcomeBack:
    """An account (not a guest) logging in again hears its chips first: read once it is proved,
    said before the table it gets back is drawn again (:class:`server.people.players.Welcome`)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.text: str | None = None

    async def prepare(self, name: str) -> None:
        session = self.session
        if session.mode != "text":
            return
        try:
            chips = int(await session.app.lobby.store.ledger.balance(name))
        except Exception:
            return  # a greeting must never cost the login
        self.text = welcome_back(session.lang, name, chips)

    def say(self) -> None:
        if self.text is not None:
            self.session.send_text(self.text)
            self.session.welcomed = True  # the presenter's own hello would say it twice


def _cut(session: Session) -> Any:
    """The transport cuts a flooding connection: the session says why first, in its mode and language
    (before a person chose one: in all three, as the transport would)."""

    def cut(reason: str) -> None:
        if session.mode == "text" and not session.logged_in:
            session.send_raw(cut_notice(reason, machine=False))
        else:
            session.reply_error(None, reason)
        session.close(reason)

    return cut


async def refused_at_door(session: Session) -> bool:
    """A banned address hears why, in the session's language (or as a JSON error line), and goes."""
    refusal = await session.app.lobby.door(address=session.conn.peer)
    if refusal is None:
        return False
    session.reply_error(None, refusal.code, **refusal_params(refusal))
    session.close(refusal.code)
    return True


def greet_after_start(session: Session) -> None:
    """The message of the day once the session has said its first line (``hello``), not before: the
    greeting runs as a task, and :meth:`Session.run` queues its first line before it first waits."""
    task = asyncio.ensure_future(session.app.lobby.greet(session))
    _greetings.add(task)
    task.add_done_callback(_greetings.discard)


async def text_login(session: Session) -> bool:
    """Ask a person for their name and (for an account) password. True when logged in."""
    _ = session.gettext
    lobby = session.app.lobby
    while not session.closed.is_set():
        session.send_raw(_("Name: "))
        line = await session.readline()
        if line is None:
            return False
        if line is TOO_LONG or not isinstance(line, str) or not line.strip():
            continue
        name = line.strip()
        password: str | None = None
        code: str | None = None
        asked = False
        while True:
            if not asked and await lobby.needs_password(name):
                if getattr(session.conn, "insecure", False):  # a terminal page over plain HTTP
                    session.reply_error(None, "insecure_transport")
                    break
                password, asked = await session.ask_secret(_("Password: ")), True
                if session.closed.is_set():
                    return False
            try:
                await lobby.login(session, name, password=password, greet=False, welcome=_WelcomeBack(session),
                                  resume=code)
            except CommandError as exc:
                if exc.code == "bad_password" and not asked and await lobby.needs_password(name):
                    continue  # the account was made while they typed its name (donne admin register): ask
                session.reply_error(None, exc.code, **exc.params)
                if exc.code in REFUSED:
                    session.close(exc.code)
                    return False
                if exc.code in RESUME:
                    code = await ask_resume_code(session)
                    if code:
                        continue
                    if session.closed.is_set():
                        return False
                break
            return True
    return False


RESUME = frozenset({"resume_needed", "bad_resume_code"})
"""Login refusals of a guest name that holds a seat: the person is asked for its resume code."""


async def ask_resume_code(session: Session, ssh: bool = False) -> str | None:
    """A person types a guest's resume code (an empty line: they give up). None when closed.
    ``ssh``: the SSH user name is the name, so giving up ends the connection; the prompt says so."""
    if ssh:
        session.send_raw(session.gettext("Resume code (Enter alone: leave, then connect under another name): "))
    else:
        session.send_raw(session.gettext("Resume code (Enter alone: another name): "))
    line = await session.readline()
    if line is None or line is TOO_LONG or not isinstance(line, str):
        return None
    return line.strip() or None


async def serve_telnet(app: SessionHost, conn: Conn) -> None:
    """A telnet or raw TCP connection, from its first byte to its end."""
    session = Session(app, conn)
    if hasattr(conn, "on_cut"):
        conn.on_cut = _cut(session)
    session.start()
    try:
        session.send_raw(language_prompt(session.lang))
        first = await session.readline()
        if first is None:
            return
        answer = first.strip().lower() if isinstance(first, str) else ""
        if answer == "json":
            session.mode = "json"
            if not await refused_at_door(session):
                await session.run()
            return
        lang = menu_lang(answer)
        if lang:
            session.lang = lang
        if not await refused_at_door(session) and await text_login(session):  # in the chosen language
            greet_after_start(session)
            await session.run()
    finally:
        session.close(session.close_reason or "eof")
        await session.done.wait()


async def serve_ssh(app: SessionHost, conn: Conn, *, name: str, verified: bool, command: str | None,
                    guest_start: Any = None) -> None:
    """An SSH channel: ``json`` exec request = machine mode; a shell = a person (or a script).

    ``guest_start``: the guest account opened during authentication (:class:`server.people.players.GuestStart`).
    """
    session = Session(app, conn, mode="json" if command == "json" else "text")
    if hasattr(conn, "on_cut"):
        conn.on_cut = _cut(session)
    session.start()
    try:
        if command is None and lang_from_env(conn.env) is None:
            session.send_text(LANGUAGE_HINT)  # the client said nothing of its language
        code: str | None = None
        while True:
            try:
                await app.lobby.login(session, name, verified=verified, guest_start=guest_start, greet=False,
                                      welcome=_WelcomeBack(session) if command is None else None, resume=code)
            except CommandError as exc:
                session.reply_error(None, exc.code, **exc.params)
                if exc.code in RESUME and command is None:
                    code = await ask_resume_code(session, ssh=True)  # the SSH user name is the name: a code or goodbye
                    if code:
                        continue
                elif exc.code in RESUME and command == "json":
                    await session.run()  # a program gives the code with login (docs/protocol.md)
                return
            break
        if command in ("json", None):
            greet_after_start(session)
            await session.run()
        else:
            session.send_text(session.gettext("Unknown command. Connect without a command to play, "
                                              "or with the command json for the machine protocol."))
    finally:
        session.close(session.close_reason or "eof")
        await session.done.wait()
