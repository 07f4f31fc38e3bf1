"""The lobby as a directory of people and rooms, in one process (``docs/cluster.md``).

:class:`Directory` is what ``who``, ``rooms``, ``join``/``watch`` and the rooms' outage handling
ask of the lobby: here, the one process's own people and rooms, and never a pause. A node of a
cluster answers the same questions for the whole cluster
(:class:`server.cluster.lobby.ClusterLobby`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.people.players import Place, Player
    from server.rooms.room import Room
    from server.storage.api import Fence


def masked(summary: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A room's summary as it is shown: the players who hide where they sit (``hidden``) are
    listed as ``None`` (counted, not named)."""
    players = summary.get("players")
    if not hidden or not players or not any(name in hidden for name in players):
        return summary
    return {**summary, "players": [None if name in hidden else name for name in players]}


class Directory:
    """The one-process answers (a base of :class:`server.lobby.lobby.Lobby`)."""

    if TYPE_CHECKING:
        rooms: Mapping[str, Room]

        def online(self) -> list[Player]: ...

        def find_room(self, room_id: Any) -> Room: ...

    def who(self, viewer: Player | None = None) -> list[dict[str, Any]]:
        """Everyone online as ``who`` lists them: name, guest, room, seat (a cluster: every node's);
        the table of someone who hides it is shown only to themselves (``viewer``)."""
        out = []
        for p in self.online():
            shown = p.room is not None and (p is viewer or not p.extra.get("hide_where"))
            out.append({"name": p.name, "guest": p.guest, "room": p.room.id if shown and p.room else None,
                        "seat": p.seat if shown else None})
        return out

    def hidden_names(self, viewer: Player | None = None) -> set[str]:
        """The names of the people online who hide where they sit (``hide``), but ``viewer``."""
        return {p.name for p in self.online() if p.extra.get("hide_where") and p is not viewer}

    def room_list(self) -> list[tuple[dict[str, Any], bool]]:
        """The open rooms in the order they opened: each one's summary, and whether a person may sit
        down there now (a cluster: every node's)."""
        out: list[tuple[dict[str, Any], bool]] = []
        for room in self.rooms.values():
            if not room.closed:
                summary = room.summary()
                out.append((summary, room.has_free_seat(summary)))
        return out

    async def find_place(self, room_id: Any) -> Place:
        """The room ``room_id`` names, where ``join`` and ``watch`` go (a cluster: on any node)."""
        return self.find_room(room_id)

    # -- the community on other nodes (one process: there are none) --------------------------

    def elsewhere(self, name: str) -> dict[str, Any] | None:
        """The person online as ``name`` at another node of the cluster (their ``who`` entry: name,
        guest, room, seat), or None."""
        return None

    def reach(self, key: str, event: Mapping[str, Any], *, reply_to: str | None = None) -> None:
        """``event`` for the person ``key`` online at another node (``reply_to``: whom their
        ``reply`` answers)."""

    def shared_ignores(self, player: Player) -> None:
        """``player``'s ignore list changed: every node obeys the new one."""

    def shared_mute(self, name: str, until: float | None, event: Mapping[str, Any]) -> None:
        """``name`` was muted until ``until`` (None: unmuted): every node obeys it, and the person
        hears ``event`` wherever they are."""

    # -- outages (one process: none; a cluster node: server/cluster/lobby.py) -----------------

    @property
    def paused(self) -> bool:
        """A service the rooms need is away: they wait (:meth:`until_running`)."""
        return False

    async def until_running(self) -> None:
        return None

    async def outage(self, exc: BaseException) -> bool:
        """A store operation of a room failed: never retried in one process (the table decides)."""
        return False

    # -- ownership (one process: every room is its own; a cluster node: its leases) -------------

    def acting(self, rid: str) -> bool:
        """This process surely owns room ``rid`` now (by its own monotonic clock): the room may take
        a step. A room that may not stops before touching anything (:meth:`stale`)."""
        return True

    def lost(self, rid: str) -> bool:
        """This process knows it no longer holds room ``rid`` (a cluster: its lease was given up)."""
        return False

    def fence(self, rid: str) -> Fence | None:
        """The fencing token every write of room ``rid`` carries (None: none, one process)."""
        return None

    def stale(self, room: Room) -> None:
        """Room ``room`` found this process no longer surely owns it: it stopped where it was."""
