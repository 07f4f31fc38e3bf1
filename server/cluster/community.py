"""The community across nodes: tells, messages, friends' notices, mutes and ignore lists
(``docs/cluster.md``).

A person online at another node is found in the cluster's ``who`` (each node's keep-alive entries,
read back every keep-alive). What is for them crosses on the lobby channel and the node that holds
their connection hands it over:

``reach`` ``key ev reply_to`` — a tell or an offline message for a person online there (their
    node checks their ignore list once more before they see it);
``keys`` ``keys ev but`` — an event for those of these people online there (friends' notices);
``ignores`` ``key names guest`` — a person's ignore list as it is now (every node obeys it);
``mute`` ``name until ev`` — a mute set (``until``) or lifted (null); the person hears ``ev``.

The sender's node checks mutes and ignore lists before anything leaves it: every node keeps every
list up to date from these messages, as the one process keeps its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from server.protocol import JSONObject, JSONValue, Push
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.cluster.bus import Bus
    from server.lobby.moderation import Conduct
    from server.people.players import Player, PlayerSession

log = logging.getLogger("donne.cluster")

KINDS = frozenset({"reach", "keys", "ignores", "mute"})


class Community:
    """This node's side of the cluster's community (owned by :class:`~server.cluster.lobby.ClusterLobby`):
    ``local_session`` finds a person connected to this node, ``elsewhere`` lists the people online
    at the other nodes (at the last keep-alive)."""

    def __init__(self, bus: Bus, conduct: Conduct,
                 local_session: Callable[[str], tuple[Player, PlayerSession] | None],
                 elsewhere: Callable[[], Mapping[str, Mapping[str, JSONValue]]]) -> None:
        self.bus = bus
        self.conduct = conduct
        self._local_session = local_session
        self._elsewhere = elsewhere

    # -- out --------------------------------------------------------------------------------------

    def elsewhere(self, name: str) -> JSONObject | None:
        key = name_key(name.strip())
        if not key or self._local_session(key) is not None:
            return None
        entry = self._elsewhere().get(key)
        return dict(entry) if entry is not None else None

    def reach(self, key: str, event: Push, reply_to: str | None) -> None:
        self.bus.broadcast({"t": "reach", "key": key, "ev": dict(event), "reply_to": reply_to})

    def tell_keys(self, keys: list[str], event: Push, but: str | None) -> None:
        """Those of ``keys`` not online here hear ``event`` at their node."""
        far = [k for k in keys if k != but and self._local_session(k) is None]
        if far:
            self.bus.broadcast({"t": "keys", "keys": far, "ev": dict(event), "but": but})

    def shared_ignores(self, player: Player) -> None:
        names = self.conduct.list_of(player)
        self.bus.broadcast({"t": "ignores", "key": player.key, "names": dict(names), "guest": player.guest})

    def shared_mute(self, name: str, until: float | None, event: Push) -> None:
        self.bus.broadcast({"t": "mute", "name": name, "until": until, "ev": dict(event)})

    # -- in ---------------------------------------------------------------------------------------

    def handle(self, msg: Mapping[str, JSONValue]) -> None:
        kind = msg["t"]
        ev = msg.get("ev")
        if kind == "reach" and isinstance(ev, dict):
            self._reached(str(msg.get("key")), ev, msg.get("reply_to"))
        elif kind == "keys" and isinstance(ev, dict) and isinstance(keys := msg.get("keys"), list):
            but = msg.get("but")
            for key in keys:
                if isinstance(key, str) and key != but:
                    found = self._local_session(key)
                    if found is not None:
                        found[1].push_event(ev)
        elif kind == "ignores" and isinstance(key := msg.get("key"), str) and isinstance(names := msg.get("names"), dict):
            listed = {str(k): str(v) for k, v in names.items()}
            self.conduct.noted_ignores(key, listed, guest=bool(msg.get("guest")))
        elif kind == "mute" and isinstance(name := msg.get("name"), str) and isinstance(ev, dict):
            until = msg.get("until")
            self.conduct.noted_mute(name, float(until) if isinstance(until, int | float) else None)
            found = self._local_session(name_key(name))
            if found is not None:
                found[1].push_event(ev)

    def _reached(self, key: str, ev: Push, reply_to: object) -> None:
        found = self._local_session(key)
        if found is None:
            return  # gone meanwhile (as a tell to someone who just left)
        player, session = found
        sender = ev.get("from")
        if isinstance(sender, str) and self.conduct.ignores(player.name, sender):
            return
        session.push_event(ev)
        if isinstance(reply_to, str):
            player.extra["reply_to"] = reply_to
