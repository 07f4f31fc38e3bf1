"""Tournaments in a cluster: one node runs an event, entrants on any node play it to its end.

The event runs on the node it was opened on (its lease ``donne:lease:tour:<id>``, its fence
``tour:<id>``); the others forward their people's ``tournament_*`` commands to it, its tables open
there and seat the people of other nodes through their own node, and its announcements reach them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from typing import Any

import psycopg
import pytest

from clients.client import Client, ClientError
from server.storage import open_store
from server.storage.api import Fence, StaleOwner
from server.storage.api_tournaments import TournamentLog, fence_key
from server.storage.cli import audit_location
from server.tournaments import EventRecord, replay, standings
from tests.e2e.cluster.test_failover import owner_of, until_owned
from tests.kits.restart_kit import FAST_TIMERS, ServerProcess
from tests.kits.tournamentkit import Entrant, account, play_table, seated_once

pytestmark = pytest.mark.e2e

FAST = {"tournament_create": "accounts", "commands_per_second": 5000.0, "command_burst": 10000}


async def test_entrants_on_two_nodes_play_an_arena_to_its_end(nodes):
    a, b = await nodes(2, **FAST)
    names = ["ana", "bob", "cid", "dan"]
    clients = [await account(a if i % 2 == 0 else b, n) for i, n in enumerate(names)]
    eve = await account(b, "eve")
    clients.append(eve)
    try:
        entrants = [Entrant(c, n) for c, n in zip(clients[:4], names, strict=True)]
        tid = (await clients[0].request("tournament_create", kind="arena", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.8, length=5, bots=True, bot_wait=0,
                                        rematch_wait=0))["tournament"]
        for c in clients[:4]:  # bob and dan on node b: forwarded to node a, which runs the event
            assert (await c.request("tournament_join", tournament=tid))["tournament"] == tid
        later = (await clients[1].request("tournament_create", kind="swiss", game="president", rules="classic",
                                          seats=3, start=600))["tournament"]  # node b runs this one
        for c in clients[:2]:  # every node lists every node's events
            listed = (await c.request("tournaments"))["tournaments"]
            assert [s["id"] for s in listed] == [tid, later] and listed[0]["joined"] and not listed[1]["joined"]
            assert [s["organiser"] for s in listed] == ["ana", "bob"]
        with pytest.raises(ClientError) as refused:  # ana's stop goes to node b, which refuses it
            await clients[0].request("tournament_stop", tournament=later)
        assert refused.value.code == "not_allowed"  # (organiser_only)
        await clients[1].request("tournament_stop", tournament=later)
        fay = await account(b, "fay")  # a room of node b, which eve watches first
        clients.append(fay)
        hers = (await fay.request("create", game="president", rules="classic", seats=3))["room"]
        await eve.request("watch", room=hers)
        plays = [asyncio.ensure_future(e.play(tid)) for e in entrants]
        watched = await watch_a_table(eve, tid)  # a spectator on node b moves to a table of node a
        assert watched.startswith("r") and (await eve.request("whoami"))["room"] == watched
        ended = await asyncio.wait_for(asyncio.gather(*plays), 40)
        for _ in range(100):  # the table she watched ended and its players left: it closed, she is in the lobby
            if (await eve.request("whoami"))["room"] is None:
                break
            await asyncio.sleep(0.05)
        assert (await eve.request("whoami"))["room"] is None
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


async def test_a_swiss_event_with_entrants_on_three_nodes_is_played_to_its_end(nodes):
    """Seven entrants spread over three nodes, tables of three: every round's announcement and
    each bye reach their node; the event's history and finger are any node's."""
    runs = await nodes(3, **FAST)
    names = ["ana", "bob", "cid", "dan", "eve", "fay", "gus"]
    clients = [await account(runs[i % 3], n) for i, n in enumerate(names)]
    try:
        entrants = [Entrant(c, n) for c, n in zip(clients, names, strict=True)]
        tid = (await clients[1].request("tournament_create", kind="swiss", game="president", rules="classic",
                                        seats=3, rounds=1, start=0.5, event_rounds=2, round_pause=0))["tournament"]
        for c in clients:
            await c.request("tournament_join", tournament=tid)
        ended = await asyncio.wait_for(asyncio.gather(*(e.play(tid) for e in entrants)), 40)
        assert all(e["reason"] == "rounds" for e in ended)
        for e in entrants:
            assert [ev["round"] for ev in e.events if ev["event"] == "tournament_round"] == [1, 2]
        byes = [ev for e in entrants for ev in e.events if ev["event"] == "tournament_bye"]
        assert len(byes) == 2 and len({b["round"] for b in byes}) == 2
        final = await clients[2].request("tournament_standings", tournament=tid)
        assert final["final"] and all(line["games"] + line["byes"] == 2 for line in final["lines"])
        stored = await runs[0].store.tournaments.export(tid)
        assert stored is not None and stored["status"] == "over"
        record = EventRecord.from_dict(stored["record"])
        replay(record)
        assert seated_once(stored["record"]["entries"]) == 4
        assert [(s.name, s.points, s.rank) for s in standings(record).lines] == [
            (line["name"], line["points"], line["rank"]) for line in final["lines"]]
        winner = final["lines"][0]["name"]
        finger = await clients[0].request("finger", name=winner)
        assert finger["tournament_best"] == 1
        assert (await runs[0].store.ledger.audit()).ok
    finally:
        for c in clients:
            await c.close()


async def watch_a_table(client: Client, tid: str, timeout: float = 10.0) -> str:
    """The room ``client`` watches through ``tournament_watch``, once the event has a table under way."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        try:
            return str((await client.request("tournament_watch", tournament=tid))["room"])
        except ClientError as exc:
            assert exc.code == "no_such_room" and loop.time() < end, exc
            await asyncio.sleep(0.05)


