"""PostgreSQL only: two connections racing for the same chips, and ``donne migrate`` in both directions.

Two stores on one database stand for two server processes (the second opens
with ``exclusive=False``); the race is real: two connections, two threads,
row locks. RULES invariant 4 and T13 (a round settles exactly once).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    Hold,
    InsufficientChips,
    OpenRound,
    TableLog,
    TableOpened,
    Transfer,
)
from server.storage.migrate import main as migrate_main
from server.storage.sql.store import SQLStore
from tests.kits.pgserver import PgServer
from tests.kits.storefixtures import TEMPLATE

FAST = StoreSettings(scrypt_n=2**10, house_chips=1000, starting_chips=100)


@pytest.fixture
def url(postgres: PgServer) -> str:
    return postgres.new_database(TEMPLATE)


@pytest_asyncio.fixture
async def two(url: str) -> AsyncIterator[tuple[SQLStore, SQLStore]]:
    a = await open_store(url, FAST)
    b = await open_store(url, FAST, recover=False, exclusive=False)
    for name in ("alice", "bob", "carol", "dave"):
        await a.accounts.register(name, "secret")
    yield a, b
    audit = await a.ledger.audit()
    await b.close()
    await a.close()
    assert audit.ok, audit.problems


async def test_T13_two_connections_settle_a_round_once(two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    for i in range(8):
        rid = f"r{i}"
        await a.ledger.open_round(rid, {"alice": 5, "bob": 5})
        payouts = {"alice": 10, "bob": 0}
        results = await asyncio.gather(a.ledger.settle_round(rid, payouts), b.ledger.settle_round(rid, payouts))
        assert sorted(results) == [False, True], rid
    assert [await a.ledger.balance(n) for n in ("alice", "bob")] == [140, 60]


async def test_two_connections_cannot_spend_the_same_chips(two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    results = await asyncio.gather(
        a.apply([Transfer("alice", "carol", 80, "trade")]),
        b.apply([Transfer("alice", "dave", 80, "trade")]),
        a.apply([Hold("h", "bob", 70)]),
        b.apply([OpenRound("t9-1", {"bob": 70})]),
        return_exceptions=True,
    )
    assert sum(isinstance(r, InsufficientChips) for r in results[:2]) == 1, results
    assert sum(isinstance(r, InsufficientChips) for r in results[2:]) == 1, results
    assert await a.ledger.balance("alice") == 20
    assert await a.ledger.available("bob") == 30


async def test_two_connections_staking_one_account_take_each_stake_once(two: tuple[SQLStore, SQLStore]) -> None:
    """Two rounds staking one account at once (a seat its person left plays out while they sit elsewhere):
    row locks make each stake come from what is still available."""
    a, b = two
    before = await a.ledger.balance("alice")
    results = await asyncio.gather(
        a.apply([OpenRound("t1-1", {"alice": 5, "bob": 5})]),
        b.apply([OpenRound("t2-1", {"alice": 5, "carol": 5})]),
        return_exceptions=True,
    )
    assert not any(isinstance(r, BaseException) for r in results), results
    assert await a.ledger.balance("alice") == before - 10
    audit = await b.ledger.audit()
    assert audit.ok and audit.escrow == 20


async def test_many_racing_transfers_keep_the_invariant(two: tuple[SQLStore, SQLStore]) -> None:
    """Transfers both ways from two connections: row locks in id order; a deadlock would be run again."""
    a, b = two
    names = ["alice", "bob", "carol", "dave"]
    ops = [
        (a if i % 2 else b).apply([Transfer(names[i % 4], names[(i + 1 + (i // 4) % 3) % 4], 1 + i % 7, "trade")])
        for i in range(80)
    ]
    results = await asyncio.gather(*ops, return_exceptions=True)
    assert all(r == [None] or isinstance(r, InsufficientChips) for r in results), results
    audit = await a.ledger.audit()
    assert audit.ok and audit.balances == 1000 + 400


# --------------------------------------------------------------------- donne migrate


async def _community(where: str) -> dict[str, Any]:
    """A small community with something of everything; returns what must survive the copy."""
    s = await open_store(where, FAST)
    try:
        await s.accounts.register("Zoé", "secret")
        await s.accounts.register("bob", "hunter22")
        key = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode()
        await s.accounts.add_key("bob", key)
        await s.accounts.login_guest("gus")
        await s.apply([TableOpened("t1", {"game": "speculation"}), TableLog("t1", 0, [{"cmd": "deal", "seed": "ab"}]),
                       OpenRound("t1-1", {"Zoé": 3, "bob": 3, "gus": 3}, table="t1"),
                       Transfer("bob", "Zoé", 20, "sold", round_id="t1-1"), Hold("offer", "Zoé", 10, round_id="t1-1")])
        await s.accounts.register("carol", "secret")
        await s.ledger.open_round("done", {"carol": 2})
        await s.ledger.settle_round("done", {"carol": 2})
        from server.storage.api import RoundRecord

        await s.history.record_round(RoundRecord("done", "president", "tdc", ["carol"], {}, [{"cmd": "pass"}],
                                                 {"chips": [0]}))
        mod = s.moderation  # roles, bans, admins' chips, ignore lists, the motd: copied too
        await mod.set_role("carol", "admin", actor="console:root")
        await mod.ban("address", "198.51.100.0/24", until=None, reason="botnet", actor="carol")
        await mod.grant_chips("carol", 7, reason="prize", actor="carol")
        await mod.ignore("bob", "carol")
        await mod.set_motd("hello", actor="carol")
        from server.storage.api import TournamentLog, TournamentOpened, TournamentTable

        await s.apply([TournamentOpened("s1", {"kind": "swiss"}, "carol"),  # an event, its journal, a table
                       TournamentLog("s1", 0, [{"at": 1.0, "k": "tick"}, {"at": 2.0, "k": "tick"}]),
                       TableOpened("s1.1", {"tournament": "s1"}), TournamentTable("s1", "s1.1", 1)])
        numbers = [await s.tables.next_table_number() for _ in range(3)]
        audit = await s.ledger.audit()
        return {"audit": audit, "numbers": numbers, "balances": {n: await s.ledger.balance(n) for n in ("Zoé", "bob")},
                "available": await s.ledger.available("Zoé")}
    finally:
        await s.close()


async def test_migrate_sqlite_to_postgresql_and_back(tmp_path: Path, url: str, postgres: PgServer,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    before = await _community(str(data))
    empty = postgres.new_database()  # not even the schema: the copy creates it
    assert migrate_main(["--from", f"sqlite:{data}", "--to", empty]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["rows"]["accounts"] == 5 and report["rows"]["table_log"] == 1
    for key in ("balances", "escrow", "held", "granted", "retired"):
        assert report["source"][key] == report["target"][key] == getattr(before["audit"], key), key
    # the copy is a working store: logins, keys, open round, hold, table, counters, history
    s = await open_store(empty, FAST, recover=False)
    try:
        assert await s.accounts.verify_password("bob", "hunter22") is not None
        assert len(await s.accounts.keys("bob")) == 1
        assert {n: await s.ledger.balance(n) for n in ("Zoé", "bob")} == before["balances"]
        assert await s.ledger.available("Zoé") == before["available"]
        assert await s.tables.next_table_number() == before["numbers"][-1] + 1
        [t, _] = await s.tables.unfinished()
        assert list(t.entries) == [{"cmd": "deal", "seed": "ab"}]
        rec = await s.history.get("done")
        assert rec is not None and list(rec.log) == [{"cmd": "pass"}]
        assert await s.moderation.role("carol") == "admin"
        assert await s.moderation.door(address="198.51.100.3") is not None
        assert (await s.ledger.audit()).admin_granted == 7
        assert await s.moderation.ignores("bob") == ["carol"]
        assert await s.moderation.motd() == "hello"
        event = await s.tournaments.get("s1")
        assert event is not None and event.next_seq == 2 and list(event.tables) == [("s1.1", 1)]
        assert list(event.entries) == [{"at": 1.0, "k": "tick"}, {"at": 2.0, "k": "tick"}]
        assert len(await s.moderation.log()) == 4  # role, ban, grant, motd (ignoring is no moderation)
        await s.moderation.record("carol", "kick", "bob")  # identity sequences moved past the copied ids
        await s.accounts.register("newcomer", "secret")
        assert await s.ledger.refund_round("t1-1")
        assert (await s.ledger.audit()).ok
    finally:
        await s.close()
    # a non-empty target is refused, and nothing changes
    assert migrate_main(["--from", f"sqlite:{data}", "--to", empty]) == 2
    assert "not empty" in capsys.readouterr().err
    # and back into a new SQLite file
    back = tmp_path / "back.sqlite3"
    assert migrate_main(["--from", empty, "--to", f"sqlite:{back}"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["target"]["escrow"] == 0 and report["rows"]["accounts"] == 6


async def test_migrate_refuses_a_source_in_use(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    s = await open_store(tmp_path / "data", FAST)
    try:
        assert migrate_main(["--from", f"sqlite:{tmp_path / 'data'}", "--to", url]) == 2
        assert "in use" in capsys.readouterr().err
    finally:
        await s.close()
    assert migrate_main(["--from", f"sqlite:{tmp_path / 'missing'}", "--to", url]) == 2



async def test_a_closed_store_or_migration_gives_its_lock_back_before_its_connection_closes(
        postgres: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``donne migrate`` right after a server (or another migration) stopped finds the database free:
    the session lock is given back before the connection closes, not when PostgreSQL gets round to
    the closed connection (which a busy machine delays: "in use by a server")."""
    import psycopg

    url = postgres.new_database()
    held_at_close: list[int] = []
    with psycopg.connect(url, autocommit=True) as other:
        close = psycopg.Connection.close

        def watched(conn: psycopg.Connection[Any]) -> None:
            if not conn.closed and conn is not other:
                row = other.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                                    " AND pid = %s", (conn.info.backend_pid,)).fetchone()
                held_at_close.append(row[0] if row else 0)
            close(conn)

        monkeypatch.setattr(psycopg.Connection, "close", watched)
        store = await open_store(url, FAST, recover=False)
        await store.close()
        assert held_at_close and not any(held_at_close), held_at_close
        held_at_close.clear()
        assert migrate_main(["--from", url, "--to", f"sqlite:{tmp_path / 'copy.sqlite3'}"]) == 0
        assert held_at_close and not any(held_at_close), held_at_close
