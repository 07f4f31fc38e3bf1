"""Pushes built once for many readers say exactly what building them per reader said.

A table's event goes out as one :class:`server.protocol.Shared` message whose
words and encoding each session makes once per kind of reader
(:meth:`server.sessions.session.Session.shared_line`); Président states share their public
part (:class:`server.table.states.StateSet`); the lobby words its news once per
language. These tests check, on real matches, every shared push against the
per-reader way of building it.
"""

import asyncio
import json
from typing import Any

import server.sessions.session as session_mod
from server.protocol import encode
from server.table import states as states_mod
from tests.kits.servers import connect, play_simply


def _same_state(fast: dict[str, Any], slow: dict[str, Any]) -> None:
    """Equal, keys in the same order (deadlines included: both are built for the same moment)."""
    assert list(fast) == list(slow)
    for key in fast:
        assert fast[key] == slow[key], key


def _checking(monkeypatch: Any) -> dict[str, int]:
    counts = {"states": 0, "events": 0}
    build = states_mod.StateSet._build

    def checked_build(self: Any, seat: Any) -> Any:
        got, line = build(self, seat)
        _same_state(got, states_mod.build_state(self.table, seat, self.now))
        if line is not None:
            assert line == encode({"type": "state", **got})
            assert list(json.loads(line)) == ["type", *got]
            counts["states"] += 1
        return got, line

    shared_line = session_mod.Session.shared_line

    def checked_line(self: Any, shared: Any, you: Any = None) -> str:
        line = shared_line(self, shared, you)
        assert line == self.event_line(shared.event, list(shared.names) if shared.names else None, you)
        counts["events"] += 1
        return line

    monkeypatch.setattr(states_mod.StateSet, "_build", checked_build)
    monkeypatch.setattr(session_mod.Session, "shared_line", checked_line)
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


async def test_many_news_in_one_flush_are_counted_in_one_digest(server, monkeypatch):
    """Beyond ``NEWS_DIGEST`` news in one flush a reader gets one ``rooms_changed`` that counts them."""
    import server.lobby.newsdigest as digest_mod

    monkeypatch.setattr(digest_mod, "NEWS_DIGEST", 2)
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    seen: list[Any] = []
    bob.on_push = seen.append
    try:
        digest = asyncio.ensure_future(bob.next_event("rooms_changed", timeout=10))
        await asyncio.sleep(0)
        for _ in range(3):  # the first news goes out at once; the other five wait for the next flush
            await alice.request("create", game="president", rules="classic", seats=4)
            await alice.request("leave")
        got = await digest
        assert (got["opened"], got["closed"], got["open"]) == (2, 3, 0)
        assert "2 opened, 3 closed" in got["text"]
        news = [e["event"] for e in seen if e.get("event") in ("room_created", "room_closed", "rooms_changed")]
        assert news == ["room_created", "rooms_changed"]
    finally:
        for c in (alice, bob):
            await c.close()
