"""Public pages (no login) and their JSON under /api/."""

from __future__ import annotations

from typing import Any

from aiohttp import web


def add_routes(app: web.Application, running: Any) -> None:
    pass
