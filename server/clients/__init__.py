"""Scripted clients of donne's JSON mode: the client library, the wire bots, the load generator.

* :mod:`server.clients.client` — :class:`Client` over raw TCP (the telnet port) or
  SSH exec ``json``: replies by ``id``, pushes, reconnect; its byte handling is
  sans-I/O in :mod:`server.clients.framing`.
* :mod:`server.clients.wirebot` — ``donne bot``: engine strategies playing from the
  pushed states alone (:mod:`server.clients.adapters` rebuilds the views).
* :mod:`server.clients.load` — ``donne load``: many wire bots in worker processes
  against a ``donne serve`` subprocess, one JSON object of figures.

This package imports nothing else of ``server/``: only the standard library,
asyncssh and ``engine/`` (the strategies). It reaches the server through its
ports and its command line, as any client would.
"""

from server.clients.client import Client
from server.clients.errors import ClientClosed, ClientError, ClientTimeout

__all__ = ["Client", "ClientClosed", "ClientError", "ClientTimeout"]
