"""Scripted clients of donne's JSON mode: the client library, the wire bots, the load generator.

* :mod:`clients.client` — :class:`Client` over raw TCP (the telnet port) or
  SSH exec ``json``: replies by ``id``, pushes, reconnect; its byte handling is
  sans-I/O in :mod:`clients.framing`.
* :mod:`clients.wirebot` — ``donne bot``: engine strategies playing from the
  pushed states alone (:mod:`clients.adapters` rebuilds the views).
* :mod:`clients.load` — ``donne load``: many wire bots in worker processes
  against a ``donne serve`` subprocess, one JSON object of figures.

This package imports nothing else of ``server/``: only the standard library,
asyncssh and ``engine/`` (the strategies). It reaches the server through its
ports and its command line, as any client would.
"""

from clients.client import Client
from clients.errors import ClientClosed, ClientError, ClientTimeout

__all__ = ["Client", "ClientClosed", "ClientError", "ClientTimeout"]