def process_config(pg_url: str, redis_url: str, name: str) -> str:
    return (FAST_TIMERS + "[restart]\nresume_window = 10\n"
            f'[storage]\nurl = "{pg_url}"\n'
            f'[cluster]\nredis_url = "{redis_url}"\nnode = "{name}"\n'
            "lease_seconds = 2\nkeepalive_seconds = 0.25\nremote_timeout = 30\n"
            '[tournaments]\ncreate = "accounts"\n')


async def test_kill_9_of_the_events_owner_another_node_finishes_it(tmp_path, redis_server, pg_url):
    """The node running an arena (and its tables) is killed with SIGKILL while they play: the other
    node takes the event's lease, raises its fence, rebuilds it from its journal and its tables from
    their logs, and the event goes on to its end; ana, connected to the dead node, logs in again at
    the live one and plays on at her table. Nobody was seated twice at once, the standings are those
    the stored record gives, the chips are conserved, and the dead owner's epoch is refused by the
    fence."""
    await kill_the_owner(tmp_path, redis_server, pg_url, {"ana": "n0", "bob": "n1", "cid": "n1"})


async def test_kill_9_of_the_events_owner_two_nodes_share_what_it_ran(tmp_path, redis_server, pg_url):
    """As above with three nodes and entrants on the two that live: the event and its two tables
    are claimed by whichever live node is first, so a table may go on at another node than the
    event's, which then follows it from the store (its match record) and seats its people again
    through their own node."""
    homes = {"ana": "n1", "bob": "n1", "cid": "n1", "dan": "n2", "eve": "n2", "fay": "n2"}
    await kill_the_owner(tmp_path, redis_server, pg_url, homes)


async def test_the_event_and_its_tables_taken_over_by_two_nodes_play_on_to_its_end(tmp_path, redis_server, pg_url):
    """The split forced: after the kill, n2 takes the event's tables over while n1 is stopped and the
    event's lease is held aside; then n1 takes the event while n2 is stopped a moment. n2 makes the
    people of its tables leave them when their match ends; n1 reads their results from the store and
    seats them at their next tables, wherever they are connected; the event ends and nobody is left
    seated."""
    homes = {"ana": "n1", "bob": "n1", "cid": "n1", "dan": "n2", "eve": "n2", "fay": "n2"}
    await kill_the_owner(tmp_path, redis_server, pg_url, homes, split=True)


