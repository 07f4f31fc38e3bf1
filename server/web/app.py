"""The aiohttp application and its listener."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from server.web.host import WebHost
from server.web.security import CSP, Handler, headers, networks
from server.web.sockets import socket_handler

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"

TERM_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
"""The terminal page's: xterm.js writes its colours into a style element (scripts stay strict)."""


def _page(name: str, csp: str | None = None) -> Handler:
    path = STATIC / name
    extra = {"Content-Security-Policy": csp} if csp else {}

    async def handle(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(path, headers={"Cache-Control": "no-cache", **extra})

    return handle


async def labels_handler(request: web.Request) -> web.Response:
    """``/api/i18n/<lang>``: the play page's labels from the gettext catalogs (English if unknown)."""
    from server.web.labels import page_labels
    from server.web.public import api

    return api(page_labels(request.match_info["lang"][:8]))


def make_app(running: WebHost) -> web.Application:
    """Every route of the web port, for one running server."""
    from server.web import public

    app = web.Application(middlewares=[headers, public.remember_lang], client_max_size=64 * 1024)
    app[public.RUNNING] = running
    app.router.add_get("/", _page("play.html"))
    app.router.add_get("/term", _page("term.html", TERM_CSP))
    app.router.add_get("/api/i18n/{lang}", labels_handler)
    app.router.add_get("/ws", socket_handler(running, machine=True))
    app.router.add_get("/term/ws", socket_handler(running, machine=False))
    public.add_routes(app, running)
    app.router.add_static("/static/", STATIC, append_version=False)
    return app


@dataclass
class WebServer:
    runner: web.AppRunner
    site: web.TCPSite
    port: int

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.site.stop()
        with contextlib.suppress(Exception):
            await self.runner.cleanup()


async def start_web(running: WebHost) -> WebServer:
    """Listen on ``[web] host:port``; the caller checks that the port is not 0 (off)."""
    cfg = running.config
    running.web_proxies = networks(cfg.web_trusted_proxies)
    runner = web.AppRunner(make_app(running), access_log=None, handle_signals=False,
                           shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, cfg.web_host, cfg.web_port, reuse_address=True)
    await site.start()
    server = site._server
    port = int(server.sockets[0].getsockname()[1]) if isinstance(server, asyncio.Server) else cfg.web_port
    return WebServer(runner, site, port)
