"""The messages of a table between its owner and the fronts of its people (``docs/cluster.md``).

:class:`Relay` is the part of :class:`~server.cluster.lobby.ClusterLobby` that carries a table's
traffic: out through the :class:`~server.cluster.routing.Outbox` and the bus, in by kind
(``_on_<kind>``). On the owner, a person of another node is a player whose session is a
:class:`~server.cluster.proxy.RemoteClient` (``cmd``, ``conn``, ``disc``); on the front, their
room is a :class:`~server.cluster.proxy.RemotePlace` and the owner's states, events and notices
go to the person's own session (``reply``, ``st``, ``sh``, ``ev``, ``notice``, ``close``, ``gone``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Mapping
from typing import Any

from server.cluster import community, wire
from server.cluster.bus import Bus
from server.cluster.proxy import RemoteClient, RemotePlace, RemoteStates
from server.cluster.routing import Outbox
from server.lobby.lobby import Lobby
from server.people.players import Player
from server.protocol import CommandError, Shared
from server.rooms.room import Room

log = logging.getLogger("donne.cluster")

LOBBY_KINDS = frozenset({"chat", "news", "kick", "owner"}) | community.KINDS
"""The lobby channel's messages: each node hears its own too, and has handled them already."""

ANSWERS_KEPT = 10_000
"""Replies kept for copies of a request (a front sends a command again after a second unanswered)."""


