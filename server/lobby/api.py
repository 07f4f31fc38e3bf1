"""What rooms, seeks' tables and tables rebuilt after a restart need of the lobby (:class:`LobbyHost`).

The one-process :class:`server.lobby.lobby.Lobby` and a cluster node's
:class:`server.cluster.lobby.ClusterLobby` both are one; :func:`server.lobby.seektable.open_seek`
and :func:`server.lobby.restored.restore` work against this protocol, and a room against the part
of it it declares itself (:class:`server.rooms.room.RoomHost`, below the lobby in the layers).
"""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Protocol

from server.people.players import Player, PlayerSession
from server.protocol import JSONValue
from server.rooms.room import Room, RoomHost

if TYPE_CHECKING:
    from server.games import TableOptions
    from server.lobby.seeks import Seek, Seeks
    from server.operations.limits import Opener
    from server.storage.api import Store


class Connection(PlayerSession, Protocol):
    """An open connection, logged in or not, as the lobby's shutdown and the staff's door see it."""

    @property
    def done(self) -> asyncio.Event:
        """Set once the connection is closed and the lobby told."""
        ...


class LobbyHost(RoomHost, Protocol):
    """A room's host, whose rooms and players it fills, that keeps the seeks and opens rooms."""

    @property
    def store(self) -> Store: ...
    @property
    def rooms(self) -> MutableMapping[str, Room]: ...
    @property
    def players(self) -> MutableMapping[str, Player]: ...
    @property
    def seeks(self) -> Seeks: ...

    def adopt(self, room: Room) -> None:
        """Count ``room``, rebuilt after a restart, among the lobby's open rooms."""
        ...

    def arm_seeks(self) -> None:
        """One timer, for the next seek or challenge to lapse."""
        ...

    def tell_seek(self, seek: Seek, what: str, *, but: str | None = None, **why: JSONValue) -> None:
        """The seek's people hear what became of it (``why``: the refusal that ended it)."""
        ...

    def opener(self, player: Player) -> Opener: ...

    async def open_room(self, opts: TableOptions, owner: str, opener: Opener | None = None) -> Room: ...

    def announce(self, room: Room, name: str) -> None:
        """Tell the lobby a room opened (news)."""
        ...
