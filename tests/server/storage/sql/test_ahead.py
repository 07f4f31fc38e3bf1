"""Tables' steps written ahead of the database (``server/storage/sql/ahead.py``, docs/restart.md).

A step that moves no chip is appended to a file beside the SQLite database and handed to the
database thread; the table goes on without waiting for the commit. ``kill -9`` before that commit
loses none of it: the next start puts it into the database. Chip movements never go ahead.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from pathlib import Path

import pytest

from server.storage import StoreSettings, open_store
from server.storage.api import BadRecord, Hold, TableClosed, TableLog, TableOpened
from server.storage.sql import ahead
from server.storage.sqlite import db_path

ROOT = Path(__file__).resolve().parents[4]
FAST = StoreSettings(scrypt_n=2**10)

CHILD = r"""
import asyncio, sys, time
from server.storage import StoreSettings, open_store
from server.storage.sqlite import HOOKS
from server.storage.api import TableLog, TableOpened

path = sys.argv[1]

def pause():
    print("paused", flush=True)
    time.sleep(3600)  # in the database thread, before the steps' statements: wait to be killed

async def main():
    store = await open_store(path, StoreSettings(scrypt_n=2**10))
    await store.apply([TableOpened("t1", {"game": "president"}), TableLog("t1", 0, [{"cmd": "deal"}])])
    await store.apply([TableOpened("t2", {"game": "president"})])
    HOOKS["table_steps.before"] = pause
    got = [store.log_ahead(TableLog("t1", 1, [{"cmd": "play", "cards": ["3c"]}, {"k": "s", "h": "x"}])),
           store.log_ahead(TableLog("t2", 0, [{"cmd": "deal", "seed": "é"}])),
           store.log_ahead(TableLog("t1", 3, [{"cmd": "pass"}]))]
    print("ahead", *got, flush=True)  # the table's messages would leave now
    await asyncio.sleep(3600)

