"""The lobby of one process: who is online, the rooms, logging in, coming back after a
disconnection; the social side of being online: offline messages at login, friends' notices,
seeks and challenges.

:class:`Lobby` is the whole, and owns its parts: the people and rooms with their
:class:`~server.lobby.directory.Directory` (``who``, ``rooms``), the seat claims and room slots,
:class:`~server.lobby.logins.Logins`, the :class:`~server.lobby.news.News`, the seeks and their
:class:`~server.lobby.alarm.Alarm`, and the moderation hook (:class:`~server.lobby.moderation.Conduct`).
Rooms, seeks' tables and restored tables see it as :class:`server.lobby.api.LobbyHost`.

A player outlives their connection while they hold a seat (:mod:`server.lobby.logins`). Rooms call
:meth:`Lobby.release` when they no longer need a player; a player with neither a connection nor a
seat is forgotten (a guest's chips are then retired by the store).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import logging
import time
from collections.abc import Collection, Coroutine, Sequence
from typing import TYPE_CHECKING, cast

from server.lobby import restored, seektable
from server.lobby.alarm import Alarm
from server.lobby.api import Connection
from server.lobby.directory import Directory, Summary, WhoEntry, connected, masked
from server.lobby.logins import GuestHold, Logins, typed_name
from server.lobby.moderation import Conduct, NoSilences, Silences
from server.lobby.news import News
from server.lobby.pace import Pace
from server.lobby.seeks import Seek, Seeks
from server.lobby.tournaments.hall import Hall
from server.operations.limits import Opener, RoomLimits, RoomSlots, address_key
from server.people import resume
from server.people.players import GuestStart, Place, Player, PlayerSession, Welcome
from server.protocol import CommandError, JSONValue, Push
from server.rooms.claims import SeatClaims
from server.rooms.room import Room
from server.rooms.thinking import Thinkers
from server.storage.api import Fence, Refusal, Store, StoredTable
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.config import Config
    from server.games import TableOptions

log = logging.getLogger(__name__)

SEATED_TOLD = "seated_told"
"""``Player.extra`` key: when the player's friends last heard where they sat down."""
SEATED_TOLD_SECONDS = 30.0
"""At most one ``friend_seated`` per player in this many seconds."""


