"""Scripted entrants of a tournament over the JSON wire: each plays every table it is seated at
(Président: the weakest single when leading, else pass) until the event ends."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from clients.client import Client
from tests.kits.servers import leading

PASSWORD = "secret-pw-1"


async def account(running: Any, name: str, *, login: bool = False) -> Client:
    """A JSON client of the registered account ``name``: registered now, or logging in again (``login``)."""
    client = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10)
    if login:
        await client.login(name, PASSWORD)
    else:
        await client.register(name, PASSWORD)
    return client


@dataclass
class Entrant:
    """One scripted entrant: its client, the events it heard, the rooms it sat at."""

    client: Client
    name: str
    events: list[dict[str, Any]] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    inbox: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    states: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last state of each room heard (the tables of a cluster's nodes may speak out of order)."""

    def __post_init__(self) -> None:
        def heard(msg: dict[str, Any]) -> None:
            if msg.get("type") == "state" and isinstance(msg.get("room"), str):
                self.states[msg["room"]] = msg
            if str(msg.get("event", "")).startswith("tournament_"):
                self.events.append(msg)
                self.inbox.put_nowait(msg)

        while (early := self.client.next_push_nowait()) is not None:  # come before this entrant listened
            heard(early)
        self.client.on_push = heard

    async def play(self, tid: str, *, timeout: float = 60.0) -> dict[str, Any]:
        """Play every table of event ``tid`` until it ends; its ``tournament_ended`` event."""
        while True:
            ev = await asyncio.wait_for(self.inbox.get(), timeout)
            if ev.get("tournament") != tid:
                continue
            if ev["event"] == "tournament_ended":
                return ev
            if ev["event"] == "tournament_seated":
                self.rooms.append(ev["room"])
                await play_table(self.client, ev["room"], seen=self.states)


async def play_table(client: Client, room: str, *, timeout: float = 30.0,
                     seen: dict[str, dict[str, Any]] | None = None) -> None:
    """Play President at ``room`` until its match is over (or the person is no longer there);
    ``seen``: the last state of each room heard so far."""
    acted: dict[str, Any] | None = None
    latest: list[dict[str, Any]] = []  # the last state of this room (others may come after it: the next table's)
    if seen is not None and room in seen:
        latest.append(seen[room])
    elif client.state is not None and client.state.get("room") == room:
        latest.append(client.state)
    chained = client.on_push

    def heard(msg: dict[str, Any]) -> None:
        if msg.get("type") == "state" and msg.get("room") == room:
            latest[:] = [msg]
        if chained is not None:
            chained(msg)

    client.on_push = heard

    def ready(s: dict[str, Any]) -> bool:
        if s is acted or s.get("room") != room:
            return False
        if s.get("status") == "over":
            return True
        return s.get("phase") == "play" and s.get("turn") is not None and s.get("turn") == s.get("you")

    try:
        while True:
            state = latest[0] if latest and ready(latest[0]) else await client.next_state(ready, timeout=timeout)
            if state.get("status") == "over":
                return
            acted = state
            if leading(state):
                reply = await client.request_raw("play", cards=[state["hand"][0]])
            else:
                reply = await client.request_raw("pass")
            if reply["type"] == "error" and reply.get("code") in ("not_in_room", "no_such_room"):
                return
            # a state can go stale before the move reaches the table (a trick closed; the match ended)
            assert reply["type"] == "ok" or reply.get("code") in ("not_your_turn", "illegal_play", "not_allowed"), reply
    finally:
        client.on_push = chained


def seated_once(entries: list[dict[str, Any]]) -> int:
    """Check a journal (``Entry.to_dict()`` lines): nobody at two tables at once. The tables opened."""
    at: dict[str, str] = {}
    seats: dict[str, list[str]] = {}
    opened = 0
    for e in entries:
        if e["k"] == "open":
            opened += 1
            seats[e["table"]] = [n for n in e["seats"] if n is not None]
            for name in seats[e["table"]]:
                assert name not in at, f"{name} seated at {e['table']} while at {at[name]}"
                at[name] = e["table"]
        elif e["k"] in ("scored", "aborted"):
            for name in seats.pop(e["table"], []):
                if at.get(name) == e["table"]:
                    del at[name]
        elif e["k"] == "absent":
            for name in e["names"]:
                if at.get(name) == e["table"]:
                    del at[name]
    return opened
