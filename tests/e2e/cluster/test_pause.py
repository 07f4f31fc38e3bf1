"""A table's owner paused past its lease (SIGSTOP), then continued (SIGCONT); PostgreSQL restarted
in the middle of a round (``docs/cluster.md``, "Pauses, partitions and clocks").

Three real ``donne serve`` nodes share a private PostgreSQL and Redis. Two tables, both opened on
n0 (so n0 owns them), each with people on the three nodes: a staked tdc match and a Speculation
match standing with an offer open (its price held). n0 is stopped for three times its lease, with
a command of each table queued on it (sent after the stop, by a person on n0 and by people of other
nodes) and the tables' turn clocks running out meanwhile; another node takes both tables over. Then
n0 is continued. Checked:

* n0 acts on nothing: no write of n0 reaches PostgreSQL after the stop (a trigger notes which node
  wrote each log row and ledger entry: each node's connection names itself), its log says each
  table stopped there, and a queued command is answered ``ok`` only by the node that ran it;
* one continuation per table: whatever any person was told about a round is the same for everyone,
  and it is what an uninterrupted engine computes from the stored log;
* no live session ended (nobody ``replaced``, no connection closed), though a person of n0 moved
  to her table's new node during the pause and n0 woke with her older session;
* PostgreSQL is then stopped and started again mid-round; the tables play to their end;
* every round settled exactly once, ``donne audit`` clean (nothing in escrow, no round stuck),
  every account's chips what the results say, no traceback in any node's log.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from server.storage import open_store
from server.storage.cli import audit_location
from server.storage.cli import main as audit_main
from tests.e2e.cluster.test_failover import owner_of, runs, until_owned
from tests.e2e.cluster.test_outages import own_postgres, pg_start, pg_stop  # noqa: F401
from tests.e2e.restart.test_restart_kill import _results, check_table_as_told, play_to_the_end
from tests.kits.pgserver import PgServer
from tests.kits.redisserver import RedisServer
from tests.kits.restart_kit import FAST_TIMERS, Person, ServerProcess, TableRun, quiet

pytestmark = pytest.mark.e2e

SEED = 20261206
NODES = ("n0", "n1", "n2")
LEASE = 2.0
TURN = 3.0  # a turn's clock: it runs out while the owner is stopped
DEALS = 5
"""The Speculation match's deals. The deals are the servers' own, and a deal whose trump card is an
ace ends at once (S6), before anyone could offer: with two deals, one run in 169 had nothing to offer
for. The offer this test stands on needs one deal that does not: all five end so once in 371,293 runs."""

WRITES = """
CREATE TABLE IF NOT EXISTS node_writes (app TEXT NOT NULL, what TEXT NOT NULL, ref TEXT,
                                        at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());
CREATE OR REPLACE FUNCTION note_log() RETURNS trigger AS $$ BEGIN
  INSERT INTO node_writes (app, what, ref) VALUES (current_setting('application_name'), 'log', NEW.table_id);
  RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION note_entry() RETURNS trigger AS $$ BEGIN
  INSERT INTO node_writes (app, what, ref) VALUES (current_setting('application_name'), 'entry', NEW.round_id);
  RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE OR REPLACE TRIGGER note_log AFTER INSERT ON table_log FOR EACH ROW EXECUTE FUNCTION note_log();