class Lobby:
    """The lobby of one process: it owns its people and rooms, their :class:`Directory`, the seat
    claims, the room slots, logging in, the room-list news, the seeks and their timer, and the
    moderation hook (:class:`Conduct`)."""

    def __init__(self, config: Config, store: Store | None, sessions: Collection[Connection]) -> None:
        self.config = config
        self.store = cast(Store, store)  # (None until the server starts: app.Running.start gives it)
        self.sessions = sessions  # every open connection (logged in or not), for shutdown
        self.players: dict[str, Player] = {}
        self.rooms: dict[str, Room] = {}
        self.directory = Directory(self.players, self.rooms, here=self._here)
        self.seats = SeatClaims()  # one account, at most one seat in the server
        self.thinkers = Thinkers(config.bot_processes)  # where search bots think (processes, started lazily)
        self.slots = RoomSlots(RoomLimits(config.max_rooms, config.rooms_per_account, config.rooms_per_address,
                                          config.guest_room_share))  # the open rooms, by who opened them
        self._openers: dict[str, Opener | None] = {}  # room id -> who opened it (what slots counted)
        self.login_lock = asyncio.Lock()  # logins, and a guest becoming an account, one at a time
        self.resume_attempts = resume.Attempts()  # wrong resume codes, per guest name and address
        self.closing = False
        self.logins = Logins(self)  # logging in, a guest becoming an account (server/lobby/logins.py)
        self.conduct = Conduct(self)  # mutes, ignore lists, the door, the motd (server/lobby/moderation.py)
        self.moderation: Silences = self.conduct  # what the social commands ask (tells, messages)
        self.seeks = Seeks()
        self.news = News(self)  # the lobby's news: room list, seeks, chat (server/lobby/news.py)
        self.pace = Pace(config)  # how often one may reach others: tells, challenges, seeks, verify
        self._seek_alarm = Alarm(self._seeks_due)  # the next seek or challenge to lapse
        self._tasks: set[asyncio.Task[object]] = set()
        self.hall = Hall(self)  # the tournaments (server/lobby/tournaments/)

    # -- logging in --------------------------------------------------------------

    async def needs_password(self, name: str) -> bool:
        return await self.logins.needs_password(name)

    def start_guest(self, name: str) -> GuestStart | None:
        """Open ``name``'s guest account now (see :class:`GuestStart`); None when login will decide."""
        return self.logins.start_guest(name)

    async def drop_guest_start(self, start: GuestStart | None) -> None:
        """A guest account opened early that no login used: retired (unless someone logged in as it)."""
        await self.logins.drop_guest_start(start)

    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None:
        """Whether the door refuses this account, address or SSH key (:meth:`Conduct.door`)."""
        return await self.conduct.door(name=name, address=address, key=key)

    async def login(self, session: PlayerSession, name: str, *, password: str | None = None,
                    verified: bool = False, guest_start: GuestStart | None = None, greet: bool = True,
                    welcome: Welcome | None = None, resume: str | None = None) -> Player:
        """Log ``session`` in as ``name`` (:meth:`server.lobby.logins.Logins.login`)."""
        return await self.logins.login(session, name, password=password, verified=verified,
                                       guest_start=guest_start, greet=greet, welcome=welcome, resume=resume)

    async def guest_hold(self, key: str) -> GuestHold | None:
        """Whether the guest name ``key`` is in use, and what takes it back (None: free)."""
        return await self.logins.guest_hold(key)

    def check_become(self, player: Player) -> None:
        """Raise unless ``player``, a guest, may become an account where they are."""
        self.logins.check_become(player)

    async def become(self, player: Player, name: str) -> None:
        """``player``, a guest, is the account ``name`` from now on (:meth:`server.lobby.logins.Logins.become`)."""
        await self.logins.become(player, name)

    async def switch_to_account(self, session: PlayerSession, name: str, password: str | None, *,
                                welcome: Welcome | None = None) -> Player:
        """A guest's session logs in to the account ``name`` (:meth:`server.lobby.logins.Logins.switch_to_account`)."""
        return await self.logins.switch_to_account(session, name, password, welcome=welcome)


    # -- the operators' side (server/lobby/moderation.py) -------------------------------------

    async def greet(self, session: PlayerSession) -> None:
        await self.conduct.greet(session)

    async def check_chat(self, player: Player) -> None:
        await self.conduct.check_chat(player)

    # -- moderation -----------------------------------------------------------------

    def player(self, name: str) -> Player | None:
        """The player of that name (connected, or holding a seat), or None."""
        return self.players.get(name_key(name))

    async def detach(self, session: PlayerSession) -> None:
        """The session ended (called once by :meth:`Session.close`)."""
        player = session.player
        session.player = None
        if player is None or player.session is not session:
            return
        player.session = None
        if player.room is not None:
            await player.room.disconnected(player)
        else:
            await self.release(player)

    async def release(self, player: Player) -> None:
        """A room no longer holds ``player``; forget a player who is not connected either."""
        if player.room is not None or player.connected:
            return
        if self.players.get(player.key) is player:
            del self.players[player.key]
            log.info("%s left", player.name)
            self._drop_seeks(player)
            self.conduct.forget(player)
            if not player.guest:
                self.spawn(self._seen(player.name))
            if player.guest:
                try:
                    await self.store.accounts.logout_guest(player.name)
                except Exception:
                    log.exception("could not retire guest %s", player.name)

    # -- who and where -------------------------------------------------------------

    _here = staticmethod(connected)
    """Whether a player counts as online here (a cluster node: connected to this node)."""

    def online(self) -> list[Player]:
        return self.directory.online()

    def who(self, viewer: Player | None = None) -> list[WhoEntry]:
        """Everyone online as ``who`` lists them (a cluster: every node's); the table of someone who
        hides it is shown only to themselves (``viewer``)."""
        return self.directory.who(viewer)

    def hidden_names(self, viewer: Player | None = None) -> set[str]:
        """The names of the people online who hide where they sit (``hide``), but ``viewer``."""
        return self.directory.hidden_names(viewer)

    def room_list(self) -> list[tuple[Summary, bool]]:
        """The open rooms in the order they opened, and whether a person may sit down there now (a
        cluster: every node's)."""
        return self.directory.room_list()

    async def find_place(self, room_id: object) -> Place:
        """The room ``room_id`` names, where ``join`` and ``watch`` go (a cluster: on any node)."""
        return self.find_room(room_id)

    # -- the community on other nodes (one process: there are none) --------------------------

    def elsewhere(self, name: str) -> WhoEntry | None:
        """The person online as ``name`` at another node of the cluster (their ``who`` entry), or None."""
        return None

    def reach(self, key: str, event: Push, *, reply_to: str | None = None) -> None:
        """``event`` for the person ``key`` online at another node (``reply_to``: whom their
        ``reply`` answers)."""

    def shared_ignores(self, player: Player) -> None:
        """``player``'s ignore list changed: every node obeys the new one."""

    def shared_mute(self, name: str, until: float | None, event: Push) -> None:
        """``name`` was muted until ``until`` (None: unmuted): every node obeys it, and the person
        hears ``event`` wherever they are."""

    # -- outages (one process: none; a cluster node: server/cluster/lobby.py) -----------------

    @property
    def paused(self) -> bool:
        """A service the rooms need is away: they wait (:meth:`until_running`)."""
        return False

    async def until_running(self) -> None:
        return None

    async def outage(self, exc: BaseException) -> bool:
        """A store operation of a room failed: never retried in one process (the table decides)."""
        return False

    # -- ownership (one process: every room is its own; a cluster node: its leases) -------------

    def acting(self, rid: str) -> bool:
        """This process surely owns room ``rid`` now (by its own monotonic clock): the room may take
        a step. A room that may not stops before touching anything (:meth:`stale`)."""
        return True

    def lost(self, rid: str) -> bool:
        """This process knows it no longer holds room ``rid`` (a cluster: its lease was given up)."""
        return False

    def fence(self, rid: str) -> Fence | None:
        """The fencing token every write of room ``rid`` carries (None: none, one process)."""
        return None

    def stale(self, room: Room) -> None:
        """Room ``room`` found this process no longer surely owns it: it stopped where it was."""

    def lobby_sessions(self) -> list[PlayerSession]:
        """Connected sessions not in a room (they receive lobby chat)."""
        return [p.session for p in self.players.values()
                if p.session is not None and p.room is None and not p.session.closed.is_set()]

    def broadcast(self, event: Push, *, news: bool = False) -> None:
        """An event to every session in the lobby, worded and encoded once per language and style.

        ``news`` (the room list changing: ``room_created``, ``room_closed``) is
        coalesced: sent at once when the lobby has been quiet, otherwise with
        the other news of the same :data:`~server.lobby.news.NEWS_INTERVAL`, in one write per
        session, to the sessions in the lobby at that moment. Other events
        (chat) go out at once, after any news still waiting (order is kept).
        """
        if news:
            self.news.queue(event)
            return
        self.news.now(event)

    def seek_news(self, event: Push) -> None:
        """A new seek, for the lobby: news like the room list's (coalesced, digested beyond
        :data:`~server.lobby.newsdigest.NEWS_DIGEST`, left out when the seek is gone by the time they go
        out), not for its owner nor those who ignore them. Heard on this node only: its seeks are
        taken up here."""
        self.news.queue(event)

    def flush_news(self) -> None:
        """Send the room-list news waiting now (:meth:`server.lobby.news.News.flush`)."""
        self.news.flush()

    async def new_room_id(self) -> str:
        """A room id never used before, on this server or an earlier run of it (history and replays
        name rooms): the store keeps the counter."""
        while True:
            rid = f"r{await self.store.tables.next_table_number()}"
            if rid not in self.rooms:
                return rid

    def find_room(self, room_id: object) -> Room:
        if not isinstance(room_id, str | int):
            raise CommandError("bad_argument", arg="room")
        rid = str(room_id).strip().lower()
        if rid.isdigit():
            rid = "r" + rid
        room = self.rooms.get(rid)
        if room is None or room.closed:
            raise CommandError("no_such_room", room=str(room_id)[:20])
        return room

    @staticmethod
    def opener(player: Player) -> Opener:
        """Who ``player`` is when opening a room: account, address (its connection's), guest or not."""
        session = player.session
        peer = str(getattr(getattr(session, "conn", None), "peer", "") or "?")
        return Opener(player.key, address_key(peer), player.guest)

    async def open_room(self, opts: TableOptions, owner: str, opener: Opener | None = None) -> Room:
        """A new room with its table, running (nobody seated yet).

        The room slots are checked and taken in one synchronous step, before
        anything is awaited (:class:`server.operations.limits.RoomSlots`): ``max_rooms`` for
        every room, and for ``opener`` its account's and (a guest) its address's
        rooms and the guests' share. A refusal is ``not_allowed`` with the limit's
        ``reason`` and ``max``. The slot is given back when the room closes.
        """
        if self.closing:
            raise CommandError("shutting_down")
        refused = self.slots.take(opener)
        if refused is not None:
            reason, limit = refused
            raise CommandError("not_allowed", reason=reason, max=limit)
        try:
            room = Room(self, await self.new_room_id(), opts, owner=owner)
        except BaseException:
            self.slots.give_back(opener)
            raise
        self._openers[room.id] = opener
        self.rooms[room.id] = room
        room.start()
        return room

    def announce(self, room: Room, name: str) -> None:
        """Tell the lobby a room opened (news)."""
        room.announced = True
        hidden = self.hidden_names()  # a person who hides where they sit is not named (nor listed)
        self.broadcast({**masked(room.summary(), hidden), "event": "room_created",
                        "name": None if name in hidden else name}, news=True)

    def room_closed(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            if room.id in self._openers:
                self.slots.give_back(self._openers.pop(room.id))
            if not self.closing and room.announced:
                self.broadcast({"event": "room_closed", "room": room.id, "reason": "closed"}, news=True)

    # -- a restart ------------------------------------------------------------------

    def adopt(self, room: Room) -> None:
        """A room rebuilt after a restart joins the open rooms (counted, already announced)."""
        self.rooms[room.id] = room
        self.slots.restored()
        self._openers[room.id] = None
        room.announced = True

    async def restore(self, stored: Sequence[StoredTable]) -> list[tuple[str, str]]:
        """Rebuild the rooms of the tables a restart found unfinished (:func:`server.lobby.restored.restore`)."""
        return await restored.restore(self, stored)

    # -- the social side: messages at login, friends' notices ---------------------------------

    def spawn(self, coro: Coroutine[object, object, object]) -> None:
        """Run ``coro`` as a task the lobby keeps until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _seen(self, name: str) -> None:
        try:
            await self.store.social.seen(name)
        except Exception:
            log.exception("could not note when %s was last seen", name)

    def after_login(self, player: Player) -> None:
        """After a login (its reply and greeting go first): the account's offline messages, and a
        notice to the friends online who want one."""
        if not player.guest:
            self.spawn(self._welcome_account(player))

    async def _welcome_account(self, player: Player) -> None:
        social = self.store.social
        try:
            profile = await social.profile(player.name)
            if profile is not None:
                changed = bool(player.extra.get("hide_where")) != profile.hide_where
                player.extra["hide_where"] = profile.hide_where
                if changed and player.room is not None:  # back at a table (a restart): its spectators follow
                    with contextlib.suppress(CommandError):
                        await player.room.submit(player, "hide", {})
            await social.seen(player.name)
            letters = await social.take_mail(player.name) if player.connected else []
            watchers = await social.watchers(player.name)
        except Exception:
            log.exception("social welcome of %s failed", player.name)
            return
        session = player.session
        if session is not None:
            for letter in letters:
                session.push_event({"event": "message", "from": letter.sender, "message": letter.text,
                                    "sent": _iso(letter.sent)})
        self.tell_keys(watchers, {"event": "friend_online", "name": player.name}, but=player)

    def tell_keys(self, keys: list[str], event: Push, but: Player | None = None) -> None:
        """``event`` to each of these name keys that is online (except ``but``)."""
        for key in keys:
            other = self.players.get(key)
            if other is not None and other is not but and other.session is not None and other.connected:
                other.session.push_event(event)

    def seated(self, player: Player, room: Room) -> None:
        """``player`` sat down at ``room`` (the room says so): their friends hear where, unless
        they hide it."""
        if player.guest or player.extra.get("hide_where") or player.seat is None:
            return
        now = time.monotonic()
        last = player.extra.get(SEATED_TOLD)
        if isinstance(last, float) and now - last < SEATED_TOLD_SECONDS:
            return  # a sit-down/leave loop must not flood one's friends
        player.extra[SEATED_TOLD] = now

        async def notify() -> None:
            try:
                watchers = await self.store.social.watchers(player.name)
            except Exception:
                log.exception("could not tell %s's friends", player.name)
                return
            self.tell_keys(watchers, {"event": "friend_seated", "name": player.name, "room": room.id},
                           but=player)

        self.spawn(notify())

    # -- seeks and challenges (server/lobby/seeks.py) ------------------------------------------

    def arm_seeks(self) -> None:
        """One timer, for the next seek or challenge to lapse."""
        self._seek_alarm.set(None if self.closing else self.seeks.next_deadline())

    def _seeks_due(self) -> None:
        self._seek_alarm.cancel()
        for seek in self.seeks.expire(asyncio.get_running_loop().time()):
            if seek.fill and seek.accepted and not seek.challenge:
                self.spawn(self.open_seek(seek))
            else:
                self.tell_seek(seek, "lapsed")
        self.arm_seeks()

    def tell_seek(self, seek: Seek, what: str, *, but: str | None = None, **why: JSONValue) -> None:
        """The seek's owner, the person challenged and those who accepted hear what became of it
        (``why``: the refusal that ended it, for its owner: ``code`` and its parameters, its
        ``reason`` named ``refused`` in the event)."""
        keys = [seek.owner_key, *([seek.to] if seek.to else []), *seek.accepted]
        event: Push = {"event": "seek_over", "seek": seek.id, "reason": what, "name": seek.owner,
                 "challenge": seek.challenge}
        keys = [k for k in dict.fromkeys(keys) if k != but]
        if why and seek.owner_key in keys:
            keys.remove(seek.owner_key)
            refusal = {("refused" if k == "reason" else k): v for k, v in why.items()}
            self.tell_keys([seek.owner_key], {**event, **refusal})
        self.tell_keys(keys, event)

    def _drop_seeks(self, player: Player) -> None:
        own, _ = self.seeks.drop(player.key)
        for seek in own:
            self.tell_seek(seek, "gone", but=player.key)
        if own:
            self.arm_seeks()

    async def open_seek(self, seek: Seek) -> Room | None:
        """The seek's table, its people seated (:func:`server.lobby.seektable.open_seek`)."""
        return await seektable.open_seek(self, seek)

    # -- shutdown -----------------------------------------------------------------

    async def shutdown(self) -> None:
        """Tell everyone, end every room, close every session.

        Durable tables stop where they are and resume at the next start (their people keep
        their seats, guests their accounts); other rooms end, refunding unsettled chips."""
        self.closing = True
        self._seek_alarm.cancel()
        await self.hall.shutdown()  # the events stop first: their tables stopping is no result
        self.news.flush()
        self.news.finish_slices()
        resume = self.config.durable_tables
        for player in list(self.players.values()):
            if player.session is not None:
                player.session.push_event({"event": "shutdown", "resume": resume})
        rooms = list(self.rooms.values())
        await asyncio.gather(*(room.stop() for room in rooms), return_exceptions=True)
        for room in rooms:  # stopped where they are, to resume at the next start: no longer open here
            if room.suspended and self.rooms.get(room.id) is room:
                del self.rooms[room.id]
                if room.id in self._openers:
                    self.slots.give_back(self._openers.pop(room.id))
        try:
            await self.thinkers.shutdown()
        except Exception:
            log.exception("stopping the thinking processes failed")
        sessions = list(self.sessions)
        for session in sessions:
            session.close("shutdown")
        for session in sessions:
            try:
                await asyncio.wait_for(session.done.wait(), 5)
            except TimeoutError:
                log.warning("%r did not close in time", session)
        for player in list(self.players.values()):
            place = player.room
            if isinstance(place, Room) and place.suspended:
                continue  # the seat lives on in the table's log: the next start gives it back
            player.room = None
            player.seat = None
            await self.release(player)


def _iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["Lobby", "NoSilences", "Silences", "typed_name"]
