"""A whole arena over the JSON wire: scripted entrants, bots in the short tables, standings equal
to their recomputation from the stored record, nobody seated twice at once, chips conserved."""

from __future__ import annotations

import asyncio

from server.tournaments import EventRecord, replay, standings
from tests.kits.servers import start_server
from tests.kits.tournamentkit import Entrant, account, seated_once


async def test_an_arena_with_bots_is_played_to_its_end_over_the_wire(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", commands_per_second=5000.0,
                                 command_burst=10000)
    clients = []
    try:
        names = ["ana", "bob", "cid", "dan"]
        clients = [await account(running, n) for n in names]
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        made = await clients[0].request("tournament_create", kind="arena", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.5, length=4, bots=True, bot_wait=0,
                                        rematch_wait=0)
        tid = made["tournament"]
        for c in clients:
            assert (await c.request("tournament_join", tournament=tid))["tournament"] == tid
        listed = (await clients[1].request("tournaments"))["tournaments"]
        assert listed[0]["id"] == tid and listed[0]["kind"] == "arena" and listed[0]["joined"]
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        assert all(e["reason"] == "time" for e in ended)
        assert any(e.rooms for e in entrants)
        final = await clients[2].request("tournament_standings", tournament=tid)
        assert final["final"] and {line["name"] for line in final["lines"]} == set(names)
        stored = await running.store.tournaments.export(tid)
        assert stored is not None and stored["status"] == "over"
        record = EventRecord.from_dict(stored["record"])
        replay(record)  # the seating follows from the record
        entries = stored["record"]["entries"]
        assert seated_once(entries) >= 2
        assert any(None in e["seats"] for e in entries if e["k"] == "open")  # bots filled a short table
        recomputed = standings(record)
        assert [(s.name, s.points, s.rank) for s in recomputed.lines] == [
            (line["name"], line["points"], line["rank"]) for line in final["lines"]]
        assert (await running.store.ledger.audit()).ok
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)


async def test_a_tdc_arena_scored_by_chips_counts_each_players_chips_won_and_conserves_them(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", commands_per_second=5000.0,
                                 command_burst=10000)
    clients = []
    try:
        names = ["ana", "bob", "cid", "dan"]
        clients = [await account(running, n) for n in names]
        before = {n: await running.store.ledger.balance(n) for n in names}
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="arena", game="president", rules="tdc",
                                        seats=3, stake=10, rounds=1, start=0.3, length=3, bots=True,
                                        bot_wait=0, rematch_wait=0))["tournament"]
        listed = (await clients[0].request("tournaments"))["tournaments"]
        assert listed[0]["scoring"]["mode"] == "chips"  # tdc's own (T13): by chips won
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        final = await clients[0].request("tournament_standings", tournament=tid)
        after = {n: await running.store.ledger.balance(n) for n in names}
        # each one's points are the chips they won or lost at the event's tables, seat by seat
        assert {line["name"]: line["points"] for line in final["lines"]} == {n: after[n] - before[n] for n in names}
        assert any(after[n] != before[n] for n in names)
        audit = await running.store.ledger.audit()
        assert audit.ok and audit.escrow == 0, audit
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)