asyncio.run(main())
"""


async def _run_child_and_kill(path: Path) -> list[str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", CHILD, str(path), cwd=ROOT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    lines: list[str] = []
    try:
        while "paused" not in lines:
            line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode().strip()  # type: ignore[union-attr]
            if not line:
                err = await proc.stderr.read()  # type: ignore[union-attr]
                pytest.fail(f"the child ended early: {lines} {err.decode()[-2000:]}")
            lines.append(line)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        rc = await asyncio.wait_for(proc.wait(), 20)
    assert rc == -signal.SIGKILL
    return lines


def _next_seq(path: Path, table_id: str) -> int:
    with sqlite3.connect(db_path(path)) as conn:
        return int(conn.execute("SELECT next_seq FROM tables WHERE table_id = ?", (table_id,)).fetchone()[0])


async def test_a_step_written_ahead_survives_a_kill_9_before_its_commit(tmp_path: Path) -> None:
    lines = await _run_child_and_kill(tmp_path)
    assert "ahead 3 1 4" in lines  # each step's next number, at once
    assert (_next_seq(tmp_path, "t1"), _next_seq(tmp_path, "t2")) == (1, 0)  # the database had none of them
    assert len(ahead.files(db_path(tmp_path))) == 1
    store = await open_store(tmp_path, FAST, recover=False)
    try:
        logs = {t.table_id: list(t.entries) for t in await store.tables.unfinished()}
        assert logs["t1"] == [{"cmd": "deal"}, {"cmd": "play", "cards": ["3c"]}, {"k": "s", "h": "x"}, {"cmd": "pass"}]
        assert logs["t2"] == [{"cmd": "deal", "seed": "é"}]
        assert [p.name for p in ahead.files(db_path(tmp_path))] == ["donne.sqlite3-ahead.1"]  # its own, new
        assert store.log_ahead(TableLog("t1", 4, [{"cmd": "play"}])) == 5
    finally:
        await store.close()
    assert ahead.files(db_path(tmp_path)) == []  # a clean stop: everything is in the database
    assert _next_seq(tmp_path, "t1") == 5


async def test_the_start_puts_in_what_the_database_lacks_and_nothing_else(tmp_path: Path) -> None:
    store = await open_store(tmp_path, FAST)
    for t in ("t1", "t2", "t3"):
        await store.apply([TableOpened(t, {"game": "president"}), TableLog(t, 0, [{"cmd": "deal", "t": t}])])
    await store.apply([TableClosed("t3", "over")])
    await store.close()
    db = db_path(tmp_path)
    (db.parent / (db.name + "-ahead.7")).write_bytes(
        b't1\t0\t1\t{"cmd":"deal","t":"t1"}\n'  # there already
        b't1\t1\t2\t[{"cmd":"play"},{"k":"s"}]\n'  # the next
        b't2\t4\t1\t{"cmd":"gap"}\n'  # a gap: left out
        b't3\t1\t1\t{"cmd":"late"}\n'  # its table closed
        b't9\t0\t1\t{"cmd":"nobody"}\n')  # no such table
    (db.parent / (db.name + "-ahead.8")).write_bytes(b't1\t3\t1\t{"cmd":"pass"}\nt2\t1\t1\t{"cmd":"pl')  # torn
    store = await open_store(tmp_path, FAST, recover=False)
    try:
        logs = {t.table_id: list(t.entries) for t in await store.tables.unfinished()}
        assert logs["t1"] == [{"cmd": "deal", "t": "t1"}, {"cmd": "play"}, {"k": "s"}, {"cmd": "pass"}]
        assert logs["t2"] == [{"cmd": "deal", "t": "t2"}]
        assert "t3" not in logs
        assert [p.name for p in ahead.files(db)] == ["donne.sqlite3-ahead.1"]  # the old ones gone, its own begun
    finally:
        await store.close()


async def test_steps_ahead_keep_their_order_with_the_writes_around_them(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A step ahead, then (same turn) a write that waits: the database gets them in that order; a file
    grown full is removed once its rows are committed."""
    monkeypatch.setattr(ahead, "ROTATE_BYTES", 60)
    store = await open_store(tmp_path, FAST)
    try:
        await store.accounts.register("alice", "secret")
        await store.apply([TableOpened("t1", {"game": "president"})])
        assert store.log_ahead(TableLog("t1", 0, [{"cmd": "deal", "seed": "0" * 40}])) == 1
        assert await store.apply([TableLog("t1", 1, [{"cmd": "offer"}]), Hold("h1", "alice", 5)]) == [2, None]
        for seq in range(2, 8):
            assert store.log_ahead(TableLog("t1", seq, [{"cmd": "pass", "n": seq}])) == seq + 1
        await store.call(lambda: None)  # everything asked before is done
        logs = {t.table_id: list(t.entries) for t in await store.tables.unfinished()}
        assert [e["cmd"] for e in logs["t1"]] == ["deal", "offer"] + ["pass"] * 6
        assert len(ahead.files(db_path(tmp_path))) == 1  # the full ones removed, the current one kept
    finally:
        await store.close()
    assert ahead.files(db_path(tmp_path)) == []


async def test_nothing_goes_ahead_where_it_cannot(tmp_path: Path, where: str) -> None:
    """PostgreSQL, a store beside a running server, ``write_ahead`` off, an entry that is no JSON, a
    table id with a tab: ``log_ahead`` says None and ``apply`` does the write (or refuses it)."""
    store = await open_store(where, FAST)
    try:
        await store.apply([TableOpened("t1", {"game": "president"}), TableOpened("t\t2", {"game": "president"})])
        if where.startswith("postgresql"):
            assert store.log_ahead(TableLog("t1", 0, [{"cmd": "deal"}])) is None
            return
        assert store.log_ahead(TableLog("t1", 0, [{"bad": float("nan")}])) is None
        with pytest.raises(BadRecord):
            await store.apply([TableLog("t1", 0, [{"bad": float("nan")}])])
        assert store.log_ahead(TableLog("t\t2", 0, [{"cmd": "deal"}])) is None
        assert store.log_ahead(TableLog("t1", 0, [])) is None
        assert store.log_ahead(TableLog("t1", 0, [{"say": "\ud800"}])) is None  # no UTF-8: nothing written
        beside = await open_store(where, FAST, recover=False, exclusive=False)
        try:
            assert beside.log_ahead(TableLog("t1", 0, [{"cmd": "deal"}])) is None
        finally:
            await beside.close()
    finally:
        await store.close()
    off = await open_store(where, StoreSettings(scrypt_n=2**10, write_ahead=False))
    try:
        assert off.log_ahead(TableLog("t1", 0, [{"cmd": "deal"}])) is None
        assert ahead.files(db_path(where)) == []
    finally:
        await off.close()
