"""Bytes to lines and back, and what terminals say about themselves (telnet, SSH).

A transport accepts connections and hands each, as a ``Conn`` (see
:class:`server.sessions.session.Conn`), to the ``serve`` function it was started with
(:mod:`server.sessions.frontdoor`); it knows the server only as a :class:`TransportHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.config import Config
from server.operations.limits import ConnectionCounter
from server.storage.api import Store

if TYPE_CHECKING:
    from server.lobby.lobby import Lobby


class TransportHost(Protocol):
    """What a transport needs of the running server."""

    @property
    def config(self) -> Config: ...
    @property
    def stopping(self) -> bool: ...
    @property
    def connections(self) -> ConnectionCounter: ...
    @property
    def store(self) -> Store: ...
    @property
    def lobby(self) -> Lobby: ...
