"""Attacks through the social commands, against a real server: rooms opened through seeks and
challenges past the room limits, floods of tells, challenges and seeks, escaping an ``ignore`` under
another guest name, and ``verify`` as a CPU burner.

Every connection is a real JSON client (``server/clients/client.py``) on the telnet port, from its own
loopback address (``127.0.0.N``) when the attack needs many addresses.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.clients.client import Client
from server.messages.errors import error_message
from tests.server.conftest import start_server
from tests.server.staffkit import event_of
from tests.server.test_attacks import guest, member, nick

TABLE = {"game": "president", "rules": "classic", "seats": 3, "bots": 1}  # two people: the owner and one


async def settle(*clients: Client) -> None:
    """Every client has received everything sent before it (a ping each: replies come after pushes)."""
    for c in clients:
        await c.request("ping")


async def seek_table(owner: Client, taker: Client) -> dict[str, Any]:
    """``owner`` seeks one person, ``taker`` takes the seat: the reply of the refusal, or of the seek."""
    made = await owner.request_raw("seek", **TABLE)
    if made["type"] != "ok":
        return made
    got = await taker.request_raw("accept_seek", seek=made["seek"])
    assert got["type"] == "ok" and got["room"], got
    return made


async def test_seeks_and_challenges_count_against_the_room_limits_of_their_owner(tmp_path: Any) -> None:
    """Guests of one address open rooms through seeks as through create: rooms_per_address in all, the
    seeks waiting counted too; an account's seek and challenge count against rooms_per_account; a seek
    whose table a limit refuses when it is taken up ends, its owner told why."""
    server = await start_server(tmp_path, max_rooms=10, rooms_per_address=2, rooms_per_account=1,
                                guest_room_share=0.6)
    addr = "127.0.0.20"
    guests = [await guest(server, nick("sk", i), addr) for i in range(6)]
    takers = [await guest(server, nick("tk", i), f"127.0.0.{30 + i}") for i in range(4)]
    people: list[Client] = []
    try:
        # two seeks waiting from the address: a third is refused at once, in the reader's language
        first = await guests[0].request("seek", **TABLE)
        await guests[1].request("seek", **TABLE)
        await guests[2].request("lang", lang="fr")
        third = await guests[2].request_raw("seek", **TABLE)
        assert third["code"] == "not_allowed"
        assert third["message"] == error_message("fr", "not_allowed", reason="rooms_per_address", max=2)
        assert (await guests[2].request_raw("challenge", name=nick("tk", 0), **TABLE))["code"] == "not_allowed"
        # both seeks taken up: two rooms from the address; nothing more from it, by seek or create
        await takers[0].request("accept_seek", seek=first["seek"])
        await takers[1].request("accept_seek")
        assert len(server.lobby.rooms) == 2 and server.lobby.slots.opened_from(addr) == 2
        for g in guests[2:4]:
            assert (await g.request_raw("seek", **TABLE))["code"] == "not_allowed"
            assert (await g.request_raw("create", **TABLE))["code"] == "not_allowed"
        # an account: its seek is its one room (rooms_per_account = 1), as a challenge would be
        alice, bob, carol = [await member(server, n) for n in ("alice", "bob", "carol")]
        people += [alice, bob, carol]
        assert (await seek_table(alice, bob))["type"] == "ok"
        await alice.request("leave")  # the room stays open with bob: still alice's
        assert (await alice.request_raw("challenge", name="carol", **TABLE))["code"] == "not_allowed"
        assert (await alice.request_raw("seek", **TABLE))["code"] == "not_allowed"
        # a seek made while a room was free, taken up after the room went to another: it ends, saying why
        await bob.request("leave")  # alice's room closes (nobody left)
        await asyncio.sleep(0)
        late = await carol.request("seek", **TABLE)
        dave = await member(server, "dave")
        people.append(dave)
        room = (await carol.request_raw("seek", **TABLE))
        assert room["code"] == "already_seeking"
        server.lobby.slots.take(server.lobby.opener(server.lobby.player("carol")))  # as if carol's room came first
        ended = asyncio.ensure_future(event_of(carol, "seek_over"))
        assert (await dave.request_raw("accept_seek", seek=late["seek"]))["code"] == "no_such_seek"
        over = await ended
        assert over["reason"] == "refused" and over["code"] == "not_allowed" and over["refused"] == "rooms_per_account"
        assert "already have 1 room" in over["text"]
        assert (await carol.request("whoami"))["room"] is None
    finally:
        await asyncio.gather(*(c.close() for c in guests + takers + people))
        await server.stop()
