"""Logging in, and a guest becoming an account (:class:`Logins`, owned by the lobby).

A :class:`~server.people.players.Player` is a name's presence on the server. It outlives its
connection while it holds a seat: a new login under the same name takes the seat back (the session
is re-attached, the room pushes a full state). A guest name in use is taken back only with its
resume code (:mod:`server.people.resume`). A guest may become an account (``register``, or
``login`` from the guest's session), their seat going on under the account where no chip of
theirs is in play.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from server.lobby.moderation import origin_of
from server.messages.moderation import refusal_params
from server.operations.limits import address_key, clean_text
from server.people import resume
from server.people.players import GuestStart, Player, PlayerSession, Welcome, news_now
from server.protocol import CommandError
from server.rooms.room import Room
from server.storage.api import NameTaken, Refusal, StorageError, Store
from server.storage.names import clean_name as _storage_clean_name
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.config import Config
    from server.lobby.moderation import Conduct
    from server.lobby.pace import Pace

log = logging.getLogger(__name__)


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


async def account_name(store: Store, raw: str, limit: int) -> str:
    """:func:`typed_name` for a login: an account made before names could not look like staff
    ("admin_bob") still logs in; nobody else gets such a name."""
    try:
        return typed_name(raw, limit)
    except CommandError:
        display = typed_name(raw, limit, staff=False)
        if not await store.accounts.exists(display):
            raise
        return display

class LoginsHost(Protocol):
    """What logging in needs of the lobby: its people, the door, the greeting and welcome after it."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> Store: ...
    @property
    def players(self) -> MutableMapping[str, Player]: ...
    @property
    def closing(self) -> bool: ...
    @property
    def pace(self) -> Pace: ...
    @property
    def conduct(self) -> Conduct: ...
    @property
    def resume_attempts(self) -> resume.Attempts: ...
    @property
    def login_lock(self) -> asyncio.Lock: ...

    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None: ...
    async def greet(self, session: PlayerSession) -> None: ...
    async def guest_hold(self, key: str) -> GuestHold | None: ...

    def after_login(self, player: Player) -> None:
        """The account's offline messages and their friends' notice, after the login's reply."""
        ...


