"""A person at a table owned by another node, seen from each side.

On the owner, the person's session is a :class:`RemoteClient`: what the room hands it (states,
events, notices) goes to the person's node through the :class:`~server.cluster.routing.NodeQueues`.
On the person's node (the front), the room is a :class:`RemotePlace`: commands go to the owner
and their replies come back; the states the owner sends are rendered by the person's own session
(language, width, text or JSON) from :class:`RemoteStates`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

from server.cluster import wire
from server.protocol import Args, CommandError, JSONObject, JSONValue, Push, Result, Shared, decode

if TYPE_CHECKING:
    from server.cluster.node import Node
    from server.people.players import Player


class RemoteConn:
    """What the lobby reads of a remote person's connection."""

    kind = "remote"

    def __init__(self, node: str) -> None:
        self.peer = f"node:{node}"


class RemoteClient:
    """On the owner: the session of a person connected to ``node``."""

    logged_in = True

    def __init__(self, lobby: Node, node: str, key: str, lang: str) -> None:
        self._lobby = lobby
        self.node = node
        self.key = key
        self._lang = lang
        self._closed = asyncio.Event()
        self.conn = RemoteConn(node)
        self.player: Player | None = None

    @property
    def closed(self) -> asyncio.Event:
        return self._closed

    @property
    def lang(self) -> str:
        return self._lang

    @lang.setter
    def lang(self, value: str) -> None:
        self._lang = value

    def push_states(self, states: Any, seat: int | None) -> None:
        if not self._closed.is_set():
            self._lobby.outbox.state(self.node, states.table.id, states, self.key, seat)
            self._lobby.kick_outbox()

    def push_shared(self, shared: Shared, you: int | None = None) -> None:
        if not self._closed.is_set():
            rid = self._rid()
            self._lobby.outbox.shared(self.node, rid, shared.event, shared.names, shared, self.key, you)
            self._lobby.kick_outbox()

    def push_event(self, event: Push, names: tuple[str, ...] | None = None,
                   you: int | None = None) -> None:
        self._send({"t": "ev", "key": self.key, "ev": dict(event),
                    "names": list(names) if names is not None else None, "you": you})

    def notice(self, what: str, **params: JSONValue) -> None:
        self._send({"t": "notice", "key": self.key, "what": what, "params": params})

    def close(self, reason: str = "closed") -> None:
        self._send({"t": "close", "key": self.key, "reason": reason})
        self._closed.set()

    def shared_line(self, shared: Shared, you: int | None = None) -> str:
        return ""  # lobby news reach a remote person through their own node

    def render_key(self) -> tuple[Hashable, ...]:
        return ("remote", self.node)

    def send_raw(self, text: str) -> None:
        pass  # words are made on the person's node

    def logged(self, name: str, guest: bool) -> None:
        pass

    def _rid(self) -> str:
        player = self.player
        room = player.room if player is not None else None
        return room.id if room is not None else ""

    def _send(self, msg: wire.Message) -> None:
        if not self._closed.is_set():
            self._lobby.outbox.message(self.node, msg)
            self._lobby.kick_outbox()


class RemoteStates:
    """A table's states of one moment as a front received them (what ``Session.push_states`` reads):
    each seat's JSON-mode line as the owner made it; its dict is read from it only when asked (a
    text session, or a JSON session's last state when it is read)."""

    __slots__ = ("_lines", "_states")

    def __init__(self, lines: Mapping[int | None, str]) -> None:
        self._lines = lines
        self._states: dict[int | None, JSONObject] = {}

    def state(self, seat: int | None) -> JSONObject:
        state = self._states.get(seat)
        if state is None:
            read = decode(self._lines[seat]) or {}
            read.pop("type", None)
            state = self._states[seat] = read
        return state

    def reader(self, seat: int | None) -> Push:
        """The state a JSON session keeps (as ``StateSet.reader``)."""
        return self.state(seat)

    def line(self, seat: int | None) -> str:
        return self._lines[seat]


_requests = itertools.count(1)

BOOT = secrets.token_hex(4)
"""This process's part of its requests' ids (``<node>.<boot>.<n>``): a node started again never
reuses an id its owner still keeps an answer for."""

RESEND = 1.0
"""Seconds: a command not answered by then is sent again (a message can be lost while a node
subscribes again after an outage of Redis); the owner runs it once and answers each copy."""


async def until_answered(send: Callable[[], None], future: asyncio.Future[Result | None], timeout: float,
                         moved: Callable[[], bool] = lambda: False) -> bool:
    """``send()`` now and again each :data:`RESEND` seconds until ``future`` has the answer (True), or
    ``moved()`` says it need not come any more (False); ``server_trouble`` after ``timeout`` seconds.
    The future is left as it is."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        send()
        left = deadline - loop.time()
        if left <= 0:
            raise CommandError("server_trouble")
        await asyncio.wait((future,), timeout=min(left, RESEND))
        if future.done():
            return True
        if moved():
            return False


class RemotePlace:
    """On the front: a room owned by node ``owner``, as commands and the lobby use a room."""

    def __init__(self, lobby: Node, rid: str, owner: str) -> None:
        self._lobby = lobby
        self.id = rid
        self.owner = owner

    def __repr__(self) -> str:
        return f"RemotePlace({self.id} on {self.owner})"

    async def submit(self, player: Player, cmd: str, args: Args, *,
                     answer: Callable[[Result | None], None] | None = None) -> Result | None:
        # (``answer`` unused: the owner's states come over the bus, the reply after the result)
        lobby = self._lobby
        if not lobby.healthy:  # paused: the command waits a while for Redis and PostgreSQL
            try:
                await asyncio.wait_for(lobby.until_running(), lobby.config.remote_timeout)
            except TimeoutError:
                raise CommandError("server_trouble") from None
        req = f"{lobby.node}.{BOOT}.{next(_requests)}"
        future: asyncio.Future[Result | None] = asyncio.get_running_loop().create_future()
        lobby.pending[req] = future
        msg: wire.Message = {"t": "cmd", "rid": self.id, "req": req, "m": lobby.member_of(player), "cmd": cmd, "args": dict(args)}

        def moved() -> bool:  # the table was taken over by this node
            here = player.room
            return here is not None and here is not self and not isinstance(here, RemotePlace)

        try:  # (the owner answers each request once, by ``req``, and each copy of it)
            if not await until_answered(lambda: lobby.send(self.owner, msg), future, lobby.config.remote_timeout,
                                        moved):
                assert player.room is not None
                return await player.room.submit(player, cmd, args)
            result = future.result()
        finally:
            lobby.pending.pop(req, None)
            if not future.done():
                future.cancel()
        if cmd in ("join", "watch") and player.room is None:  # here now, before its first state arrives
            player.room = self
            seat = result.get("seat") if cmd == "join" and isinstance(result, Mapping) else None
            player.seat = seat if isinstance(seat, int) else None
        return result

    async def step_out(self, player: Player) -> None:
        with contextlib.suppress(CommandError):
            await self.submit(player, "leave", {})
        if player.room is self:  # its node did not answer, or the table is gone: in the lobby here
            player.room, player.seat = None, None

    def refresh(self, player: Player) -> None:
        self._lobby.send(self.owner, {"t": "conn", "rid": self.id, "m": self._lobby.member_of(player)})

    async def reconnect(self, player: Player) -> None:
        self.refresh(player)

    async def disconnected(self, player: Player) -> None:
        self._lobby.send(self.owner, {"t": "disc", "rid": self.id, "m": self._lobby.member_of(player)})
