"""The lobby: who is online, the rooms, logging in, coming back after a disconnection.

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
import logging
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from server.claims import SeatClaims
from server.limits import clean_text
from server.players import Client, GuestStart, Player, news_now, take_news_seq
from server.protocol import CommandError, Shared
from server.room import Room
from server.storage.api import StorageError, StoredTable, TableClosed
from server.storage.names import clean_name as _storage_clean_name
from server.storage.names import name_key
from server.table.durable import Unreplayable

if TYPE_CHECKING:
    from server.config import Config
    from server.games import TableOptions

log = logging.getLogger(__name__)

NEWS_INTERVAL = 1.0
"""Seconds: the lobby's room-list news (``room_created``, ``room_closed``) go out at most this often."""

def clean_name(raw: str, limit: int) -> str:
    """The display form of a typed name (controls and escapes stripped first), or ``bad_name``."""
    raw = clean_text(raw)
    if not raw or len(raw) > limit:
        raise CommandError("bad_name", max=limit)
    try:
        return _storage_clean_name(raw)
    except StorageError:
        raise CommandError("bad_name", max=limit) from None


class Lobby:
    def __init__(self, config: Config, store: Any, sessions: set[Any]) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions  # every open connection (logged in or not), for shutdown
        self.players: dict[str, Player] = {}
        self.rooms: dict[str, Room] = {}
        self.seats = SeatClaims()  # one account, at most one seat in the server
        self._login_lock = asyncio.Lock()
        self.closing = False
        self._news: list[tuple[int, Mapping[str, Any]]] = []  # room-list events waiting (see broadcast)
        self._news_timer: asyncio.TimerHandle | None = None
        self._news_sent = float("-inf")

    # -- logging in --------------------------------------------------------------

    async def needs_password(self, name: str) -> bool:
        try:
            return bool(await self.store.accounts.exists(name))
        except Exception:
            return False

    def start_guest(self, name: str) -> GuestStart | None:
        """Open ``name``'s guest account now (see :class:`GuestStart`); None when login will decide."""
        if self.closing or not self.config.allow_guests:
            return None
        try:
            display = clean_name(name, self.config.max_name)
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

    async def login(self, session: Client, name: str, *, password: str | None = None,
                    verified: bool = False, guest_start: GuestStart | None = None) -> Player:
        """Log ``session`` in as ``name`` (a guest unless the name has an account).

        ``verified``: the transport already proved the account (SSH key or
        password). A guest name already connected is refused (``name_taken``);
        an account logging in again takes over its old connection. A player
        still holding a seat gets it back.
        """
        if session.logged_in:
            raise CommandError("already_logged_in")
        if self.closing:
            raise CommandError("not_allowed")
        display = clean_name(name, self.config.max_name)
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
            account = await accounts.verify_password(display, password, session.conn.peer)
            if account is None:
                raise CommandError("bad_password")
            display = account.name
        async with self._login_lock:
            if session.logged_in or session.closed.is_set():
                raise CommandError("already_logged_in" if session.logged_in else "not_allowed")
            key = name_key(display)
            player = self.players.get(key)
            if player is not None:
                if player.connected:
                    assert player.session is not None
                    if not registered:
                        raise CommandError("name_taken", name=display)
                    old = player.session
                    old.player = None
                    player.session = None
                    old.notice("replaced")
                    old.close("replaced")
                player.session = session
                if player.room is None:
                    player.lobby_spans[:] = [[news_now(), None]]  # this connection: news from now on
                session.player = player
                session.logged(player.name, player.guest)
                log.info("%s is back (%s)", player.name, session.conn.kind)
                if player.room is not None:
                    await player.room.reconnect(player)
                return player
            if not registered:
                try:
                    if guest_start is not None and guest_start.key == key and guest_start.claim():
                        account = await guest_start.task  # opened during authentication
                    else:
                        account = await accounts.login_guest(display)
                except StorageError as exc:
                    raise CommandError(exc.code, name=display) from None
                display = account.name
            player = Player(name=display, guest=not registered)
            player.session = session
            self.players[key] = player
            session.player = player
            session.logged(player.name, player.guest)
            log.info("%s logged in (%s, %s)", player.name, "guest" if player.guest else "account",
                     session.conn.kind)
            return player

    async def detach(self, session: Client) -> None:
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
            if player.guest:
                try:
                    await self.store.accounts.logout_guest(player.name)
                except Exception:
                    log.exception("could not retire guest %s", player.name)

    # -- who and where -------------------------------------------------------------

    def online(self) -> list[Player]:
        return [p for p in self.players.values() if p.connected]

    def lobby_sessions(self) -> list[Client]:
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
            self._news.append((take_news_seq(), event))
            if self._news_timer is None:
                loop = asyncio.get_running_loop()
                at = max(loop.time(), self._news_sent + NEWS_INTERVAL)
                self._news_timer = loop.call_at(at, self.flush_news)
            return
        self.flush_news()
        self._send_lobby([event])

    def flush_news(self) -> None:
        """Send the room-list news waiting (see :meth:`broadcast`)."""
        if self._news_timer is not None:
            self._news_timer.cancel()
            self._news_timer = None
        if not self._news:
            return
        news, self._news = self._news, []
        self._news_sent = asyncio.get_running_loop().time()
        shared = [(seq, Shared(event)) for seq, event in news]
        first = shared[0][0]
        for player in self.players.values():
            spans = player.lobby_spans
            session = player.session
            if session is None or player.room is not None or session.closed.is_set():
                spans.clear()  # only news from now on can concern it
                continue
            if len(spans) == 1 and spans[0][0] <= first:  # in the lobby all along
                session.send_raw("".join([session.shared_line(ev) for _, ev in shared]))
            else:
                session.send_raw("".join([session.shared_line(ev) for seq, ev in shared if player.heard(seq)]))
                if spans:
                    del spans[:-1]

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

    async def open_room(self, opts: TableOptions, owner: str) -> Room:
        """A new room with its table, running (nobody seated yet)."""
        room = Room(self, await self.new_room_id(), opts, owner=owner)
        self.rooms[room.id] = room
        room.start()
        return room

    def announce(self, room: Room, name: str) -> None:
        """Tell the lobby a room opened (news)."""
        room.announced = True
        self.broadcast({**room.summary(), "event": "room_created", "name": name}, news=True)

    def room_closed(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            if not self.closing and room.announced:
                self.broadcast({"event": "room_closed", "room": room.id, "reason": "closed"}, news=True)

    # -- a restart ------------------------------------------------------------------

    async def restore(self, stored: Sequence[StoredTable]) -> list[tuple[str, str]]:
        """Rebuild the rooms of the tables a restart found unfinished (``docs/restart.md``).

        Each table is replayed from its log; its people get their seats back as players away
        (their grace runs; logging in again takes the seat back) and their seat claims. A table
        whose log does not replay is set aside (its unsettled round voided, its bots' chips sent
        home) and the operator told. Returns the tables set aside, with their reason."""
        aside: list[tuple[str, str]] = []
        now = time.monotonic()
        for t in stored:
            try:
                room = Room.restored_from(self, t, now)
            except Unreplayable as exc:
                aside.append((t.table_id, exc.reason))
                continue
            except Exception as exc:  # a bug: the table is set aside rather than the server kept down
                log.exception("table %s could not be rebuilt", t.table_id)
                aside.append((t.table_id, f"rebuilding failed ({type(exc).__name__})"))
                continue
            if not await self._seat_again(room):
                aside.append((t.table_id, "a seat's account is held elsewhere"))
                continue
            self.rooms[room.id] = room
            room.announced = True
        for table_id, reason in aside:
            log.error("table %s is set aside: %s; its unsettled round is voided (donne audit lists it)",
                      table_id, reason)
            try:
                await self.store.apply([TableClosed(table_id, "aside", reason)])
            except Exception:
                log.exception("could not set table %s aside", table_id)
        for room in self.rooms.values():
            room.start()
        if self.rooms:
            log.info("%d table(s) resumed: %s", len(self.rooms), " ".join(sorted(self.rooms)))
        return aside

    async def _seat_again(self, room: Room) -> bool:
        """A rebuilt table's people: their seat claims, and a player away for each person seated."""
        table = room.table
        accounts = [s.account for s in table.seats if s.account is not None and (s.member is not None or s.leaving)]
        if any(self.seats.holder(a) not in (None, room.id) for a in accounts):
            return False
        for account in accounts:
            self.seats.claim(account, room.id)
        people = [s for s in table.seats if s.member is not None]
        found = await asyncio.gather(*(self.store.accounts.get(s.account or "") for s in people),
                                     return_exceptions=True)
        for seat, got in zip(people, found, strict=True):
            assert seat.member is not None
            guest = not isinstance(got, BaseException) and got is not None and got.guest
            if got is None or isinstance(got, BaseException):
                try:  # a guest's account ended meanwhile: open it again (the store keeps it otherwise)
                    guest = (await self.store.accounts.login_guest(seat.name or "")).guest
                except Exception:
                    log.warning("table %s: no account for %s", room.id, seat.name)
            player = Player(name=seat.name or seat.member, guest=guest, prefs=dict(seat.prefs))
            player.room = room
            player.seat = seat.index
            self.players[seat.member] = player
        return True

    # -- shutdown -----------------------------------------------------------------

    async def shutdown(self) -> None:
        """Tell everyone, end every room, close every session.

        Durable tables stop where they are and resume at the next start (their people keep
        their seats, guests their accounts); other rooms end, refunding unsettled chips."""
        self.closing = True
        self.flush_news()
        resume = self.config.durable_tables
        for player in list(self.players.values()):
            if player.session is not None:
                player.session.push_event({"event": "shutdown", "resume": resume})
        rooms = list(self.rooms.values())
        await asyncio.gather(*(room.stop() for room in rooms), return_exceptions=True)
        sessions = list(self.sessions)
        for session in sessions:
            session.close("shutdown")
        for session in sessions:
            try:
                await asyncio.wait_for(session.done.wait(), 5)
            except TimeoutError:
                log.warning("%r did not close in time", session)
        for player in list(self.players.values()):
            room = player.room
            if isinstance(room, Room) and room.suspended:
                continue  # the seat lives on in the table's log: the next start gives it back
            player.room = None
            player.seat = None
            await self.release(player)
