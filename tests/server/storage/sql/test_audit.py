"""The audit sees every breach: each test corrupts a database by hand (SQL) and checks the audit names it.

Run on SQLite and PostgreSQL; ``donne audit`` (the CLI) must fail on the same
database. RULES invariant 4: chips are never created or lost.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import Hold, OpenRound, SettleRound, Transfer
from server.storage.cli import main as audit_main
from server.storage.sql.store import SQLStore
from tests.kits.storefixtures import audit_args, is_pg

FAST = StoreSettings(scrypt_n=2**10, house_chips=1000, starting_chips=100)


@pytest_asyncio.fixture
async def store(where: str) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST)
    for name in ("alice", "bob", "carol"):
        await s.accounts.register(name, "secret")
    assert (await s.ledger.audit()).ok
    yield s
    await s.close()


async def corrupt(store: SQLStore, *statements: str) -> None:
    def run(conn: Any) -> None:
        for statement in statements:
            conn.execute(statement)

    await store.write(run)


async def problems(store: SQLStore, where: str) -> list[str]:
    audit = await store.ledger.audit()
    assert not audit.ok
    assert audit_main(audit_args(where)) == 1
    return list(audit.problems)


def account(name: str) -> str:
    return f"(SELECT id FROM accounts WHERE key = '{name}')"


async def test_an_account_in_two_unsettled_rounds_is_no_problem(store: SQLStore, where: str) -> None:
    """A seat its person left plays its round out on their stake while they stake at another table."""
    await store.apply([OpenRound("t1-r1", {"alice": 5})])
    await store.apply([OpenRound("t2-r1", {"alice": 5})])
    audit = await store.ledger.audit()
    assert audit.ok and audit.escrow == 10 and audit_main(audit_args(where)) == 0


async def test_a_voided_round_whose_transfers_were_not_reversed(store: SQLStore, where: str) -> None:
    """The attack: a deal voided by refunding only its antes; bob keeps alice's 30."""
    await store.apply([OpenRound("deal", {"alice": 1, "bob": 1}), Transfer("alice", "bob", 30, "sold", round_id="deal")])
    await corrupt(
        store,
        "UPDATE rounds SET state = 'refunded' WHERE round_id = 'deal'",
        f"INSERT INTO entries (ts, account_id, delta, kind, round_id) VALUES (0, {account('alice')}, 1, 'refund', 'deal')",
        f"INSERT INTO entries (ts, account_id, delta, kind, round_id) VALUES (0, {account('bob')}, 1, 'refund', 'deal')",
        "UPDATE accounts SET balance = balance + 1 WHERE key IN ('alice', 'bob')",
        "DELETE FROM round_flows",
        "UPDATE ledger_totals SET escrow = escrow - 2, balances = balances + 2",
    )
    found = await problems(store, where)
    assert any("round deal was voided but alice is -30 by it" in p for p in found), found
    assert any("round deal was voided but bob is +30 by it" in p for p in found), found
    summary = await store.ledger.audit_summary()
    assert summary.ok  # the totals still add up: only the full audit sees it


async def test_a_settled_round_whose_payouts_differ_from_its_escrow(store: SQLStore, where: str) -> None:
    await store.apply([OpenRound("r", {"alice": 4, "bob": 4}), SettleRound("r", {"alice": 8, "bob": 0})])
    await corrupt(
        store,
        "UPDATE entries SET delta = delta + 3 WHERE kind = 'payout' AND round_id = 'r'",
        "UPDATE accounts SET balance = balance + 3 WHERE key = 'alice'",
    )
    found = await problems(store, where)
    assert any("round r (settled): payouts 11 and refunds 0, its escrow was 8" in p for p in found), found


async def test_holds_above_balances(store: SQLStore, where: str) -> None:
    await store.apply([Hold("offer", "carol", 60)])
    await corrupt(store, "UPDATE holds SET amount = 500 WHERE hold_id = 'offer'", "UPDATE ledger_totals SET held = 500")
    found = await problems(store, where)
    assert any("account carol: holds 500 above its balance 100" in p for p in found), found


