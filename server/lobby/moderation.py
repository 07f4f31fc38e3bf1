"""The operators' side of the lobby (:mod:`server.lobby.lobby`): who may speak to whom, the door, the
message of the day, and reaching people (kick, ban, announce).

The lobby's moderation hook, :attr:`Lobby.moderation` (the social commands ask it, synchronously,
before a tell, an offline message, a challenge or a seek reaches anyone), is a :class:`Conduct`:
it answers from memory. The mutes in force and every account's ignore list are read from the store
once (at the first login) and kept up to date by the commands that change them (``mute``,
``unmute``, ``ignore``, ``unignore``, ``rename``), at every login (that account's list and mute read
again) and at every chat line (the speaker's mute read from the store, so a mute written by another
process on the same database counts in chat at once, and for tells from then on). A guest's list
lives in memory only, and is forgotten when the guest leaves. Ignoring a guest also ignores its
:class:`Origin` (address, SSH key), so logging in again under another guest name does not escape it;
origins are kept in memory (a restart forgets them, with the guests). A guest who just left is
remembered by origin for :data:`DEPARTED_SECONDS`, so ignoring the name of someone who has just
gone (after their last tell) holds against them too when they come back under another name.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from server.messages.moderation import when
from server.operations.limits import TokenBucket, address_key, clean_text
from server.people.players import Player, PlayerSession
from server.protocol import CommandError, Push, Shared
from server.storage.api import Refusal
from server.storage.moderation import in_network
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.config import Config
    from server.lobby.api import Connection
    from server.storage.api import Store

log = logging.getLogger(__name__)

IGNORES = "ignores"
"""``Player.extra`` key: the name keys (and names) whose chat and tells the player does not see (the
same dictionary as the one :class:`Conduct` answers ``ignores`` from)."""

MARKS = "ignore_marks"
"""``Player.extra`` key: for each guest on the player's ignore list (name key), who was behind that
name (:class:`Origin`); the same dictionary as :class:`Conduct`'s."""

ORIGIN = "origin"
"""``Player.extra`` key: a guest's :class:`Origin`, noted when it logs in."""

CHAT = "chat_bucket"
"""``Player.extra`` key: the player's chat budget (``chat_per_minute``, ``chat_burst``)."""


DEPARTED_SECONDS = 3600.0
"""How long the origin of a guest who left is remembered for ``ignore`` (at most :data:`DEPARTED_MAX`)."""
DEPARTED_MAX = 4096


@dataclass(frozen=True, slots=True)
class Origin:
    """Who is behind a guest name: its address (:func:`server.operations.limits.address_key`) and the SSH key it
    proved, if any. Guest names are free: ignoring a guest holds against whoever comes from the same
    address or with the same key, under any guest name, for as long as the ignore stands."""

    address: str
    key: str | None = None

    def same(self, other: Origin) -> bool:
        return self.address == other.address or (self.key is not None and self.key == other.key)


def origin_of(player: Player) -> Origin | None:
    """A guest's origin (noted at login, else read from its connection); None for an account."""
    if not player.guest:
        return None
    origin = player.extra.get(ORIGIN)
    if isinstance(origin, Origin):
        return origin
    conn = getattr(player.session, "conn", None)
    if conn is None:
        return None
    key = getattr(conn, "key", None)
    origin = player.extra[ORIGIN] = Origin(address_key(str(getattr(conn, "peer", "") or "?")),
                                           key if isinstance(key, str) and key else None)
    return origin


def ignored_origin(names: Mapping[str, str], marks: Mapping[str, Origin], speaker: Player | None) -> bool:
    """Whether ``speaker`` is a guest from the origin of a guest on the list ``names`` (``marks``: the
    origins of the listed guests; a mark whose name left the list counts no more)."""
    if speaker is None or not marks:
        return False
    origin = origin_of(speaker)
    return origin is not None and any(key in names and mark.same(origin) for key, mark in marks.items())


class Silences(Protocol):
    """Who may speak to whom: the operators' mutes and ``ignore`` lists plug in here
    (:attr:`Lobby.moderation`). Tells and offline messages ask it before anything is sent."""

    def muted(self, name: str) -> bool:
        """``name`` may not talk to anyone now."""
        ...

    def ignores(self, who: str, whom: str) -> bool:
        """``who`` does not want to hear from ``whom``."""
        ...


class NoSilences:
    """Nobody is muted, nobody ignores anyone."""

    def muted(self, name: str) -> bool:
        return False

    def ignores(self, who: str, whom: str) -> bool:
        return False


class ConductHost(Protocol):
    """What :class:`Conduct` needs of the lobby (:class:`server.lobby.lobby.Lobby`)."""

    @property
    def store(self) -> Store: ...
    @property
    def config(self) -> Config: ...
    @property
    def sessions(self) -> Collection[Connection]:
        """Every open connection, logged in or not."""
        ...
    players: dict[str, Player]

    def flush_news(self) -> None: ...


