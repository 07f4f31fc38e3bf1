"""A person's presence on the server, and what the lobby and rooms may do with their connection.

A :class:`Player` is a name's presence. It outlives its connection while it holds a
seat: when the connection drops the table keeps the seat for a while, and a new
login under the same name takes it back. :class:`PlayerSession` is what the lobby and the
rooms use of a connection (a :class:`server.sessions.session.Session`), so they never need
the session's own module.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.protocol import Args, JSONValue, Push, Result, Shared
from server.storage.api import Account
from server.storage.names import name_key


class States(Protocol):
    """A table's states of one moment (:class:`server.table.states.StateSet`), as a session reads its own."""

    def state(self, seat: int | None) -> Push:
        """``seat``'s state (None: a spectator's), as a dict."""
        ...

    def reader(self, seat: int | None) -> Push:
        """The same, made only when read."""
        ...

    def line(self, seat: int | None) -> str:
        """The same, encoded as one JSON line."""
        ...


class Peer(Protocol):
    """A transport's connection as the lobby sees it: its kind and where it comes from."""

    @property
    def kind(self) -> str:
        """``telnet``, ``ssh``, ``web``..."""
        ...

    @property
    def peer(self) -> str:
        """The client's address, for limits and logs."""
        ...


class PlayerSession(Protocol):
    """A connection as the lobby and the rooms see it."""

    @property
    def closed(self) -> asyncio.Event: ...
    @property
    def lang(self) -> str: ...
    @property
    def logged_in(self) -> bool: ...
    @property
    def conn(self) -> Peer:
        """The transport's connection."""
        ...
    player: Player | None

    def push_event(self, event: Push, names: tuple[str, ...] | None = None,
                   you: int | None = None) -> None: ...

    def push_shared(self, shared: Shared, you: int | None = None) -> None: ...

    def push_states(self, states: States, seat: int | None) -> None:
        """The reader's state out of a table's states of one moment (a ``StateSet``)."""
        ...

    def shared_line(self, shared: Shared, you: int | None = None) -> str: ...

    def render_key(self) -> tuple[Hashable, ...]:
        """Sessions with the same key are shown the same words for the same event and reader."""
        ...

    def send_raw(self, text: str) -> None: ...

    def notice(self, what: str, **params: JSONValue) -> None: ...

    def logged(self, name: str, guest: bool) -> None: ...

    def close(self, reason: str = "closed") -> None: ...


class Welcome(Protocol):
    """What an account logging in again hears first (the front door's), before its table is drawn."""

    async def prepare(self, name: str) -> None:
        """Once the account ``name`` is proved, before it enters (outside the lobby's lock)."""

    def say(self) -> None:
        """Once logged in, before anything of its table (a seat it gets back) is sent."""


class Place(Protocol):
    """Where a player is: a room (:class:`server.rooms.room.Room`), as commands and the lobby use it."""

    @property
    def id(self) -> str: ...

    async def submit(self, player: Player, cmd: str, args: Args, *,
                     answer: Callable[[Result | None], None] | None = None) -> Result | None:
        """The command's result (or CommandError); ``answer(result)``, when given, is called as the
        result is known, before anything the command causes is sent."""

    def refresh(self, player: Player) -> None: ...

    async def step_out(self, player: Player) -> None:
        """``player`` leaves this place if they can (a refusal changes nothing); a room of another
        node that does not answer, or is gone, lets them go on this node anyway."""

    async def reconnect(self, player: Player) -> None: ...

    async def disconnected(self, player: Player) -> None: ...


_news_clock = itertools.count()
_news_next = 0  # sequence number of the next room-list news event (all lobbies of the process)


def take_news_seq() -> int:
    global _news_next
    _news_next = next(_news_clock) + 1
    return _news_next - 1


def news_now() -> int:
    return _news_next


@dataclass(eq=False)
class Player:
    name: str
    guest: bool
    session: PlayerSession | None = None
    _room: Place | None = field(default=None, repr=False)
    seat: int | None = None  # None with a room: spectator
    prefs: dict[str, bool] = field(default_factory=dict)  # automatic moves asked for (autocut, autopass)
    extra: dict[str, Any] = field(default_factory=dict)  # facts of kinds each key's owner decides (Origin, TokenBucket...)
    resume: str | None = field(default=None, repr=False)
    """A guest's resume code, hashed (:mod:`server.people.resume`): what a login under this name must match
    while the name holds a seat or a connection. None for an account."""
    code: str | None = field(default=None, repr=False)
    """The code itself, as this guest was given it or typed it (``whoami`` shows it to them)."""
    lobby_spans: list[tuple[int, int | None]] = field(default_factory=lambda: [(news_now(), None)])
    """When this player was in the lobby, as ``[first, end)`` ranges of news sequence numbers (``end``
    None: still there); room-list news go to whoever was in the lobby when they happened."""
    _key: tuple[str, str] | None = field(default=None, repr=False)  # (name, its key): name_key() once per name

    @property
    def room(self) -> Place | None:
        return self._room

    @room.setter
    def room(self, value: Place | None) -> None:
        old = self._room
        self._room = value
        spans = self.lobby_spans
        if value is None and old is not None:
            spans.append((news_now(), None))  # back in the lobby
        elif value is not None and old is None and spans and spans[-1][1] is None:
            first, end = spans[-1][0], news_now()
            if first == end:
                spans.pop()  # no news while in the lobby: nothing to remember
            else:
                spans[-1] = (first, end)

    def heard(self, seq: int) -> bool:
        """Was this player in the lobby when the news numbered ``seq`` happened?"""
        return any(first <= seq and (end is None or seq < end) for first, end in self.lobby_spans)

    @property
    def key(self) -> str:
        got = self._key
        if got is None or got[0] is not self.name:
            got = self._key = (self.name, name_key(self.name))
        return got[1]

    @property
    def seated(self) -> bool:
        return self.room is not None and self.seat is not None

    @property
    def connected(self) -> bool:
        return self.session is not None and not self.session.closed.is_set()

    @property
    def lang(self) -> str:
        return self.session.lang if self.session is not None else "en"


class GuestStart:
    """A guest's account opened early (SSH: during authentication, before the channel opens).

    The grant is a durable write; started while the key exchange and the
    authentication go on, it is usually done when the session logs in.
    Exactly one side :meth:`claim` s it: the login that uses it, or the clean-up
    (:meth:`Lobby.drop_guest_start`) that retires it when no login did.
    """

    def __init__(self, key: str, task: asyncio.Future[Account]) -> None:
        self.key = key
        self.task = task
        self.claimed = False

    def claim(self) -> bool:
        if self.claimed:
            return False
        self.claimed = True
        return True


