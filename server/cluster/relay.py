"""The messages of a table between its owner and the fronts of its people (``docs/cluster.md``).

:class:`Relay` is the part of :class:`~server.cluster.lobby.ClusterLobby` that carries a table's
traffic: out through the :class:`~server.cluster.routing.NodeQueues` and the bus, in by kind
(``_on_<kind>``, :meth:`Relay.handle`). On the owner, a person of another node is a player whose
session is a :class:`~server.cluster.proxy.RemoteClient` (``cmd``, ``conn``, ``disc``); on the
front, their room is a :class:`~server.cluster.proxy.RemotePlace` and the owner's states, events and
notices go to the person's own session (``reply``, ``st``, ``sh``, ``ev``, ``notice``, ``close``,
``gone``). The relay is the :class:`~server.cluster.node.Node` the proxies work against.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Coroutine, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol

from server.cluster import wire
from server.cluster.bus import Bus
from server.cluster.proxy import RemoteClient, RemotePlace, RemoteStates
from server.cluster.routing import NodeQueues
from server.people.players import Player, PlayerSession
from server.protocol import Args, CommandError, JSONValue, Result, Shared
from server.rooms.room import Room

if TYPE_CHECKING:
    from server.config import Config

log = logging.getLogger("donne.cluster")

KINDS = frozenset({"cmd", "conn", "disc", "reply", "st", "sh", "ev", "notice", "close", "gone"})
"""The messages the relay handles (the rest are the lobby's and the community's)."""

ANSWERS_KEPT = 10_000
"""Replies kept for copies of a request (a front sends a command again after a second unanswered)."""


class RelayHost(Protocol):
    """What the relay needs of its node's lobby: its people and rooms, and whether it runs."""

    @property
    def config(self) -> Config: ...
    @property
    def players(self) -> MutableMapping[str, Player]: ...
    @property
    def rooms(self) -> Mapping[str, Room]: ...
    @property
    def healthy(self) -> bool: ...

    async def until_running(self) -> None: ...
    async def release(self, player: Player) -> None: ...
    def spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...

    def moved_away(self, rid: str) -> bool:
        """This node stopped table ``rid`` when it could no longer be sure it owned it (failover)."""
        ...


