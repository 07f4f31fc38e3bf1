"""A session's presenter, chosen with its mode, and the last state it was given.

Text for a person, JSON for a program (:mod:`server.presenters`); a telnet MUD client in text mode
also gets GMCP beside the text (docs/gmcp.md): the same states and events as the JSON mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from server.people.players import Player, States
from server.presenters import Presenter, Viewer
from server.presenters.gmcp import GmcpFeed, Link
from server.presenters.json import JsonPresenter
from server.presenters.text import TextPresenter
from server.protocol import Push


class RoomList(Protocol):
    def room_list(self) -> Sequence[tuple[Mapping[str, object], bool]]:
        """The open rooms' summaries, each with whether it has a free seat."""
        ...


class LobbyOf(Protocol):
    @property
    def lobby(self) -> RoomList: ...


class GmcpViewer(Viewer, Protocol):
    """A viewer whose GMCP feed also says where it sits and lists the lobby's rooms."""

    player: Player | None

    @property
    def app(self) -> LobbyOf: ...


def present(session: GmcpViewer, mode: str, gmcp_link: Link | None) -> tuple[Presenter, GmcpFeed | None]:
    """The presenter of ``mode`` (``json`` or ``text``) for ``session``, and its GMCP feed when the
    connection has a GMCP link (``gmcp_link``, None without) and the mode is text."""
    if mode == "json":
        return JsonPresenter(session), None
    return TextPresenter(session), (_gmcp_feed(session, gmcp_link) if gmcp_link is not None else None)


def _gmcp_feed(session: GmcpViewer, link: Link) -> GmcpFeed:
    def place() -> tuple[str | None, int | None]:
        player = session.player
        room = player.room if player is not None else None
        if room is None or player is None:
            return None, None
        return room.id, player.seat

    def rooms() -> list[Mapping[str, object]]:
        return [summary for summary, _free in session.app.lobby.room_list()]

    return GmcpFeed(session, link, place, rooms)


class LastState:
    """The last state a session received (the text parser reads it, and ``whoami``).

    In JSON mode only the state's line is sent: the dict is made from its table's states of that
    moment (a :class:`~server.table.states.StateSet`) when someone reads it, if ever."""

    __slots__ = ("_later", "_state")

    def __init__(self) -> None:
        self._state: Push | None = None
        self._later: tuple[States, int | None] | None = None  # (StateSet, seat) it is read from, if not made yet

    def keep(self, state: Push) -> None:
        self._later = None
        self._state = state

    def keep_later(self, states: States, seat: int | None) -> None:
        """``seat``'s state of ``states``, made when :attr:`state` is read."""
        self._later = (states, seat)

    @property
    def state(self) -> Push | None:
        """The last state received (None before the first)."""
        later = self._later
        if later is not None:
            self._later = None
            self._state = later[0].reader(later[1])
        return self._state
