"""Small fakes for the lobby's parts: sessions that record what they are sent, rooms with a summary."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server.people.players import Player
from server.protocol import Shared


class FakeSession:
    """A session in the lobby: what it was sent, one string per write."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang
        self.closed = asyncio.Event()
        self.writes: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.notices: list[str] = []
        self.gmcp = None
        self.player: Player | None = None

    def render_key(self) -> tuple[str]:
        return (self.lang,)

    def shared_line(self, shared: Shared, you: int | None = None) -> str:
        return json.dumps(shared.event) + "\n"

    def send_raw(self, text: str) -> None:
        self.writes.append(text)

    def push_event(self, event: dict[str, Any], names: Any = None, you: Any = None) -> None:
        self.events.append(dict(event))

    def notice(self, what: str, **params: Any) -> None:
        self.notices.append(what)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for text in self.writes for line in text.splitlines()]


def online(name: str, **kw: Any) -> Player:
    player = Player(name=name, guest=kw.pop("guest", False), **kw)
    session = FakeSession()
    player.session = session  # type: ignore[assignment]
    session.player = player
    return player


class FakeRoom:
    def __init__(self, rid: str, players: list[str], seats: int = 4, closed: bool = False) -> None:
        self.id = rid
        self.players = players
        self.seats = seats
        self.closed = closed

    def summary(self) -> dict[str, Any]:
        return {"room": self.id, "players": list(self.players), "seats": self.seats, "status": "waiting"}

    def has_free_seat(self, summary: dict[str, Any]) -> bool:
        return len(summary["players"]) < summary["seats"]
