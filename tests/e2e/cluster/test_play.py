"""Whole matches at one table with players on different nodes (classic, tdc, Speculation).

The table lives on the creator's node; the others' commands travel to it through Redis and its
states come back to their own nodes, which render them. A spectator's node never receives a hand.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.cluster.test_lobby import until
from tests.e2e.rooms.test_room_speculation import play_turns
from tests.kits.servers import assert_no_hand, connect, play_simply

pytestmark = pytest.mark.e2e


async def listed_everywhere(clients, room: str) -> None:
    for client in clients:
        async def seen(client=client) -> bool:
            return room in [r["room"] for r in (await client.request("rooms"))["rooms"]]

        await until(seen, f"{room} listed")


async def test_classic_match_across_three_nodes_spectators_see_no_hand(nodes):
    a, b, c = await nodes(3)
    alice, bob, dave = await connect(a, "alice"), await connect(b, "bob"), await connect(b, "dave")
    erin = await connect(c, "erin")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3))["room"]
        await listed_everywhere([bob, erin], room)
        for watcher in (dave, erin):
            assert (await watcher.request("watch", room=room))["room"] == room
        seen_dave, seen_erin = [], []
        dave.on_push, erin.on_push = seen_dave.append, seen_erin.append
        over = [asyncio.ensure_future(x.next_event("match_over", timeout=90)) for x in (alice, bob, erin)]
        joined = await bob.request("join", room=room)
        assert joined["room"] == room and joined["seat"] == 1
        carol = await connect(c, "carol")
        await listed_everywhere([carol], room)
        await carol.request("join", room=room)
        finals = await asyncio.wait_for(asyncio.gather(*(play_simply(x) for x in (alice, bob, carol))), 90)
        results = [await e for e in over]
        assert results[0]["winners"] == results[1]["winners"] == results[2]["winners"]
        assert sum(results[0]["totals"]) == 5 * 3  # P14/P15
        assert finals[1]["room"] == room and finals[1]["you"] == 1 and finals[2]["you"] == 2
        # carol's node renders her table in her own mode: the same state whoever owns it
        assert finals[2]["seats"][0]["name"] == "alice"
        assert (await carol.request("whoami"))["room"] == room
        await dave.request("state")
        assert_no_hand(seen_dave)
        assert_no_hand(seen_erin)
        assert (await a.store.ledger.audit()).ok
        await carol.close()
    finally:
        for x in (alice, bob, dave, erin):
            await x.close()


async def test_tdc_match_across_nodes_settles_once_on_the_owner(nodes):
    a, b = await nodes(2)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    try:
        before = await b.store.ledger.balance("bob")
        room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=2, stake=10,
                                    rounds=2))["room"]
        await listed_everywhere([bob], room)
        await bob.request("join", room=room)
        finals = await asyncio.wait_for(asyncio.gather(play_simply(alice), play_simply(bob)), 90)
        assert finals[1]["status"] == "over" and finals[1]["round"] == 2
        audit = await b.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
        records = await b.store.history.recent("bob")
        assert [r.result["event"] for r in records] == ["match_over", "round_over", "round_over"]
        assert await b.store.ledger.balance("bob") != before  # stakes moved, settled once: the audit balances
    finally:
        await alice.close()
        await bob.close()


async def test_speculation_across_nodes_to_the_end(nodes):
    a, b = await nodes(2)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    try:
        room = (await alice.request("create", game="speculation", seats=3, bots=1, bot_level="easy",
                                    rounds=2, turn_seconds=1))["room"]
        await listed_everywhere([bob], room)
        await bob.request("join", room=room)
        over = lambda s: s.get("status") == "over"  # noqa: E731
        finals = await asyncio.wait_for(asyncio.gather(play_turns(alice, over), play_turns(bob, over)), 90)
        assert finals[1]["round"] == 2 and finals[1]["you"] == 1
        audit = await a.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
        # bob goes back to the lobby of his own node
        await bob.request("leave")
        assert (await bob.request("whoami"))["room"] is None
    finally:
        await alice.close()
        await bob.close()