async def test_orphaned_holds(store: SQLStore, where: str) -> None:
    await store.apply([OpenRound("r", {"alice": 2, "bob": 2}), SettleRound("r", {"alice": 4})])
    await store.accounts.login_guest("gus")
    await store.accounts.logout_guest("gus")
    await corrupt(
        store,
        f"INSERT INTO holds (hold_id, account_id, amount, round_id, created) VALUES ('h1', {account('bob')}, 5, 'r', 0)",
        "INSERT INTO holds (hold_id, account_id, amount, round_id, created) "
        "SELECT 'h2', id, 5, NULL, 0 FROM accounts WHERE key = 'gus'",
        "UPDATE ledger_totals SET held = 10",
    )
    found = await problems(store, where)
    assert any("hold h1 of bob: its round r is settled (orphaned)" in p for p in found), found
    assert any("hold h2: its account gus is gone (orphaned)" in p for p in found), found


async def test_negative_balances(store: SQLStore, where: str) -> None:
    unchecked = (
        ["ALTER TABLE accounts DROP CONSTRAINT accounts_balance_check"]
        if is_pg(where) else ["PRAGMA ignore_check_constraints = ON"]
    )
    await corrupt(
        store,
        *unchecked,
        "UPDATE accounts SET balance = -7 WHERE key = 'bob'",
        "UPDATE accounts SET balance = balance + 107 WHERE key = 'carol'",
    )
    found = await problems(store, where)
    assert any("account bob: negative balance -7" in p for p in found), found


async def test_maintained_totals_that_drifted(store: SQLStore, where: str) -> None:
    await corrupt(store, "UPDATE ledger_totals SET granted = granted + 1")
    found = await problems(store, where)
    assert any("maintained total granted" in p for p in found), found
    summary = await store.ledger.audit_summary()
    assert not summary.ok and "granted" in summary.problems[0]


async def test_receipts_spent_outside_their_round(store: SQLStore, where: str) -> None:
    await store.ledger.transfer("bob", "carol", 100, "gift")
    await store.apply([OpenRound("deal", {"alice": 1}), Transfer("alice", "bob", 30, "sold", round_id="deal")])
    # bob's 30 pending chips leave the round by hand: a void could no longer take them back
    await corrupt(
        store,
        "UPDATE accounts SET balance = balance - 30 WHERE key = 'bob'",
        "UPDATE accounts SET balance = balance + 30 WHERE key = 'carol'",
        f"INSERT INTO entries (ts, account_id, delta, kind) VALUES (0, {account('bob')}, -30, 'transfer')",
        f"INSERT INTO entries (ts, account_id, delta, kind) VALUES (0, {account('carol')}, 30, 'transfer')",
    )
    found = await problems(store, where)
    assert any("account bob: 30 chips more are held or owed to unsettled rounds than it has" in p for p in found), found


def test_audit_of_a_missing_postgres_database(postgres: Any) -> None:
    assert audit_main(["--url", postgres.url("no_such_database")]) == 2


@pytest.mark.parametrize("where", ["sqlite"], indirect=True)
async def test_the_audit_cli_reports_tables(store: SQLStore, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from server.storage.api import TableClosed, TableOpened

    await store.apply([TableOpened("t1", {}), TableOpened("t2", {}), TableClosed("t2", "aside", "engine refused entry 3")])
    assert audit_main(audit_args(where)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tables_aside"] == [["t2", "engine refused entry 3"]] and out["tables_unfinished"] == ["t1"]


async def test_a_round_open_longer_than_the_bound_is_reported(store: SQLStore, where: str) -> None:
    """Escrow is never left stuck: ``donne audit`` names an open round older than ``--stuck-after``."""
    await store.apply([OpenRound("t1-r1", {"alice": 5}), OpenRound("t2-r1", {"bob": 5})])
    await corrupt(store, "UPDATE rounds SET opened = opened - 7200 WHERE round_id = 't1-r1'")
    assert (await store.ledger.audit()).ok  # the server's own audit: the ledger holds
    assert audit_main([*audit_args(where), "--stuck-after", "0"]) == 0  # no bound
    assert audit_main([*audit_args(where), "--stuck-after", "86400"]) == 0
    assert audit_main(audit_args(where)) == 1  # the default bound: an hour
    from server.storage.cli import audit_location

    audit = audit_location(where, 3600)
    assert not audit.ok and [rid for rid, _ in audit.rounds_stuck] == ["t1-r1"]
    assert audit.rounds_stuck[0][1] >= 7200 and "t1-r1" in audit.problems[0]
