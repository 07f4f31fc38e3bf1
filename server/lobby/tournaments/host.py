"""What the lobby's hall of tournaments needs of the lobby (:class:`HallHost`)."""

from __future__ import annotations

from collections.abc import Coroutine, Mapping
from typing import Any, Protocol

from server.lobby.api import LobbyHost
from server.protocol import JSONValue


class HallHost(LobbyHost, Protocol):
    """What the hall needs of the lobby besides a seek's: its news, its tasks, whether it closes."""

    @property
    def closing(self) -> bool: ...

    def broadcast(self, event: Mapping[str, JSONValue], *, news: bool = False) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...
