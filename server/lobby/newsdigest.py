"""The lobby's room-list news for one reader: each news, or beyond :data:`NEWS_DIGEST` one count.

When thousands reconnect at once and open hundreds of rooms a second, every
``room_created`` and ``room_closed`` to every session in the lobby is
O(sessions × rooms) lines: most of the server's work while seating them
(one flush took half a second at 5,000 players), and more lines a second than
a person can read. A reader given more than :data:`NEWS_DIGEST` news in one
flush (:meth:`server.lobby.lobby.Lobby.flush_news`) gets one ``rooms_changed``
event instead (``opened``, ``closed``, ``open`` now: ``docs/protocol.md``),
worded once per count and kind of reader. New seeks (``seek``, :meth:`server.lobby.lobby.Lobby.seek_news`)
are news of the same kind: counted as ``seeks`` in the digest.
"""

from __future__ import annotations

from server.people.players import PlayerSession
from server.protocol import Shared

NEWS_DIGEST = 8
"""Room-list news (and new seeks) one reader is given one by one in a flush; beyond, one ``rooms_changed``."""


def news_text(session: PlayerSession, news: list[Shared], digests: dict[tuple[int, int, int], Shared], open_now: int) -> str:
    """The lines of ``news`` for ``session``; ``digests``: the ``rooms_changed`` of this flush by count
    (shared by the readers of the same counts, so each is worded once per kind of reader)."""
    if len(news) <= NEWS_DIGEST:
        return "".join([session.shared_line(ev) for ev in news])
    opened = sum(1 for ev in news if ev.event.get("event") == "room_created")
    seeks = sum(1 for ev in news if ev.event.get("event") == "seek")
    closed = len(news) - opened - seeks
    digest = digests.get((opened, closed, seeks))
    if digest is None:
        digest = digests[opened, closed, seeks] = Shared({"event": "rooms_changed", "opened": opened,
                                                          "closed": closed, "open": open_now, "seeks": seeks})
    return session.shared_line(digest)
