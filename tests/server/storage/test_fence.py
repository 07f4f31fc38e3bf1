"""Fencing tokens in PostgreSQL: a cluster table's writes carry their owner's lease epoch, compared
in the same transaction (``docs/cluster.md``, ``server/storage/api.py`` :class:`Fence`).

Two stores on one database stand for two nodes (the second opens with ``exclusive=False``): the
stale owner's write is refused by the database itself, whatever it believes, and with it every
chip it carried (RULES invariant 4: chips are never created or lost; T13: a round settles once).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    BadRecord,
    Fence,
    OpenRound,
    RoundRecord,
    SettleRound,
    StaleOwner,
    TableLog,
    TableOpened,
)
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
    for name in ("alice", "bob"):
        await a.accounts.register(name, "secret")
    yield a, b
    audit = await a.ledger.audit()
    await b.close()
    await a.close()
    assert audit.ok, audit.problems


def entry(i: int) -> dict[str, int]:
    return {"n": i}


async def test_T13_a_stale_owner_cannot_write_log_chips_or_records_after_a_takeover(
        two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    results = await a.apply([Fence("r1", 1), TableOpened("r1", {"game": "x"}), TableLog("r1", 0, [entry(0)]),
                             OpenRound("r1-ab-1", {"alice": 10, "bob": 10}, table="r1")])
    assert results[0] == 0 and results[2] == 1  # no epoch before: the owner's is set
    assert await a.apply([Fence("r1", 1), TableLog("r1", 1, [entry(1)])]) == [1, 2]
    # b takes the table over (a paused past its lease): the fence is raised before b reads the log
    assert await b.apply([Fence("r1", 2, take=True)]) == [1]
    # a wakes and goes on as if it still owned the table: refused, whole, whatever it carries
    for ops in ([TableLog("r1", 2, [entry(2)])],
                [TableLog("r1", 2, [entry(2)]), SettleRound("r1-ab-1", {"alice": 20, "bob": 0})],
                [SettleRound("r1-ab-1", {"alice": 0, "bob": 20})]):
        with pytest.raises(StaleOwner) as refused:
            await a.apply([Fence("r1", 1), *ops])
        assert refused.value.current == 2 and refused.value.code == "table_moved"
    record = RoundRecord("r1-ab-1", "president", "tdc", ["alice", "bob"], {"seats": 2}, [], {"event": "round_over"})
    with pytest.raises(StaleOwner):
        await a.history.record_round(record, fence=Fence("r1", 1))
    assert await a.history.get("r1-ab-1") is None
    assert await a.ledger.balance("alice") == 90  # the stake is still in escrow: nothing paid
    stored = await b.tables.get("r1")
    assert stored is not None and [dict(e) for e in stored.entries] == [entry(0), entry(1)]
    # the new owner goes on from the log it read, and settles once
    assert await b.apply([Fence("r1", 2), TableLog("r1", 2, [entry(2)]),
                          SettleRound("r1-ab-1", {"alice": 20, "bob": 0})]) == [2, 3, True]
    await b.history.record_round(record, fence=Fence("r1", 2))
    assert await b.history.get("r1-ab-1") is not None
    assert (await a.ledger.balance("alice"), await a.ledger.balance("bob")) == (110, 90)


async def test_a_takeover_must_raise_the_epoch(two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    await a.apply([Fence("r2", 3), TableOpened("r2", {})])
    for epoch in (1, 3):  # lower, or the same: another node's token, never taken over from
        with pytest.raises(StaleOwner) as refused:
            await b.apply([Fence("r2", epoch, take=True)])
        assert refused.value.current == 3
    with pytest.raises(StaleOwner):  # an owner's plain write never raises the epoch itself
        await b.apply([Fence("r2", 4), TableLog("r2", 0, [entry(0)])])
    assert await b.apply([Fence("r2", 4, take=True), TableLog("r2", 0, [entry(0)])]) == [3, 1]
    with pytest.raises(BadRecord):
        await b.apply([Fence("r2", 0)])


async def test_a_takeover_waits_for_the_stale_owners_write_in_flight(two: tuple[SQLStore, SQLStore]) -> None:
    """The two nodes race: a's appends keep coming while b takes the table over. Each of a's is
    either before b's take (then in the log b reads) or refused: the log b reads and the log after
    b's own appends are contiguous, with none of a's after the take."""
    a, b = two
    await a.apply([Fence("r3", 1), TableOpened("r3", {})])
    written: list[int] = []

    async def stale() -> None:
        seq = 0
        while True:
            try:
                await a.apply([Fence("r3", 1), TableLog("r3", seq, [{"by": "a", "n": seq}])])
            except StaleOwner:
                return
            written.append(seq)
            seq += 1

    task = asyncio.create_task(stale())
    while len(written) < 5:
        await asyncio.sleep(0.005)
    await b.apply([Fence("r3", 2, take=True)])
    stored = await b.tables.get("r3")
    assert stored is not None
    seq = len(stored.entries)
    await asyncio.wait_for(task, 10)
    assert written == list(range(seq))  # every write a heard succeed is in what b read, and no more
    await b.apply([Fence("r3", 2), TableLog("r3", seq, [{"by": "b", "n": seq}])])
    after = await b.tables.get("r3")
    assert after is not None and [e["by"] for e in after.entries] == ["a"] * seq + ["b"]


async def test_the_one_process_sqlite_store_has_no_fences(tmp_path: Path) -> None:
    store = await open_store(f"sqlite:{tmp_path / 'data'}", FAST)
    try:
        with pytest.raises(BadRecord):
            await store.apply([Fence("r1", 1), TableOpened("r1", {})])
        assert await store.tables.get("r1") is None
    finally:
        await store.close()


async def test_owners_steps_of_many_tables_are_written_together_and_a_stale_one_alone(
        two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    tables = [f"g{i}" for i in range(6)]
    for t in tables:
        await a.apply([Fence(t, 1), TableOpened(t, {})])
    await b.apply([Fence("g3", 2, take=True)])  # g3 was taken over: a's step of it is refused
    results = await asyncio.gather(*(a.apply([Fence(t, 1), TableLog(t, 0, [entry(0)])]) for t in tables),
                                   return_exceptions=True)
    assert [r if isinstance(r, list) else type(r).__name__ for r in results] == \
        [[1, 1], [1, 1], [1, 1], "StaleOwner", [1, 1], [1, 1]]
    grouped = a._thread.grouped
    results = await asyncio.gather(*(a.apply([Fence(t, 1), TableLog(t, 1, [entry(1)])]) for t in tables
                                     if t != "g3"))
    assert results == [[1, 2]] * 5
    assert a._thread.grouped >= grouped + 5  # written together
    for t in tables:
        stored = await b.tables.get(t)
        assert stored is not None and len(stored.entries) == (0 if t == "g3" else 2)
