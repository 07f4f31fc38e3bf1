"""Pushes built once for many readers say exactly what building them per reader said.

The room encodes each form of an event once and splices each reader's words in
(:class:`server.session.SharedEvent`); Président states share their public
part (:class:`server.room._StateBatch`); the lobby words its news once per
language. These tests check, on real matches, every shared push against the
per-reader way of building it.
"""

import asyncio
import json
from typing import Any

import server.room as room_mod
import server.session as session_mod
from server.jsonmode import encode
from tests.server.conftest import connect, play_simply


def _same_state(fast: dict[str, Any], slow: dict[str, Any]) -> None:
    """Equal, keys in the same order (deadlines included: both were read at the same moment)."""
    assert list(fast) == list(slow)
    for key in fast:
        assert fast[key] == slow[key], key


class _StoppedClock:
    """``time`` as ``server.room`` reads it, stopped at one moment."""

    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


def _checking(monkeypatch: Any) -> dict[str, int]:
    counts = {"states": 0, "events": 0}
    batch_state = room_mod._StateBatch.state

    def state(self: Any, seat: Any) -> Any:
        # Both ways read the clock at the batch's moment: the deadlines must then be equal, however
        # long building the states takes (a tolerance on two clock reads failed on a loaded machine).
        # Nothing awaits in between, so no other coroutine sees the stopped clock.
        clock = room_mod.time
        room_mod.time = _StoppedClock(self.now)
        try:
            got, line = batch_state(self, seat)
            slow = self.room.state_for(seat)
        finally:
            room_mod.time = clock
        _same_state(got, slow)
        if line is not None:
            assert line == encode({"type": "state", **got})
            assert list(json.loads(line)) == ["type", *got]
            counts["states"] += 1
        return got, line

    line_for = session_mod.SharedEvent.line_for

    def shared_line(self: Any, session: Any, you: Any = None) -> str:
        line = line_for(self, session, you)
        assert line == session.event_line(self.event, self.names, you)
        counts["events"] += 1
        return line

    monkeypatch.setattr(room_mod._StateBatch, "state", state)
    monkeypatch.setattr(session_mod.SharedEvent, "line_for", shared_line)
    return counts


async def test_shared_states_and_events_match_per_reader_ones_classic(server, monkeypatch):
    counts = _checking(monkeypatch)
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    carol = await connect(server, "carol")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=4, bots=2,
                                    bot_level="easy"))["room"]
        await bob.request("join", room=room)
        await carol.request("watch", room=room)
        await asyncio.wait_for(asyncio.gather(play_simply(alice, timeout=30), play_simply(bob, timeout=30)), 90)
        await carol.request("state")
    finally:
        for c in (alice, bob, carol):
            await c.close()
    assert counts["states"] > 100 and counts["events"] > 100


async def test_shared_states_match_per_reader_ones_tdc(server, monkeypatch):
    """tdc: ``give`` and ``stake`` in the state; the clock plays for a player who does nothing."""
    counts = _checking(monkeypatch)
    alice = await connect(server, "alice")
    try:
        await alice.request("create", game="president", rules="tdc", seats=4, bots=3, bot_level="easy",
                            turn_seconds=1)
        await alice.next_event("round_over", timeout=60)
        await alice.next_event("round_over", timeout=60)  # the second round has the exchange (T12)
    finally:
        await alice.close()
    assert counts["states"] > 20


async def test_lobby_news_once_per_language_and_only_to_the_lobby(server):
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    zoe = await connect(server, "zoe")
    seen: dict[str, list[Any]] = {"alice": [], "bob": [], "zoe": []}
    alice.on_push, bob.on_push, zoe.on_push = seen["alice"].append, seen["bob"].append, seen["zoe"].append
    try:
        await zoe.request("lang", lang="fr")
        rooms = []
        for _ in range(3):
            rooms.append((await alice.request("create", game="president", rules="classic", seats=4))["room"])
            if len(rooms) == 3:
                last = rooms[-1]
                closed = [asyncio.ensure_future(c.next_event("room_closed", timeout=10,
                                                             predicate=lambda e, last=last: e.get("room") == last))
                          for c in (bob, zoe, alice)]
            await alice.request("leave")
        await asyncio.gather(*closed)
        got = [e for e in seen["bob"] if e.get("event") == "room_created"]
        assert [e["room"] for e in got] == rooms and all(e["name"] == "alice" for e in got)
        fr = [e for e in seen["zoe"] if e.get("event") == "room_created"]
        assert [e["room"] for e in fr] == rooms
        assert fr[0]["text"] != got[0]["text"]  # each in its reader's language
        assert [e["room"] for e in seen["bob"] if e.get("event") == "room_closed"] == rooms
        # the creator was in each room when it was created: never told of its own rooms, but of
        # their closing (it was back in the lobby by then)
        assert not [e for e in seen["alice"] if e.get("event") == "room_created"]
        assert [e["room"] for e in seen["alice"] if e.get("event") == "room_closed"] == rooms
    finally:
        for c in (alice, bob, zoe):
            await c.close()
