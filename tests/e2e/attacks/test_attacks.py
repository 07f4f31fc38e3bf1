"""Attacks on the room slots, against a real server: guests from many addresses filling ``max_rooms``,
rooms nobody comes to play at, hundreds of rooms closing at once, a ``rooms`` reply as big as the server.

Every connection is a real JSON client (``clients/client.py``) on the telnet port, from its own
loopback address (``127.0.0.N``) when the attack needs many addresses.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any

from clients.client import Client
from server.messages.errors import error_message
from server.messages.terminal import TermStyle
from server.presenters.text.replies import render_rooms
from server.sessions.session import Session
from tests.kits.servers import start_server

LANGS = ("fr", "es", "en")
GENERIC = {lang: error_message(lang, "not_allowed") for lang in LANGS}  # "you cannot do that now"


async def guest(server: Any, name: str, addr: str = "127.0.0.1", lang: str = "en") -> Client:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=20, local_addr=addr)
    await client.login(name)
    if lang != "en":
        await client.request("lang", lang=lang)
    return client


async def member(server: Any, name: str, addr: str = "127.0.0.1") -> Client:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=20, local_addr=addr)
    await client.register(name, "a long password")
    return client


def nick(prefix: str, i: int) -> str:
    """Names that do not look alike (``l8`` and ``l6`` do: server/storage/names.py)."""
    letters = "acdefhjknpqrtxyz"
    word = ""
    while True:
        i, d = divmod(i, len(letters))
        word += letters[d]
        if i == 0:
            return prefix + word


def waiting_room(**extra: Any) -> dict[str, Any]:
    return {"game": "president", "rules": "classic", "seats": 8, **extra}


def assert_refused(reply: dict[str, Any], lang: str, reason: str, limit: int) -> None:
    assert reply["type"] == "error" and reply["code"] == "not_allowed", reply
    assert reply["message"] == error_message(lang, "not_allowed", reason=reason, max=limit)
    assert reply["message"] != GENERIC[lang]  # the real reason, in the reader's language


def counted(server: Any) -> tuple[int, int]:
    lobby = server.lobby
    return len(lobby.rooms), len(lobby.slots)


async def test_a_guest_flood_from_many_addresses_cannot_lock_accounts_out(tmp_path: Any) -> None:
    """15 guests on 5 addresses open rooms at once: each address gets 2, guests 6 of the 10 rooms in all,
    every refusal says why in its reader's language; registered players still open rooms until the server
    is full; rooms closing give their slots back."""
    server = await start_server(tmp_path, max_rooms=10, rooms_per_address=2, rooms_per_account=1,
                                guest_room_share=0.6)
    attackers = [(await guest(server, nick("att", i), f"127.0.0.{10 + i // 3}", LANGS[i % 3]), LANGS[i % 3],
                  f"127.0.0.{10 + i // 3}") for i in range(15)]
    people: list[Client] = []
    try:
        replies = await asyncio.gather(*(c.request_raw("create", **waiting_room()) for c, _, _ in attackers))
        made = collections.Counter(addr for (_, _, addr), r in zip(attackers, replies, strict=True)
                                   if r["type"] == "ok")
        assert sum(made.values()) == 6 and max(made.values()) == 2  # checked and taken in one step
        for (client, lang, addr), reply in zip(attackers, replies, strict=True):
            if reply["type"] == "ok":
                continue
            if made[addr] == 2:
                assert reply["message"] in (error_message(lang, "not_allowed", reason="rooms_per_address", max=2),
                                            error_message(lang, "not_allowed", reason="guest_rooms", max=6))
            else:
                assert_refused(reply, lang, "guest_rooms", 6)
            assert reply["message"] != GENERIC[lang]
            assert (await client.request("whoami"))["room"] is None  # a refusal changes nothing
        assert counted(server) == (6, 6) and server.lobby.slots.guests == 6
        # an address whose guests are at their limit: a registered player from it still opens a room
        full_addr = next(addr for addr, n in made.items() if n == 2)
        alice = await member(server, "alice", full_addr)
        people.append(alice)
        room = (await alice.request("create", **waiting_room()))["room"]
        # one account: one room open at a time (rooms_per_account = 1), even once it has left it
        bob = await member(server, "bob")
        people.append(bob)
        await bob.request("join", room=room)
        await alice.request("leave")
        assert_refused(await alice.request_raw("create", **waiting_room()), "en", "rooms_per_account", 1)
        # registered players fill the rest of the server; then it is full, and says so
        others = [await member(server, nick("acc", i)) for i in range(3)]
        people += others
        assert [(await c.request_raw("create", **waiting_room()))["type"] for c in others[:2]] == ["ok", "ok"]
        assert counted(server) == (9, 9)
        carl = await member(server, "carl")
        people.append(carl)
        assert (await carl.request_raw("create", **waiting_room()))["type"] == "ok"
        assert_refused(await others[2].request_raw("create", **waiting_room()), "en", "too_many_rooms", 10)
        assert counted(server) == (10, 10)
        # a guest room closes (its creator leaves it, nobody else sat): the slot is a guest's again
        opener = next(c for (c, _, _), r in zip(attackers, replies, strict=True) if r["type"] == "ok")
        await opener.request("leave")
        waiter = next(c for (c, lang, _), r in zip(attackers, replies, strict=True)
                      if r["type"] == "error" and lang == "en")
        assert (await waiter.request_raw("create", **waiting_room()))["type"] == "ok"
        assert counted(server) == (10, 10)
    finally:
        await asyncio.gather(*(c.close() for c, _, _ in attackers), *(c.close() for c in people))
        await server.stop()
    assert counted(server) == (0, 0)


async def test_a_room_nobody_comes_to_play_at_closes_and_frees_its_slot(tmp_path: Any) -> None:
    server = await start_server(tmp_path, room_wait_seconds=0.3)
    zoe = await guest(server, "zoe", lang="fr")
    bob = await guest(server, "bob")
    try:
        closed = asyncio.ensure_future(zoe.next_event("room_closed", timeout=20))
        room = (await zoe.request("create", **waiting_room(seats=4)))["room"]
        event = await closed
        assert event["reason"] == "waited" and event["room"] == room
        assert event["text"] == f"La table {room} est fermée\u00a0: personne n’est venu jouer depuis longtemps."
        assert (await zoe.request("whoami"))["room"] is None and counted(server) == (0, 0)
        # someone sitting down starts the wait again; a room that plays does not wait at all
        room = (await zoe.request("create", **waiting_room(seats=4)))["room"]
        before = time.monotonic()
        await bob.request("join", room=room)
        table_room = server.lobby.rooms[room]
        assert table_room.idle_at is not None and table_room.idle_at >= before + 0.3
        await bob.request("leave")
        await zoe.request("leave")
        room = (await zoe.request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        await zoe.next_state(lambda s: s.get("status") == "playing", timeout=10, current=True)
        assert server.lobby.rooms[room].idle_at is None
    finally:
        await zoe.close()
        await bob.close()
        await server.stop()


async def test_hundreds_of_rooms_closing_at_once_are_worded_once_per_kind_of_reader(tmp_path: Any,
                                                                                    monkeypatch: Any) -> None:
    """200 rooms close in the same moment (their creators drop their connections): every listener in the
    lobby hears of each close once (one by one, or counted in one ``rooms_changed`` when a push would
    carry more than ``NEWS_DIGEST``: server/lobby/newsdigest.py), in one write per interval, worded once for
    all listeners of a kind, never once per listener and event."""
    server = await start_server(tmp_path, rooms_per_address=5)
    listeners = [await guest(server, nick("lis", i), f"127.0.1.{1 + i // 10}") for i in range(30)]
    attackers = []
    for batch in range(10):
        attackers += await asyncio.gather(*(guest(server, nick("att", batch * 20 + i),
                                                  f"127.0.2.{1 + (batch * 20 + i) // 5}") for i in range(20)))
    try:
        rooms = [r["room"] for r in await asyncio.gather(*(c.request("create", **waiting_room())
                                                           for c in attackers))]
        assert len(set(rooms)) == 200 and counted(server) == (200, 200)
        for c in listeners:
            c.clear_pushes()
        calls = collections.Counter()
        original = Session.shared_line

        def counting(self: Session, shared: Any, you: int | None = None) -> str:
            calls[shared.event.get("event")] += 1
            return original(self, shared, you)

        monkeypatch.setattr(Session, "shared_line", counting)
        await asyncio.gather(*(c.close() for c in attackers))

        async def heard_all(c: Client) -> None:
            # each close one by one, or (more than NEWS_DIGEST in one push) counted in rooms_changed
            seen: list[str] = []
            counted_closes = 0
            async for msg in c.pushes(timeout=20):
                if msg.get("event") == "room_closed":
                    seen.append(msg["room"])
                elif msg.get("event") == "rooms_changed":  # (opened: news of the creations still waiting)
                    counted_closes += msg["closed"]
                if len(seen) + counted_closes == 200:
                    break
            assert set(seen) <= set(rooms) and len(set(seen)) == len(seen)
            assert counted_closes > 0  # 200 closes in one moment: not 200 lines to every listener

        await asyncio.gather(*(heard_all(c) for c in listeners))
        assert counted(server) == (0, 0)
        # once per event (or count) and kind of reader, not 30 x 200
        assert calls["room_closed"] + calls["rooms_changed"] <= 2 * 200
    finally:
        monkeypatch.undo()
        await asyncio.gather(*(c.close() for c in listeners + attackers))
        await server.stop()


async def test_rooms_comes_in_pages_free_seats_first_with_filters(tmp_path: Any) -> None:
    server = await start_server(tmp_path)
    names = ["ann", "ben", "cat", "dan"]
    clients = [await member(server, n) for n in names]
    try:
        full1 = (await clients[0].request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        tdc = (await clients[1].request("create", game="president", rules="tdc", seats=4, stake=2))["room"]
        spec = (await clients[2].request("create", game="speculation", seats=3))["room"]
        full2 = (await clients[3].request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        everything = await clients[0].request("rooms")
        assert (everything["total"], everything["page"], everything["pages"], everything["limit"]) == (4, 1, 1, 50)
        assert [r["room"] for r in everything["rooms"]] == [tdc, spec, full1, full2]  # free seats first
        assert {"room", "game", "rules", "seats", "players", "status"} <= set(everything["rooms"][0])
        one = await clients[0].request("rooms", limit=3)
        two = await clients[0].request("rooms", limit=3, page=2)
        assert [r["room"] for r in one["rooms"] + two["rooms"]] == [tdc, spec, full1, full2]
        assert (one["pages"], two["page"], (await clients[0].request("rooms", page=9))["rooms"]) == (2, 2, [])
        assert [r["room"] for r in (await clients[0].request("rooms", free=True))["rooms"]] == [tdc, spec]
        assert [r["room"] for r in (await clients[0].request("rooms", game="speculation"))["rooms"]] == [spec]
        assert [r["room"] for r in (await clients[0].request("rooms", rules="tdc"))["rooms"]] == [tdc]
        playing = await clients[0].request("rooms", status="playing")
        assert [r["room"] for r in playing["rooms"]] == [full1, full2] and playing["total"] == 2
        await clients[0].request("lang", lang="es")
        for bad in ({"page": 0}, {"limit": 101}, {"limit": "x"}, {"status": "nope"}, {"free": "maybe"},
                    {"game": 3}, {"rules": "poker"}):
            reply = await clients[0].request_raw("rooms", **bad)
            (arg,) = bad
            assert reply["code"] == "bad_argument" and reply["message"] == error_message("es", "bad_argument",
                                                                                         arg=arg), bad
    finally:
        for c in clients:
            await c.close()
        await server.stop()


def test_the_text_listing_says_how_many_rooms_it_does_not_show() -> None:
    style = TermStyle(80, True, False)
    rooms = [{"room": f"r{i}", "game": "president", "rules": "classic", "seats": 4, "players": ["a"],
              "status": "waiting"} for i in range(3)]
    text = render_rooms(rooms, "fr", style, 120)
    assert "r2" in text and "3 tables ouvertes sur 120 affichées, celles qui ont une place libre d’abord." in text
    assert "affich" not in render_rooms(rooms, "fr", style, 3) and "affich" not in render_rooms(rooms, "fr", style)
    assert "Hay 120 mesas abiertas." in render_rooms([], "es", style, 120)
