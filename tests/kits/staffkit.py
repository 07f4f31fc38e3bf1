"""What the tests of running a community share: a small community on a real server, JSON clients
logged in with their passwords, and a person's text client over raw telnet (optionally from another
loopback address, so that an address ban shuts out someone else than the admin)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Any

from clients.client import Client, ClientClosed
from clients.framing import WONT_TTYPE, IacFilter
from server.start.app import Running

HOST = "127.0.0.1"
OTHER = "127.0.0.2"  # another loopback address (Linux answers on all of 127/8)
PASSWORDS = {"ada": "ada-secret", "mo": "mo-secret", "pat": "pat-secret", "bob": "bob-secret",
             "max": "max-secret", "zed": "zed-secret"}
ROLES = {"ada": "admin", "max": "admin", "mo": "moderator", "zed": "moderator"}
"""ada and max are admins, mo and zed moderators; pat and bob players."""


async def community(server: Running) -> None:
    """Register the accounts of :data:`PASSWORDS` and give :data:`ROLES` (as the operator would)."""

    async def no_sleep(delay: float) -> None:
        return None

    server.store.sleep = no_sleep  # a wrong password is answered at once here
    for name, password in PASSWORDS.items():
        await server.store.accounts.register(name, password)
    for name, role in ROLES.items():
        await server.store.moderation.set_role(name, role, actor="console:test")


async def log_size(server: Running) -> int:
    return len(await server.store.moderation.log(500))


async def json_client(server: Running, name: str, *, local: str | None = None, guest: bool = False) -> Client:
    """A program logged in as ``name`` over raw TCP (its password from :data:`PASSWORDS`)."""
    if local is None:
        client = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
    else:
        client = Client(timeout=10)

        async def connect() -> Any:
            from clients.transports import TcpTransport

            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(HOST, server.telnet_port, local_addr=(local, 0)), 10)
            writer.write(WONT_TTYPE + b"json\r\n")
            return TcpTransport(reader, writer)

        await client._start(connect)
    await client.login(name, None if guest else PASSWORDS[name])
    return client


class Text:
    """A person over raw telnet: types lines, reads the screen (telnet commands dropped)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.iac = IacFilter()
        self.screen = ""
        self.seen = 0  # what :meth:`expect` already matched

    @classmethod
    async def connect(cls, server: Running, lang: str = "en", *, local: str | None = None) -> Text:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(HOST, server.telnet_port, local_addr=(local, 0) if local else None), 10)
        writer.write(WONT_TTYPE)
        text = cls(reader, writer)
        await text.expect(r"\]: ")
        text.type(lang)
        return text

    @classmethod
    async def login(cls, server: Running, name: str, lang: str = "en", *, local: str | None = None,
                    guest: bool = False) -> Text:
        text = await cls.connect(server, lang, local=local)
        await text.expect(r": ")
        text.type(name)
        if not guest:
            await text.expect(r"assword|asse|ontraseña")
            text.type(PASSWORDS[name])
        await text.expect(name)
        await asyncio.sleep(0)
        return text

    def type(self, line: str) -> None:
        self.writer.write(line.encode() + b"\r\n")

    async def expect(self, pattern: str, timeout: float = 10.0) -> str:
        """Read until ``pattern`` (a regex) shows up after what was matched before; the text read."""
        regex = re.compile(pattern)

        async def go() -> str:
            while True:
                found = regex.search(self.screen, self.seen)
                if found:
                    start, self.seen = self.seen, found.end()
                    return self.screen[start:found.end()]
                chunk = await self.reader.read(4096)
                if not chunk:
                    raise EOFError(f"closed before {pattern!r}; the screen: {self.screen[self.seen:]!r}")
                self.screen += self.iac.feed(chunk).decode("utf-8", "replace").replace("\r", "")

        return await asyncio.wait_for(go(), timeout)

    async def closed(self, timeout: float = 10.0) -> str:
        """Read until the server closes the connection; what came after the last match."""

        async def go() -> str:
            while True:
                chunk = await self.reader.read(4096)
                if not chunk:
                    return self.screen[self.seen:]
                self.screen += self.iac.feed(chunk).decode("utf-8", "replace").replace("\r", "")

        return await asyncio.wait_for(go(), timeout)

    async def command(self, line: str, answer: str, timeout: float = 10.0) -> str:
        self.type(line)
        return await self.expect(answer, timeout)

    def close(self) -> None:
        self.writer.close()


async def until(predicate: Any, timeout: float = 10.0) -> None:
    async def go() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(go(), timeout)


async def event_of(client: Client, name: str, timeout: float = 10.0) -> dict[str, Any]:
    """The first event ``name`` pushed to ``client``, already received or to come (even one pushed just
    before the server closed the connection). Other pushes read on the way are consumed."""

    async def go() -> dict[str, Any]:
        while True:
            while (msg := client.next_push_nowait()) is not None:
                if msg.get("type") == "event" and msg.get("event") == name:
                    return msg
            if client.closed.is_set():
                raise EOFError(f"closed without a {name} event")
            with contextlib.suppress(ClientClosed):
                await client.next_event(timeout=timeout)  # any event: it stays in the queue

    return await asyncio.wait_for(go(), timeout)


def events(client: Client, name: str) -> list[dict[str, Any]]:
    """The events ``name`` received and not consumed yet (every push received is consumed)."""
    out = []
    while (msg := client.next_push_nowait()) is not None:
        if msg.get("type") == "event" and msg.get("event") == name:
            out.append(msg)
    return out
