"""Web sessions on any node of a cluster: each node's /ws serves the same lobby and tables."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.cluster.test_play import listed_everywhere
from tests.kits.servers import FREE_PORT, assert_no_hand, play_simply
from tests.kits.webkit import connect_ws

pytestmark = pytest.mark.e2e


async def test_people_on_two_nodes_play_one_table_over_ws_and_a_third_watches(nodes):
    (a,) = await nodes(1, web_port=FREE_PORT)
    (b,) = await nodes(1, web_port=FREE_PORT)
    alice, bob, dave = await connect_ws(a, "alice"), await connect_ws(b, "bob"), await connect_ws(b, "dave")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await listed_everywhere([bob, dave], room)
        seen: list = []
        dave.on_push = seen.append
        assert (await dave.request("watch", room=room))["room"] == room
        over = [asyncio.ensure_future(x.next_event("match_over", timeout=90)) for x in (alice, bob)]
        assert (await bob.request("join", room=room))["room"] == room
        finals = await asyncio.wait_for(asyncio.gather(*(play_simply(x) for x in (alice, bob))), 90)
        results = [await e for e in over]
        assert results[0]["winners"] == results[1]["winners"]
        assert finals[1]["room"] == room and finals[1]["seats"][0]["name"] == "alice"
        assert all(s.conn.kind == "web" for node in (a, b) for s in node.sessions)
        assert_no_hand(seen)
    finally:
        for x in (alice, bob, dave):
            await x.close()
