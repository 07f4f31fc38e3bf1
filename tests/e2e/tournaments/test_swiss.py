"""A whole Swiss event over the JSON wire: rounds announced, byes, bots in a short table, final
standings equal to their recomputation from the stored record, the record replayed, chips conserved."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3

from server.start.cli import main as donne
from server.tournaments import EventRecord, replay, standings
from tests.kits.servers import start_server
from tests.kits.tournamentkit import Entrant, account, seated_once


async def test_a_swiss_event_is_played_round_by_round_over_the_wire(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", commands_per_second=5000.0,
                                 command_burst=10000)
    clients = []
    try:
        names = ["ana", "bob", "cid", "dan", "eve", "fay", "gus"]
        clients = [await account(running, n) for n in names]
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        made = await clients[0].request("tournament_create", kind="swiss", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.5, event_rounds=3, round_pause=0)
        tid = made["tournament"]
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        assert all(e["reason"] == "rounds" for e in ended)
        assert [ev["round"] for ev in entrants[0].events if ev["event"] == "tournament_round"] == [1, 2, 3]
        byes = [ev for e in entrants for ev in e.events if ev["event"] == "tournament_bye"]
        assert len(byes) == 3  # seven players at tables of three: one bye a round, never twice the same
        assert len({b["round"] for b in byes}) == 3 and all(b["points"] == 50 for b in byes)
        final = await clients[1].request("tournament_standings", tournament=tid)
        assert final["final"] and len(final["lines"]) == 7 and all(line["games"] + line["byes"] == 3
                                                                    for line in final["lines"])
        stored = await running.store.tournaments.export(tid)
        assert stored is not None and stored["status"] == "over"
        record = EventRecord.from_dict(stored["record"])
        replay(record)
        assert seated_once(stored["record"]["entries"]) == 6
        assert [(s.name, s.points, s.rank) for s in standings(record).lines] == [
            (line["name"], line["points"], line["rank"]) for line in final["lines"]]
        assert stored["standings"]["lines"][0]["name"] == final["lines"][0]["name"]
        # each table's match is in the history with the event's id
        rounds = await running.store.tournaments.rounds(tid)
        assert len([r for r in rounds if r.round_id.endswith("-match")]) == 6
        assert all(r.config.get("tournament") == tid for r in rounds)
        assert (await running.store.ledger.audit()).ok
        # finger: the events one entered and one's best place; history: the event's games
        winner = final["lines"][0]["name"]
        finger = await clients[3].request("finger", name=winner)
        assert finger["tournament_best"] == 1
        assert finger["tournaments"] == [{"tournament": tid, "kind": "swiss", "game": "president",
                                          "rules": "classic", "rank": 1, "entrants": 7, "final": True}]
        history = (await clients[0].request("history"))["history"]
        games = [h for h in history if h.get("tournament") == tid]
        assert games and all(h["table"].startswith(tid + ".") for h in games)
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)
    # donne export of the event, beside the data the server left: its record replays to what was stored
    out = tmp_path / "event.json"
    data = tmp_path / "data"
    assert donne(["export", "--data-dir", str(data), "--tournament", tid, "--check", "--out", str(out)]) == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["format"] == "donne-tournament/1" and exported["record"] == stored["record"]
    assert len(exported["tables"]) == 6 and exported["standings"] == stored["standings"]
    assert donne(["export", "--data-dir", str(data), "--tournament", "e999"]) == 2
    # an event whose stored standings are not its record's is refused by the check
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(data / "donne.sqlite3", copy)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE tournaments SET standings = '{}' WHERE tournament_id = ?", (tid,))
    assert donne(["export", "--data-dir", str(copy), "--tournament", tid, "--check"]) == 1


async def test_an_entrant_away_when_their_table_opens_is_absent_and_a_bot_plays_their_seat(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", commands_per_second=5000.0,
                                 command_burst=10000)
    clients = []
    try:
        names = ["ana", "bob", "cid"]
        clients = [await account(running, n) for n in names]
        tid = (await clients[0].request("tournament_create", kind="swiss", game="president", rules="classic",
                                        seats=3, rounds=1, start=1.0, event_rounds=2, round_pause=0))["tournament"]
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        await clients[2].close()  # cid goes away before the start
        entrants = [Entrant(c, n) for c, n in zip(clients[:2], names[:2], strict=True)]
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 30)
        assert all(e["reason"] == "too_few" for e in ended)  # cid withdrawn: two left, tables of three
        entries = list(await running.store.tournaments.journal(tid))
        assert [e["names"] for e in entries if e["k"] == "absent"] == [["cid"]]
        room = next(ev["room"] for ev in entrants[0].events if ev["event"] == "tournament_seated")
        match = next(r for r in await running.store.tournaments.rounds(tid) if r.round_id.endswith("-match"))
        assert match.round_id.startswith(room + "-") and match.seats[2].startswith("bot")  # a bot in cid's seat
        final = await clients[0].request("tournament_standings", tournament=tid)
        cid = next(line for line in final["lines"] if line["name"] == "cid")
        assert cid["points"] == 0 and cid["games"] == 1 and cid["status"] == "left"  # a forfeit
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)
