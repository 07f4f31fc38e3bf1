"""The command registry shared by JSON and text mode.

A command is an async handler registered by name::

    from server.commands import Context, command, arg_str

    @command("whoami")
    async def whoami(ctx: Context, args: Args) -> Result:
        return {"name": ctx.session.name, ...}

* ``args`` are exactly the JSON-protocol arguments (the text-mode parser of
  ``server.presenters.text.parse`` produces the same dict), never containing ``cmd``
  or ``id``.
* The handler returns the fields of the ``ok`` reply (or ``None``), or raises
  :class:`CommandError` with a protocol error code (and ``params`` for the
  localized message). An error must leave everything unchanged.
* ``login=False`` marks the few commands allowed before logging in.

Handlers live in per-topic modules imported by :func:`load` (:data:`MODULES`): ``core``
(session and lobby), ``game`` (moves, forwarded to the room), ``accounts`` (accounts,
history, balances), ``social`` (tells, profiles, friends, seeks, replays, ``who`` and
``leaderboard``), ``moderation`` (running a community: the staff's commands behind one
role check, ``ignore``, ``motd``) and ``fair``. Each name is registered once: a second
registration, or a command module that cannot be found, stops the start at once
(:class:`RegistryError`).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from server.protocol import Args, CommandError, JSONValue, Result, arg_bool, arg_int, arg_str

__all__ = ["COMMANDS", "Caller", "CommandError", "Context", "RegistryError", "Server", "Spec", "arg_bool", "arg_int", "arg_str", "command", "load"]

from server.people.players import PlayerSession

if TYPE_CHECKING:
    from server.config import Config
    from server.lobby.lobby import Lobby
    from server.operations.limits import RateLimiter
    from server.storage.api import Store

Handler = Callable[["Context", Args], Awaitable[Result | None]]


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    handler: Handler
    login: bool = True  # needs a logged-in session
    rate: bool = True  # counts against the session's command rate


class Caller(PlayerSession, Protocol):
    """The session a command came from (a :class:`server.sessions.session.Session`), as handlers use it."""

    name: str | None
    guest: bool
    lang: str
    width: int
    color: bool
    unicode: bool
    reader: bool  # screen-reader mode
    limiter: RateLimiter
    app: Any  # the session's host: a Server to the handlers (the sessions own its type)

    @property
    def mode(self) -> str: ...

    def gettext(self, msgid: str) -> str: ...
    def reply_ok(self, req_id: JSONValue, cmd: str, result: Result | None) -> None: ...
    def reply_error(self, req_id: JSONValue, code: str, **params: object) -> None: ...
    def send_text(self, text: str) -> None: ...

    async def ask_secret(self, prompt: str) -> str | None: ...


class Server(Protocol):
    """The running server as handlers use it."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> Store: ...
    @property
    def lobby(self) -> Lobby: ...

    def schedule_shutdown(self, delay: float, reason: str = "") -> None: ...
    def cancel_shutdown(self, *, quiet: bool = False) -> bool: ...


@dataclass(slots=True)
class Context:
    """What a handler may touch: its session, the lobby, the store, the config.

    ``req_id``/``cmd``: the request being run; :meth:`answer` sends its ``ok`` at once (a room
    answering a move, before the states the move causes), and the dispatcher sends no other."""

    session: Caller
    app: Server
    req_id: JSONValue = None
    cmd: str = ""
    answered: bool = False

    def answer(self, result: Result | None) -> None:
        if not self.answered:
            self.answered = True
            self.session.reply_ok(self.req_id, self.cmd, result)

    @property
    def lobby(self) -> Lobby:
        return self.app.lobby

    @property
    def account(self) -> str:
        """The session's name: a command that needs a login runs only once there is one."""
        name = self.session.name
        assert name is not None
        return name

    @property
    def store(self) -> Store:
        return self.app.store

    @property
    def config(self) -> Config:
        return self.app.config


COMMANDS: dict[str, Spec] = {}

MODULES = ("server.commands.core", "server.commands.game", "server.commands.accounts", "server.commands.social",
           "server.commands.moderation", "server.commands.fair", "server.commands.tournaments")
"""The command modules, loaded in this order by :func:`load`."""


class RegistryError(RuntimeError):
    """The commands cannot be registered as written: a name registered twice, a module missing."""


def command(name: str, *, login: bool = True, rate: bool = True) -> Callable[[Handler], Handler]:
    """Register ``handler`` as the command ``name`` (see the module docstring); a name is registered
    once only."""

    def register(handler: Handler) -> Handler:
        if name in COMMANDS:
            raise RegistryError(f"command {name!r} of {handler.__module__} is already registered by "
                                f"{COMMANDS[name].handler.__module__}")
        COMMANDS[name] = Spec(name, handler, login=login, rate=rate)
        return handler

    return register


_loaded = False


def import_modules(modules: tuple[str, ...]) -> None:
    """Import ``modules``, which register their commands; one that cannot be found is a
    :class:`RegistryError` (an import failing inside it goes on as itself)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            raise RegistryError(f"command module {module} not found") from exc


def load() -> dict[str, Spec]:
    """Import every command module (:data:`MODULES`) once and return the registry."""
    global _loaded
    if not _loaded:
        import_modules(MODULES)
        _loaded = True
    return COMMANDS