CREATE OR REPLACE TRIGGER note_entry AFTER INSERT ON entries FOR EACH ROW EXECUTE FUNCTION note_entry();
"""


def node_config(pg_url: str, redis_url: str, name: str) -> str:
    timers = FAST_TIMERS.replace("turn_seconds = 60", f"turn_seconds = {TURN}")
    return (timers + "[restart]\nresume_window = 20\n"
            f'[storage]\nurl = "{pg_url}?application_name={name}"\n'
            f'[cluster]\nredis_url = "{redis_url}"\nnode = "{name}"\n'
            f"lease_seconds = {LEASE}\nkeepalive_seconds = 0.25\nremote_timeout = 30\n")


def db_now(url: str) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT clock_timestamp()").fetchone()
        assert row is not None
        return row[0]


def writes_by(url: str, app: str, after: Any, rooms: list[str]) -> list[tuple[str, str, str]]:
    """What node ``app`` wrote for these tables (their log, their rounds' chips) after ``after``."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT what, ref, at FROM node_writes WHERE app = %s AND at > %s", (app, after)).fetchall()
    return [(w, str(ref), str(at)) for w, ref, at in rows
            if ref is not None and any(ref == room or str(ref).startswith(room + "-") for room in rooms)]


async def test_an_owner_paused_past_its_lease_acts_on_nothing_when_it_wakes(tmp_path: Path, redis_server: RedisServer,
                                                                            own_postgres: PgServer) -> None:  # noqa: F811
    url = own_postgres.url("donne")
    rng = random.Random(SEED)
    servers: dict[str, ServerProcess] = {}
    tables = runs(rng, deals=DEALS)
    results: dict[str, list[dict[str, Any]]] = {t.label: [] for t in tables}
    seen: dict[tuple[str, str, Any], dict[str, Any]] = {}  # (table, event, round) -> what was told
    notices: list[tuple[str, str]] = []
    old = None

    def listener(t: TableRun, p: Person) -> Any:
        def on_push(msg: dict[str, Any]) -> None:
            if msg.get("event") == "notice" or msg.get("type") == "notice":
                notices.append((p.name, str(msg.get("code"))))
            if msg.get("room") == t.room and msg.get("event") in ("round_over", "deal_over", "match_over"):
                told = {k: v for k, v in msg.items() if k not in ("type", "text")}
                first = seen.setdefault((t.label, str(msg["event"]), msg.get("round")), told)
                assert first == told, f"two continuations of {t.label}: {first} / {told}"
            t.on_push(msg)
        return on_push

    for name in NODES:
        (tmp_path / name).mkdir()
        servers[name] = await ServerProcess(tmp_path / name / "data", node_config(url, redis_server.url, name)).start()
        if name == "n0":
            own_postgres.sql(WRITES, "donne")  # the schema is n0's: the trigger goes on it
    try:
        for t in tables:
            for i, p in enumerate(t.people):
                await p.connect(servers[NODES[i % len(NODES)]].telnet_port, listener(t, p), register=True)
            await t.open()
        rooms = [str(t.room) for t in tables]
        assert set((await until_owned(redis_server, rooms, {"n0"})).values()) == {"n0"}
        tables[0].aim(("steps", 4))
        tables[1].aim(("offer",))  # an offer open: its price held in the ledger
        await asyncio.gather(*(t.drive() for t in tables))
        await quiet(tables)
        assert not tables[1].over(), f"every one of the {DEALS} deals ended on its trump ace (S6): nothing to offer for"
        assert "offer" in tables[1].situations()
        assert await _signal(servers["n0"], signal.SIGSTOP)
        stopped_at = time.monotonic()
        stop = db_now(url)
        # a command of each table queued on the stopped owner: sent by whoever may act now
        queued: list[tuple[TableRun, Person, str, dict[str, Any], asyncio.Future[Any]]] = []
        mover = tables[1].people[0]  # erin, on n0: she moves to her table's new node during the pause
        for t in tables:
            for p in t.people:
                if p is mover:
                    continue
                state = p.client.state if p.client is not None else None
                if state is None or state.get("room") != t.room:
                    continue
                choice = t._choose(p, state)
                if choice is not None and p.client is not None:
                    cmd, args = choice
                    p.acted_on = state
                    queued.append((t, p, cmd, args, asyncio.ensure_future(p.client.request_raw(cmd, timeout=60,
                                                                                                **args))))
        assert queued
        owners = await until_owned(redis_server, rooms, {"n1", "n2"}, timeout=30)
        old = mover.client  # she leaves her terminal on the stopped node open and logs in where her table is
        assert old is not None
        old.on_push = lambda msg: None
        await mover.connect(servers[owners[rooms[1]]].telnet_port, listener(tables[1], mover))
        assert (await mover.client.request("whoami"))["room"] == rooms[1]
        await asyncio.sleep(max(0.0, stopped_at + 3 * LEASE - time.monotonic()))  # the turn clocks ran out
        assert await _signal(servers["n0"], signal.SIGCONT)
        await asyncio.sleep(2 * LEASE)  # n0 awake: anything it would still do, it has done by now
        assert writes_by(url, "n0", stop, rooms) == []  # nothing of n0 reached PostgreSQL after the stop
        replies = await asyncio.wait_for(asyncio.gather(*(f for *_, f in queued)), 60)
        for (t, p, cmd, args, _), reply in zip(queued, replies, strict=True):
            # the new owner ran it, or it was refused at once with a clear error (never a time-out)
            assert reply["type"] == "ok" or reply.get("code") not in (None, "internal_error", "server_trouble"), \
                (t.label, p.name, reply)
            if reply["type"] == "ok" and cmd == "play":  # answered ok: the node that answered played it
                state = await p.client.next_state(lambda s, t=t: s.get("room") == t.room, timeout=20, current=True)
                assert not set(args["cards"]) & set(state.get("hand") or []) or state.get("round") != \
                    p.acted_on.get("round"), (t.label, p.name, args)
        await _until_logged(servers["n0"], [f"room {room}: stopped here" for room in rooms])
        assert {room: owner_of(redis_server, room) for room in rooms} == owners  # the tables stayed there
        assert writes_by(url, "n0", stop, rooms) == []
        audit = audit_location(url)
        assert audit.ok and audit.escrow > 0, audit  # the tdc round's stakes and the offers' holds stand
        for t in tables:
            _results(t, results)
        # PostgreSQL restarted in the middle of a round
        for t in tables:
            t.aim(("steps", 2))
        await asyncio.gather(*(t.drive() for t in tables))
        pg_stop(own_postgres)
        await asyncio.sleep(1.0)
        pg_start(own_postgres)
        await play_to_the_end(tables, results)
        assert old.closed.is_set()  # her older session ended (on n0, by her newer login), not the newer
        assert not [n for n in notices if n[1] == "replaced"], notices
        assert all(p.client is not None and not p.client.closed.is_set() for t in tables for p in t.people)
    finally:
        for t in tables:
            await t.close()
        if old is not None:
            await old.close()
        for server in servers.values():
            if server.proc is not None and server.proc.returncode is None:
                server.proc.send_signal(signal.SIGCONT)
                try:
                    assert await server.kill(signal.SIGTERM) == 0
                except AssertionError:
                    await server.kill(signal.SIGKILL)
                    raise
    for name, server in servers.items():
        assert not [line for line in server.log if "Traceback" in line], (name, "".join(server.log[-60:]))
    assert audit_main(["--url", url, "--stuck-after", "60"]) == 0
    store = await open_store(url, recover=False, exclusive=False)
    try:
        audit = await store.ledger.audit()
        assert audit.ok and audit.escrow == 0 and not audit.tables_aside, audit
        for t in tables:
            await check_table_as_told(store, t, results[t.label])
    finally:
        await store.close()


async def _signal(server: ServerProcess, sig: int) -> bool:
    assert server.proc is not None and server.proc.returncode is None
    server.proc.send_signal(sig)
    await asyncio.sleep(0.05)
    return True


async def _until_logged(server: ServerProcess, needles: list[str], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not all(any(n in line for line in server.log) for n in needles):
        if loop.time() > end:
            raise AssertionError(f"never logged {needles}:\n" + "".join(server.log[-40:]))
        await asyncio.sleep(0.1)
