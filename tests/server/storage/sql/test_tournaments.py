"""Tournaments in the store, on both back-ends: an event's row, its journal appended in order (a gap,
an overlap, a closed journal refused), read back and replayed to the same seatings, its tables'
round records, its export; a stale cluster owner's journal write refused (PostgreSQL).

Every test taking ``where`` runs twice: on a SQLite file and on a PostgreSQL database.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    BadRecord,
    BadSequence,
    Fence,
    RoundRecord,
    StaleOwner,
    TableOpened,
    TournamentClosed,
    TournamentLog,
    TournamentOpened,
    TournamentTable,
    fence_key,
)
from server.storage.sql.store import SQLStore
from server.tournaments import EventRecord, Join, OpenTable, SwissConfig, SwissDirector, record_of, replay
from tests.kits.pgserver import PgServer
from tests.kits.storefixtures import TEMPLATE
from tests.server.tournaments.driver import Driver

FAST = StoreSettings(scrypt_n=2**10, house_chips=1000, starting_chips=100)


@pytest_asyncio.fixture
async def store(where: str) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST)
    yield s
    await s.close()


def played_swiss() -> Driver:
    """A whole Swiss event of eleven at tables of three and four, played by the core alone."""
    d = Driver(SwissDirector(SwissConfig(id="s1", seats=4, min_seats=3, rounds=3, starts_at=10.0, seed="abc",
                                         round_pause=5.0)), random.Random(4))
    for i in range(11):
        d.send(Join(f"p{i}", rating=float(i * 7 % 11)))
    d.at(10.0)
    for _ in range(3):
        d.finish_all()
        d.at(d.now + 5.0)
    assert d.director.over
    return d


def entry(i: int) -> dict[str, object]:
    return {"at": float(i), "k": "tick"}


async def test_a_journal_written_in_steps_is_read_back_and_replays_to_the_same_seatings(store: SQLStore) -> None:
    d = played_swiss()
    record = record_of(d.director)
    config = record.config.to_dict()
    entries = [e.to_dict() for e in record.entries]
    assert await store.apply([TournamentOpened("s1", config, "ana")]) == [None]
    seq, cut = 0, 0
    rng = random.Random(7)
    while cut < len(entries):  # as a shell writes them: each call's entries, one or several at once
        step = entries[cut: cut + rng.randint(1, 6)]
        [seq] = await store.apply([TournamentLog("s1", seq, step)])
        cut += len(step)
    assert seq == len(entries)
    stored = await store.tournaments.get("s1")
    assert stored is not None and stored.status == "open" and stored.organiser == "ana"
    assert stored.next_seq == len(entries) and list(stored.entries) == entries
    assert await store.tournaments.journal("s1", 5) == entries[5:]
    assert await store.tournaments.journal("s1", len(entries)) == []
    # the journal read back is the event: a fresh director makes the same decisions, the same seatings
    again = replay(EventRecord.from_dict({"config": stored.config, "entries": stored.entries}))
    assert [e.item for e in again.event.journal if isinstance(e.item, OpenTable)] == d.opened
    assert again.standings() == d.director.standings()


async def test_events_are_listed_and_marked_finished_once(store: SQLStore) -> None:
    await store.apply([TournamentOpened("a1", {"kind": "arena"}, "ana")])
    await store.apply([TournamentOpened("s2", {"kind": "swiss"}, "bob")])
    await store.apply([TournamentLog("s2", 0, [entry(0)])])
    assert [e.tournament_id for e in await store.tournaments.events()] == ["a1", "s2"]
    assert [e.entries for e in await store.tournaments.events()] == [(), ()]  # listed without journals
    standings = [{"name": "ana", "points": 150}]
    assert await store.apply([TournamentClosed("s2", "over", standings)]) == [True]
    assert await store.apply([TournamentClosed("s2", "aside")]) == [False]  # already closed: kept as it was
    assert [e.tournament_id for e in await store.tournaments.events("open")] == ["a1"]
    [over] = await store.tournaments.events("over")
    assert over.tournament_id == "s2" and over.standings == standings and over.closed_at is not None
    with pytest.raises(BadRecord):  # a finished event's journal is closed
        await store.apply([TournamentLog("s2", 1, [entry(1)])])
    assert await store.apply([TournamentClosed("a1", "aside")]) == [True]
    assert await store.tournaments.events("open") == []


async def test_a_gap_an_overlap_and_bad_input_are_refused_and_change_nothing(store: SQLStore) -> None:
    await store.apply([TournamentOpened("s3", {}, "ana")])
    assert await store.apply([TournamentLog("s3", 0, [entry(0), entry(1)])]) == [2]
    for seq in (1, 3, 0):  # an overlap, a gap, the start again
        with pytest.raises(BadSequence):
            await store.apply([TournamentLog("s3", seq, [entry(seq)])])
    with pytest.raises(BadSequence):
        await store.apply([TournamentLog("s3", -1, [entry(0)])])
    with pytest.raises(BadRecord):
        await store.apply([TournamentLog("s3", 2, ["not a dict"])])  # type: ignore[list-item]
    with pytest.raises(BadRecord):  # not JSON
        await store.apply([TournamentLog("s3", 2, [{"x": float("nan")}])])
    with pytest.raises(BadRecord):
        await store.apply([TournamentLog("nobody", 0, [entry(0)])])
    with pytest.raises(BadRecord):
        await store.apply([TournamentOpened("s3", {}, "bob")])  # the id is taken
    with pytest.raises(BadRecord):
        await store.apply([TournamentClosed("s3", "gone")])  # type: ignore[arg-type]
    with pytest.raises(BadSequence):  # all or nothing: the good write before the bad one is undone
        await store.apply([TournamentLog("s3", 2, [entry(2)]), TournamentLog("s3", 2, [entry(2)])])
    assert await store.tournaments.journal("s3") == [entry(0), entry(1)]
    assert await store.apply([TournamentLog("s3", 2, [entry(2)])]) == [3]
    assert await store.tournaments.get("nobody") is None


async def test_a_tables_round_records_belong_to_its_event_and_are_exported(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    await store.accounts.register("bob", "secret")
    d = played_swiss()
    entries = [e.to_dict() for e in record_of(d.director).entries]
    await store.apply([TournamentOpened("s1", d.director.config.to_dict(), "alice"),
                       TournamentLog("s1", 0, entries)])
    for table, n in (("s1.1", 1), ("s1.10", 2)):  # opened with the table, in one transaction
        await store.apply([TableOpened(table, {"tournament": "s1", "table": table}), TournamentTable("s1", table, n)])
    await store.apply([TableOpened("s1.100", {})])  # another table, its id starting as theirs
    with pytest.raises(BadRecord):
        await store.apply([TournamentTable("s1", "s1.1", 3)])  # a table belongs to one event
    for round_id in ("s1.1-ab-1", "s1.1-ab-match", "s1.10-cd-1", "s1.100-ef-1", "s1.1x-gh-1"):
        await store.history.record_round(RoundRecord(round_id, "president", "tdc", ["alice", "bob"], {"seats": 2},
                                                     [], {"event": "round_over"}))
    rounds = await store.tournaments.rounds("s1")
    assert [r.round_id for r in rounds] == ["s1.1-ab-1", "s1.1-ab-match", "s1.10-cd-1"]
    stored = await store.tournaments.get("s1")
    assert stored is not None and list(stored.tables) == [("s1.1", 1), ("s1.10", 2)]
    exported = await store.tournaments.export("s1")
    assert exported is not None
    text = json.dumps(exported)  # JSON as it is
    again = replay(EventRecord.from_dict(json.loads(text)["record"]))
    assert [e.item for e in again.event.journal if isinstance(e.item, OpenTable)] == d.opened
    assert exported["tables"] == [{"table": "s1.1", "round": 1}, {"table": "s1.10", "round": 2}]
    assert exported["rounds"] == ["s1.1-ab-1", "s1.1-ab-match", "s1.10-cd-1"]
    assert await store.tournaments.export("nobody") is None


@pytest.fixture
def url(postgres: PgServer) -> str:
    return postgres.new_database(TEMPLATE)


@pytest_asyncio.fixture
async def two(url: str) -> AsyncIterator[tuple[SQLStore, SQLStore]]:
    a = await open_store(url, FAST)
    b = await open_store(url, FAST, recover=False, exclusive=False)
    yield a, b
    await b.close()
    await a.close()


async def test_a_stale_owners_journal_write_is_refused_after_a_takeover(two: tuple[SQLStore, SQLStore]) -> None:
    a, b = two
    key = fence_key("s9")
    assert await a.apply([Fence(key, 1), TournamentOpened("s9", {}, "ana"),
                          TournamentLog("s9", 0, [entry(0)])]) == [0, None, 1]
    assert await a.apply([Fence(key, 1), TournamentLog("s9", 1, [entry(1)])]) == [1, 2]
    assert await b.apply([Fence(key, 2, take=True)]) == [1]  # b takes the event over, then reads the journal
    for ops in ([TournamentLog("s9", 2, [entry(2)])], [TournamentClosed("s9", "over", [])],
                [TournamentTable("s9", "s9.1", 1)]):
        with pytest.raises(StaleOwner) as refused:
            await a.apply([Fence(key, 1), *ops])
        assert refused.value.current == 2
    assert await b.tournaments.journal("s9") == [entry(0), entry(1)]
    stored = await b.tournaments.get("s9")
    assert stored is not None and stored.status == "open" and stored.tables == []
    assert await b.apply([Fence(key, 2), TournamentLog("s9", 2, [entry(2)])]) == [2, 3]
    # a table's fence and an event's are apart, even where their ids are alike
    assert await a.apply([Fence("s9", 1), TableOpened("s9", {})]) == [0, None]


async def test_the_one_process_sqlite_store_has_no_fences_for_events_either(tmp_path: object) -> None:
    s = await open_store(str(tmp_path) + "/data", FAST)
    try:
        with pytest.raises(BadRecord):
            await s.apply([Fence(fence_key("s1"), 1), TournamentOpened("s1", {}, "ana")])
        assert await s.tournaments.get("s1") is None
    finally:
        await s.close()
