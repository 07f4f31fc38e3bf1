"""Who is online and the open rooms, in one process (``docs/cluster.md``).

:class:`Directory` answers ``who``, ``rooms`` and who hides where they sit, from the people and
rooms of one process; the lobby owns it. A node of a cluster adds the other nodes' entries to
these answers (:class:`server.cluster.lobby.ClusterLobby`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from server.people.players import Player
from server.protocol import JSONValue, items_in
from server.rooms.room import Room

Summary = dict[str, JSONValue]
"""A room's summary as ``rooms`` lists it (:meth:`server.rooms.room.Room.summary`: JSON values)."""


WhoEntry = dict[str, JSONValue]
"""One person as ``who`` lists them: ``name``, ``guest``, ``room`` and ``seat`` (these two only where
they may be shown)."""


def masked(summary: Summary, hidden: set[str]) -> Summary:
    """A room's summary as it is shown: the players who hide where they sit (``hidden``) are
    listed as ``None`` (counted, not named)."""
    players = items_in(summary.get("players"))
    if not hidden or not players or not any(name in hidden for name in players):
        return summary
    return {**summary, "players": [None if name in hidden else name for name in players]}


def connected(player: Player) -> bool:
    return player.connected


class Directory:
    """The people online and the open rooms of this process (``here``: which players count as
    online here: a cluster node leaves out the people whose connection is on another node)."""

    def __init__(self, players: Mapping[str, Player], rooms: Mapping[str, Room], *,
                 here: Callable[[Player], bool] = connected) -> None:
        self.players = players
        self.rooms = rooms
        self._here = here

    def online(self) -> list[Player]:
        here = self._here
        if here is connected:  # one process: no call per player
            return [p for p in self.players.values() if p.connected]
        return [p for p in self.players.values() if here(p)]

    def who(self, viewer: Player | None = None) -> list[WhoEntry]:
        """Everyone online as ``who`` lists them: name, guest, room, seat; the table of someone who
        hides it is shown only to themselves (``viewer``)."""
        out: list[WhoEntry] = []
        for p in self.online():
            shown = p.room is not None and (p is viewer or not p.extra.get("hide_where"))
            out.append({"name": p.name, "guest": p.guest, "room": p.room.id if shown and p.room else None,
                        "seat": p.seat if shown else None})
        return out

    def hidden_names(self, viewer: Player | None = None) -> set[str]:
        """The names of the people online who hide where they sit (``hide``), but ``viewer``."""
        return {p.name for p in self.online() if p.extra.get("hide_where") and p is not viewer}

    def room_list(self) -> list[tuple[Summary, bool]]:
        """The open rooms in the order they opened: each one's summary, and whether a person may sit
        down there now."""
        out: list[tuple[Summary, bool]] = []
        for room in self.rooms.values():
            if not room.closed:
                summary = room.summary()
                out.append((summary, room.has_free_seat(summary)))
        return out
