"""``kill -9`` of a real ``donne serve`` in the middle of a Swiss event, twice: the event is rebuilt
from its record at each start, its tables resume, its people log in again and play on, and the event
finishes; its standings equal their recomputation from the stored record, its record replays, nobody
sat at two tables at once, the chips are conserved."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from server.storage import open_store
from server.storage.cli import audit_file
from server.tournaments import EventRecord, replay, standings
from tests.kits.restart_kit import FAST_TIMERS, ServerProcess
from tests.kits.tournamentkit import PASSWORD, Entrant, play_table, seated_once

pytestmark = pytest.mark.e2e

CONFIG = FAST_TIMERS + '[restart]\nresume_window = 5\n[tournaments]\ncreate = "accounts"\n'
NAMES = ("ana", "bob", "cid")


async def _login(server: ServerProcess, name: str, *, register: bool = False) -> Client:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    if register:
        await client.register(name, PASSWORD)
    else:
        await client.login(name, PASSWORD)
    return client


async def _seated(entrants: list[Entrant], round_: int) -> str:
    """Wait until every entrant heard it is seated for ``round_``: the room."""
    for _ in range(400):
        rooms = {ev["room"] for e in entrants for ev in e.events
                 if ev["event"] == "tournament_seated" and ev["round"] == round_}
        if len(rooms) == 1 and all(any(ev["event"] == "tournament_seated" and ev["round"] == round_
                                        for ev in e.events) for e in entrants):
            return rooms.pop()
        await asyncio.sleep(0.05)
    raise AssertionError(f"not seated for round {round_}: {[e.events for e in entrants]}")


async def test_a_swiss_event_survives_kill_9_twice_and_finishes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = await ServerProcess(data, CONFIG).start()
    servers = [server]
    clients: list[Client] = []
    try:
        clients = [await _login(server, n, register=True) for n in NAMES]
        entrants = [Entrant(c, n) for c, n in zip(clients, NAMES, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="swiss", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.3, event_rounds=3, round_pause=0,
                                        bots=False))["tournament"]
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        for round_ in (1, 2):
            room = await _seated(entrants, round_)
            # the table of this round was opened and its people seated: the server dies here
            assert await server.kill(signal.SIGKILL) == -signal.SIGKILL
            for c in clients:
                await c.close()
            audit = audit_file(data / "donne.sqlite3")
            assert audit.ok, audit.problems
            server = await ServerProcess(data, CONFIG).start()
            servers.append(server)
            clients = [await _login(server, n) for n in NAMES]
            old = entrants
            entrants = [Entrant(c, n) for c, n in zip(clients, NAMES, strict=True)]
            for e, before in zip(entrants, old, strict=True):
                e.events = before.events + e.events
                e.rooms = list(before.rooms)
            # the same table resumed: its people play it to its end, then the event goes on
            await asyncio.wait_for(asyncio.gather(*(play_table(c, room) for c in clients)), 30)
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        assert all(e["reason"] == "rounds" for e in ended)
        final = await clients[0].request("tournament_standings", tournament=tid)
        assert final["final"] and all(line["games"] == 3 for line in final["lines"])
        for s in servers:
            assert not s.errors(), "".join(s.errors())
    finally:
        for c in clients:
            await c.close()
        await server.kill(signal.SIGTERM)
    stored, record = await ended_and_kept(data, tid)
    assert seated_once(stored["record"]["entries"]) == 3  # one table a round, none opened twice
    assert [(s.name, s.points) for s in standings(record).lines] == [
        (line["name"], line["points"]) for line in final["lines"]]


async def test_an_arena_killed_while_its_tables_play_goes_on_and_ends(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = await ServerProcess(data, CONFIG).start()
    servers = [server]
    names = ("ana", "bob", "cid", "dan", "eve", "fay")
    clients: list[Client] = []
    try:
        clients = [await _login(server, n, register=True) for n in names]
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="arena", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.3, length=6, rematch_wait=0))["tournament"]
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        playing = [asyncio.ensure_future(e.play(tid)) for e in entrants]
        await asyncio.sleep(2.0)  # tables under way, others just ended or opening: the server dies now
        assert await server.kill(signal.SIGKILL) == -signal.SIGKILL
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        for c in clients:
            await c.close()
        assert audit_file(data / "donne.sqlite3").ok
        server = await ServerProcess(data, CONFIG).start()
        servers.append(server)
        clients, entrants = [], []
        for n in names:
            clients.append(await _login(server, n))
            entrants.append(Entrant(clients[-1], n))

        async def go_on(e: Entrant) -> dict:
            try:  # back at the table they sat at, if it resumed
                state = await e.client.next_state(lambda s: s.get("room") is not None, timeout=1.5, current=True)
                if state.get("status") != "over":
                    await play_table(e.client, state["room"])
            except Exception:  # (no table to go back to)
                pass
            return await e.play(tid)

        ended = await asyncio.wait_for(asyncio.gather(*(go_on(e) for e in entrants)), 40)
        assert all(e["reason"] == "time" for e in ended)
        for s in servers:
            assert not s.errors(), "".join(s.errors())
    finally:
        for c in clients:
            await c.close()
        await server.kill(signal.SIGTERM)
    stored, record = await ended_and_kept(data, tid)
    assert seated_once(stored["record"]["entries"]) >= 2
    assert standings(record).final and [s.points for s in standings(record).lines] == [
        line["points"] for line in stored["standings"]["lines"]]


async def ended_and_kept(data, tid: str) -> tuple[dict[str, Any], EventRecord]:
    """After the server stopped: every chip where it belongs, the event over in the store, and its
    record replaying (one journal, every decision once); the export and the record."""
    audit = audit_file(data / "donne.sqlite3")
    assert audit.ok and audit.escrow == 0, audit
    store = await open_store(data, recover=False)
    try:
        stored = await store.tournaments.export(tid)
    finally:
        await store.close()
    assert stored is not None and stored["status"] == "over"
    record = EventRecord.from_dict(stored["record"])
    replay(record)
    return stored, record
