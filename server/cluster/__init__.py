"""Cluster mode: several ``donne serve`` nodes, one community (``docs/cluster.md``).

Switched on by ``[cluster] redis_url`` and ``node`` with ``[storage] url = "postgresql://…"``;
the embedded default (one process, SQLite) never imports this package.

* :mod:`server.cluster.wire` — the messages between nodes and how they are encoded (pure).
* :mod:`server.cluster.routing` — which node receives what of a table's outputs (pure).
* :mod:`server.cluster.lease` — a table's ownership: lease book, renewal, fencing epoch.
* :mod:`server.cluster.bus` — the Redis connection: a channel per node, the lobby channel,
  keep-alives, health; :mod:`server.cluster.publisher` — its publishing connection.
* :mod:`server.cluster.proxy` — a remote person on the owner (:class:`RemoteClient`) and a
  remote room on the front (:class:`RemotePlace`).
* :mod:`server.cluster.relay` — a table's messages between its owner and its people's fronts.
* :mod:`server.cluster.keepalive` — what a node tells the cluster, and its view of the others.
* :mod:`server.cluster.takeover` — failover: leases renewed or lost, orphan tables taken over.
* :mod:`server.cluster.community` — tells, friends' notices, mutes and ignore lists across nodes.
* :mod:`server.cluster.lobby` — :class:`ClusterLobby`, the lobby of one node, which owns the parts above.
"""
