"""The running server as the web door uses it (a ``server.start.app.Running``)."""

from __future__ import annotations

from typing import Protocol

from server.sessions.session import Session
from server.transports import TransportHost
from server.web.security import Network


class WebHost(TransportHost, Protocol):
    """What the web door reads of the running server: what every transport reads, its trusted
    proxies, and the open sessions (a browser's session joins them)."""

    web_proxies: tuple[Network, ...]

    @property
    def sessions(self) -> set[Session]: ...
