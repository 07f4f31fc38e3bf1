"""What the lobby's hall of tournaments needs of the lobby (:class:`HallHost`) and of the cluster
(:class:`HallCluster`; one process: :class:`Alone`)."""

from __future__ import annotations

from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Protocol

from server.lobby.api import LobbyHost
from server.protocol import Args, JSONValue, Push
from server.rooms.room import Room
from server.storage.api import Fence


class HallHost(LobbyHost, Protocol):
    """What the hall needs of the lobby besides a seek's: its news, its tasks, whether it closes,
    and where a person is (here, or online at another node of a cluster)."""

    @property
    def closing(self) -> bool: ...

    def broadcast(self, event: Mapping[str, JSONValue], *, news: bool = False) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...

    def elsewhere(self, name: str) -> Mapping[str, JSONValue] | None:
        """The person online as ``name`` at another node (their ``who`` entry), or None."""
        ...

    def reach(self, key: str, event: Push, *, reply_to: str | None = None) -> None:
        """``event`` for the person ``key`` online at another node."""
        ...


class HallCluster(Protocol):
    """What the hall needs of the cluster (``server/cluster/events.py``): whether this node owns an
    event and its fencing token, the events of the other nodes, and the people seated from them.
    One process: :class:`Alone` (every event is its own, there is nobody elsewhere)."""

    def fence(self, tid: str) -> Fence | None:
        """The fencing token every write of event ``tid`` carries (None: none)."""
        ...

    def acting(self, tid: str) -> bool:
        """This node surely owns event ``tid`` now (its lease, by its own monotonic clock)."""
        ...

    async def own(self, tid: str) -> None:
        """A new event's lease taken before its first write (``CommandError("server_trouble")``
        when it cannot be)."""
        ...

    def over(self, tid: str) -> None:
        """Event ``tid`` ended here (over or set aside): its lease and its listing are given up."""
        ...

    def gone(self, tid: str) -> None:
        """This node stopped driving event ``tid`` (it may no longer own it): its lease released if
        still this node's, so that whichever node claims it first rebuilds it from its journal."""
        ...

    async def owner(self, tid: str) -> str | None:
        """The node that runs event ``tid`` when another node does (None: no other node does)."""
        ...

    async def forward(self, node: str, cmd: str, args: Args, name: str, staff: bool) -> dict[str, JSONValue]:
        """A ``tournament_*`` command of ``name`` run by the event's owner ``node``: its reply, or
        its refusal raised as here (``CommandError``)."""
        ...

    async def listing(self, asker: str | None) -> list[dict[str, JSONValue]]:
        """The events the other nodes run, as ``tournaments`` lists them for ``asker``."""
        ...

    async def seat(self, room: Room, name: str, finished: Sequence[str]) -> bool:
        """Seat ``name``, online at another node, at this node's ``room`` (their node joins it as a
        person joins a table of another node); whether they sat. Their node makes them leave the
        room they watch, or a finished table: one of its own, or of ``finished`` (the event's tables
        held by other nodes whose result was reported); seated at another table, they do not sit."""
        ...


class Alone:
    """One process: every event is this process's, and nobody is elsewhere."""

    def fence(self, tid: str) -> Fence | None:
        return None

    def acting(self, tid: str) -> bool:
        return True

    async def own(self, tid: str) -> None:
        return None

    def over(self, tid: str) -> None:
        return None

    def gone(self, tid: str) -> None:
        return None

    async def owner(self, tid: str) -> str | None:
        return None

    async def forward(self, node: str, cmd: str, args: Args, name: str, staff: bool) -> dict[str, JSONValue]:
        raise AssertionError("one process forwards nothing")

    async def listing(self, asker: str | None) -> list[dict[str, JSONValue]]:
        return []

    async def seat(self, room: Room, name: str, finished: Sequence[str]) -> bool:
        return False


def far(host: HallHost, names: Sequence[str]) -> list[str]:
    """Those of ``names`` online at another node of the cluster (none in one process)."""
    return [n for n in names if host.elsewhere(n) is not None]
