"""GMCP beside a person's text: the table as data for MUD clients (docs/gmcp.md).

A session whose telnet client took GMCP stays a text session; a :class:`GmcpFeed` sends, next to
the words, what a JSON-mode client would receive, in GMCP packages:

* ``Char.Login`` (name, guest) once logged in; ``Char.Status`` (name, guest, language, room,
  seat) whenever one of them changes;
* ``Comm.Channel.List`` once, ``Comm.Channel.Text`` for lobby chat, table chat and tells;
* ``Donne.Lobby`` (the room list, as the ``rooms`` reply) at login and back in the lobby;
* ``Donne.Table``: the reader's state without its hand (seats, turn, trick, deadline, legal
  plays...), ``Donne.Hand``: the hand, to its owner only, ``Donne.Event``: every event, with its
  words in the session's language.

States and events are the JSON mode's own (the table's per-reader views: a seat's hidden cards
only ever in that seat's own state and events), encoded by the JSON presenter.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Protocol

from server.presenters import Viewer
from server.presenters.json import JsonPresenter
from server.protocol import Shared

log = logging.getLogger(__name__)

CHANNELS = (
    {"name": "lobby", "caption": "lobby", "command": "say"},
    {"name": "table", "caption": "table", "command": "say"},
    {"name": "tell", "caption": "tell", "command": "tell"},
)
ROOMS_MAX = 100
"""Rooms in one ``Donne.Lobby`` (the first page of the ``rooms`` command at its largest)."""
TELLS = frozenset({"tell", "message"})


class Link(Protocol):
    """A connection's GMCP (:class:`server.transports.mud.GmcpLink`)."""

    @property
    def active(self) -> bool: ...
    def wants(self, package: str) -> bool: ...
    def send(self, package: str, data: Any) -> bool: ...
    def send_json(self, package: str, text: str) -> bool: ...

    on_message: Any  # told of the client's own messages (package, data)


class GmcpFeed:
    """What one session sends over GMCP. ``place`` tells where its player is: (room id or None,
    seat or None); ``rooms`` gives the lobby's room list."""

    def __init__(self, viewer: Viewer, link: Link, place: Any = None, rooms: Any = None) -> None:
        self.viewer = viewer
        self.link = link
        self.json = JsonPresenter(viewer)
        self._place = place
        self._rooms = rooms
        self._status: tuple[Any, ...] | None = None
        link.on_message = self.received

    def received(self, package: str, data: Any) -> None:
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
        self.link.send("Donne.Lobby", {"rooms": rooms})

    def state(self, state: Mapping[str, Any]) -> None:
        link = self.link
        if not link.active:
            return
        if link.wants("Donne.Table"):
            link.send("Donne.Table", {k: v for k, v in state.items() if k != "hand"})
        hand = state.get("hand")
        if hand is not None and state.get("you") is not None and link.wants("Donne.Hand"):
            link.send("Donne.Hand", {"room": state.get("room"), "you": state.get("you"), "hand": hand})
        self.status()

    def event(self, event: Mapping[str, Any], names: tuple[str, ...] | None, you: int | None) -> None:
        if not self.link.active:
            return
        self._send_event(event, self.json.event(event, names, you))

    def shared(self, shared: Shared, you: int | None) -> None:
        if not self.link.active:
            return
        self._send_event(shared.event, self.json.shared(shared, you))

    def _send_event(self, event: Mapping[str, Any], line: str) -> None:
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