class Relay:
    """A table's traffic between nodes, for one node (owned by :class:`~server.cluster.lobby.ClusterLobby`)."""

    def __init__(self, lobby: RelayHost, node: str, bus: Bus) -> None:
        self.lobby = lobby
        self.node = node
        self.bus = bus
        self.players = lobby.players  # (the lobby's own, read for every message: no look-up through it)
        self.rooms = lobby.rooms
        self.outbox = NodeQueues()
        self._outbox_handle: asyncio.Handle | None = None
        self.pending: dict[str, asyncio.Future[Result | None]] = {}
        self.places: dict[str, RemotePlace] = {}
        self.answers: collections.OrderedDict[str, wire.Message | None] = collections.OrderedDict()
        """Requests from other nodes seen lately: their reply (None: still running), for the copies."""

    # -- what the proxies read of their node (server/cluster/node.py) -----------------------------

    @property
    def config(self) -> Config:
        return self.lobby.config

    @property
    def healthy(self) -> bool:
        return self.lobby.healthy

    async def until_running(self) -> None:
        await self.lobby.until_running()

    def handle(self, msg: wire.Message, sender: JSONValue) -> None:
        """A message of the relay's :data:`KINDS` from node ``sender`` (its ``from``: a node's name,
        as :func:`wire.decode` let only such a message in). Its kind (``t``) chooses the handler, which
        reads it as the fields of that kind (``wire.StatesMessage`` for ``st``...)."""
        handler = getattr(self, f"_on_{msg['t']}")
        handler(msg, sender)

    # -- sending ----------------------------------------------------------------------------------

    def send(self, node: str, msg: Mapping[str, JSONValue]) -> None:
        if node == self.node:  # a place that moved here: handled as if it came from outside
            message = {**msg, "from": self.node}
            asyncio.get_running_loop().call_soon(self.bus.handler, message)
            return
        self.outbox.message(node, msg)
        self.kick_outbox()

    def kick_outbox(self) -> None:
        if self._outbox_handle is None:
            self._outbox_handle = asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """What this turn of the loop made for other nodes: one message per node (a ``batch`` of
        them, in order, when there are several: one publish and one read instead of each)."""
        self._outbox_handle = None
        by_node: dict[str, list[wire.Message]] = {}
        for node, msg in self.outbox.drain():
            by_node.setdefault(node, []).append(msg)
        for node, msgs in by_node.items():
            self.bus.send(node, msgs[0] if len(msgs) == 1 else wire.batch(msgs))

    @staticmethod
    def member_of(player: Player) -> wire.Message:
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

    def _owner_player(self, sender: str, m: wire.Person, rid: str) -> Player | None:
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

    def _on_cmd(self, msg: wire.Message, sender: str) -> None:
        req = str(msg.get("req"))
        if self.answered_before(req, sender):
            return
        rid = str(msg.get("rid", ""))
        room = self.rooms.get(rid)
        try:
            m = wire.read_member(msg)
        except wire.BadMessage:
            return
        cmd, args = msg.get("cmd"), msg.get("args")
        if room is None and self.lobby.moved_away(rid):
            return  # not answered: the front sends it again, to the table's new owner once it hears of it
        if room is None or room.closed or not isinstance(cmd, str) or not isinstance(args, dict):
            self.send(sender, {"t": "reply", "req": req, "err": "no_such_room", "params": {"room": rid}})
            return
        player = self._owner_player(sender, m, rid)
        if player is None:
            return  # from a session a newer login ended: not run, not answered
        self.expect(req)
        self.lobby.spawn(self._run_cmd(room, player, sender, req, cmd, args))

    async def _run_cmd(self, room: Room, player: Player, sender: str, req: str, cmd: str,
                       args: Args) -> None:
        answer: wire.Message
        try:
            result = await room.submit(player, cmd, args)
        except CommandError as exc:
            if exc.code == "table_moved":  # this node stopped the table before running it: not answered,
                self.answers.pop(req, None)  # the front sends it again to the table's new owner
                return
            answer = {"t": "reply", "req": req, "err": exc.code, "params": exc.params}
        except Exception:
            log.exception("cluster: %s for %s failed", cmd, room.id)
            answer = {"t": "reply", "req": req, "err": "internal_error", "params": {}}
        else:
            if cmd == "leave":
                await asyncio.sleep(0)  # the room sends ``gone`` first: the front is in the lobby when it reads the reply
            answer = {"t": "reply", "req": req, "ok": result}
        self.reply(sender, req, answer)

    # requests run here for another node: each runs once, each copy is answered

    def answered_before(self, req: str, sender: str) -> bool:
        """``req`` is a copy of a request run here (sent again after a lost message): answered again
        when its answer is known, else left (its answer goes when it is)."""
        if req not in self.answers:
            return False
        answer = self.answers[req]
        if answer is not None:
            self.send(sender, answer)
        return True

    def expect(self, req: str) -> None:
        """``req`` runs here: its answer is kept for its copies."""
        self.answers[req] = None
        while len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)

    def reply(self, sender: str, req: str, answer: wire.Message) -> None:
        """``answer`` to ``sender``'s request, kept for its copies."""
        if req in self.answers:
            self.answers[req] = answer
        self.send(sender, answer)

    def _on_conn(self, msg: wire.Message, sender: str) -> None:
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

    def _on_disc(self, msg: wire.Message, sender: str) -> None:
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
        self.front_gone(player)

    def front_gone(self, player: Player) -> None:
        session = player.session
        if isinstance(session, RemoteClient):
            session.closed.set()
        player.session = None
        room = player.room
        if isinstance(room, Room):
            self.lobby.spawn(room.disconnected(player))
        elif self.players.get(player.key) is player:
            del self.players[player.key]

    # on the front

    def local_session(self, key: str) -> tuple[Player, PlayerSession] | None:
        """The player ``key`` and their session, when it is connected to this node (else None)."""
        player = self.players.get(key)
        session = player.session if player is not None else None
        if player is None or session is None or isinstance(session, RemoteClient) or session.closed.is_set():
            return None
        return player, session

    def _on_reply(self, msg: wire.ReplyMessage, sender: str) -> None:
        future = self.pending.get(str(msg.get("req")))
        if future is None or future.done():
            return
        if "err" in msg:
            params = msg.get("params")
            future.set_exception(CommandError(str(msg["err"]), **(params if isinstance(params, dict) else {})))
        else:
            future.set_result(msg.get("ok"))

    def _on_st(self, msg: wire.StatesMessage, sender: str) -> None:
        states, to = wire.read_states(msg)
        rid = str(msg.get("rid", ""))
        place = self.place(rid, sender)
        shared = RemoteStates(states)  # the lines as the owner made them: read only if a text session asks
        for key, seat in to:
            found = self.local_session(key)
            if found is None or seat not in states:
                continue
            player, session = found
            if player.room is not place:
                if player.room is not None:
                    continue  # somewhere else now: a state from before
                player.room = place
            player.seat = seat
            session.push_states(shared, seat)

    def _on_sh(self, msg: wire.SharedMessage, sender: str) -> None:
        ev = msg.get("ev")
        names = msg.get("names")
        if not isinstance(ev, dict):
            return
        shared = Shared(ev, tuple(str(n) for n in names) if isinstance(names, list) else None)
        for key, you in wire.read_recipients(msg):
            found = self.local_session(key)
            if found is not None:
                found[1].push_shared(shared, you)

    def _on_ev(self, msg: wire.Message, sender: str) -> None:
        found = self.local_session(str(msg.get("key")))
        ev, names = msg.get("ev"), msg.get("names")
        if found is not None and isinstance(ev, dict):
            you = msg.get("you")
            found[1].push_event(ev, tuple(str(n) for n in names) if isinstance(names, list) else None,
                                you if isinstance(you, int) else None)

    def _on_notice(self, msg: wire.Message, sender: str) -> None:
        found = self.local_session(str(msg.get("key")))
        params = msg.get("params")
        if found is not None:
            found[1].notice(str(msg.get("what")), **(params if isinstance(params, dict) else {}))

    def _on_close(self, msg: wire.Message, sender: str) -> None:
        found = self.local_session(str(msg.get("key")))
        if found is not None:
            found[1].close(str(msg.get("reason", "closed")))

    def _on_gone(self, msg: wire.Message, sender: str) -> None:
        player = self.players.get(str(msg.get("key")))
        room = player.room if player is not None else None
        if player is None or not isinstance(room, RemotePlace) or room.id != msg.get("rid"):
            return
        player.room = None
        player.seat = None
        self.lobby.spawn(self.lobby.release(player))
