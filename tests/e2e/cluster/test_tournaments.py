"""Tournaments in a cluster: one node runs an event, entrants on any node play it to its end.

The event runs on the node it was opened on (its lease ``donne:lease:tour:<id>``, its fence
``tour:<id>``); the others forward their people's ``tournament_*`` commands to it, its tables open
there and seat the people of other nodes through their own node, and its announcements reach them.
"""

from __future__ import annotations

import asyncio

import pytest

from server.tournaments import EventRecord, replay, standings
from tests.kits.tournamentkit import Entrant, account, seated_once

pytestmark = pytest.mark.e2e

FAST = {"tournament_create": "accounts", "commands_per_second": 5000.0, "command_burst": 10000}


async def test_entrants_on_two_nodes_play_an_arena_to_its_end(nodes):
    a, b = await nodes(2, **FAST)
    names = ["ana", "bob", "cid", "dan"]
    clients = [await account(a if i % 2 == 0 else b, n) for i, n in enumerate(names)]
    try:
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="arena", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.8, length=5, bots=True, bot_wait=0,
                                        rematch_wait=0))["tournament"]
        for c in clients:  # bob and dan on node b: forwarded to node a, which runs the event
            assert (await c.request("tournament_join", tournament=tid))["tournament"] == tid
        listed = (await clients[1].request("tournaments"))["tournaments"]
        assert [s["id"] for s in listed] == [tid] and listed[0]["joined"]
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        assert all(e["reason"] == "time" for e in ended)
        assert any(e.rooms for e in entrants[1::2])  # the people of node b sat at node a's tables
        final = await clients[3].request("tournament_standings", tournament=tid)
        assert final["final"] and {line["name"] for line in final["lines"]} == set(names)
        stored = await a.store.tournaments.export(tid)
        assert stored is not None and stored["status"] == "over"
        record = EventRecord.from_dict(stored["record"])
        replay(record)
        assert seated_once(stored["record"]["entries"]) >= 2
        assert [(s.name, s.points, s.rank) for s in standings(record).lines] == [
            (line["name"], line["points"], line["rank"]) for line in final["lines"]]
        assert (await a.store.ledger.audit()).ok
    finally:
        for c in clients:
            await c.close()