class Logins:
    """Logging in to one lobby (:class:`LoginsHost`)."""

    def __init__(self, lobby: LoginsHost) -> None:
        self.lobby = lobby

    async def needs_password(self, name: str) -> bool:
        try:
            return bool(await self.lobby.store.accounts.exists(name, fresh=True))  # (one made since by donne admin)
        except Exception:
            return False

    def start_guest(self, name: str) -> GuestStart | None:
        """Open ``name``'s guest account now (see :class:`GuestStart`); None when login will decide."""
        if self.lobby.closing or not self.lobby.config.allow_guests:
            return None
        try:
            display = typed_name(name, self.lobby.config.max_name)
        except CommandError:
            return None
        key = name_key(display)
        if key in self.lobby.players:
            return None  # connected or holding a seat: login takes the usual way
        return GuestStart(key, asyncio.ensure_future(self.lobby.store.accounts.login_guest(display)))

    async def drop_guest_start(self, start: GuestStart | None) -> None:
        """A guest account opened early that no login used: retired (unless someone logged in as it)."""
        if start is None or not start.claim():
            return
        try:
            account = await start.task
        except Exception:
            return  # nothing was opened
        if name_key(account.name) in self.lobby.players:
            return  # that guest is here through another connection: the account is theirs
        try:
            await self.lobby.store.accounts.logout_guest(account.name)
        except Exception:
            log.exception("could not retire guest %s", account.name)

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
        player = self.lobby.players.get(key)
        if player is None or not player.guest:
            return None
        seated = player.room is not None and player.seat is not None
        if not seated and not player.connected:
            return None
        return GuestHold(seated, player.resume)

    async def _guest(self, session: PlayerSession, display: str, code: str | None) -> _Guest:
        """A guest login: a new code, or the code proved for the name in use (else refused)."""
        key = name_key(display)
        hold = await self.lobby.guest_hold(key)
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
        holder = self.lobby.players.get(key)
        origin = origin_of(holder) if holder is not None else None
        attempts = self.lobby.resume_attempts
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
        player = self.lobby.players.get(key)
        if player is not None and player.connected and player.session is not None:
            player.session.notice("resume_tried")

    async def _enter(self, session: PlayerSession, name: str, password: str | None, verified: bool,
                     guest_start: GuestStart | None, greet: bool, welcome: Welcome | None,
                     code: str | None = None) -> Player:
        if session.logged_in:
            raise CommandError("already_logged_in")
        if self.lobby.closing:
            raise CommandError("not_allowed")
        display = await account_name(self.lobby.store, name, self.lobby.config.max_name)
        accounts = self.lobby.store.accounts
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
            self.lobby.pace.login(name_key(display), time.monotonic())  # a password hash of CPU each
            account = await accounts.verify_password(display, password, session.conn.peer)
            if account is None:
                raise CommandError("bad_password")
            display = account.name
        refusal = await self.lobby.door(name=display if registered else None, address=session.conn.peer,
                                  key=getattr(session.conn, "key", None))
        if refusal is not None:
            log.info("refused %s from %s: %s (%s)", display, session.conn.peer, refusal.code, refusal.kind)
            raise CommandError(refusal.code, **refusal_params(refusal))
        if welcome is not None and registered:
            await welcome.prepare(display)
        guest = None if registered else await self._guest(session, display, code)
        player = await self._login(session, display, registered, guest_start, welcome if registered else None,
                                   guest)
        await self.lobby.conduct.entered(player)
        if greet:
            await self.lobby.greet(session)
        return player

    async def _login(self, session: PlayerSession, display: str, registered: bool,
                     guest_start: GuestStart | None, welcome: Welcome | None = None,
                     guest: _Guest | None = None) -> Player:
        accounts = self.lobby.store.accounts
        async with self.lobby.login_lock:
            if session.logged_in or session.closed.is_set():
                raise CommandError("already_logged_in" if session.logged_in else "not_allowed")
            key = name_key(display)
            player = self.lobby.players.get(key)
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
                    player.lobby_spans[:] = [(news_now(), None)]  # this connection: news from now on
                session.player = player
                if welcome is not None:
                    welcome.say()  # before logged(): the greeting comes before the table drawn again
                session.logged(player.name, player.guest)
                log.info("%s is back (%s)", player.name, session.conn.kind)
                if player.room is not None:
                    await player.room.reconnect(player)
                self.lobby.after_login(player)
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
            self.lobby.players[key] = player
            session.player = player
            if welcome is not None:
                welcome.say()
            session.logged(player.name, player.guest)
            log.info("%s logged in (%s, %s)", player.name, "guest" if player.guest else "account",
                     session.conn.kind)
            self.lobby.after_login(player)
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
                self.lobby.players[key] = player  # the table's messages under the new name reach this player
            try:
                await room.submit(player, "become", {"key": key, "name": name, "account": name})
            except BaseException:
                if key != player.key and self.lobby.players.get(key) is player:
                    del self.lobby.players[key]
                raise
        if self.lobby.players.get(player.key) is player:
            del self.lobby.players[player.key]
        player.name, player.guest, player.resume, player.code = name, False, None, None
        self.lobby.players[player.key] = player
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
        if self.lobby.closing:
            raise CommandError("not_allowed")
        display = await account_name(self.lobby.store, name, self.lobby.config.max_name)
        accounts = self.lobby.store.accounts
        if not password or not await accounts.exists(display):
            raise CommandError("bad_password")  # only an account, and never a hint which names are
        self.lobby.pace.login(name_key(display), time.monotonic())
        account = await accounts.verify_password(display, password, session.conn.peer)
        if account is None:
            raise CommandError("bad_password")
        display = account.name
        refusal = await self.lobby.door(name=display, address=session.conn.peer, key=getattr(session.conn, "key", None))
        if refusal is not None:
            raise CommandError(refusal.code, **refusal_params(refusal))
        self.check_become(guest)
        if welcome is not None:
            await welcome.prepare(display)
        was = guest.name
        async with self.lobby.login_lock:
            if session.player is not guest:
                raise CommandError("not_allowed")
            other = self.lobby.players.get(name_key(display))
            if guest.seat is not None and other is not None and other is not guest:
                raise CommandError("not_allowed", reason="account_in_use", name=display)
            if guest.seat is not None or other is None:
                await self.become(guest, display)
                player = guest
            else:  # the account is here already (connected elsewhere, or seated and away): this session takes it
                if guest.room is not None:
                    await guest.room.submit(guest, "leave", {})
                if self.lobby.players.get(guest.key) is guest:
                    del self.lobby.players[guest.key]
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
        await self.lobby.conduct.entered(player)
        self.lobby.after_login(player)
        return player