class Relay(Lobby):
    """A table's traffic between nodes (the state is made by :class:`~server.cluster.lobby.ClusterLobby`)."""

    node: str
    bus: Bus
    outbox: Outbox
    _outbox_handle: asyncio.Handle | None
    pending: dict[str, asyncio.Future[Any]]
    places: dict[str, RemotePlace]
    _answers: collections.OrderedDict[str, dict[str, Any] | None]
    community: community.Community

    @property
    def healthy(self) -> bool:
        raise NotImplementedError

    def _moved_away(self, rid: str) -> bool:
        """This node stopped table ``rid`` when it could no longer be sure it owned it (failover)."""
        return False

    # -- in ---------------------------------------------------------------------------------------

    def _on_message(self, msg: dict[str, Any]) -> None:
        kind, sender = msg["t"], msg["from"]
        if kind == "batch":  # what one turn of the sender's loop made for this node, in order
            for one in wire.read_batch(msg):
                self._on_message(one)
            return
        if sender == self.node and kind in LOBBY_KINDS:
            return  # this node's own lobby message, already handled here
        if kind in community.KINDS:
            self.community.handle(msg)
            return
        handler = getattr(self, f"_on_{kind}")
        handler(msg, sender)

    # -- sending ----------------------------------------------------------------------------------

    def send(self, node: str, msg: Mapping[str, Any]) -> None:
        if node == self.node:  # a place that moved here: handled as if it came from outside
            message = {**msg, "from": self.node}
            asyncio.get_running_loop().call_soon(self._on_message, message)
            return
        self.outbox.message(node, msg)
        self.kick_outbox()

    def kick_outbox(self) -> None:
        if self._outbox_handle is None:
            self._outbox_handle = asyncio.get_running_loop().call_soon(self._flush_outbox)

    def _flush_outbox(self) -> None:
        """What this turn of the loop made for other nodes: one message per node (a ``batch`` of
        them, in order, when there are several: one publish and one read instead of each)."""
        self._outbox_handle = None
        by_node: dict[str, list[dict[str, Any]]] = {}
        for node, msg in self.outbox.drain():
            by_node.setdefault(node, []).append(msg)
        for node, msgs in by_node.items():
            self.bus.send(node, msgs[0] if len(msgs) == 1 else wire.batch(msgs))

    @staticmethod
    def member_of(player: Player) -> dict[str, Any]:
        return wire.member(player.key, player.name, player.guest, player.prefs, player.lang,
                           player.resume if player.guest else None, int(player.extra.get("gen", 0)))

    def place(self, rid: str, owner: str) -> RemotePlace:
        place = self.places.get(rid)
        if place is None:
            place = self.places[rid] = RemotePlace(self, rid, owner)
        else:
            place.owner = owner
        return place

    # on the owner

    def _owner_player(self, sender: str, m: dict[str, Any], rid: str) -> Player | None:
        """The owner's player for a person whose connection is on ``sender``; None when their live
        session (here, or on another node) is of a newer login than the message's: a node that was
        held back speaks for a session that is over, and never ends the live one."""
        key = m["key"]
        player = self.players.get(key)
        if player is None:
            player = self.players[key] = Player(name=m["name"], guest=m["guest"])
        session = player.session
        live = session is not None and not session.closed.is_set()
        if live and m["gen"] < int(player.extra.get("gen", 0)):
            return None
        player.extra["gen"] = max(m["gen"], int(player.extra.get("gen", 0)))
        if isinstance(session, RemoteClient) and session.node == sender and not session.closed.is_set():
            session.lang = m["lang"]
        else:
            if session is not None and not session.closed.is_set():
                if isinstance(session, RemoteClient):
                    session.closed.set()  # its old node: nothing more goes there
                else:
                    session.player = None
                    session.notice("replaced")
                    session.close("replaced")
            remote = RemoteClient(self, sender, key, m["lang"])
            remote.player = player
            player.session = remote
        player.prefs = dict(m["prefs"])
        if m.get("proof") is not None:
            player.resume = m["proof"]  # the seat this person takes keeps it (server/people/resume.py)
        player.extra["front"] = sender
        player.extra["rid"] = rid
        return player

    def _on_cmd(self, msg: dict[str, Any], sender: str) -> None:
        req = str(msg.get("req"))
        if req in self._answers:  # a copy (sent again after a lost message): answered once
            answer = self._answers[req]
            if answer is not None:
                self.send(sender, answer)
            return
        rid = str(msg.get("rid", ""))
        room = self.rooms.get(rid)
        try:
            m = wire.read_member(msg)
        except wire.BadMessage:
            return
        cmd, args = msg.get("cmd"), msg.get("args")
        if room is None and self._moved_away(rid):
            return  # not answered: the front sends it again, to the table's new owner once it hears of it
        if room is None or room.closed or not isinstance(cmd, str) or not isinstance(args, dict):
            self.send(sender, {"t": "reply", "req": req, "err": "no_such_room", "params": {"room": rid}})
            return
        player = self._owner_player(sender, m, rid)
        if player is None:
            return  # from a session a newer login ended: not run, not answered
        self._answers[req] = None
        while len(self._answers) > ANSWERS_KEPT:
            self._answers.popitem(last=False)
        self._spawn(self._run_cmd(room, player, sender, req, cmd, args))

    async def _run_cmd(self, room: Room, player: Player, sender: str, req: str, cmd: str,
                       args: dict[str, Any]) -> None:
        answer: dict[str, Any]
        try:
            result = await room.submit(player, cmd, args)
        except CommandError as exc:
            if exc.code == "table_moved":  # this node stopped the table before running it: not answered,
                self._answers.pop(req, None)  # the front sends it again to the table's new owner
                return
            answer = {"t": "reply", "req": req, "err": exc.code, "params": exc.params}
        except Exception:
            log.exception("cluster: %s for %s failed", cmd, room.id)
            answer = {"t": "reply", "req": req, "err": "internal_error", "params": {}}
        else:
            if cmd == "leave":
                await asyncio.sleep(0)  # the room sends ``gone`` first: the front is in the lobby when it reads the reply
            answer = {"t": "reply", "req": req, "ok": result}
        if req in self._answers:
            self._answers[req] = answer
        self.send(sender, answer)

    def _on_conn(self, msg: dict[str, Any], sender: str) -> None:
        rid = str(msg.get("rid", ""))
        try:
            m = wire.read_member(msg)
        except wire.BadMessage:
            return
        room = self.rooms.get(rid)
        if room is None or room.closed:
            self.send(sender, {"t": "gone", "rid": rid, "key": m["key"]})
            return
        player = self._owner_player(sender, m, rid)
        if player is not None:
            room.refresh(player)

    def _on_disc(self, msg: dict[str, Any], sender: str) -> None:
        try:
            m = wire.read_member(msg)
        except wire.BadMessage:
            return
        player = self.players.get(m["key"])
        if player is None:
            return
        session = player.session
        if not isinstance(session, RemoteClient) or session.node != sender:
            return  # their connection is elsewhere now (a later login): that node speaks for them
        self._front_gone(player)

    def _front_gone(self, player: Player) -> None:
        session = player.session
        if isinstance(session, RemoteClient):
            session.closed.set()
        player.session = None
        room = player.room
        if isinstance(room, Room):
            self._spawn(room.disconnected(player))
        elif self.players.get(player.key) is player:
            del self.players[player.key]

    # on the front

    def _local_session(self, key: str) -> tuple[Player, Any] | None:
        player = self.players.get(key)
        session = player.session if player is not None else None
        if player is None or session is None or isinstance(session, RemoteClient) or session.closed.is_set():
            return None
        return player, session

    def _on_reply(self, msg: dict[str, Any], sender: str) -> None:
        future = self.pending.get(str(msg.get("req")))
        if future is None or future.done():
            return
        if "err" in msg:
            params = msg.get("params")
            future.set_exception(CommandError(str(msg["err"]), **(params if isinstance(params, dict) else {})))
        else:
            future.set_result(msg.get("ok"))

    def _on_st(self, msg: dict[str, Any], sender: str) -> None:
        states, to = wire.read_states(msg)
        rid = str(msg.get("rid", ""))
        place = self.place(rid, sender)
        shared = RemoteStates(states)  # the lines as the owner made them: read only if a text session asks
        for key, seat in to:
            found = self._local_session(key)
            if found is None or seat not in states:
                continue
            player, session = found
            if player.room is not place:
                if player.room is not None:
                    continue  # somewhere else now: a state from before
                player.room = place
            player.seat = seat
            session.push_states(shared, seat)

    def _on_sh(self, msg: dict[str, Any], sender: str) -> None:
        ev = msg.get("ev")
        names = msg.get("names")
        if not isinstance(ev, dict):
            return
        shared = Shared(ev, tuple(str(n) for n in names) if isinstance(names, list) else None)
        for key, you in wire.read_recipients(msg):
            found = self._local_session(key)
            if found is not None:
                found[1].push_shared(shared, you)

    def _on_ev(self, msg: dict[str, Any], sender: str) -> None:
        found = self._local_session(str(msg.get("key")))
        ev, names = msg.get("ev"), msg.get("names")
        if found is not None and isinstance(ev, dict):
            found[1].push_event(ev, tuple(names) if isinstance(names, list) else None, msg.get("you"))

    def _on_notice(self, msg: dict[str, Any], sender: str) -> None:
        found = self._local_session(str(msg.get("key")))
        params = msg.get("params")
        if found is not None:
            found[1].notice(str(msg.get("what")), **(params if isinstance(params, dict) else {}))

    def _on_close(self, msg: dict[str, Any], sender: str) -> None:
        found = self._local_session(str(msg.get("key")))
        if found is not None:
            found[1].close(str(msg.get("reason", "closed")))

    def _on_gone(self, msg: dict[str, Any], sender: str) -> None:
        player = self.players.get(str(msg.get("key")))
        room = player.room if player is not None else None
        if player is None or not isinstance(room, RemotePlace) or room.id != msg.get("rid"):
            return
        player.room = None
        player.seat = None
        self._spawn(self.release(player))
