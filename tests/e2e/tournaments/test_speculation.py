"""A Speculation event over the wire (its people let every clock run: the table plays on by its
time-outs): scored by chips won (the table kind's own, S11), each one's points the chips they won
at its table, the chips conserved."""

from __future__ import annotations

import asyncio

from tests.kits.servers import start_server
from tests.kits.tournamentkit import Entrant, account


async def _ended(entrant: Entrant, tid: str) -> dict:
    while True:
        ev = await asyncio.wait_for(entrant.inbox.get(), 60)
        if ev["event"] == "tournament_ended" and ev["tournament"] == tid:
            return ev


async def test_a_speculation_event_is_scored_by_the_chips_each_one_won(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", flip_seconds=0.2, auction_seconds=1.0,
                                 turn_seconds=1.0)
    clients = []
    try:
        names = ["ana", "bob", "cid"]
        clients = [await account(running, n) for n in names]
        before = {n: await running.store.ledger.balance(n) for n in names}
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="swiss", game="speculation", seats=3, rounds=1,
                                        start=0.2, event_rounds=1, turn_seconds=1))["tournament"]
        assert (await clients[0].request("tournaments"))["tournaments"][0]["scoring"]["mode"] == "chips"
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        ended = await asyncio.gather(*(_ended(e, tid) for e in entrants))
        assert ended[0]["reason"] == "rounds"
        final = await clients[0].request("tournament_standings", tournament=tid)
        after = {n: await running.store.ledger.balance(n) for n in names}
        assert {line["name"]: line["points"] for line in final["lines"]} == {n: after[n] - before[n] for n in names}
        assert sum(after.values()) == sum(before.values())  # three people, no bot: the antes change hands
        audit = await running.store.ledger.audit()
        assert audit.ok and audit.escrow == 0, audit
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)
