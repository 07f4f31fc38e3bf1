"""The lobby: who is online, the rooms, logging in, coming back after a disconnection; the social
side of being online: offline messages at login, friends' notices, seeks and challenges.

A :class:`Player` is a name's presence on the server. It outlives its
connection while it holds a seat: when the connection drops, the room keeps
the seat for ``grace_seconds`` and a new login under the same name takes the
seat back (the session is re-attached, the room pushes a full state).
Rooms call :meth:`Lobby.release` when they no longer need a player; a player
with neither a connection nor a seat is forgotten (a guest's chips are then
retired by the store).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as _dt
import logging
import time
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from server.lobby import restored, seektable
from server.lobby.directory import Directory, masked
from server.lobby.moderation import IGNORES, Conduct, NoSilences, Silences, origin_of
from server.lobby.newsdigest import news_text
from server.lobby.pace import Pace
from server.lobby.seeks import Seek, Seeks
from server.messages.moderation import refusal_params
from server.operations.limits import Opener, RoomLimits, RoomSlots, address_key, clean_text
from server.people import resume
from server.people.players import GuestStart, Player, PlayerSession, Welcome, news_now, take_news_seq
from server.protocol import CommandError, Shared
from server.rooms.claims import SeatClaims
from server.rooms.room import Room
from server.rooms.thinking import Thinkers
from server.storage.api import NameTaken, Refusal, StorageError, StoredTable
from server.storage.names import clean_name as _storage_clean_name
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.config import Config
    from server.games import TableOptions

log = logging.getLogger(__name__)

NEWS_INTERVAL = 1.0
"""Seconds: the lobby's room-list news (``room_created``, ``room_closed``) go out at most this often."""

NEWS_SLICE = 32
"""Sessions handed the news per turn of the event loop: hundreds of rooms closing at once are kilobytes
for every session in the lobby, and the other sessions' replies go out between the slices."""


class _NowRegistered(Exception):
    """A guest login found the name registered by another process: log in again, as the account."""


@dataclass(frozen=True)
class GuestHold:
    """A guest name in use: connected, or holding a seat (``seated``, also while away); ``proof`` is
    the hash of the resume code that takes it back (None: nothing can, :mod:`server.people.resume`)."""

    seated: bool
    proof: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class _Guest:
    """Who a guest login is: the code they will have (given now, or the one they proved) and its hash."""

    code: str = field(repr=False)
    proof: str = field(repr=False)
    proven: GuestHold | None = None  # the hold the code matched (None: a new guest)


def typed_name(raw: str, limit: int, *, staff: bool = True) -> str:
    """The display form of a typed name (controls and escapes stripped first), or ``bad_name``.
    ``staff=False``: an account's name, which may look like staff if it was made before that rule."""
    raw = clean_text(raw)
    if not raw or len(raw) > limit:
        raise CommandError("bad_name", max=limit)
    try:
        return _storage_clean_name(raw, staff=staff)
    except StorageError:
        raise CommandError("bad_name", max=limit) from None


async def account_name(store: Any, raw: str, limit: int) -> str:
    """:func:`typed_name` for a login: an account made before names could not look like staff
    ("admin_bob") still logs in; nobody else gets such a name."""
    try:
        return typed_name(raw, limit)
    except CommandError:
        display = typed_name(raw, limit, staff=False)
        if not await store.accounts.exists(display):
            raise
        return display


SEATED_TOLD = "seated_told"
"""``Player.extra`` key: when the player's friends last heard where they sat down."""
SEATED_TOLD_SECONDS = 30.0
"""At most one ``friend_seated`` per player in this many seconds."""


