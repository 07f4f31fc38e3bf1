"""GMCP beside a person's text: the table as data for MUD clients (docs/gmcp.md).

A session whose telnet client took GMCP stays a text session; a :class:`GmcpFeed` sends, next to
the words, what a JSON-mode client would receive, in GMCP packages:

* ``Char.Login`` (name, guest) once logged in; ``Char.Status`` (name, guest, language, room,
  seat) whenever one of them changes;
* ``Comm.Channel.List`` once, ``Comm.Channel.Text`` for lobby chat, table chat and tells;
* ``Donne.Lobby`` (the room list, as the ``rooms`` reply) at login, back in the lobby, and when
  the room list changes (at most once a second: :data:`LOBBY_EVERY`);
* ``Donne.Table``: the reader's state without its hand (seats, turn, trick, deadline, legal
  plays...), ``Donne.Hand``: the hand, to its owner only, ``Donne.Event``: every event, with its
  words in the session's language.

States and events are the JSON mode's own (the table's per-reader views: a seat's hidden cards
only ever in that seat's own state and events), encoded by the JSON presenter.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from server.presenters import Viewer
from server.presenters.json import JsonPresenter
from server.protocol import JSONValue, Push, Shared

log = logging.getLogger(__name__)

CHANNELS = (
    {"name": "lobby", "caption": "lobby", "command": "say"},
    {"name": "table", "caption": "table", "command": "say"},
    {"name": "tell", "caption": "tell", "command": "tell"},
)
ROOMS_MAX = 100
"""Rooms in one ``Donne.Lobby`` (the first page of the ``rooms`` command at its largest)."""
TELLS = frozenset({"tell", "message"})
LOBBY_EVERY = 1.0
"""Seconds between two ``Donne.Lobby`` sent because the room list changed (rooms open and close in
bursts: one list a second is enough to follow them, and bounds the bytes)."""


class Link(Protocol):
    """A connection's GMCP (:class:`server.transports.mud.GmcpLink`)."""

    @property
    def active(self) -> bool: ...
    def wants(self, package: str) -> bool: ...
    def send(self, package: str, data: object) -> bool: ...
    def send_json(self, package: str, text: str) -> bool: ...

    on_message: Callable[[str, JSONValue], None] | None  # told of the client's own messages (package, data)


class GmcpFeed:
    """What one session sends over GMCP. ``place`` tells where its player is: (room id or None,
    seat or None); ``rooms`` gives the lobby's room list."""

    def __init__(self, viewer: Viewer, link: Link,
                 place: Callable[[], tuple[str | None, int | None]] | None = None,
                 rooms: Callable[[], Sequence[Mapping[str, object]]] | None = None,
                 clock: Callable[[], float] | None = None,
                 later: Callable[[float, Callable[[], None]], object] | None = None) -> None:
        self.viewer = viewer
        self.link = link
        self.json = JsonPresenter(viewer)
        self._place = place
        self._rooms = rooms
        self._status: tuple[object, ...] | None = None
        self._clock = clock  # (the event loop's, by default; tests give theirs)
        self._later = later
        self._lobby_sent: float | None = None
        self._lobby_due: object = None  # the timer of a Donne.Lobby put off (LOBBY_EVERY)
        link.on_message = self.received

    def received(self, package: str, data: JSONValue) -> None:
        """A client's message beyond ``Core``: ``Donne.Lobby.Get`` asks for the room list again."""
        if package.lower() == "donne.lobby.get" and self.viewer.logged_in:
            self.lobby()

    def logged(self) -> None:
        """Logged in: who, the channels, where, the lobby."""
        link, v = self.link, self.viewer
        if not link.active:
            return
        link.send("Char.Login", {"name": v.name, "guest": v.guest})
        link.send("Comm.Channel.List", list(CHANNELS))
        self.status()

    def status(self) -> None:
        """``Char.Status`` when the name, language, room or seat changed (and the lobby, back in it)."""
        link, v = self.link, self.viewer
        if not v.logged_in or not link.active:
            return
        room, seat = self._place() if self._place is not None else (None, None)
        now = (v.name, v.guest, v.lang, room, seat)
        if now == self._status:
            return
        back_in_lobby = self._status is None or (room is None and self._status[3] is not None)
        self._status = now
        link.send("Char.Status", {"name": v.name, "guest": v.guest, "lang": v.lang, "room": room, "seat": seat})
        if back_in_lobby and room is None:
            self.lobby()

    def lobby(self) -> None:
        if self._rooms is None or not self.link.wants("Donne.Lobby"):
            return
        try:
            rooms = self._rooms()[:ROOMS_MAX]
        except Exception:
            log.exception("gmcp: the room list failed")
            return
        if self.link.send("Donne.Lobby", {"rooms": rooms}):
            self._lobby_sent = self._now()

    def rooms_changed(self) -> None:
        """The room list changed (rooms opened or closed): ``Donne.Lobby`` again to a reader in the
        lobby, at once if none went in the last :data:`LOBBY_EVERY` seconds, else once when they
        are over (the changes of that second together)."""
        if self._rooms is None or self._lobby_due is not None or not self.viewer.logged_in \
                or not self.link.wants("Donne.Lobby") or not self._in_lobby():
            return
        wait = 0.0 if self._lobby_sent is None else self._lobby_sent + LOBBY_EVERY - self._now()
        if wait <= 0:
            self.lobby()
            return
        later = self._later
        if later is None:
            try:
                later = asyncio.get_running_loop().call_later
            except RuntimeError:
                self.lobby()
                return
        self._lobby_due = later(wait, self._lobby_again)

    def _lobby_again(self) -> None:
        self._lobby_due = None
        if self.viewer.logged_in and self.link.active and self._in_lobby():
            self.lobby()

    def _in_lobby(self) -> bool:
        room, _ = self._place() if self._place is not None else (None, None)
        return room is None

    def _now(self) -> float:
        if self._clock is not None:
            return self._clock()
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return 0.0

    def state(self, state: Push) -> None:
        link = self.link
        if not link.active:
            return
        if link.wants("Donne.Table"):
            link.send("Donne.Table", {k: v for k, v in state.items() if k != "hand"})
        hand = state.get("hand")
        if hand is not None and state.get("you") is not None and link.wants("Donne.Hand"):
            link.send("Donne.Hand", {"room": state.get("room"), "you": state.get("you"), "hand": hand})
        self.status()

    def event(self, event: Push, names: tuple[str, ...] | None, you: int | None) -> None:
        if not self.link.active:
            return
        self._send_event(event, self.json.event(event, names, you))

    def shared(self, shared: Shared, you: int | None) -> None:
        if not self.link.active:
            return
        self._send_event(shared.event, self.json.shared(shared, you))

    def _send_event(self, event: Push, line: str) -> None:
        link = self.link
        line = line.rstrip("\n")
        if not line:
            return
        link.send_json("Donne.Event", line)
        kind = event.get("event")
        if (kind == "chat" or kind in TELLS) and link.wants("Comm.Channel.Text"):
            try:
                text = json.loads(line).get("text", "")
            except ValueError:
                text = ""
            if kind == "chat":
                channel, talker = ("table" if event.get("room") else "lobby"), event.get("name")
            else:
                channel, talker = "tell", event.get("from")
            link.send("Comm.Channel.Text", {"channel": channel, "talker": talker, "text": text})
        if kind in ("joined", "left", "resumed", "seek_started"):
            self.status()
