"""The two WebSockets: ``/ws`` (the JSON protocol) and ``/term/ws`` (the text session).

Each is a thin door like the telnet one (:mod:`server.transports.telnet`): the
connection cap per address, then a :class:`~server.web.conn.WsConn` handed to
the same sessions (:mod:`server.sessions.frontdoor`), which apply the login time-out,
the command rate limits and the slow-client rules; the conn meters the input.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from aiohttp import WSMsgType, web

from server.operations import logsafe
from server.sessions.frontdoor import _cut, greet_after_start, refused_at_door, serve_telnet
from server.sessions.session import Session
from server.web.conn import WsConn
from server.web.host import WebHost
from server.web.security import client_address, origin_allowed, passwords_allowed

log = logging.getLogger(__name__)

TOO_MANY = "Too many connections / Trop de connexions / Demasiadas conexiones."


async def serve_json(app: WebHost, conn: WsConn) -> None:
    """A ``/ws`` connection: JSON mode from its first frame (the ``hello`` event), then ``login``."""
    session = Session(app, conn, mode="json")
    conn.on_cut = _cut(session)
    session.start()
    try:
        if not await refused_at_door(session):
            greet_after_start(session)
            await session.run()
    finally:
        session.close(session.close_reason or "eof")
        await session.done.wait()


def socket_handler(running: WebHost, *, machine: bool) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    cfg = running.config
    proxies = running.web_proxies

    async def handle(request: web.Request) -> web.StreamResponse:
        if not origin_allowed(request, cfg.web_origins, proxies):
            log.info("web: WebSocket from a foreign origin refused: %r", request.headers.get("Origin"))
            raise web.HTTPForbidden(text="foreign origin")
        peer = client_address(request, proxies)
        # a frame is one line in JSON mode (longer than max_line: line_too_long), in a terminal a
        # paste; a frame over the whole input burst is a flood (aiohttp closes with 1009)
        ws = web.WebSocketResponse(max_msg_size=max(int(cfg.input_burst), 4096), heartbeat=30.0)
        await ws.prepare(request)
        if running.stopping or not running.connections.acquire(peer):
            with contextlib.suppress(Exception):
                if machine:
                    await ws.send_json({"type": "error", "id": None, "code": "too_many_connections",
                                        "message": TOO_MANY})
                else:
                    await ws.send_str(TOO_MANY + "\r\n")
                await ws.close()
            return ws
        lang = request.query.get("lang") if not machine else None
        conn = WsConn(ws, peer, machine=machine, max_line=cfg.max_line,
                      input_rate=float(cfg.input_bytes_per_second), input_burst=float(cfg.input_burst),
                      insecure=not passwords_allowed(request, proxies), lang=lang)
        if not machine:
            try:
                conn.width = min(max(int(request.query.get("cols", "80")), 20), 500)
                conn.height = min(max(int(request.query.get("rows", "24")), 10), 500)
            except ValueError:
                pass
        key = logsafe.new_key("web")
        try:
            with logsafe.scope(key):
                serve = serve_json(running, conn) if machine else serve_telnet(running, conn)
                session_task = asyncio.ensure_future(serve)
                try:
                    async for msg in ws:
                        if not conn.feed(msg):
                            break
                        if msg.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                            break
                finally:
                    conn.end_of_input()
                await session_task
        except Exception:
            log.exception("web connection from %s failed", peer)
        finally:
            running.connections.release(peer)
            conn.close()
            logsafe.forget(key)
        return ws

    return handle
