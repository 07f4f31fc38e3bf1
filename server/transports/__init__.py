"""Bytes to lines and back, and what terminals say about themselves (telnet, SSH).

A transport accepts connections and hands each, as a ``Conn`` (see
:class:`server.sessions.session.Conn`), to the ``serve`` function it was started with
(:mod:`server.sessions.frontdoor`); it knows the server only as a :class:`Server`.
"""

from __future__ import annotations

from typing import Any, Protocol

from server.config import Config
from server.operations.limits import ConnectionCounter


class Server(Protocol):
    """What a transport needs of the running server."""

    @property
    def config(self) -> Config: ...
    @property
    def stopping(self) -> bool: ...
    @property
    def connections(self) -> ConnectionCounter: ...
    @property
    def store(self) -> Any: ...
    @property
    def lobby(self) -> Any: ...