async def test_the_people_of_the_last_tables_another_node_took_over_are_free_when_the_event_ends(
        tmp_path, redis_server, pg_url):
    """The same split in an arena whose time is up before those tables end: they are its last, and
    their node makes their people leave them (nobody else would)."""
    homes = {"ana": "n1", "bob": "n1", "cid": "n1", "dan": "n2", "eve": "n2", "fay": "n2"}
    await kill_the_owner(tmp_path, redis_server, pg_url, homes, split=True, length=3)


async def split_the_take_over(procs: dict[str, ServerProcess], redis_server, tid: str, tables: list[str]) -> None:
    """After the event's owner n0 died (n1 stopped before): n2 takes its tables, n1 its event."""
    n1, n2 = procs["n1"].proc, procs["n2"].proc
    assert n1 is not None and n2 is not None
    held_aside = f"donne:lease:tour:{tid}"
    assert redis_server.command("SET", held_aside, '"test 0"', "EX", "60").startswith(b"+OK")  # n0's lease
    # replaced by one nobody renews: no node claims the event meanwhile
    try:
        await until_owned(redis_server, tables, {"n2"})
    finally:
        n1.send_signal(signal.SIGCONT)
    await until_alive_again(redis_server, "n1", time.time())  # (caught up: its keep-alive written again)
    n2.send_signal(signal.SIGSTOP)
    try:
        redis_server.command("DEL", held_aside)
        await until_owned(redis_server, [f"tour:{tid}"], {"n1"}, timeout=1.2)  # n2's leases hold 2 s
    finally:
        n2.send_signal(signal.SIGCONT)
    assert {owner_of(redis_server, rid) for rid in tables} == {"n2"}


