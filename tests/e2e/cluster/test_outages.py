"""Redis, then PostgreSQL, restarted in the middle of a tdc match between two nodes: the nodes say
so (to the log and to the players, in their language), pause the table, refuse new tables, and
carry on by themselves when the service is back; no chip is created or lost (``donne audit``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.storage.cli import main as storage_main
from tests.e2e.cluster.conftest import CLUSTER, settle
from tests.e2e.cluster.test_play import listed_everywhere
from tests.kits.pgserver import PgServer, find_bindir
from tests.kits.servers import connect, play_simply, start_server

pytestmark = pytest.mark.e2e


@pytest.fixture
def own_postgres() -> Iterator[PgServer]:
    """A PostgreSQL of this test alone (it is stopped and started again in the middle)."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found: `make tools` installs them")
    server = PgServer(bindir)
    server.start()
    try:
        server.sql('CREATE DATABASE "donne"')
        yield server
    finally:
        server.stop()


def pg_stop(pg: PgServer) -> None:
    pg._run(str(pg.bindir / "pg_ctl"), "-D", str(pg.data), "-m", "fast", "-w", "stop")


def pg_start(pg: PgServer) -> None:
    options = f"-p {pg.port} -k {pg.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg._run(str(pg.bindir / "pg_ctl"), "-D", str(pg.data), "-o", options, "-l", str(pg.folder / "log"),
            "-w", "-t", "30", "start")


def pg_processes(pg: PgServer) -> list[int]:
    """The postmaster and every process it started (its backends, writers...)."""
    master = int((pg.data / "postmaster.pid").read_text().split()[0])
    out = [master]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == master:
                out.append(int(stat.parent.name))
    return out


def freeze(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


async def _notice(client, code: str) -> dict:
    while True:
        msg = await client.next_event("notice", timeout=20)
        if msg.get("code") == code:
            return msg


@pytest.mark.parametrize("service", ["redis", "postgresql"])
async def test_a_service_restarted_mid_match_pauses_the_table_then_it_plays_on(tmp_path, redis_server,
                                                                              own_postgres, service):
    url = own_postgres.url("donne")
    a = await start_server(tmp_path / "a", url=url, redis_url=redis_server.url, node="a", **CLUSTER)
    b = await start_server(tmp_path / "b", url=url, redis_url=redis_server.url, node="b", **CLUSTER)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    frank = await connect(b, "frank")
    try:
        await settle([a, b])
        room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=2, stake=10,
                                    rounds=2))["room"]
        await listed_everywhere([bob], room)
        await bob.request("join", room=room)
        first = await bob.next_state(lambda s: s.get("status") == "playing" and s.get("hand"), timeout=20,
                                     current=True)
        assert first["room"] == room
        troubles = [asyncio.ensure_future(_notice(x, "server_trouble")) for x in (alice, bob)]
        oks = [asyncio.ensure_future(_notice(x, "server_ok")) for x in (alice, bob)]
        if service == "redis":
            redis_server.kill()
        else:
            pg_stop(own_postgres)
        said = await asyncio.wait_for(asyncio.gather(*troubles), 20)
        assert all("trouble" in n["text"] for n in said)
        refused = await frank.request_raw("create", game="president", rules="classic", seats=3)
        assert refused["type"] == "error" and refused["code"] == "server_trouble"
        if service == "redis":
            redis_server.start()
        else:
            pg_start(own_postgres)
        await asyncio.wait_for(asyncio.gather(*oks), 30)
        finals = await asyncio.wait_for(asyncio.gather(play_simply(alice), play_simply(bob)), 120)
        assert finals[0]["status"] == finals[1]["status"] == "over" and finals[1]["round"] == 2
        audit = await a.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
    finally:
        for x in (alice, bob, frank):
            await x.close()
        await asyncio.gather(a.stop(), b.stop(), return_exceptions=True)
    assert storage_main(["--url", url]) == 0  # donne audit


FROZEN = 6.0
"""Seconds a service stays stopped: longer than its bound (``service_timeout``) and than a lease."""


@pytest.mark.parametrize("service", ["redis", "postgresql"])
async def test_a_service_that_stops_answering_is_told_and_the_table_plays_on_when_it_answers(
        tmp_path, redis_server, own_postgres, service):
    # the service's process is stopped (SIGSTOP): its connections stay open and it accepts new ones,
    # but nothing is answered. Within its bound each node takes it as away, as one that refuses:
    # people at a table are told, the table waits, a new table is refused (an answer, not a hang);
    # continued (SIGCONT), it is back by itself and the match plays to its end, every chip in place.
    url = own_postgres.url("donne")
    opts = {**CLUSTER, "service_timeout": 1.0}
    a = await start_server(tmp_path / "a", url=url, redis_url=redis_server.url, node="a", **opts)
    b = await start_server(tmp_path / "b", url=url, redis_url=redis_server.url, node="b", **opts)
    alice, bob = await connect(a, "alice"), await connect(b, "bob")
    frank = await connect(b, "frank")
    pids = [redis_server.proc.pid] if service == "redis" else pg_processes(own_postgres)
    frozen = False
    try:
        await settle([a, b])
        room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=2, stake=10,
                                    rounds=2))["room"]
        await listed_everywhere([bob], room)
        await bob.request("join", room=room)
        await bob.next_state(lambda s: s.get("status") == "playing" and s.get("hand"), timeout=20, current=True)
        troubles = [asyncio.ensure_future(_notice(x, "server_trouble")) for x in (alice, bob)]
        oks = [asyncio.ensure_future(_notice(x, "server_ok")) for x in (alice, bob)]
        freeze(pids, signal.SIGSTOP)
        frozen, since = True, time.monotonic()
        said = await asyncio.wait_for(asyncio.gather(*troubles), 15)
        assert all("trouble" in n["text"] for n in said)
        refused = await frank.request_raw("create", game="president", rules="classic", seats=3, timeout=10)
        assert refused["type"] == "error" and refused["code"] == "server_trouble"
        assert (await bob.request("who", timeout=10))["players"]  # the lobby answers meanwhile
        await asyncio.sleep(max(0.0, FROZEN - (time.monotonic() - since)))
        freeze(pids, signal.SIGCONT)
        frozen = False
        await asyncio.wait_for(asyncio.gather(*oks), 30)
        finals = await asyncio.wait_for(asyncio.gather(play_simply(alice), play_simply(bob)), 120)
        assert finals[0]["status"] == finals[1]["status"] == "over" and finals[1]["round"] == 2
        audit = await a.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
    finally:
        if frozen:
            freeze(pids, signal.SIGCONT)
        for x in (alice, bob, frank):
            await x.close()
        await asyncio.gather(a.stop(), b.stop(), return_exceptions=True)
    assert storage_main(["--url", url]) == 0  # donne audit
