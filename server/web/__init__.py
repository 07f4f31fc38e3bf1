"""donne in a browser: an HTTP port in the server's own process and event loop (aiohttp).

* ``/`` the play page, ``/term`` a terminal page (static files, ``static/``);
* ``/ws`` the JSON protocol over a WebSocket, ``/term/ws`` the text session;
* public pages and their JSON (``/who``, ``/tables``, ``/leaderboard``, ``/player/NAME``...,
  ``/api/...``): :mod:`server.web.public`.

``[web] port = 0`` turns it off. See ``docs/web.md``.
"""

from __future__ import annotations

from server.web.app import WebServer, make_app, start_web

__all__ = ["WebServer", "make_app", "start_web"]
