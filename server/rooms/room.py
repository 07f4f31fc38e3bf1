"""A room: the asyncio shell around one :class:`~server.table.Table`.

One queue, one task. The task waits for the next input or the table's next
wake-up, hands it to the table with the time, performs the effect the table asks
for (a ledger operation, a balance, a seat claim, a slow bot's thinking, in the
server's thinking processes: :mod:`server.rooms.thinking`) and hands the result back,
then delivers the table's messages to the sessions of their readers.

A room is a slot of the server (``max_rooms``, :class:`server.operations.limits.RoomSlots`):
one where nobody plays (its table ``waiting`` for players) is closed
``room_wait_seconds`` after it began to wait or after the last person sat down
in it, whichever is later (``Shutdown("waited")``), so an idle creator cannot
hold a slot for ever. Everything that changes a room goes through its queue, one thing at a
time, so the table needs no locks and "the first valid cut to reach the server
wins" (T9) is queue order.

A durable table (``durable_tables``, ``docs/restart.md``) has its log written
before its messages leave: the entries of a step (:class:`server.table.durable.Journal`)
go in the same ``store.apply`` as the chip movement the table waits for, or on
their own before the step's messages are delivered (written ahead of the database
when the store can, ``store.log_ahead``: then the room does not wait for the commit);
a room whose write was refused
holds those messages until the next write that succeeds. At shutdown such a room
stops where it is (:meth:`Room.stop`): its table resumes at the next start
(:meth:`Room.restored_from`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from server.config import Config
from server.games import TableOptions, adapter
from server.operations import metrics
from server.people.flushes import Flushes
from server.people.players import Player
from server.protocol import Args, CommandError, JSONValue, Result
from server.rooms.effects import Effects, Jammed, Owner, Stale
from server.rooms.inbox import Inbox
from server.rooms.thinking import Thinkers
from server.storage import api
from server.table import (
    Closed,
    Command,
    Connected,
    Disconnected,
    Gone,
    Input,
    Member,
    Outputs,
    Placed,
    Refused,
    Released,
    Reply,
    Send,
    Shared,
    Shutdown,
    StateSet,
    Table,
    durable,
)


class RoomHost(Owner, Protocol):
    """What a room needs of the lobby that opened it (and its table's effects: :class:`Owner`)."""

    @property
    def config(self) -> Config: ...
    @property
    def players(self) -> Mapping[str, Player]: ...
    @property
    def thinkers(self) -> Thinkers: ...

    async def release(self, player: Player) -> None:
        """The room no longer holds ``player`` (the lobby may forget them)."""
        ...

    def room_closed(self, room: Room) -> None: ...

    def seated(self, player: Player, room: Room) -> None:
        """``player`` took a seat here (their friends may hear of it)."""
        ...

    @property
    def paused(self) -> bool:
        """A service the rooms need is away (a cluster's Redis or PostgreSQL): rooms wait."""
        ...

    async def until_running(self) -> None:
        """Return when the rooms may go on (at once unless :attr:`paused`)."""
        ...

    def stale(self, room: Room) -> None:
        """``room`` stopped where it was: this process no longer surely owns it."""
        ...

class TableWatcher(Protocol):
    """Who follows a room's results (a tournament, for the tables it opened)."""

    def recorded(self, room: Room, record: api.RoundRecord) -> None:
        """A round or match record of ``room``'s table was stored."""
        ...

    def closed(self, room: Room) -> None:
        """``room`` closed (not stopped to resume after a restart)."""
        ...


log = logging.getLogger(__name__)

BOT_OPTIONS: Mapping[str, Callable[[], float]] = {"clock": time.monotonic}
"""What a table's search bots are made with (their budget is capped by the wall clock too)."""


def draw_seed() -> bytes:
    """A fresh deal seed (32 bytes from the OS); tests replace it to play explicit deals."""
    return os.urandom(32)


@dataclass(slots=True)
class _Item:
    kind: str  # "cmd", "connected", "disconnected", "stop"
    player: Player | None = None
    cmd: str = ""
    args: Args = field(default_factory=dict)
    future: asyncio.Future[Result | None] | None = None
    stamp: metrics.Stamp | None = None  # the command it belongs to, held until the room has handled it
    answer: Callable[[Result | None], None] | None = None  # the caller's reply, sent before what the command causes


class Room:
    def __init__(self, lobby: RoomHost, rid: str, opts: TableOptions, owner: str, *, table: Table | None = None,
                 seq: int = 0, facts: Mapping[str, JSONValue] | None = None, restored: Iterable[str] = ()) -> None:
        self.lobby = lobby
        self.config = lobby.config
        self.id = rid
        if table is None:
            table = Table(rid, adapter(opts.rules), opts, self.config, owner=owner, uid=secrets.token_hex(4),
                          draw_seed=lambda: draw_seed(), bot_seed=os.urandom(16),
                          # a search bot's budget counts simulated moves; on a loaded server the wall
                          # clock caps it too, so a bot never holds a table beyond its budget
                          bot_options=BOT_OPTIONS)
            if self.config.durable_tables:
                durable.enable(table)
        self.table = table
        # its effects performed, its log written (durable), its items handed out to this room
        self.effects = Effects(table, lobby, time.monotonic, seq=seq, facts=None if facts is None else dict(facts))
        self.restored = set(restored)  # people of a rebuilt table not told yet that it is back
        self.closed = False
        self.suspended = False  # stopped by a shutdown, its table to resume at the next start
        self.moved = False  # stopped because another process may own it now (a cluster: its lease)
        self._current: _Item | None = None  # the item being handled
        self.announced = False  # the lobby was told it opened
        self._queue: Inbox[_Item] = Inbox()
        self._task: asyncio.Task[None] | None = None
        self._waiting_since: float | None = None  # the table waits for players since (monotonic)
        self._sat_at = 0.0  # when a person last sat down here
        self.watcher: TableWatcher | None = None  # who follows its results (:meth:`watched_by`)

    def now(self) -> float:
        """The table's clock: monotonic, less the time paused, so no deadline runs out during an outage."""
        return self.effects.now()

    @property
    def journal(self) -> durable.Journal | None:
        """A durable table's log entries not written yet (None: the table is not durable)."""
        return self.effects.journal

    @classmethod
    def restored_from(cls, lobby: RoomHost, stored: api.StoredTable, now: float) -> Room:
        """The room of a table rebuilt from its stored log after a restart (raises
        :class:`~server.table.durable.Unreplayable`)."""
        table = durable.restore(stored.table_id, stored.config, stored.entries, lobby.config, now=now,
                                resume_window=lobby.config.resume_window, draw_seed=lambda: draw_seed(),
                                bot_options=BOT_OPTIONS, check=lobby.config.check_hashes)
        people = [s.member for s in table.seats if s.member is not None]
        return cls(lobby, stored.table_id, table.opts, table.owner, table=table, seq=len(stored.entries),
                   facts=durable.last_facts(stored.entries), restored=people)

    # -- public face -------------------------------------------------------------------------------

    @property
    def opts(self) -> TableOptions:
        return self.table.opts

    def has_free_seat(self, summary: Mapping[str, JSONValue]) -> bool:
        """A person may sit down here now (``summary``: :meth:`summary`): a free seat, before the match
        or between rounds where joining is allowed."""
        players, seats = summary["players"], summary["seats"]
        if summary["status"] == "over" or not isinstance(players, Sequence) or not isinstance(seats, int) \
                or len(players) >= seats:
            return False
        return bool(summary["status"] == "waiting" and self.table.match is None) or \
            bool(self.table.adapter.joins_between_rounds)

    def summary(self) -> dict[str, JSONValue]:
        return self.table.summary()

    def watched_by(self, watcher: TableWatcher) -> None:
        """``watcher`` hears of each record of this table once stored, and of its closing."""
        self.watcher = watcher
        self.effects.recorded = functools.partial(watcher.recorded, self)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"room-{self.id}")
        if self.journal is not None and self.journal.seq and not any(
                s.member is not None or s.leaving for s in self.table.seats):
            self._queue.put_nowait(_Item("close"))  # rebuilt with nobody to play for: it ends at once

    async def submit(self, player: Player, cmd: str, args: Args, *,
                     answer: Callable[[Result | None], None] | None = None) -> Result | None:
        """Queue a command for the room and wait for its result (or CommandError); ``answer(result)``
        is called as the room delivers it, before the messages the command caused."""
        if self.moved:
            raise CommandError("table_moved")
        if self.closed:
            raise CommandError("no_such_room", room=self.id)
        future: asyncio.Future[Result | None] = asyncio.get_running_loop().create_future()
        stamp = metrics.current()
        if stamp is not None:
            stamp.hold()
        self._queue.put_nowait(_Item("cmd", player, cmd, dict(args), future, stamp, answer))
        return await future

    async def reconnect(self, player: Player) -> None:
        self.refresh(player)

    async def step_out(self, player: Player) -> None:
        with contextlib.suppress(CommandError):
            await self.submit(player, "leave", {})

    def refresh(self, player: Player) -> None:
        """Draw the table again for ``player`` (back after a disconnection, or asked)."""
        if not self.closed:
            self._queue.put_nowait(_Item("connected", player))

    async def disconnected(self, player: Player) -> None:
        if self.closed:
            player.room = None
            player.seat = None
            await self.lobby.release(player)
            return
        self._queue.put_nowait(_Item("disconnected", player))

    async def stop(self, *, end: bool = False) -> None:
        """Stop the room now (shutdown). A durable table stops where it is, its log written, and
        resumes at the next start (no refund); any other, or any with ``end`` (a table that could
        not open as asked), closes, giving back an unfinished round's chips, and releases everyone."""
        self.effects.stopping = True
        if self._task is None or self._task.done():
            if not self.closed and not self.suspended and (self.journal is None or end):
                with contextlib.suppress(Stale):
                    await self._drain(self.table.handle(self.now(), Shutdown()))
            return
        self._queue.put_nowait(_Item("close" if end else "stop"))
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 10)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    # -- the task ------------------------------------------------------------------------------------

    async def _run(self) -> None:
        table = self.table
        flushes = Flushes.of(asyncio.get_running_loop())
        try:
            while not self.closed:
                wake = table.wake
                idle_at = self.idle_at
                if idle_at is not None:
                    wake = idle_at if wake is None else min(wake, idle_at)
                timeout = None if wake is None else max(0.0, wake - self.now())
                item: _Item | None = None
                if timeout == 0:  # the table's time has come: it goes before what is queued
                    await asyncio.sleep(0)  # (and the loop runs others: a wake that stays due cannot spin)
                elif not self._queue.empty():  # a burst: no timer to arm for what is already here, but the
                    await asyncio.sleep(0)  # other rooms run between two of its items (a step may wait for nothing)
                    if self._queue.empty():
                        continue
                    item = self._queue.get_nowait()
                else:
                    item = await self._queue.get(timeout)
                if self.lobby.paused and (item is None or item.kind not in ("stop", "close")):
                    await self._wait_out()  # a stop goes through: a table given up stops at once
                self._current = item
                if item is None or item.kind not in ("stop", "close") or self.journal is not None:
                    await self.effects.own()  # before every step: this process surely owns the table
                now = self.now()
                if item is None and idle_at is not None and now >= idle_at:
                    log.info("room %s: nobody sat down for %.0f s; closing it", self.id,
                             self.config.room_wait_seconds)
                    out = table.handle(now, Shutdown("waited"))
                elif item is None:
                    out = table.tick(now)
                elif item.kind == "stop" and self.journal is not None:
                    self.suspended = True  # its log is written: the table resumes at the next start
                    return
                elif item.kind == "disconnected" and item.player is not None and item.player.room is not self:
                    await self.lobby.release(item.player)  # no longer here: the lobby may forget them
                    continue
                else:
                    if item.kind == "connected" and item.player is not None:
                        self._tell_resumed(item.player)
                    with metrics.handling(item.stamp):
                        await self._drain(table.handle(now, self._input(item)))
                        flushes.now()  # the step's messages leave now, not at the loop's next turn
                    continue
                await self._drain(out)
                flushes.now()
        except Stale:
            self._moved()
        except Jammed as exc:
            await self._unjam(str(exc))
        except asyncio.CancelledError:
            if not self.closed and self.journal is None:
                table.abort()
                with contextlib.suppress(Stale):
                    await self._drain(table.handle(self.now(), Shutdown()))
            elif not self.closed:
                table.abort()  # what was written stays the table's truth
                self.suspended = True
            raise
        except Exception:
            log.exception("room %s failed; closing it", self.id)
            if not self.closed:
                table.abort()
                with contextlib.suppress(Stale):
                    await self._drain(table.handle(self.now(), Shutdown()))
        finally:
            self._current = None
            self._queue.close()
            self._fail_waiting()

    def _moved(self) -> None:
        """Stop where the table is, acting on nothing more: no message, no write. What was asked of it
        is refused (``table_moved``: the person asks again, and reaches the table where it is now)."""
        log.warning("room %s: stopped here, no longer surely owned by this process", self.id)
        self.table.abort()
        self.moved = True
        self.suspended = True
        item = self._current
        if item is not None:
            if item.stamp is not None:
                item.stamp.release()
            if item.future is not None and not item.future.done():
                item.future.set_exception(CommandError("table_moved"))
        self.lobby.stale(self)

    async def _unjam(self, why: str) -> None:
        """The table's log cannot be written: the table ends as one that is not durable would — set
        aside in the store (its unsettled round voided, every chip of it back: one transaction), its
        round voided, its people told why it closed."""
        if not self.lobby.acting(self.id):
            self._moved()  # (refused because another process owns it now: nothing to end here)
            return
        log.error("room %s: its log cannot be written (%s); the round is voided and the table closes", self.id, why)
        self.table.abort()
        item = self._current
        if item is not None and item.future is not None and not item.future.done():
            item.future.set_exception(CommandError("internal_error"))  # not kept: nothing of it happened
        self.effects.journal = None  # no more log: what is written stays, the table will not be rebuilt from it
        with contextlib.suppress(Exception):
            await self.effects.through(functools.partial(self.effects.apply,
                                                         [api.TableClosed(self.id, "aside", why[:200])]))
        if not self.closed:
            with contextlib.suppress(Stale):
                await self._drain(self.table.handle(self.now(), Shutdown("trouble")))
        if not self.closed:  # it was closing when its last write was refused: closed now
            self.closed = True
            self.lobby.room_closed(self)
            if self.watcher is not None:
                self.watcher.closed(self)

    async def _wait_out(self) -> None:
        """Hold the table while the lobby is paused; that time is not the table's."""
        started = time.monotonic()
        await self.lobby.until_running()
        self.effects.lag += time.monotonic() - started

    def _tell_resumed(self, player: Player) -> None:
        """The first time someone comes back to a table rebuilt after a restart: it is back."""
        if player.key in self.restored:
            self.restored.discard(player.key)
            if player.session is not None:
                player.session.push_event({"event": "resumed", "room": self.id, "seat": player.seat})

    def _input(self, item: _Item) -> Input:
        if item.kind in ("stop", "close"):
            return Shutdown()
        player = item.player
        assert player is not None
        member = Member(player.key, player.name, player.name, dict(player.prefs), player.extra.get("seed"),
                        bool(player.extra.get("hide_where")), player.resume if player.guest else None)
        if item.kind == "connected":
            return Connected(member)
        if item.kind == "disconnected":
            return Disconnected(member)
        return Command(member, item.cmd, item.args, item)  # the reply's token: its future and answer

    def _fail_waiting(self) -> None:
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item.stamp is not None:
                item.stamp.release()
            if item.future is not None and not item.future.done():
                item.future.set_exception(CommandError("table_moved") if self.moved
                                          else CommandError("no_such_room", room=self.id))

    @property
    def idle_at(self) -> float | None:
        """When this room, waiting for players, closes (``room_wait_seconds``); None while it plays."""
        wait = self.config.room_wait_seconds
        if wait <= 0 or self._waiting_since is None or self.closed:
            return None
        return max(self._waiting_since, self._sat_at) + wait

    async def _drain(self, out: Outputs) -> None:
        """Hand the table's outputs to its effects (:meth:`server.rooms.effects.Effects.drain`): what it
        asks for performed, what it says handed out to this room's people."""
        await self.effects.drain(out, self)
        self._note_waiting()

    def _note_waiting(self) -> None:
        if self.table.status == "waiting" and not self.table.closed:
            if self._waiting_since is None:
                self._waiting_since = self.now()
        else:
            self._waiting_since = None

    # -- the table's readers (server.rooms.effects.Readers): its items, handed out in order ----------------

    def send(self, item: Send) -> None:
        self._send(self.lobby.players, item)

    async def answer(self, item: Send) -> None:
        msg = item.msg
        if isinstance(msg, Reply):
            req = msg.req if isinstance(msg.req, _Item) else None
            future = req.future if req is not None else None
            if req is not None and future is not None and not future.done():
                if req.answer is not None:
                    req.answer(msg.result)  # queued now: before the states it causes
                    future.set_result(msg.result)
                else:
                    future.set_result(msg.result)
                    await asyncio.sleep(0)  # the caller replies before the states it causes
        elif isinstance(msg, Refused):
            future = msg.req.future if isinstance(msg.req, _Item) else None
            if future is not None and not future.done():
                future.set_exception(CommandError(msg.code, **msg.params))

    def placed(self, item: Placed) -> None:
        if item.seat is not None:
            self._sat_at = self.now()
        player = self.lobby.players.get(item.member)
        if player is not None:
            sat_down = item.seat is not None and (player.room is not self or player.seat != item.seat)
            player.room = self
            player.seat = item.seat
            self.lobby.seated(player, self)
            if sat_down and player.guest and player.session is not None:
                player.session.notice("resume_code")  # what takes this seat back (server/people/resume.py)

    async def gone(self, item: Gone) -> None:
        player = self.lobby.players.get(item.member)
        if player is not None and player.room is self:
            player.room = None
            player.seat = None
            await self.lobby.release(player)

    def released(self, item: Released) -> None:
        """(The seat claim is released already: :class:`server.rooms.effects.Effects`.)"""

    def ended(self, item: Closed) -> None:
        self.closed = True
        self.lobby.room_closed(self)  # tells the lobby while its members are still here (no double news)
        if self.watcher is not None:
            self.watcher.closed(self)

    def _send(self, players: Mapping[str, Player], send: Send) -> None:
        msg = send.msg
        for key, seat in send.recipients:
            player = players.get(key)
            session = player.session if player is not None else None
            if session is None:
                continue
            if isinstance(msg, StateSet):
                session.push_states(msg, seat)
            elif isinstance(msg, Shared):
                session.push_shared(msg, seat)
