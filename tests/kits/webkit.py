"""Helpers of the web tests: a server with its web port on, JSON over /ws as the TCP tests speak it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from clients.client import Client
from server.start.app import Running
from tests.kits.servers import FREE_PORT, start_server


async def start_web_server(tmp_path: Any, **overrides: Any) -> Running:
    return await start_server(tmp_path, web_port=FREE_PORT, **overrides)


def ws_url(running: Running, path: str = "/ws") -> str:
    return f"ws://127.0.0.1:{running.web_port}{path}"


def own_origin(running: Running) -> str:
    return f"http://127.0.0.1:{running.web_port}"


async def connect_ws(running: Running, name: str | None = None, *, timeout: float = 10.0) -> Client:
    client = await Client.connect_ws(ws_url(running), origin=own_origin(running), timeout=timeout)
    if name is not None:
        await client.login(name)
    return client


class _FrameWriter:
    """``writer.write(bytes)`` as the raw TCP tests call it: each line one text frame."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.sent: list[asyncio.Task[Any]] = []

    def write(self, data: bytes) -> None:
        for line in data.decode("utf-8", "replace").splitlines():
            self.sent.append(asyncio.ensure_future(self.ws.send_str(line)))

    def close(self) -> None:
        self.sent.append(asyncio.ensure_future(self.ws.close()))


class RawWs:
    """The face of ``tests.e2e.wire.test_json.RawJson`` over ``/ws``: frames are lines."""

    def __init__(self, session: Any, ws: Any) -> None:
        self.session = session
        self.ws = ws
        self.writer = _FrameWriter(ws)
        self.after_json = b""

    @classmethod
    async def open(cls, url: str, origin: str | None) -> RawWs:
        import aiohttp

        session = aiohttp.ClientSession()
        ws = await session.ws_connect(url, headers={"Origin": origin} if origin else {})
        self = cls(session, ws)
        hello = json.loads(await asyncio.wait_for(ws.receive_str(), 10))
        assert hello["type"] == "event" and hello["event"] == "hello", hello
        return self

    async def line(self) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.receive_str(), 10)
        assert "\n" not in raw, raw  # one object per frame
        self.after_json += raw.encode() + b"\n"
        msg: dict[str, Any] = json.loads(raw)
        return msg

    async def reply(self) -> dict[str, Any]:
        while True:
            msg = await self.line()
            if msg["type"] in ("ok", "error"):
                return msg

    async def ask(self, obj: dict[str, Any] | bytes) -> dict[str, Any]:
        self.writer.write(obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b"\n")
        return await self.reply()

    def close(self) -> None:
        async def go() -> None:
            await self.ws.close()
            await self.session.close()

        self.writer.sent.append(asyncio.ensure_future(go()))