class Lobby(Directory):
    def __init__(self, config: Config, store: Any, sessions: set[Any]) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions  # every open connection (logged in or not), for shutdown
        self.players: dict[str, Player] = {}
        self.rooms: dict[str, Room] = {}
        self.seats = SeatClaims()  # one account, at most one seat in the server
        self.thinkers = Thinkers(config.bot_processes)  # where search bots think (processes, started lazily)
        self.slots = RoomSlots(RoomLimits(config.max_rooms, config.rooms_per_account, config.rooms_per_address,
                                          config.guest_room_share))  # the open rooms, by who opened them
        self._openers: dict[str, Opener | None] = {}  # room id -> who opened it (what slots counted)
        self._login_lock = asyncio.Lock()
        self.resume_attempts = resume.Attempts()  # wrong resume codes, per guest name and address
        self.closing = False
        self._news: list[tuple[int, Mapping[str, Any]]] = []  # room-list events waiting (see broadcast)
        self._news_timer: asyncio.TimerHandle | None = None
        self._slices: collections.deque[tuple[PlayerSession, str]] = collections.deque()  # news being handed out
        self._slice_handle: asyncio.Handle | None = None
        self._news_sent = float("-inf")
        self.conduct = Conduct(self)  # mutes, ignore lists, the door, the motd (server/lobby/moderation.py)
        self.moderation: Silences = self.conduct  # what the social commands ask (tells, messages)
        self.seeks = Seeks()
        self.pace = Pace(config)  # how often one may reach others: tells, challenges, seeks, verify
        self._seek_timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- logging in --------------------------------------------------------------

    async def needs_password(self, name: str) -> bool:
        try:
            return bool(await self.store.accounts.exists(name, fresh=True))  # (one made since by donne admin)
        except Exception:
            return False

    def start_guest(self, name: str) -> GuestStart | None:
        """Open ``name``'s guest account now (see :class:`GuestStart`); None when login will decide."""
        if self.closing or not self.config.allow_guests:
            return None
        try:
            display = typed_name(name, self.config.max_name)
        except CommandError:
            return None
        key = name_key(display)
        if key in self.players:
            return None  # connected or holding a seat: login takes the usual way
        return GuestStart(key, asyncio.ensure_future(self.store.accounts.login_guest(display)))

    async def drop_guest_start(self, start: GuestStart | None) -> None:
        """A guest account opened early that no login used: retired (unless someone logged in as it)."""
        if start is None or not start.claim():
            return
        try:
            account = await start.task
        except Exception:
            return  # nothing was opened
        if name_key(account.name) in self.players:
            return  # that guest is here through another connection: the account is theirs
        try:
            await self.store.accounts.logout_guest(account.name)
        except Exception:
            log.exception("could not retire guest %s", account.name)

    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None:
        """Whether the door refuses this account, address or SSH key (:meth:`Conduct.door`)."""
        return await self.conduct.door(name=name, address=address, key=key)

    async def login(self, session: PlayerSession, name: str, *, password: str | None = None,
                    verified: bool = False, guest_start: GuestStart | None = None, greet: bool = True,
                    welcome: Welcome | None = None, resume: str | None = None) -> Player:
        """Log ``session`` in as ``name`` (a guest unless the name has an account).

        ``verified``: the transport already proved the account (SSH key or
        password). A guest name already connected is refused (``name_taken``);
        an account logging in again takes over its old connection. A player
        still holding a seat gets it back. A banned address or account, a locked
        account are refused (``banned``, ``locked``: the reason and until when).
        ``greet``: push the message of the day now (the door says it itself, after
        the session's first line: :meth:`greet`). ``welcome``: what an account
        hears first, before the table it gets back is drawn again.

        A guest name in use (connected, or holding a seat, even away) is taken back
        only with its resume code (``resume``, :mod:`server.people.resume`): without it,
        ``resume_needed`` for a seat (``name_taken`` for a connection only); a
        wrong one, ``bad_resume_code`` (after a pause), and after a few,
        ``rate_limited``. With it, the guest gets the seat back, ending the old
        connection if there is one. Every other guest login gets a new code.
        """
        if password is not None and getattr(session.conn, "insecure", False):
            raise CommandError("insecure_transport")  # a browser page over plain HTTP (docs/web.md)
        try:
            return await self._enter(session, name, password, verified, guest_start, greet, welcome, resume)
        except _NowRegistered:
            # registered meanwhile by another process (donne admin register): log in as the account
            return await self._enter(session, name, password, verified, None, greet, welcome, resume)

    async def guest_hold(self, key: str) -> GuestHold | None:
        """Whether the guest name ``key`` is in use here, and what takes it back (None: free)."""
        player = self.players.get(key)
        if player is None or not player.guest:
            return None
        seated = player.room is not None and player.seat is not None
        if not seated and not player.connected:
            return None
        return GuestHold(seated, player.resume)

    async def _guest(self, session: PlayerSession, display: str, code: str | None) -> _Guest:
        """A guest login: a new code, or the code proved for the name in use (else refused)."""
        key = name_key(display)
        hold = await self.guest_hold(key)
        if hold is None:
            fresh = resume.new_code()
            return _Guest(fresh, await resume.hash_code(fresh))
        if code is None or not str(code).strip():
            if hold.seated:
                self._tried(key)
            raise CommandError("resume_needed" if hold.seated else "name_taken", name=display)
        peer = str(getattr(session.conn, "peer", "") or "")
        address = address_key(peer) if peer else ""
        # Wrong codes lock the name for everyone but the guest's own address: strangers trying codes
        # must not lock the guest out of their seat (their address keeps its own limit).
        holder = self.players.get(key)
        origin = origin_of(holder) if holder is not None else None
        attempts = self.resume_attempts
        if attempts.blocked(key, address, by_name=origin is None or origin.address != address):
            raise CommandError("rate_limited", reason="resume_attempts")
        if hold.proof is None or not await resume.matches(str(code), hold.proof):
            pause = attempts.fail(key, address)
            log.warning("wrong resume code for %s from %s", display, peer or "?")  # never the code
            self._tried(key)
            await asyncio.sleep(pause)
            raise CommandError("bad_resume_code", name=display)
        attempts.succeed(key)
        typed = resume.normalize(str(code))
        return _Guest("-".join(typed[i:i + 4] for i in range(0, len(typed), 4)), hold.proof, hold)

    def _tried(self, key: str) -> None:
        """A login under a guest's name failed for want of their code: the guest, if connected here,
        hears that their seat stays theirs."""
        player = self.players.get(key)
        if player is not None and player.connected and player.session is not None:
            player.session.notice("resume_tried")

    async def _enter(self, session: PlayerSession, name: str, password: str | None, verified: bool,
                     guest_start: GuestStart | None, greet: bool, welcome: Welcome | None,
                     code: str | None = None) -> Player:
        if session.logged_in:
            raise CommandError("already_logged_in")
        if self.closing:
            raise CommandError("not_allowed")
        display = await account_name(self.store, name, self.config.max_name)
        accounts = self.store.accounts
        # Passwords are checked outside the lock: a wrong one is answered slowly (back-off) and
        # must not hold up everybody else's login.
        registered = bool(await accounts.exists(display))
        if registered and verified:
            account = await accounts.get(display)
            if account is not None:
                display = account.name  # the account's own spelling (SSH user names keep the typed case)
        if registered and not verified:
            if not password:
                raise CommandError("bad_password")
            self.pace.login(name_key(display), time.monotonic())  # a password hash of CPU each
            account = await accounts.verify_password(display, password, session.conn.peer)
            if account is None:
                raise CommandError("bad_password")
            display = account.name
        refusal = await self.door(name=display if registered else None, address=session.conn.peer,
                                  key=getattr(session.conn, "key", None))
        if refusal is not None:
            log.info("refused %s from %s: %s (%s)", display, session.conn.peer, refusal.code, refusal.kind)
            raise CommandError(refusal.code, **refusal_params(refusal))
        if welcome is not None and registered:
            await welcome.prepare(display)
        guest = None if registered else await self._guest(session, display, code)
        player = await self._login(session, display, registered, guest_start, welcome if registered else None,
                                   guest)
        await self.conduct.entered(player)
        if greet:
            await self.greet(session)
        return player

    async def _login(self, session: PlayerSession, display: str, registered: bool,
                     guest_start: GuestStart | None, welcome: Welcome | None = None,
                     guest: _Guest | None = None) -> Player:
        accounts = self.store.accounts
        async with self._login_lock:
            if session.logged_in or session.closed.is_set():
                raise CommandError("already_logged_in" if session.logged_in else "not_allowed")
            key = name_key(display)
            player = self.players.get(key)
            if player is not None and not registered and player.guest:
                # the code was checked outside the lock: it must still be this player's
                proven = guest is not None and guest.proven is not None and guest.proof == player.resume
                if not proven:
                    seated = player.room is not None and player.seat is not None
                    if seated or player.connected:
                        raise CommandError("resume_needed" if seated else "name_taken", name=display)
                if guest is not None:
                    player.resume, player.code = guest.proof, guest.code
            if player is not None:
                if player.connected:
                    assert player.session is not None
                    old = player.session
                    old.player = None
                    player.session = None
                    old.notice("replaced")
                    old.close("replaced")
                player.session = session
                if player.room is None:
                    player.lobby_spans[:] = [[news_now(), None]]  # this connection: news from now on
                session.player = player
                if welcome is not None:
                    welcome.say()  # before logged(): the greeting comes before the table drawn again
                session.logged(player.name, player.guest)
                log.info("%s is back (%s)", player.name, session.conn.kind)
                if player.room is not None:
                    await player.room.reconnect(player)
                self._welcome(player)
                return player
            if not registered:
                try:
                    if guest_start is not None and guest_start.key == key and guest_start.claim():
                        account = await guest_start.task  # opened during authentication
                    else:
                        account = await accounts.login_guest(display)
                except StorageError as exc:
                    if isinstance(exc, NameTaken) and await accounts.exists(display):
                        raise _NowRegistered from None
                    raise CommandError(exc.code, name=display) from None
                display = account.name
            player = Player(name=display, guest=not registered)
            if guest is not None:
                player.resume, player.code = guest.proof, guest.code
            player.session = session
            self.players[key] = player
            session.player = player
            if welcome is not None:
                welcome.say()
            session.logged(player.name, player.guest)
            log.info("%s logged in (%s, %s)", player.name, "guest" if player.guest else "account",
                     session.conn.kind)
            self._welcome(player)
            return player

    # -- a guest becomes an account ----------------------------------------------------

    def check_become(self, player: Player) -> None:
        """Raise unless ``player``, a guest, may become an account where they are: a seat goes on only
        at a table of this process where no chip of theirs is in play (``Table.chips_in_play``)."""
        room = player.room
        if room is None or player.seat is None:
            return
        if not isinstance(room, Room):
            raise CommandError("not_allowed", reason="table_elsewhere")
        if room.table.chips_in_play(player.seat):
            raise CommandError("not_allowed", reason="at_stake")

    async def become(self, player: Player, name: str) -> None:
        """``player``, a guest, is the account ``name`` from now on (``register``, or ``login`` from
        the guest's session); called under the login lock, the account proved. Their seat goes on
        under the account (:meth:`check_become` first); a spectator stops watching. The guest's own
        account is the caller's to retire."""
        room = player.room
        if room is not None and player.seat is None:
            await room.submit(player, "leave", {})
        elif room is not None:
            self.check_become(player)
            key = name_key(name)
            if key != player.key:
                self.players[key] = player  # the table's messages under the new name reach this player
            try:
                await room.submit(player, "become", {"key": key, "name": name, "account": name})
            except BaseException:
                if key != player.key and self.players.get(key) is player:
                    del self.players[key]
                raise
        if self.players.get(player.key) is player:
            del self.players[player.key]
        player.name, player.guest, player.resume, player.code = name, False, None, None
        self.players[player.key] = player
        if player.session is not None:
            player.session.logged(name, False)

    async def switch_to_account(self, session: PlayerSession, name: str, password: str | None, *,
                                welcome: Welcome | None = None) -> Player:
        """A guest's session logs in to the account ``name`` (its password checked, with the usual
        back-off): the guest's seat, where it may (:meth:`check_become`), goes on as the account's;
        the guest's account is retired as at a log-out."""
        guest = session.player
        if guest is None or not guest.guest:
            raise CommandError("already_logged_in")
        if self.closing:
            raise CommandError("not_allowed")
        display = await account_name(self.store, name, self.config.max_name)
        accounts = self.store.accounts
        if not password or not await accounts.exists(display):
            raise CommandError("bad_password")  # only an account, and never a hint which names are
        self.pace.login(name_key(display), time.monotonic())
        account = await accounts.verify_password(display, password, session.conn.peer)
        if account is None:
            raise CommandError("bad_password")
        display = account.name
        refusal = await self.door(name=display, address=session.conn.peer, key=getattr(session.conn, "key", None))
        if refusal is not None:
            raise CommandError(refusal.code, **refusal_params(refusal))
        self.check_become(guest)
        if welcome is not None:
            await welcome.prepare(display)
        was = guest.name
        async with self._login_lock:
            if session.player is not guest:
                raise CommandError("not_allowed")
            other = self.players.get(name_key(display))
            if guest.seat is not None and other is not None and other is not guest:
                raise CommandError("not_allowed", reason="account_in_use", name=display)
            if guest.seat is not None or other is None:
                await self.become(guest, display)
                player = guest
            else:  # the account is here already (connected elsewhere, or seated and away): this session takes it
                if guest.room is not None:
                    await guest.room.submit(guest, "leave", {})
                if self.players.get(guest.key) is guest:
                    del self.players[guest.key]
                guest.session = None
                session.player = None
                if other.connected:
                    assert other.session is not None
                    old = other.session
                    old.player = None
                    old.notice("replaced")
                    old.close("replaced")
                other.session = session
                session.player = other
                session.logged(other.name, False)
                player = other
        log.info("guest %s is now %s", was, display)
        try:
            await accounts.logout_guest(was)
        except Exception:
            log.exception("could not retire guest %s", was)
        if welcome is not None:
            welcome.say()
        if player.room is not None and player is not guest:
            await player.room.reconnect(player)
        await self.conduct.entered(player)
        self._welcome(player)
        return player

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
                self._spawn(self._seen(player.name))
            if player.guest:
                try:
                    await self.store.accounts.logout_guest(player.name)
                except Exception:
                    log.exception("could not retire guest %s", player.name)

    # -- who and where -------------------------------------------------------------

    def online(self) -> list[Player]:
        return [p for p in self.players.values() if p.connected]

    def lobby_sessions(self) -> list[PlayerSession]:
        """Connected sessions not in a room (they receive lobby chat)."""
        return [p.session for p in self.players.values()
                if p.session is not None and p.room is None and not p.session.closed.is_set()]

    def broadcast(self, event: Mapping[str, Any], *, news: bool = False) -> None:
        """An event to every session in the lobby, worded and encoded once per language and style.

        ``news`` (the room list changing: ``room_created``, ``room_closed``) is
        coalesced: sent at once when the lobby has been quiet, otherwise with
        the other news of the same :data:`NEWS_INTERVAL`, in one write per
        session, to the sessions in the lobby at that moment. Other events
        (chat) go out at once, after any news still waiting (order is kept).
        """
        if news:
            self._queue_news(event)
            return
        self.flush_news()
        self._finish_slices()
        self._send_lobby([event])

    def seek_news(self, event: Mapping[str, Any]) -> None:
        """A new seek, for the lobby: news like the room list's (coalesced, digested beyond
        :data:`~server.lobby.newsdigest.NEWS_DIGEST`, left out when the seek is gone by the time they go
        out), not for its owner nor those who ignore them. Heard on this node only: its seeks are
        taken up here."""
        self._queue_news(event)

    def _queue_news(self, event: Mapping[str, Any]) -> None:
        self._news.append((take_news_seq(), event))
        if self._news_timer is None:
            loop = asyncio.get_running_loop()
            at = max(loop.time(), self._news_sent + NEWS_INTERVAL)
            self._news_timer = loop.call_at(at, self.flush_news)

    def _apart(self, player: Player, seekers: Mapping[str, str]) -> bool:
        """Whether some of these seekers' seeks are not for ``player`` (``seekers``: name key -> name)."""
        if player.key in seekers:
            return True
        if self.moderation is self.conduct and not player.extra.get(IGNORES):
            return False  # nobody ignored (most people): no look-up
        return any(self.moderation.ignores(player.name, name) for name in seekers.values())

    def _unwanted(self, player: Player, event: Mapping[str, Any]) -> bool:
        """A seek ``player`` is not told of: their own, or of someone they ignore."""
        name = event.get("name")
        return event.get("event") == "seek" and isinstance(name, str) and (
            name_key(name) == player.key or self.moderation.ignores(player.name, name))

    def flush_news(self) -> None:
        """Send the room-list news waiting (see :meth:`broadcast`): worded once per kind of reader, handed
        to the sessions :data:`NEWS_SLICE` at a time, one turn of the event loop after another."""
        if self._news_timer is not None:
            self._news_timer.cancel()
            self._news_timer = None
        self._finish_slices()  # the previous news first, to everyone
        if not self._news:
            return
        news, self._news = self._news, []
        news = [(seq, ev) for seq, ev in news if ev.get("event") != "seek" or self.seeks.get(ev["seek"]) is not None]
        if not news:
            return  # seeks withdrawn before anyone heard of them
        self._news_sent = asyncio.get_running_loop().time()
        shared = [(seq, Shared(event)) for seq, event in news]
        first = shared[0][0]
        seekers = {name_key(str(ev.event.get("name"))): str(ev.event.get("name"))
                   for _, ev in shared if ev.event.get("event") == "seek"}
        rooms_moved = any(ev.get("event") in ("room_created", "room_closed") for _, ev in news)
        whole: dict[Any, str] = {}  # all the news, worded once per kind of reader (render key)
        digests: dict[tuple[int, int, int], Shared] = {}  # rooms_changed, once per count (server/lobby/newsdigest.py)
        for player in self.players.values():
            spans = player.lobby_spans
            session = player.session
            if session is None or player.room is not None or session.closed.is_set():
                spans.clear()  # only news from now on can concern it
                continue
            apart = bool(seekers) and self._apart(player, seekers)  # news of its own, without those seeks
            if len(spans) == 1 and spans[0][0] <= first and not apart:  # in the lobby all along
                key = session.render_key()
                text = whole.get(key)
                if text is None or getattr(session, "gmcp", None) is not None:  # (GMCP: each news its Donne.Event)
                    text = whole[key] = news_text(session, [ev for _, ev in shared], digests, len(self.rooms))
            else:
                text = news_text(session, [ev for seq, ev in shared
                                           if player.heard(seq) and not (apart and self._unwanted(player, ev.event))],
                                 digests, len(self.rooms))
                if spans:
                    del spans[:-1]
            if text:
                self._slices.append((session, text))
            feed = getattr(session, "gmcp", None) if rooms_moved else None  # a telnet MUD client's GMCP
            if feed is not None:
                feed.rooms_changed()  # the room list again (at most once a second)
        self._send_slice()

    def _send_slice(self) -> None:
        self._slice_handle = None
        for _ in range(NEWS_SLICE):
            if not self._slices:
                return
            session, text = self._slices.popleft()
            session.send_raw(text)
        if self._slices:
            self._slice_handle = asyncio.get_running_loop().call_soon(self._send_slice)

    def _finish_slices(self) -> None:
        """Hand out at once the news still being sliced (something else for the lobby must follow it)."""
        if self._slice_handle is not None:
            self._slice_handle.cancel()
            self._slice_handle = None
        slices, self._slices = self._slices, collections.deque()
        for session, text in slices:
            session.send_raw(text)

    def _send_lobby(self, events: list[Mapping[str, Any]]) -> None:
        shared = [Shared(event) for event in events]
        for session in self.lobby_sessions():
            session.send_raw("".join([session.shared_line(ev) for ev in shared]))

    async def new_room_id(self) -> str:
        """A room id never used before, on this server or an earlier run of it (history and replays
        name rooms): the store keeps the counter."""
        while True:
            rid = f"r{await self.store.tables.next_table_number()}"
            if rid not in self.rooms:
                return rid

    def find_room(self, room_id: Any) -> Room:
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

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _seen(self, name: str) -> None:
        try:
            await self.store.social.seen(name)
        except Exception:
            log.exception("could not note when %s was last seen", name)

    def _welcome(self, player: Player) -> None:
        """After a login (its reply and greeting go first): the account's offline messages, and a
        notice to the friends online who want one."""
        if not player.guest:
            self._spawn(self._welcome_account(player))

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

    def tell_keys(self, keys: list[str], event: Mapping[str, Any], but: Player | None = None) -> None:
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

        self._spawn(notify())

    # -- seeks and challenges (server/lobby/seeks.py) ------------------------------------------

    def arm_seeks(self) -> None:
        """One timer, for the next seek or challenge to lapse."""
        if self._seek_timer is not None:
            self._seek_timer.cancel()
            self._seek_timer = None
        at = self.seeks.next_deadline()
        if at is not None and not self.closing:
            self._seek_timer = asyncio.get_running_loop().call_at(at, self._seeks_due)

    def _seeks_due(self) -> None:
        self._seek_timer = None
        for seek in self.seeks.expire(asyncio.get_running_loop().time()):
            if seek.fill and seek.accepted and not seek.challenge:
                self._spawn(self.open_seek(seek))
            else:
                self.tell_seek(seek, "lapsed")
        self.arm_seeks()

    def tell_seek(self, seek: Seek, what: str, *, but: str | None = None, **why: Any) -> None:
        """The seek's owner, the person challenged and those who accepted hear what became of it
        (``why``: the refusal that ended it, for its owner: ``code`` and its parameters, its
        ``reason`` named ``refused`` in the event)."""
        keys = [seek.owner_key, *([seek.to] if seek.to else []), *seek.accepted]
        event = {"event": "seek_over", "seek": seek.id, "reason": what, "name": seek.owner,
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
        if self._seek_timer is not None:
            self._seek_timer.cancel()
            self._seek_timer = None
        self.flush_news()
        self._finish_slices()
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
