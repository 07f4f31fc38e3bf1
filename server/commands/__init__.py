"""The command registry shared by JSON and text mode.

A command is an async handler registered by name::

    from server.commands import Context, command, arg_str

    @command("whoami")
    async def whoami(ctx: Context, args: Mapping[str, Any]) -> dict[str, Any]:
        return {"name": ctx.session.name, ...}

* ``args`` are exactly the JSON-protocol arguments (the text-mode parser of
  ``server.presenters.text.parse`` produces the same dict), never containing ``cmd``
  or ``id``.
* The handler returns the fields of the ``ok`` reply (or ``None``), or raises
  :class:`CommandError` with a protocol error code (and ``params`` for the
  localized message). An error must leave everything unchanged.
* ``login=False`` marks the few commands allowed before logging in.

Handlers live in per-topic modules imported by :func:`load`: ``core``
(session and lobby), ``game`` (moves, forwarded to the room),
``accounts`` when present (accounts, history, leaderboard; its handlers may
replace ``core``'s ``login``/``whoami``, being loaded after it), ``social``
(tells, profiles, friends, seeks, replays; its ``who`` and ``leaderboard`` replace
the earlier ones), and ``admin`` (running a community: the staff's commands behind one
role check, ``ignore``, ``motd``).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from server.protocol import CommandError, arg_bool, arg_int, arg_str

__all__ = ["COMMANDS", "Caller", "CommandError", "Context", "Server", "Spec", "arg_bool", "arg_int", "arg_str", "command", "load"]

from server.people.players import Client

if TYPE_CHECKING:
    from server.config import Config
    from server.lobby.lobby import Lobby

log = logging.getLogger(__name__)

Handler = Callable[["Context", Mapping[str, Any]], Awaitable[dict[str, Any] | None]]


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    handler: Handler
    login: bool = True  # needs a logged-in session
    rate: bool = True  # counts against the session's command rate


class Caller(Client, Protocol):
    """The session a command came from (a :class:`server.sessions.session.Session`), as handlers use it."""

    name: str | None
    guest: bool
    lang: str
    width: int
    color: bool
    unicode: bool
    reader: bool  # screen-reader mode
    limiter: Any
    app: Any

    @property
    def mode(self) -> str: ...

    def gettext(self, msgid: str) -> str: ...
    def reply_ok(self, req_id: Any, cmd: str, result: Mapping[str, Any] | None) -> None: ...
    def reply_error(self, req_id: Any, code: str, **params: Any) -> None: ...
    def send_text(self, text: str) -> None: ...

    async def ask_secret(self, prompt: str) -> str | None: ...


class Server(Protocol):
    """The running server as handlers use it."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> Any: ...
    @property
    def lobby(self) -> Lobby: ...


@dataclass(slots=True)
class Context:
    """What a handler may touch: its session, the lobby, the store, the config.

    ``req_id``/``cmd``: the request being run; :meth:`answer` sends its ``ok`` at once (a room
    answering a move, before the states the move causes), and the dispatcher sends no other."""

    session: Caller
    app: Server
    req_id: Any = None
    cmd: str = ""
    answered: bool = False

    def answer(self, result: Mapping[str, Any] | None) -> None:
        if not self.answered:
            self.answered = True
            self.session.reply_ok(self.req_id, self.cmd, result)

    @property
    def lobby(self) -> Lobby:
        return self.app.lobby

    @property
    def store(self) -> Any:
        return self.app.store

    @property
    def config(self) -> Config:
        return self.app.config


COMMANDS: dict[str, Spec] = {}

MODULES = ("server.commands.core", "server.commands.game", "server.commands.accounts", "server.commands.social",
           "server.commands.moderation", "server.commands.fair")
"""Loaded in this order; a later module may replace an earlier module's command."""


def command(name: str, *, login: bool = True, rate: bool = True) -> Callable[[Handler], Handler]:
    """Register ``handler`` as the command ``name`` (see the module docstring)."""

    def register(handler: Handler) -> Handler:
        if name in COMMANDS and COMMANDS[name].handler.__module__ == handler.__module__:
            raise ValueError(f"command {name!r} registered twice in {handler.__module__}")
        COMMANDS[name] = Spec(name, handler, login=login, rate=rate)
        return handler

    return register


_loaded = False


def load() -> dict[str, Spec]:
    """Import every command module once and return the registry."""
    global _loaded
    if not _loaded:
        for module in MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
                log.debug("no command module %s", module)
        _loaded = True
    return COMMANDS


