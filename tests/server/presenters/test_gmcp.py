"""``Donne.Lobby`` follows the room list: sent again when rooms open or close, at most once a
second (the changes of a second together), only to a reader in the lobby."""

from __future__ import annotations

from typing import Any

from server.messages.terminal import TermStyle
from server.presenters.gmcp import LOBBY_EVERY, GmcpFeed


class Link:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.on_message: Any = None

    @property
    def active(self) -> bool:
        return True

    def wants(self, package: str) -> bool:
        return True

    def send(self, package: str, data: Any) -> bool:
        self.sent.append((package, data))
        return True

    def send_json(self, package: str, text: str) -> bool:
        self.sent.append((package, text))
        return True


class Viewer:
    lang = "fr"
    name = "zoé"
    guest = True
    logged_in = True
    welcomed = False
    style = TermStyle(80, True, False)

    def send_raw(self, text: str) -> None:
        pass

    def where(self) -> tuple[Any, str]:
        return None, "lobby"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[tuple[float, Any]] = []

    def later(self, delay: float, fn: Any) -> object:
        self.timers.append((self.now + delay, fn))
        return fn

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, fn in due:
            fn()


def feed(rooms: list[dict[str, Any]], place: list[Any]) -> tuple[GmcpFeed, Link, Clock]:
    link, clock = Link(), Clock()
    return GmcpFeed(Viewer(), link, lambda: (place[0], None), lambda: list(rooms),
                    clock=lambda: clock.now, later=clock.later), link, clock


def lobbies(link: Link) -> list[list[str]]:
    return [[r["room"] for r in data["rooms"]] for package, data in link.sent if package == "Donne.Lobby"]


def test_the_room_list_is_sent_again_at_most_once_a_second():
    rooms: list[dict[str, Any]] = [{"room": "r1"}]
    g, link, clock = feed(rooms, [None])
    g.lobby()  # at login
    assert lobbies(link) == [["r1"]]
    rooms.append({"room": "r2"})
    g.rooms_changed()  # within the second: put off
    rooms.append({"room": "r3"})
    g.rooms_changed()
    assert lobbies(link) == [["r1"]]
    clock.advance(LOBBY_EVERY)
    assert lobbies(link) == [["r1"], ["r1", "r2", "r3"]]  # the second's changes together
    clock.advance(5)
    del rooms[0]
    g.rooms_changed()  # a quiet second before: at once
    assert lobbies(link) == [["r1"], ["r1", "r2", "r3"], ["r2", "r3"]]
    assert not clock.timers


def test_a_reader_at_a_table_is_not_sent_the_room_list():
    place: list[Any] = ["r1"]
    g, link, clock = feed([{"room": "r1"}], place)
    g.rooms_changed()
    clock.advance(2)
    assert lobbies(link) == []
    place[0] = None  # left for the lobby before a put-off list went: it goes
    g.rooms_changed()
    assert lobbies(link) == [["r1"]]
    g.rooms_changed()
    place[0] = "r1"  # sat down meanwhile: the put-off list is dropped
    clock.advance(2)
    assert lobbies(link) == [["r1"]]
