"""What a remote person's proxies need of their node's lobby (:class:`Node`), as a protocol.

:mod:`server.cluster.proxy` works against this rather than against the node's
:class:`~server.cluster.relay.Relay`, which builds the proxies (no import circle).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from server.cluster.routing import NodeQueues
    from server.cluster.wire import Message
    from server.config import Config
    from server.people.players import Player
    from server.protocol import JSONValue, Result


class Node(Protocol):
    node: str
    outbox: NodeQueues
    pending: dict[str, asyncio.Future[Result | None]]

    @property
    def config(self) -> Config: ...
    @property
    def healthy(self) -> bool: ...

    async def until_running(self) -> None: ...

    def send(self, node: str, msg: Mapping[str, JSONValue]) -> None: ...

    def kick_outbox(self) -> None: ...

    @staticmethod
    def member_of(player: Player) -> Message: ...
