"""``kill -9`` of a table's owner node at seeded moments: another node takes the table over.

Three real ``donne serve`` nodes (subprocesses) share a private PostgreSQL and Redis. Two tables
play at once, each with its people connected to different nodes: tdc with a stake (three
accounts) and Speculation (two accounts and a guest), both opened on node n0, so n0 owns them.
Twice, the tables play on to a seeded number of actions (``tests/kits/restart_kit.py``: the
people's choices come from a seeded generator) and stand still; the node that owns the first
table is killed with SIGKILL. Within a few seconds a live node holds the lease of each table the
dead node owned and has rebuilt it from its log (the restart's code path; a table another node
owned stays there); the people of the dead node reconnect to a live node of the generator's
choosing and find their seat; the people of a rebuilt table hear ``resumed``, and everyone sees
exactly what they saw before the kill (only clocks and connections differ). The killed node is
started again on its data folder. The audit holds after every kill.

At the end both tables play to the end of their match; what the people were told equals what an
uninterrupted engine computes from the actions stored (:func:`durable.replay`), every account's
chips agree with the results, the audit is clean (no escrow, nothing set aside), and no node
logged a traceback.
"""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from server.cluster import wire
from server.storage import open_store
from server.storage.cli import audit_location
from tests.e2e.restart.test_restart_kill import _results, check_table_as_told, play_to_the_end
from tests.kits.redisserver import RedisServer
from tests.kits.restart_kit import FAST_TIMERS, Person, ServerProcess, TableRun, comparable, quiet

pytestmark = pytest.mark.e2e

SEED = 20261216
KILLS = 2
NODES = ("n0", "n1", "n2")


def node_config(pg_url: str, redis_url: str, name: str) -> str:
    return (FAST_TIMERS + "[restart]\nresume_window = 10\n"
            f'[storage]\nurl = "{pg_url}"\n'
            f'[cluster]\nredis_url = "{redis_url}"\nnode = "{name}"\n'
            "lease_seconds = 2\nkeepalive_seconds = 0.25\nremote_timeout = 30\n")


def runs(rng: random.Random, *, deals: int = 2) -> list[TableRun]:
    """The two tables; ``deals``: the Speculation match's length."""
    def r() -> random.Random:
        return random.Random(rng.random())

    return [
        TableRun("tdc", {"game": "president", "rules": "tdc", "seats": 3, "stake": 10, "rounds": 3},
                 [Person("alice", "pw-alice-1"), Person("bob", "pw-bob-1"), Person("carol", "pw-carol-1")], r()),
        TableRun("speculation", {"game": "speculation", "seats": 3, "ante": 1, "rounds": deals},
                 [Person("erin", "pw-erin-1"), Person("fay", "pw-fay-1"), Person("gil")], r()),
    ]


def owner_of(redis: RedisServer, room: str) -> str | None:
    """The node holding the table's lease (its value is ``"<node> <epoch>"``), or None."""
    lines = redis.command("GET", f"donne:lease:{room}").decode(errors="replace").split("\r\n")
    if not lines[0].startswith("$") or lines[0] == "$-1" or len(lines) < 2:
        return None
    return lines[1].rpartition(" ")[0] or None


async def until_owned(redis: RedisServer, rooms: list[str], live: set[str], timeout: float = 20.0) -> dict[str, str]:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        owners = {room: owner_of(redis, room) for room in rooms}
        if all(o in live for o in owners.values()):
            return {room: str(o) for room, o in owners.items()}
        await asyncio.sleep(0.1)
    raise AssertionError(f"tables not taken over by a live node: {owners}")


