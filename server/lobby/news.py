"""The lobby's news: the room list changing, new seeks, chat (:class:`News`, owned by the lobby).

Room-list news (``room_created``, ``room_closed``) and new seeks are coalesced: sent at once when
the lobby has been quiet, otherwise with the other news of the same :data:`NEWS_INTERVAL`, in one
write per session, worded once per kind of reader (:mod:`server.lobby.newsdigest`), handed to the
sessions :data:`NEWS_SLICE` at a time. Chat goes out at once, after any news still waiting.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Hashable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Protocol

from server.lobby.moderation import IGNORES, Silences
from server.lobby.newsdigest import news_text
from server.people.players import Player, PlayerSession, take_news_seq
from server.protocol import Push, Shared
from server.storage.names import name_key

if TYPE_CHECKING:
    from server.lobby.seeks import Seeks
    from server.rooms.room import Room

NEWS_INTERVAL = 1.0
"""Seconds: the lobby's room-list news (``room_created``, ``room_closed``) go out at most this often."""

NEWS_SLICE = 32
"""Sessions handed the news per turn of the event loop: hundreds of rooms closing at once are kilobytes
for every session in the lobby, and the other sessions' replies go out between the slices."""



class NewsHost(Protocol):
    """What the news need of the lobby: who is in it, the rooms' count, the open seeks, who ignores whom."""

    @property
    def players(self) -> Mapping[str, Player]: ...
    @property
    def rooms(self) -> MutableMapping[str, Room]: ...
    @property
    def seeks(self) -> Seeks: ...
    @property
    def moderation(self) -> Silences: ...
    @property
    def conduct(self) -> Silences: ...

    def lobby_sessions(self) -> list[PlayerSession]: ...


class News:
    """The lobby's news waiting, and being handed out."""

    def __init__(self, lobby: NewsHost) -> None:
        self._lobby = lobby
        self._waiting: list[tuple[int, Push]] = []  # room-list events waiting (see queue)
        self._timer: asyncio.TimerHandle | None = None
        self._slices: collections.deque[tuple[PlayerSession, str]] = collections.deque()  # news being handed out
        self._slice_handle: asyncio.Handle | None = None
        self._sent = float("-inf")

    def queue(self, event: Push) -> None:
        self._waiting.append((take_news_seq(), event))
        if self._timer is None:
            loop = asyncio.get_running_loop()
            at = max(loop.time(), self._sent + NEWS_INTERVAL)
            self._timer = loop.call_at(at, self.flush)

    def _apart(self, player: Player, seekers: Mapping[str, str]) -> bool:
        """Whether some of these seekers' seeks are not for ``player`` (``seekers``: name key -> name)."""
        if player.key in seekers:
            return True
        if self._lobby.moderation is self._lobby.conduct and not player.extra.get(IGNORES):
            return False  # nobody ignored (most people): no look-up
        return any(self._lobby.moderation.ignores(player.name, name) for name in seekers.values())

    def _open_seek(self, event: Push) -> bool:
        seek = event["seek"]
        return isinstance(seek, int) and self._lobby.seeks.get(seek) is not None

    def _unwanted(self, player: Player, event: Push) -> bool:
        """A seek ``player`` is not told of: their own, or of someone they ignore."""
        name = event.get("name")
        return event.get("event") == "seek" and isinstance(name, str) and (
            name_key(name) == player.key or self._lobby.moderation.ignores(player.name, name))

    def flush(self) -> None:
        """Send the room-list news waiting (see :meth:`broadcast`): worded once per kind of reader, handed
        to the sessions :data:`NEWS_SLICE` at a time, one turn of the event loop after another."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.finish_slices()  # the previous news first, to everyone
        if not self._waiting:
            return
        news, self._waiting = self._waiting, []
        news = [(seq, ev) for seq, ev in news if ev.get("event") != "seek" or self._open_seek(ev)]
        if not news:
            return  # seeks withdrawn before anyone heard of them
        self._sent = asyncio.get_running_loop().time()
        shared = [(seq, Shared(event)) for seq, event in news]
        first = shared[0][0]
        seekers = {name_key(str(ev.event.get("name"))): str(ev.event.get("name"))
                   for _, ev in shared if ev.event.get("event") == "seek"}
        rooms_moved = any(ev.get("event") in ("room_created", "room_closed") for _, ev in news)
        whole: dict[Hashable, str] = {}  # all the news, worded once per kind of reader (render key)
        digests: dict[tuple[int, int, int], Shared] = {}  # rooms_changed, once per count (server/lobby/newsdigest.py)
        for player in self._lobby.players.values():
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
                    text = whole[key] = news_text(session, [ev for _, ev in shared], digests, len(self._lobby.rooms))
            else:
                text = news_text(session, [ev for seq, ev in shared
                                           if player.heard(seq) and not (apart and self._unwanted(player, ev.event))],
                                 digests, len(self._lobby.rooms))
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

    def finish_slices(self) -> None:
        """Hand out at once the news still being sliced (something else for the lobby must follow it)."""
        if self._slice_handle is not None:
            self._slice_handle.cancel()
            self._slice_handle = None
        slices, self._slices = self._slices, collections.deque()
        for session, text in slices:
            session.send_raw(text)

    def now(self, event: Push) -> None:
        """``event`` (chat) to every session in the lobby at once, after any news still waiting."""
        self.flush()
        self.finish_slices()
        self._send([event])

    def _send(self, events: list[Push]) -> None:
        shared = [Shared(event) for event in events]
        for session in self._lobby.lobby_sessions():
            session.send_raw("".join([session.shared_line(ev) for ev in shared]))
