"""What a scripted client raises (:class:`clients.client.Client`): an error reply, a time-out, a
closed connection."""

from __future__ import annotations

from clients.framing import Message


class ClientError(Exception):
    """An error reply (``code``, ``message``), or a client-side failure (``timeout``, ``closed``)."""

    def __init__(self, code: str, message: str = "", reply: Message | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.reply = reply or {}


class ClientTimeout(ClientError, TimeoutError):
    """No reply (or no awaited push) within the time allowed."""

    def __init__(self, message: str = "") -> None:
        super().__init__("timeout", message)


class ClientClosed(ClientError, ConnectionError):
    """The connection is closed (by us or by the server)."""

    def __init__(self, message: str = "connection closed") -> None:
        super().__init__("closed", message)
