"""``kill -9`` of a real process using the store: nothing committed is lost, nothing half-done stays.

On SQLite and on PostgreSQL (``where``): a child Python process opens the
data folder (or the database), does ledger work and tells the
test where it is through its stdout ("opened", "paused"); the test then
SIGKILLs it, reopens the same folder (which runs the start-up recovery) and
checks that every balance is back to what it was before the round and that
the audit holds (RULES invariant 4, T13, S3).

To stop the child *inside* a transaction, it installs a test hook
(``server.storage.sqlite.HOOKS``) that runs in the database thread after the
first write and blocks there, before the commit. On PostgreSQL the server
rolls back what the dead client left; the restarted store waits for the dead
connection's advisory lock to go.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from server.storage import StoreSettings, open_store
from server.storage.sqlite import db_path
from tests.kits.storefixtures import is_pg

ROOT = Path(__file__).resolve().parents[3]
FAST = StoreSettings(scrypt_n=2**10)
PLAYERS = ("alice", "bob", "carol", "dave")
STAKES = {"alice": 10, "bob": 10, "carol": 10, "dave": 10}
PAYOUTS = {"alice": 20, "bob": 15, "carol": 5, "dave": 0}  # T13 with N = 4, S = 10

CHILD = r"""
import asyncio, sys, time
from server.storage import StoreSettings, open_store
from server.storage.sqlite import HOOKS
from server.storage.api import OpenRound, TableLog, TableOpened, Transfer

mode, path = sys.argv[1], sys.argv[2]
STAKES = {"alice": 10, "bob": 10, "carol": 10, "dave": 10}
PAYOUTS = {"alice": 20, "bob": 15, "carol": 5, "dave": 0}

def pause():
    print("paused", flush=True)
    time.sleep(3600)  # inside the transaction, in the database thread: wait to be killed

async def main():
    store = await open_store(path, StoreSettings(scrypt_n=2**10))
    if mode == "open_mid":
        HOOKS["open_round.after_first_stake"] = pause
        # one apply: a table record, the round, a sale of the round; killed after the first stake
        await store.apply([TableOpened("t1", {"seats": 4}), TableLog("t1", 0, [{"cmd": "deal"}]),
                           OpenRound("round-1", STAKES, table="t1"),
                           Transfer("carol", "dave", 7, "sold", round_id="round-1")])
    await store.ledger.open_round("round-1", STAKES)
    await store.accounts.fund_bot("Ana", 500)
    await store.ledger.transfer("bob", "alice", 3, "auction", "round-1")
    print("opened", flush=True)
    if mode == "settle_mid":
        HOOKS["settle_round.after_first_payout"] = pause
        await store.ledger.settle_round("round-1", PAYOUTS)
    sys.stdin.readline()  # mode "round": the round stays open until the kill

asyncio.run(main())
"""


async def _prepare(path: str) -> dict[str, int]:
    store = await open_store(path, FAST)
    try:
        for name in PLAYERS:
            await store.accounts.register(name, "secret")
        await store.ledger.transfer("dave", "carol", 100, "setup")
        return {name: await store.ledger.balance(name) for name in PLAYERS}
    finally:
        await store.close()


async def _run_and_kill(path: str, mode: str, wait_for: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        mode,
        str(path),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        lines = []
        while True:
            line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode().strip()  # type: ignore[union-attr]
            if not line:
                err = await proc.stderr.read()  # type: ignore[union-attr]
                pytest.fail(f"child ended before {wait_for!r}: {lines} {err.decode()[-2000:]}")
            lines.append(line)
            if line == wait_for:
                break
        _check_uncommitted(path, mode)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        rc = await asyncio.wait_for(proc.wait(), 20)
    assert rc == -signal.SIGKILL


def _check_uncommitted(path: str, mode: str) -> None:
    """While the child is stopped, another connection sees only committed data."""
    if is_pg(path):
        import psycopg

        with psycopg.connect(path, autocommit=True) as pg:
            row = pg.execute("SELECT state FROM rounds WHERE round_id = 'round-1'").fetchone()
            state = None if row is None else tuple(row)
            payouts = pg.execute("SELECT COUNT(*) FROM entries WHERE kind = 'payout'").fetchone()[0]  # type: ignore[index]
            tables = pg.execute("SELECT COUNT(*) FROM tables").fetchone()[0]  # type: ignore[index]
    else:
        conn = sqlite3.connect(f"{db_path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            state = conn.execute("SELECT state FROM rounds WHERE round_id = 'round-1'").fetchone()
            payouts = conn.execute("SELECT COUNT(*) FROM entries WHERE kind = 'payout'").fetchone()[0]
            tables = conn.execute("SELECT COUNT(*) FROM tables").fetchone()[0]
        finally:
            conn.close()
    if mode == "open_mid":
        assert state is None  # the first stake is written, not committed
        assert tables == 0  # nor the table record written before it
    else:
        assert state == ("open",)
        assert payouts == 0  # settle_mid: the first payout is written, not committed


@pytest.mark.parametrize(
    ("mode", "wait_for", "refunded"),
    [
        ("round", "opened", ["round-1"]),  # killed with the round's escrow open
        ("open_mid", "paused", []),  # killed inside open_round, after the first stake
        ("settle_mid", "paused", ["round-1"]),  # killed inside settle_round, after the first payout
    ],
)
async def test_T13_kill_9_restores_balances(where: str, mode: str, wait_for: str, refunded: list[str]) -> None:
    before = await _prepare(where)
    await _run_and_kill(where, mode, wait_for)
    store = await open_store(where, FAST, recover=False)
    try:
        assert await store.ledger.refund_unsettled() == refunded
        after = {name: await store.ledger.balance(name) for name in PLAYERS}
        if mode == "open_mid":
            assert after == before
            assert await store.tables.get("t1") is None  # the whole apply is gone
        else:
            # the transfer after the round opened was committed and stays; the stakes came back
            assert after == {**before, "alice": before["alice"] + 3, "bob": before["bob"] - 3}
        audit = await store.ledger.audit()
        assert audit.ok, audit.problems
        assert audit.escrow == 0
        if refunded:
            assert await store.ledger.settle_round("round-1", PAYOUTS) is False  # too late: refunded
    finally:
        await store.close()
    # and the start-up path (recover=True) brings the bot's chips home
    store = await open_store(where, FAST)
    try:
        audit = await store.ledger.audit()
        assert audit.ok, audit.problems
        assert audit.balances == audit.granted - audit.retired
        if mode != "open_mid":
            assert await store.ledger.balance("bot:Ana") == 0
    finally:
        await store.close()