class Conduct:
    """The operators' mutes and everyone's ignore lists, in memory (a :class:`Silences`), and the
    lobby's staff side: the door, the message of the day, chat checks, disconnecting, announcing."""

    def __init__(self, lobby: ConductHost, clock: Callable[[], float] = time.time) -> None:
        self.lobby = lobby
        self.clock = clock  # the wall clock mutes end by (seconds since the epoch)
        self._mutes: dict[str, float] = {}  # name key -> until
        self._lists: dict[str, dict[str, str]] = {}  # name key -> {ignored name key: name}
        self._guests: set[str] = set()  # keys whose list is in memory only
        self._marks: dict[str, dict[str, Origin]] = {}  # name key -> {ignored guest's key: its origin}
        self._departed: collections.OrderedDict[str, tuple[Origin, float]] = collections.OrderedDict()
        """Guests who left lately: name key -> (origin, when it left), oldest first."""
        self._loaded = False
        self._loading = asyncio.Lock()

    # -- the moderation hook ------------------------------------------------------------

    def muted(self, name: str) -> bool:
        key = name_key(name)
        until = self._mutes.get(key)
        if until is None:
            return False
        if until <= self.clock():
            self._mutes.pop(key, None)
            return False
        return True

    def ignores(self, who: str, whom: str) -> bool:
        """By name, and for a guest ``whom`` by origin: the address or SSH key of a guest on the list."""
        key = name_key(who)
        names = self._lists.get(key)
        if not names:
            return False
        other = name_key(whom)
        if other in names:
            return True
        marks = self._marks.get(key)
        return marks is not None and ignored_origin(names, marks, self.lobby.players.get(other))

    # -- keeping it up to date ------------------------------------------------------------

    async def ready(self) -> None:
        """Read the mutes in force and every account's ignore list, once (again after :meth:`reload`)."""
        if self._loaded:
            return
        async with self._loading:
            if self._loaded:
                return
            mod = self.lobby.store.moderation
            try:
                mutes = await mod.mutes()
                lists = await mod.ignore_lists()
            except Exception:
                log.exception("could not read the mutes and ignore lists")
                return  # tried again at the next login
            self._mutes = {name_key(m.name): m.until for m in mutes}
            for key in [k for k in self._lists if k not in self._guests]:
                self._set(key, [])
            for name, names in lists.items():
                self._set(name_key(name), names)
            self._loaded = True

    async def reload(self) -> None:
        """Read everything again (an account was renamed: its list and the lists naming it moved)."""
        self._loaded = False
        await self.ready()

    def _set(self, key: str, names: list[str]) -> dict[str, str]:
        """The list of ``key``, changed in place (a player's ``extra`` holds the same dictionary)."""
        current = self._lists.setdefault(key, {})
        current.clear()
        current.update({name_key(n): n for n in names})
        return current

    def list_of(self, player: Player) -> dict[str, str]:
        """``player``'s ignore list ({name key: name}), the one the hook and their session read."""
        names = player.extra.get(IGNORES)
        if not isinstance(names, dict) or self._lists.get(player.key) is not names:
            names = self._lists.setdefault(player.key, names if isinstance(names, dict) else {})
            player.extra[IGNORES] = names
        if player.guest:
            self._guests.add(player.key)
        return names

    def marks_of(self, player: Player) -> dict[str, Origin]:
        """The origins of the guests on ``player``'s list (the dictionary its session reads too)."""
        marks = self._marks.setdefault(player.key, {})
        player.extra[MARKS] = marks
        return marks

    def mark(self, player: Player, other: Player) -> None:
        """``player`` ignores ``other``: a guest, its origin is ignored with its name."""
        origin = origin_of(other)
        if origin is not None:
            self.marks_of(player)[other.key] = origin

    def mark_departed(self, player: Player, key: str) -> None:
        """``player`` ignores the name ``key`` of nobody here now: a guest who left lately, its origin
        is ignored with its name."""
        left = self._departed.get(key)
        if left is not None and time.monotonic() - left[1] < DEPARTED_SECONDS:
            self.marks_of(player)[key] = left[0]

    def unmark(self, player: Player, key: str) -> None:
        self.marks_of(player).pop(key, None)

    def noted_ignores(self, key: str, names: Mapping[str, str], *, guest: bool) -> None:
        """The ignore list of the person ``key`` as another node of a cluster has it now."""
        self._set(key, list(names.values()))
        if guest:
            self._guests.add(key)

    def noted_mute(self, name: str, until: float | None) -> None:
        """A mute set (``until``) or lifted (None)."""
        if until is None:
            self._mutes.pop(name_key(name), None)
        else:
            self._mutes[name_key(name)] = until

    async def entered(self, player: Player) -> None:
        """``player`` logged in: their ignore list and mute read from the store (a guest: kept)."""
        await self.ready()
        names = self.list_of(player)
        if player.key in self._marks:
            self.marks_of(player)
        if player.guest:
            origin_of(player)  # noted now: it holds while the guest is away from its connection
            return
        mod = self.lobby.store.moderation
        try:
            stored = await mod.ignores(player.name)
            names.clear()  # at once: the messages kept for them are handed out next (Lobby._welcome)
            names.update({name_key(n): n for n in stored})
            mute = await mod.muted(player.name)
        except Exception:
            log.exception("could not read %s's ignore list and mute", player.name)
            return
        self.noted_mute(player.name, None if mute is None else mute.until)

    def forget(self, player: Player) -> None:
        """A guest left: their list and mute go with them; their origin is kept a while (``ignore``)."""
        if player.guest:
            origin = player.extra.get(ORIGIN)
            if isinstance(origin, Origin):
                self._departed.pop(player.key, None)
                self._departed[player.key] = (origin, time.monotonic())
                while len(self._departed) > DEPARTED_MAX:
                    self._departed.popitem(last=False)
            self._lists.pop(player.key, None)
            self._marks.pop(player.key, None)
            self._guests.discard(player.key)
            self._mutes.pop(player.key, None)

    # -- the door, the message of the day, chat -------------------------------------------

    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None:
        """Whether this address, SSH key or account is refused (banned, locked): read from the store
        at every connection, so a ban made by ``donne admin`` beside the server holds at once. A
        store that cannot answer refuses nobody (the login that follows reads it again)."""
        try:
            refusal: Refusal | None = await self.lobby.store.moderation.door(name=name, address=address, key=key)
        except Exception:
            log.exception("could not check the bans")
            return None
        return refusal

    async def motd(self) -> str:
        """The message of the day: an admin's (``motd set``), else the configuration's (``motd``)."""
        try:
            stored = await self.lobby.store.moderation.motd()
        except Exception:
            log.exception("could not read the message of the day")
            stored = None
        text = stored if stored is not None else self.lobby.config.motd
        return "\n".join(clean_text(line, 500) for line in text.splitlines()).strip()

    async def greet(self, session: PlayerSession) -> None:
        """The message of the day, after logging in (nothing when there is none)."""
        text = await self.motd()
        if text and not session.closed.is_set():
            session.push_event({"event": "motd", "message": text})

    async def check_chat(self, player: Player) -> None:
        """Refuse a muted player's chat (``muted``, until when) and chat faster than ``chat_per_minute``
        (``rate_limited``, reason ``chat``). Called before any chat line reaches anyone."""
        await self.check_muted(player)
        cfg = self.lobby.config
        if cfg.chat_per_minute > 0:
            bucket = player.extra.get(CHAT)
            if not isinstance(bucket, TokenBucket):
                bucket = player.extra[CHAT] = TokenBucket(cfg.chat_per_minute / 60.0, cfg.chat_burst)
            if not bucket.take(time.monotonic()):
                raise CommandError("rate_limited", reason="chat")

    async def check_muted(self, player: Player) -> None:
        """Refuse (``muted``, until when, why) anything a muted player would have others read: chat,
        and the texts shown to others (a ``bio``, a ``seed`` or ``entropy`` text in fairness records).
        The mute is read from the store (one set by another process counts at once)."""
        try:
            mute = await self.lobby.store.moderation.muted(player.name)
        except Exception:
            log.exception("could not check %s's mutes", player.name)
            mute = None
            if self.muted(player.name):
                raise CommandError("muted") from None
        self.noted_mute(player.name, None if mute is None else mute.until)
        if mute is not None:
            raise CommandError("muted", until=when(mute.until), why=mute.reason)

    async def is_muted(self, name: str) -> bool:
        """Whether ``name`` is muted now (read from the store; from memory when it cannot answer)."""
        try:
            mute = await self.lobby.store.moderation.muted(name)
        except Exception:
            log.exception("could not check %s's mutes", name)
            return self.muted(name)
        self.noted_mute(name, None if mute is None else mute.until)
        return mute is not None

    # -- reaching people --------------------------------------------------------------------

    def disconnect(self, session: PlayerSession, event: Push, reason: str) -> None:
        """Tell a session why (``event``), then close it (its seat, if any, waits as after a lost
        connection)."""
        if session.closed.is_set():
            return
        session.push_event(event)
        session.close(reason)

    def sessions_from(self, network: str) -> list[PlayerSession]:
        """Every open connection (logged in or not) from an address inside ``network``."""
        return [s for s in list(self.lobby.sessions)
                if not s.closed.is_set() and in_network(str(getattr(s.conn, "peer", "")), network)]

    def sessions_with_key(self, key: str) -> list[PlayerSession]:
        """Every open SSH connection that proved itself with that public key ("type base64")."""
        return [s for s in list(self.lobby.sessions)
                if not s.closed.is_set() and getattr(s.conn, "key", None) == key]

    def announce_all(self, event: Push) -> int:
        """An event to every logged-in session, at the tables and in the lobby, worded once per kind
        of reader; how many received it."""
        lobby = self.lobby
        lobby.flush_news()
        shared = Shared(event)
        sent = 0
        for player in list(lobby.players.values()):
            session = player.session
            if session is not None and not session.closed.is_set():
                session.send_raw(session.shared_line(shared))
                sent += 1
        return sent


__all__ = ["CHAT", "IGNORES", "MARKS", "Conduct", "NoSilences", "Origin", "Silences", "ignored_origin", "origin_of"]