async def until_alive_again(redis_server, node: str, since: float, timeout: float = 10.0) -> None:
    """Until ``node`` wrote its keep-alive after ``since`` (wall-clock seconds)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        lines = redis_server.command("GET", f"donne:node:{node}").decode(errors="replace").split("\r\n")
        if lines[0].startswith("$") and lines[0] != "$-1" and len(lines) > 1 and json.loads(lines[1])["at"] > since:
            return
        assert loop.time() < end, f"{node} wrote no keep-alive since it was continued"
        await asyncio.sleep(0.05)


async def come_back(entrant: Entrant, node: ServerProcess, tid: str, redis_server, live: set[str],
                    clients: list[Client]) -> dict[str, Any]:
    """``entrant`` logs in again at ``node`` once her table was taken over, plays on at it, then the
    rest of the event."""
    if entrant.rooms:
        await until_owned(redis_server, entrant.rooms[-1:], live)
        await asyncio.sleep(0.5)  # (two keep-alives: the new owner lists her seat)
    client = await account(node, entrant.name, login=True)
    clients.append(client)
    again = Entrant(client, entrant.name)
    room = (await client.request("whoami")).get("room")
    assert room == (entrant.rooms[-1] if entrant.rooms else None)  # her seat found, wherever her table went
    if room is not None:
        await play_table(client, str(room), seen=again.states)
    ended = await again.play(tid)
    entrant.events += again.events
    return ended


async def arena_under_way(organiser: Client, people: list[Client], entrants: list[Entrant],
                          length: float) -> tuple[str, list[asyncio.Future[dict[str, Any]]]]:
    """An arena of ``length`` seconds opened by ``organiser`` (its node runs it), these people in it
    (their nodes forward the joins) and playing; once someone is seated: its id and the plays."""
    tid = str((await organiser.request("tournament_create", kind="arena", game="president", rules="classic",
                                       seats=3, rounds=1, start=0.5, length=length, bots=True, bot_wait=0,
                                       rematch_wait=0))["tournament"])
    for c in people:
        await c.request("tournament_join", tournament=tid)
    plays = [asyncio.ensure_future(e.play(tid)) for e in entrants]
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not any(ev["event"] == "tournament_seated" for e in entrants for ev in e.events):
        assert loop.time() < end, "nobody was seated"
        await asyncio.sleep(0.05)
    return tid, plays


async def kill_the_owner(tmp_path, redis_server, pg_url, homes: dict[str, str], *, split: bool = False,
                         length: float = 12) -> None:
    names = sorted({"n0", *homes.values()})
    procs: dict[str, ServerProcess] = {}
    clients = []
    entrants: list[Entrant] = []
    try:
        for name in names:
            (tmp_path / name).mkdir()
            procs[name] = ServerProcess(tmp_path / name / "data", process_config(pg_url, redis_server.url, name))
            await procs[name].start()
        n0 = procs["n0"]
        organiser = await account(n0, "ora")
        clients.append(organiser)
        people = [await account(procs[node], n) for n, node in homes.items()]
        clients += people
        entrants = [Entrant(c, n) for c, n in zip(people, homes, strict=True)]
        tid, plays = await arena_under_way(organiser, people, entrants, length)  # (n0 runs it)
        assert owner_of(redis_server, f"tour:{tid}") == "n0"
        await asyncio.sleep(1.0)  # at n0's tables, mid-match
        if split:
            stopped = procs["n1"].proc
            assert stopped is not None
            stopped.send_signal(signal.SIGSTOP)
        await n0.kill(signal.SIGKILL)
        live = set(names) - {"n0"}
        if split:
            tables = sorted({ev["room"] for e in entrants for ev in e.events if ev["event"] == "tournament_seated"})
            await split_the_take_over(procs, redis_server, tid, tables)
        await until_owned(redis_server, [f"tour:{tid}"], live)
        for i, node in enumerate(homes.values()):
            if node == "n0":  # her connection died with n0: she logs in again at a live node
                plays[i].cancel()
                plays[i] = asyncio.ensure_future(come_back(entrants[i], procs[sorted(live)[0]], tid,
                                                           redis_server, live, clients))
        ended = await asyncio.wait_for(asyncio.gather(*plays), 40)
        assert all(e["reason"] == "time" for e in ended)
        await nobody_seated([c for c, node in zip(people, homes.values(), strict=True) if node != "n0"])
        asker = next(c for c, node in zip(people, homes.values(), strict=True) if node != "n0")
        final = await asker.request("tournament_standings", tournament=tid)
        store = await open_store(pg_url, recover=False, exclusive=False)
        try:
            stored = await store.tournaments.export(tid)
            assert stored is not None and stored["status"] == "over"
            record = EventRecord.from_dict(stored["record"])
            replay(record)  # one journal, every decision once: it replays
            assert seated_once(stored["record"]["entries"]) >= 2
            assert [(s.name, s.points, s.rank) for s in standings(record).lines] == [
                (line["name"], line["points"], line["rank"]) for line in final["lines"]]
            with pytest.raises(StaleOwner):  # the dead owner's epoch: refused by the fence
                await store.apply([Fence(fence_key(tid), 1), TournamentLog(tid, 10_000, [])])
        finally:
            await store.close()
        audit = audit_location(pg_url)
        assert audit.ok and audit.escrow == 0, audit
        for name in live:
            assert not procs[name].errors(), "".join(procs[name].errors())
    except BaseException:
        for name, proc in procs.items():  # shown with the failure: what each node logged
            print(f"--- {name}'s log ---\n{''.join(proc.log[-300:])}")
        for e in entrants:  # and what each entrant heard
            print(f"--- {e.name}: rooms {e.rooms}, events {e.events}")
            print(f"    last states: {[(r, s.get('status'), s.get('phase'), s.get('turn'), s.get('you')) for r, s in e.states.items()]}")
        raise
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                await c.close()
        for p in procs.values():
            if p.proc is not None and p.proc.returncode is None:
                await p.kill(signal.SIGTERM)


async def nobody_seated(clients: list[Client], timeout: float = 10.0) -> None:
    """Until none of these people sits at a table (their last tables over, they were made to leave)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        rooms = [(await c.request("whoami")).get("room") for c in clients]
        if not any(rooms):
            return
        assert loop.time() < end, f"still seated after the event: {rooms}"
        await asyncio.sleep(0.1)