async def until_expired(redis: RedisServer, node: str, timeout: float = 20.0) -> None:
    """Until the dead node's keep-alive has expired: its guests' names are free from then on (a
    table's lease may run out up to a third of its life before it, and be taken over sooner)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while redis.command("EXISTS", wire.node_key(node)) != b":0\r\n":
        if loop.time() > end:
            raise AssertionError(f"the keep-alive of {node} never expired")
        await asyncio.sleep(0.05)


async def test_kill_9_of_the_owner_node_the_tables_resume_on_another(tmp_path: Path, redis_server: RedisServer,
                                                                     pg_url: str) -> None:
    rng = random.Random(SEED)
    servers: dict[str, ServerProcess] = {}
    every: list[ServerProcess] = []

    async def start(name: str) -> ServerProcess:
        (tmp_path / name).mkdir(exist_ok=True)
        server = await ServerProcess(tmp_path / name / "data", node_config(pg_url, redis_server.url, name)).start()
        servers[name] = server
        every.append(server)
        return server

    for name in NODES:
        await start(name)
    tables = runs(rng)
    home: dict[str, str] = {}
    resumed: dict[str, list[dict[str, Any]]] = {}
    results: dict[str, list[dict[str, Any]]] = {t.label: [] for t in tables}

    async def connect(t: TableRun, p: Person, node: str, *, register: bool = False) -> None:
        told = resumed.setdefault(p.name, [])

        def on_push(msg: dict[str, Any]) -> None:
            if msg.get("event") == "resumed":
                told.append(msg)
            t.on_push(msg)

        home[p.name] = node
        await p.connect(servers[node].telnet_port, on_push, register=register)

    try:
        for t in tables:
            for i, p in enumerate(t.people):
                await connect(t, p, NODES[i % len(NODES)], register=True)
            await t.open()  # the first person, on n0, opens it: n0 owns it
        rooms = [str(t.room) for t in tables]
        assert set((await until_owned(redis_server, rooms, {"n0"})).values()) == {"n0"}
        for cycle in range(KILLS):
            for t in tables:
                t.aim(("steps", rng.randint(2, 9)))
            await asyncio.gather(*(t.drive() for t in tables))
            await quiet(tables)
            for t in tables:
                _results(t, results)
            before = {p.name: p.client.state for t in tables for p in t.people if p.client is not None}
            owned = {room: owner_of(redis_server, room) for room in rooms}
            victim = owned[rooms[0]]
            assert victim in servers, victim
            assert await servers[victim].kill(signal.SIGKILL) == -signal.SIGKILL
            del servers[victim]
            for name in resumed:
                resumed[name].clear()
            for t in tables:
                for p in t.people:
                    if home[p.name] == victim and p.client is not None:
                        await p.client.close()
            owners = await until_owned(redis_server, rooms, set(servers))
            assert victim not in owners.values()
            assert all(owners[room] == owned[room] for room in rooms if owned[room] != victim)  # the others stay
            await until_expired(redis_server, victim)
            for t in tables:  # the dead node's people come back through a live node
                for p in t.people:
                    if home[p.name] == victim:
                        await connect(t, p, rng.choice(sorted(servers)))
            for t in tables:
                for p in t.people:
                    assert p.client is not None
                    moved = owned[str(t.room)] == victim  # a table of the dead node: rebuilt elsewhere
                    if moved and not resumed[p.name]:
                        await p.client.next_event("resumed", timeout=20)
                    after = await p.client.next_state(lambda s, t=t: s.get("room") == t.room, timeout=20,
                                                      current=True)
                    if moved:
                        assert [e["room"] for e in resumed[p.name]][:1] == [t.room], (t.label, p.name, cycle)
                    if before[p.name] is not None:
                        assert comparable(after) == comparable(before[p.name]), (t.label, p.name, cycle)
            audit = audit_location(pg_url)
            assert audit.ok, audit.problems
            await start(victim)  # the machine is back: an empty node again
        await play_to_the_end(tables, results)
    finally:
        for t in tables:
            await t.close()
        for server in servers.values():
            if server.proc is not None and server.proc.returncode is None:
                try:
                    assert await server.kill(signal.SIGTERM) == 0
                except AssertionError:
                    await server.kill(signal.SIGKILL)  # not left behind to disturb the next tests
                    raise
    for server in every:
        assert not [line for line in server.log if "Traceback" in line], "".join(server.log[-60:])
    await check_results(pg_url, tables, results)


async def check_results(pg_url: str, tables: list[TableRun], results: dict[str, list[dict[str, Any]]]) -> None:
    audit = audit_location(pg_url)
    assert audit.ok and audit.escrow == 0 and not audit.tables_aside, audit
    store = await open_store(pg_url, recover=False, exclusive=False)
    try:
        for t in tables:
            await check_table_as_told(store, t, results[t.label])
    finally:
        await store.close()


async def test_a_node_stopping_cleanly_hands_its_tables_over(nodes):
    """SIGTERM's clean stop: the durable table stops where it is, its lease is released, another
    node takes it over at its next keep-alive; its people play it to the end from there."""
    from clients.client import Client
    from tests.e2e.cluster.test_lobby import until
    from tests.e2e.cluster.test_play import listed_everywhere
    from tests.kits.servers import connect, play_simply

    a, b = await nodes(2)
    alice = await Client.connect_tcp("127.0.0.1", a.telnet_port, timeout=10)
    await alice.register("alice", "pw-alice-1")
    bob = await connect(b, "bob")
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=2, stake=10,
                                    rounds=1))["room"]
        await listed_everywhere([bob], room)
        await bob.request("join", room=room)
        await bob.next_state(lambda s: s.get("status") == "playing", timeout=20, current=True)
        assert room in a.lobby.rooms and room not in b.lobby.rooms
        told: list[dict] = []
        bob.on_push = lambda msg: told.append(msg) if msg.get("event") == "resumed" else None
        await a.stop()

        async def taken() -> bool:
            return room in b.lobby.rooms

        await until(taken, "b took the table over", tries=500)

        async def heard() -> bool:
            return bool(told)

        await until(heard, "bob hears his table is back")
        assert [e["room"] for e in told] == [room]  # bob heard his table is back
        await alice.close()
        alice = await Client.connect_tcp("127.0.0.1", b.telnet_port, timeout=10)
        await alice.login("alice", "pw-alice-1")
        assert (await alice.request("whoami"))["room"] == room  # her seat, from the other node
        finals = await asyncio.wait_for(asyncio.gather(play_simply(alice), play_simply(bob)), 90)
        assert finals[0]["status"] == finals[1]["status"] == "over"
        audit = await b.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
    finally:
        await alice.close()
        await bob.close()
