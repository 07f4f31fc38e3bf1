"""The lobby's hall (server/lobby/tournaments/hall.py) across a restart, on a real server in this process:
each open event rebuilt from its record and reconciled with its tables (docs/tournaments.md,
"Durability") — a table the journal opened but no room ever seated is opened again with the same
seats; a table whose match ended while the event was down is reported from its records."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.lobby.tournaments.hall import Hall
from server.tournaments import EventRecord, replay, standings
from tests.kits.servers import start_server
from tests.kits.tournamentkit import Entrant, account, play_table

NAMES = ("ana", "bob", "cid")
FAST = {"tournament_create": "accounts", "commands_per_second": 5000.0, "command_burst": 10000}


async def _journal(running: Any, tid: str, kind: str) -> list[dict[str, Any]]:
    for _ in range(200):
        entries = list(await running.store.tournaments.journal(tid))
        if any(e["k"] == kind for e in entries):
            return entries
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {kind} in the journal")


async def _event(running: Any, clients: list[Any]) -> str:
    tid = (await clients[0].request("tournament_create", kind="swiss", game="president", rules="classic",
                                    seats=3, rounds=1, start=0.2, event_rounds=1))["tournament"]
    for c in clients:
        await c.request("tournament_join", tournament=tid)
    return str(tid)


async def test_a_table_opened_in_the_journal_but_never_as_a_room_is_opened_again(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    async def crash_before_the_room(self: Hall, shell: Any, effect: Any) -> None:
        return None  # the process "died" between the journal and the room

    real = Hall.open_table
    monkeypatch.setattr(Hall, "open_table", crash_before_the_room)
    running = await start_server(tmp_path, **FAST)
    clients = [await account(running, n) for n in NAMES]
    tid = await _event(running, clients)
    opened = [e for e in await _journal(running, tid, "open") if e["k"] == "open"]
    for c in clients:
        await c.close()
    await asyncio.wait_for(running.stop(), 20)
    assert await _stored_tables(tmp_path, tid) == []

    monkeypatch.setattr(Hall, "open_table", real)
    running = await start_server(tmp_path, **FAST)
    clients = []
    try:
        # the table waits for its people to come back (resume_window), then opens again for them
        entrants = []
        for n in NAMES:  # each one hears what comes from the moment they are back
            clients.append(await account(running, n, login=True))
            entrants.append(Entrant(clients[-1], n))
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 30)
        assert all(e["reason"] == "rounds" for e in ended)
        entries = await _journal(running, tid, "ended")
        reopened = [e for e in entries if e["k"] == "open"]
        assert reopened == opened  # the same table, the same seats: not a second one
        assert [e["k"] for e in entries if e["k"] in ("absent", "aborted", "scored")] == ["scored"]
        record = EventRecord.from_dict({"config": (await running.store.tournaments.get(tid)).config,
                                        "entries": entries})
        replay(record)
        assert standings(record).final
        final = await clients[1].request("tournament_standings", tournament=tid)
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)
    # an event over before this start: its final standings as stored
    running = await start_server(tmp_path, **FAST)
    try:
        bob = await account(running, "bob", login=True)
        assert (await bob.request("tournaments"))["tournaments"] == []
        again = await bob.request("tournament_standings", tournament=tid)
        assert {k: v for k, v in again.items() if k != "id"} == {k: v for k, v in final.items() if k != "id"}
        assert (await bob.request_raw("tournament_standings", tournament="e404"))["code"] == "no_such_tournament"
        await bob.close()
    finally:
        await asyncio.wait_for(running.stop(), 20)


async def test_a_match_that_ended_while_the_event_was_down_is_reported_from_its_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Hall, "recorded", lambda self, room, record: None)  # the report never made
    running = await start_server(tmp_path, **FAST)
    clients = [await account(running, n) for n in NAMES]
    entrants = [Entrant(c, n) for c, n in zip(clients, NAMES, strict=True)]
    tid = await _event(running, clients)
    for _ in range(200):
        seated = [ev for e in entrants for ev in e.events if ev["event"] == "tournament_seated"]
        if len(seated) == 3:
            break
        await asyncio.sleep(0.02)
    room = seated[0]["room"]
    await asyncio.wait_for(asyncio.gather(*(play_table(c, room) for c in clients)), 30)
    assert (await running.store.tournaments.get(tid)).status == "open"
    for c in clients:
        await c.close()
    await asyncio.wait_for(running.stop(), 20)
    monkeypatch.undo()

    running = await start_server(tmp_path, **FAST)
    try:
        entries = await _journal(running, tid, "ended")
        scored = [e for e in entries if e["k"] == "scored"]
        assert len(scored) == 1 and sorted(scored[0]["points"]) in ([0, 50, 100], [0, 75, 75], [25, 25, 100],
                                                                    [50, 50, 50])
        assert next(e for e in entries if e["k"] == "open")["table"] == scored[0]["table"]
        assert (await running.store.tournaments.get(tid)).status == "over"
    finally:
        await asyncio.wait_for(running.stop(), 20)


async def _stored_tables(tmp_path: Path, tid: str) -> list[tuple[str, int]]:
    from server.storage import open_store

    store = await open_store(tmp_path / "data", recover=False)
    try:
        event = await store.tournaments.get(tid)
        assert event is not None
        return list(event.tables)
    finally:
        await store.close()


async def test_an_event_whose_record_does_not_replay_is_set_aside_at_start(tmp_path: Path) -> None:
    import json
    import sqlite3

    running = await start_server(tmp_path, **FAST)
    clients = [await account(running, n) for n in NAMES]
    tid = (await clients[0].request("tournament_create", kind="swiss", game="president", seats=3,
                                    start=600))["tournament"]
    for c in clients:
        await c.request("tournament_join", tournament=tid)
    for c in clients:
        await c.close()
    await asyncio.wait_for(running.stop(), 20)
    with sqlite3.connect(tmp_path / "data" / "donne.sqlite3") as db:  # a record its director does not make
        seq, entry = db.execute("SELECT seq, entry FROM tournament_log WHERE tournament_id = ? ORDER BY seq",
                                (tid,)).fetchone()
        row = json.loads(entry)
        first = row[0] if isinstance(row, list) else row
        first["k"] = "started"
        first["entrants"] = ["nobody"]
        db.execute("UPDATE tournament_log SET entry = ? WHERE tournament_id = ? AND seq = ?",
                   (json.dumps(row), tid, seq))
    running = await start_server(tmp_path, **FAST)
    try:
        assert (await running.store.tournaments.get(tid)).status == "aside"
        assert tid not in running.lobby.hall.events
    finally:
        await asyncio.wait_for(running.stop(), 20)