NOTE_WRITES = """
CREATE TABLE IF NOT EXISTS event_writes (app TEXT NOT NULL, ref TEXT NOT NULL, seq INTEGER NOT NULL,
                                         at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
CREATE OR REPLACE FUNCTION note_event() RETURNS trigger AS $$ BEGIN
  INSERT INTO event_writes (app, ref, seq) VALUES (current_setting('application_name'), NEW.tournament_id, NEW.seq);
  RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER note_event AFTER INSERT ON tournament_log FOR EACH ROW EXECUTE FUNCTION note_event();
"""


def named(url: str, app: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}application_name={app}"


async def test_an_owner_paused_past_its_lease_writes_nothing_of_the_event_when_it_wakes(tmp_path, redis_server, pg_url):
    """The node running an arena is stopped (SIGSTOP) for three times its lease while its tables play;
    the other node takes the event and its tables over and runs them on. When the stopped node is
    continued it writes nothing more of the event (no journal row of it after the stop: its clock
    says its lease is not surely held, and the fence would refuse it), says it stopped driving it,
    and the event ends once, on the other node."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(NOTE_WRITES)
    procs: list[ServerProcess] = []
    clients = []
    try:
        for name in ("n0", "n1"):
            (tmp_path / name).mkdir()
            procs.append(ServerProcess(tmp_path / name / "data",
                                       process_config(named(pg_url, name), redis_server.url, name)))
            await procs[-1].start()
        n0, n1 = procs
        organiser = await account(n0, "ora")
        clients.append(organiser)
        names = ["ana", "bob", "cid"]
        people = [await account(n1, n) for n in names]
        clients += people
        entrants = [Entrant(c, n) for c, n in zip(people, names, strict=True)]
        tid, plays = await arena_under_way(organiser, people, entrants, 14)
        loop = asyncio.get_running_loop()
        await asyncio.sleep(0.5)
        assert n0.proc is not None
        n0.proc.send_signal(signal.SIGSTOP)
        stopped = loop.time()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            row = conn.execute("SELECT clock_timestamp()").fetchone()
        assert row is not None
        since = row[0]
        await until_owned(redis_server, [f"tour:{tid}"], {"n1"}, timeout=30)
        await asyncio.sleep(max(0.0, stopped + 6.0 - loop.time()))  # three times its lease
        n0.proc.send_signal(signal.SIGCONT)
        ended = await asyncio.wait_for(asyncio.gather(*plays), 40)
        assert all(e["reason"] == "time" for e in ended)
        for e in entrants:  # the event ended once
            assert [ev["event"] for ev in e.events].count("tournament_ended") == 1
        deadline = loop.time() + 10
        while not any(f"tournament {tid} stops on this node" in line for line in n0.log):
            assert loop.time() < deadline, "".join(n0.log[-30:])
            await asyncio.sleep(0.1)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            late = conn.execute("SELECT seq FROM event_writes WHERE app = 'n0' AND at > %s", (since,)).fetchall()
            by_n1 = conn.execute("SELECT count(*) FROM event_writes WHERE app = 'n1'").fetchone()
        assert late == [] and by_n1 is not None and by_n1[0] > 0
        store = await open_store(pg_url, recover=False, exclusive=False)
        try:
            stored = await store.tournaments.export(tid)
            assert stored is not None and stored["status"] == "over"
            replay(EventRecord.from_dict(stored["record"]))
            assert seated_once(stored["record"]["entries"]) >= 2
        finally:
            await store.close()
        audit = audit_location(pg_url)
        assert audit.ok and audit.escrow == 0, audit
        assert not [line for line in n0.log + n1.log if "Traceback" in line], "".join(n0.log[-40:])
    finally:
        for c in clients:
            with contextlib.suppress(Exception):
                await c.close()
        for p in procs:
            if p.proc is not None and p.proc.returncode is None:
                p.proc.send_signal(signal.SIGCONT)
                await p.kill(signal.SIGTERM)
