"""The lobby's news: coalesced, worded once per kind of reader, only for those in the lobby."""

from __future__ import annotations

import asyncio
from typing import Any

from server.lobby import news as news_mod
from server.lobby.moderation import NoSilences
from server.lobby.news import News
from server.lobby.seeks import Seeks
from server.people.players import Player
from tests.server.lobby.fakes import FakeSession, online


class FakeLobby:
    def __init__(self, *people: Player) -> None:
        self.players = {p.key: p for p in people}
        self.rooms: dict[str, Any] = {}
        self.seeks = Seeks()
        self.moderation = self.conduct = NoSilences()

    def lobby_sessions(self) -> list[Any]:
        return [p.session for p in self.players.values() if p.session is not None and p.room is None]


async def turns(n: int = 3) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def session(p: Player) -> FakeSession:
    assert isinstance(p.session, FakeSession)
    return p.session


async def test_news_of_one_turn_go_out_in_one_write_per_session():
    ana, bob = online("Ana"), online("Bob")
    news = News(FakeLobby(ana, bob))
    news.queue({"event": "room_created", "room": "r1"})
    news.queue({"event": "room_closed", "room": "r1"})
    assert session(ana).writes == []  # not yet: coalesced
    await turns()
    for p in (ana, bob):
        assert len(session(p).writes) == 1
        assert [e["event"] for e in session(p).lines()] == ["room_created", "room_closed"]


async def test_news_after_a_flush_wait_for_the_interval(monkeypatch):
    ana = online("Ana")
    news = News(FakeLobby(ana))
    news.queue({"event": "room_created", "room": "r1"})
    news.flush()
    assert len(session(ana).writes) == 1
    news.queue({"event": "room_created", "room": "r2"})
    await turns()
    assert len(session(ana).writes) == 1  # within NEWS_INTERVAL of the last: waits
    news.flush()
    assert len(session(ana).writes) == 2


async def test_chat_goes_out_at_once_after_the_news_waiting():
    ana = online("Ana")
    news = News(FakeLobby(ana))
    news.queue({"event": "room_created", "room": "r1"})
    news.now({"event": "chat", "message": "hi"})
    assert [e["event"] for e in session(ana).lines()] == ["room_created", "chat"]


async def test_a_player_at_a_table_hears_no_news(monkeypatch):
    ana, bob = online("Ana"), online("Bob")
    bob.room = object()  # type: ignore[assignment]
    news = News(FakeLobby(ana, bob))
    news.queue({"event": "room_created", "room": "r1"})
    news.flush()
    assert session(ana).writes and session(bob).writes == []


async def test_news_are_handed_out_a_slice_of_sessions_per_turn(monkeypatch):
    monkeypatch.setattr(news_mod, "NEWS_SLICE", 2)
    people = [online(f"p{i}") for i in range(5)]
    news = News(FakeLobby(*people))
    news.queue({"event": "room_created", "room": "r1"})
    news.flush()
    assert sum(1 for p in people if session(p).writes) == 2
    await turns(3)
    assert all(session(p).writes for p in people)
