"""``store.apply``: one transaction for a sequence of operations, on SQLite and PostgreSQL.

Voidable rounds (a Speculation deal voided after a sale: every account exactly
as before), holds (an open offer's price), partial rounds (T13: who cannot
cover the stake sits out), the registration limit, durable tables, group
commit, and invariant 4 (RULES.md) after every scenario.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    AlreadyStaked,
    BadAmount,
    BadRecord,
    BadSequence,
    FundBot,
    Hold,
    InsufficientChips,
    OpenRound,
    RefundRound,
    ReleaseBot,
    ReleaseHold,
    RoundNotOpen,
    RoundOpened,
    SettleRound,
    StorageError,
    TableClosed,
    TableLog,
    TableOpened,
    TooManyRegistrations,
    Transfer,
    UnknownHold,
    UnknownTable,
)
from server.storage.sql.store import SQLStore
from server.storage.sql.tx import Tx

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000, starting_chips=100, guest_chips=50)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def store(where: str, clock: Clock) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST, clock=clock)
    yield s
    audit = await s.ledger.audit()
    summary = await s.ledger.audit_summary()
    await s.close()
    assert audit.ok, audit.problems
    assert summary.ok and (summary.balances, summary.escrow, summary.held, summary.granted, summary.retired) == (
        audit.balances, audit.escrow, audit.held, audit.granted, audit.retired)


async def players(store: SQLStore, *names: str) -> None:
    for n in names:
        await store.accounts.register(n, "secret")


async def balances(store: SQLStore, *names: str) -> list[int]:
    return [await store.ledger.balance(n) for n in names]


async def availables(store: SQLStore, *names: str) -> list[int]:
    return [await store.ledger.available(n) for n in names]


# --------------------------------------------------------------------- atomicity


async def test_apply_is_all_or_nothing(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol")
    before = await store.ledger.audit()
    ops = [
        OpenRound("d1", {"alice": 5, "bob": 5, "carol": 5}),
        Transfer("alice", "bob", 20, "sold", round_id="d1"),
        Transfer("carol", "alice", 96, "traded", round_id="d1"),  # carol has 95 left: refused
    ]
    with pytest.raises(InsufficientChips) as exc:
        await store.apply(ops)
    assert exc.value.account == "carol"
    assert await balances(store, "alice", "bob", "carol") == [100, 100, 100]
    after = await store.ledger.audit()
    assert (after.balances, after.escrow, after.granted) == (before.balances, before.escrow, before.granted)
    # nothing of the refused apply stays: the round id is still free
    results = await store.apply(ops[:2])
    assert results == [RoundOpened("d1", ("alice", "bob", "carol"), (), 15), None]


async def test_apply_refuses_what_is_not_an_operation(store: SQLStore) -> None:
    await players(store, "alice")
    with pytest.raises(BadAmount):
        await store.apply(["transfer"])  # type: ignore[list-item]
    with pytest.raises(BadAmount):
        await store.apply([OpenRound("r", {"alice": 0})])
    with pytest.raises(BadAmount):
        await store.apply([Transfer("alice", "alice", 1, "self")])
    assert await store.apply([]) == []
    assert await balances(store, "alice") == [100]


# --------------------------------------------------------------------- rounds


async def test_T13_partial_round_skips_who_cannot_cover_the_stake(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol", "dave")
    await store.ledger.transfer("carol", "alice", 99, "gift")
    await store.apply([OpenRound("other", {"dave": 95})])  # dave staked most of his at another table
    [opened] = await store.apply([OpenRound("r1", {"alice": 10, "bob": 10, "carol": 10, "dave": 10}, table="t1",
                                            partial=True)])
    assert opened == RoundOpened("r1", ("alice", "bob"), ("carol", "dave"), 20)
    assert await balances(store, "alice", "bob", "carol", "dave") == [189, 90, 1, 5]
    with pytest.raises(BadAmount):  # payouts must match what was escrowed: 20, not 40
        await store.apply([SettleRound("r1", {"alice": 40})])
    assert await store.apply([SettleRound("r1", {"alice": 0, "bob": 20})]) == [True]


async def test_a_partial_round_nobody_covers_opens_empty(store: SQLStore) -> None:
    await players(store, "alice")
    [opened] = await store.apply([OpenRound("r", {"alice": 500}, partial=True)])
    assert opened == RoundOpened("r", (), ("alice",), 0)
    assert await store.apply([SettleRound("r", {})]) == [True]


async def test_an_account_may_be_staked_in_two_rounds_each_from_its_available_chips(store: SQLStore) -> None:
    """A seat its person left plays its round out on their stake while they stake at another table (T1):
    each stake is its own escrow, taken from what is available, never counted twice."""
    await players(store, "alice", "bob")
    before = await store.ledger.balance("alice")
    await store.ledger.open_round("t1-r1", {"alice": 2, "bob": 2})
    await store.ledger.open_round("t2-r1", {"alice": 2})
    assert await store.ledger.balance("alice") == before - 4
    with pytest.raises(InsufficientChips):
        await store.ledger.open_round("t3-r1", {"alice": before - 3})  # only before - 4 are left
    assert await store.ledger.settle_round("t1-r1", {"alice": 4, "bob": 0})
    assert await store.ledger.settle_round("t2-r1", {"alice": 2})
    assert await store.ledger.balance("alice") == before + 2
    assert (await store.ledger.audit()).ok


async def test_S3_S7_a_voided_deal_reverses_its_sales(store: SQLStore) -> None:
    """The attack: a sale paid, the deal voided, only antes refunded: one player kept another's chips."""
    await players(store, "alice", "bob", "carol")
    await store.apply([OpenRound("deal-1", {"alice": 1, "bob": 1, "carol": 1})])
    await store.apply([Transfer("bob", "alice", 30, "sold", round_id="deal-1")])
    await store.apply([Transfer("alice", "carol", 12, "traded", round_id="deal-1")])
    assert await balances(store, "alice", "bob", "carol") == [117, 69, 111]
    # what a round-scoped transfer brought in cannot leave the round while it is unsettled
    assert await availables(store, "alice", "bob", "carol") == [99, 69, 99]
    with pytest.raises(InsufficientChips):
        await store.ledger.transfer("alice", "bob", 100, "elsewhere")
    with pytest.raises(InsufficientChips):
        await store.apply([Hold("h1", "carol", 100)])
    assert await store.apply([RefundRound("deal-1")]) == [True]
    assert await balances(store, "alice", "bob", "carol") == [100, 100, 100]
    assert await store.apply([RefundRound("deal-1")]) == [False]  # exactly once
    assert await store.ledger.refund_round("deal-1") is False
    assert await store.ledger.settle_round("deal-1", {"alice": 3}) is False
    with pytest.raises(RoundNotOpen):
        await store.apply([Transfer("bob", "alice", 1, "late", round_id="deal-1")])
    kinds = [e.kind for e in await store.ledger.statement("bob", 4)]
    assert kinds == ["reverse", "refund", "transfer", "stake"]


async def test_a_settled_deal_keeps_its_sales(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol")
    await store.apply([
        OpenRound("deal-1", {"alice": 2, "bob": 2, "carol": 2}),
        Transfer("bob", "alice", 30, "sold", round_id="deal-1"),
    ])
    assert await availables(store, "alice") == [98]
    assert await store.apply([SettleRound("deal-1", {"carol": 6})]) == [True]
    assert await balances(store, "alice", "bob", "carol") == [128, 68, 104]
    assert await availables(store, "alice") == [128]  # the receipts are alice's now


async def test_receipts_of_a_round_may_be_spent_inside_it(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol")
    await store.apply([OpenRound("d", {"alice": 1, "bob": 1, "carol": 1})])
    await store.ledger.transfer("alice", "bob", 99, "gift")  # alice: nothing of her own left
    await store.apply([Transfer("bob", "alice", 50, "sold", round_id="d")])
    assert await availables(store, "alice") == [0]
    await store.apply([Hold("offer", "alice", 40, round_id="d")])  # within the round: allowed
    await store.apply([Transfer("alice", "carol", 40, "traded", hold_id="offer")])
    assert await balances(store, "alice", "bob", "carol") == [10, 148, 139]
    assert await store.ledger.refund_round("d")  # as before the round: the gift was not part of it
    assert await balances(store, "alice", "bob", "carol") == [1, 199, 100]


async def test_restart_voids_unsettled_rounds_with_their_transfers(where: str) -> None:
    s = await open_store(where, FAST)
    try:
        await players(s, "alice", "bob")
        await s.apply([OpenRound("d1", {"alice": 5, "bob": 5}), Transfer("alice", "bob", 40, "sold", round_id="d1"),
                       Hold("h", "bob", 10, round_id="d1"), Hold("h2", "alice", 10)])
    finally:
        await s.close()  # the server died with d1 open and two holds
    s = await open_store(where, FAST)
    try:
        assert await balances(s, "alice", "bob") == [100, 100]
        assert await availables(s, "alice", "bob") == [100, 100]  # every hold released at start
        a = await s.ledger.audit()
        assert a.ok and a.escrow == 0 and a.held == 0, a.problems
    finally:
        await s.close()


# --------------------------------------------------------------------- holds


async def test_holds_reserve_available_chips(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol")
    await store.apply([OpenRound("d", {"alice": 10, "bob": 10, "carol": 10})])
    await store.apply([Hold("offer-1", "alice", 60, round_id="d")])
    assert (await balances(store, "alice"), await availables(store, "alice")) == ([90], [30])
    with pytest.raises(InsufficientChips):
        await store.apply([Hold("offer-2", "alice", 31, round_id="d")])
    with pytest.raises(InsufficientChips):
        await store.ledger.transfer("alice", "bob", 31, "trade")
    with pytest.raises(BadAmount):
        await store.apply([Hold("offer-1", "bob", 1)])  # a hold id is used once at a time
    # the sale of the offer: paid from the hold, which is consumed
    with pytest.raises(BadAmount):
        await store.apply([Transfer("alice", "bob", 61, "traded", hold_id="offer-1")])
    with pytest.raises(BadAmount):
        await store.apply([Transfer("bob", "alice", 5, "traded", hold_id="offer-1")])  # not bob's hold
    await store.apply([Transfer("alice", "bob", 60, "traded", hold_id="offer-1")])
    assert await availables(store, "alice", "bob") == [30, 90]  # bob's receipts stay in the round
    with pytest.raises(UnknownHold):
        await store.apply([Transfer("alice", "bob", 1, "again", hold_id="offer-1")])
    assert await store.apply([ReleaseHold("offer-1")]) == [False]
    # the round's holds go when it settles
    await store.apply([Hold("offer-3", "carol", 50, round_id="d")])
    assert await availables(store, "carol") == [40]
    assert await store.apply([SettleRound("d", {"carol": 30})]) == [True]
    assert await availables(store, "carol") == [120]
    with pytest.raises(RoundNotOpen):
        await store.apply([Hold("offer-4", "carol", 1, round_id="d")])


async def test_release_hold_and_open_round_uses_available(store: SQLStore) -> None:
    await players(store, "alice", "bob")
    await store.apply([Hold("h", "alice", 95)])
    [opened] = await store.apply([OpenRound("r", {"alice": 10, "bob": 10}, partial=True)])
    assert opened.covered == ("bob",) and opened.skipped == ("alice",)
    assert await store.apply([ReleaseHold("h"), ReleaseHold("h")]) == [True, False]
    assert await availables(store, "alice") == [100]
    summary = await store.ledger.audit_summary()
    assert summary.held == 0 and summary.escrow == 10


async def test_a_guest_who_leaves_keeps_what_an_open_round_may_take_back(store: SQLStore) -> None:
    await players(store, "alice")
    await store.accounts.login_guest("gus")
    await store.apply([OpenRound("d", {"alice": 5, "gus": 5}), Transfer("alice", "gus", 30, "sold", round_id="d")])
    await store.accounts.logout_guest("gus")  # retires 45: the 30 may go back to alice
    a = await store.ledger.audit()
    assert a.ok and a.retired == 45, a.problems
    assert await store.ledger.refund_round("d")  # alice gets her 30 back; gus's stake is retired
    assert await balances(store, "alice") == [100]
    a = await store.ledger.audit()
    assert a.ok and a.retired == 50 and a.escrow == 0, a.problems


async def test_bots_fund_and_release_through_apply(store: SQLStore) -> None:
    [bot] = await store.apply([FundBot("t1-0", 300)])
    assert (bot.name, bot.chips) == ("bot:t1-0", 300)
    assert await store.apply([FundBot("t1-0", 100), ReleaseBot("t1-0"), ReleaseBot("t1-0")]) == [
        type(bot)(name="bot:t1-0", guest=False, chips=100), 100, 0]
    assert await balances(store, "bot:house") == [10_000]


# --------------------------------------------------------------------- registrations


async def test_registrations_per_address_per_hour(store: SQLStore, clock: Clock) -> None:
    for i in range(3):
        await store.accounts.register(f"user{i}", "secret", address="192.0.2.1")
    with pytest.raises(TooManyRegistrations) as exc:
        await store.accounts.register("user3", "secret", address="192.0.2.1")
    assert exc.value.code == "too_many_registrations"
    assert not await store.accounts.exists("user3")
    await store.accounts.register("other", "secret", address="192.0.2.2")
    await store.accounts.register("nobody", "secret")  # no address (tools, tests): not counted
    clock.now += 3601
    await store.accounts.register("user3", "secret", address="192.0.2.1")
    a = await store.ledger.audit()
    assert a.granted == 10_000 + 6 * 100


async def test_registration_limit_zero_means_none(where: str) -> None:
    s = await open_store(where, {"scrypt_n": 1024, "registrations_per_hour": 0})
    try:
        for i in range(5):
            await s.accounts.register(f"user{i}", "secret", address="192.0.2.1")
    finally:
        await s.close()


# --------------------------------------------------------------------- group commit


async def test_applies_of_one_loop_turn_share_one_commit(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol", "dave")
    commits = store._thread.commits
    results = await asyncio.gather(
        store.apply([OpenRound("t1-1", {"alice": 5, "bob": 5})]),
        store.apply([OpenRound("t2-1", {"carol": 5, "dave": 500})]),  # refused alone
        store.apply([Transfer("carol", "dave", 7, "gift")]),
        return_exceptions=True,
    )
    assert isinstance(results[1], InsufficientChips) and results[1].account == "dave"
    assert results[0] == [RoundOpened("t1-1", ("alice", "bob"), (), 10)] and results[2] == [None]
    assert store._thread.commits == commits + 1
    assert await balances(store, "carol", "dave") == [93, 107]


@pytest.mark.parametrize("where", ["sqlite"], indirect=True)
async def test_a_job_failing_for_a_passing_reason_runs_again_alone(store: SQLStore) -> None:
    """PostgreSQL deadlocks and serialization failures: the job is undone alone and run again."""

    class Passing(Exception):
        pass

    store.backend.transient = lambda exc: isinstance(exc, Passing)  # type: ignore[method-assign]
    calls: list[int] = []

    def flaky(tx: Any) -> int:
        tx.execute("INSERT INTO counters (name, value) VALUES ('flaky', ?)", (len(calls),))
        calls.append(1)
        if len(calls) < 3:
            raise Passing("deadlock detected")
        return 7

    await players(store, "alice")
    results = await asyncio.gather(store.run_write(flaky), store.apply([Hold("h", "alice", 5)]))
    assert results == [7, [None]] and len(calls) == 3 and store._thread.retries == 2
    assert await store.read(lambda c: c.execute("SELECT value FROM counters WHERE name = 'flaky'").fetchone()[0]) == 2


# --------------------------------------------------------------------- tables


async def test_a_tables_log_alone_waits_for_no_fsync_of_its_own_chips_always_do(store: SQLStore,
                                                                               monkeypatch: Any) -> None:
    kinds: list[str] = []
    submit = store._submit

    def recording(kind: str, fn: Any, *group: Any) -> Any:
        kinds.append(kind)
        return submit(kind, fn, *group)

    await players(store, "alice", "bob")
    monkeypatch.setattr(store, "_submit", recording)
    await store.apply([TableOpened("t5", {"game": "president"})])
    await store.apply([TableLog("t5", 0, [{"cmd": "x"}])])
    await store.apply([TableLog("t5", 1, [{"cmd": "y"}]), Hold("h5", "alice", 1)])
    await store.apply([TableClosed("t5", "over")])
    assert kinds == ["relaxed", "relaxed", "write", "relaxed"]


async def test_the_logs_of_many_tables_at_one_moment_are_written_together_each_refused_alone(
        store: SQLStore) -> None:
    """Every table's step of one loop turn: one commit and two statements for all of them; one that
    would be refused (a gap, an entry that is no JSON, a closed table) is refused alone, the others
    are written, and a table twice in one moment keeps its order."""
    for t in ("g1", "g2", "g3", "g4", "g5", "g6"):
        await store.apply([TableOpened(t, {"game": "president"})])
        await store.apply([TableLog(t, 0, [{"cmd": "deal"}])])
    await store.apply([TableClosed("g6", "over")])
    commits, grouped = store._thread.commits, store._thread.grouped
    results = await asyncio.gather(*(store.apply([TableLog(t, 1, [{"cmd": "play", "t": t}, {"k": "s"}])])
                                     for t in ("g1", "g2", "g3")))
    assert results == [[3], [3], [3]]
    assert store._thread.commits == commits + 1 and store._thread.grouped == grouped + 3
    results = await asyncio.gather(
        store.apply([TableLog("g1", 3, [{"cmd": "pass"}])]),
        store.apply([TableLog("g2", 9, [{"cmd": "gap"}])]),
        store.apply([TableLog("g3", 3, [{"bad": float("nan")}])]),
        store.apply([TableLog("g4", 1, [{"cmd": "play"}])]),
        store.apply([TableLog("g6", 1, [{"cmd": "late"}])]),
        store.apply([TableLog("g5", 1, [{"cmd": "play"}])]),
        store.apply([TableLog("g5", 2, [{"cmd": "pass"}])]),
        return_exceptions=True,
    )
    assert results[0] == [4] and results[3] == [2] and results[5] == [2] and results[6] == [3]
    assert isinstance(results[1], BadSequence) and isinstance(results[2], BadRecord)
    assert isinstance(results[4], BadRecord)  # its log is closed
    assert store._thread.commits == commits + 2 and store._thread.grouped == grouped + 3
    logs = {t.table_id: list(t.entries) for t in await store.tables.unfinished()}
    assert logs["g1"] == [{"cmd": "deal"}, {"cmd": "play", "t": "g1"}, {"k": "s"}, {"cmd": "pass"}]
    for t in ("g2", "g3"):
        assert logs[t] == [{"cmd": "deal"}, {"cmd": "play", "t": t}, {"k": "s"}]
    assert logs["g5"] == [{"cmd": "deal"}, {"cmd": "play"}, {"cmd": "pass"}]
    assert "g6" not in logs
    # and the next step of each goes on from where it is
    assert await asyncio.gather(store.apply([TableLog("g2", 3, [{"cmd": "x"}])]),
                                store.apply([TableLog("g4", 2, [{"cmd": "x"}])])) == [[4], [3]]
    # in the order they came: a table closed by the write before is closed for the group after it
    results = await asyncio.gather(store.apply([TableClosed("g1", "over")]),
                                   store.apply([TableLog("g1", 4, [{"cmd": "late"}])]),
                                   store.apply([TableLog("g2", 4, [{"cmd": "y"}])]), return_exceptions=True)
    assert results[0] == [True] and isinstance(results[1], BadRecord) and results[2] == [5]


async def test_a_moment_of_table_steps_alone_in_a_batch_takes_no_savepoint(
        store: SQLStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch that is only tables' steps (one, or a busy moment's many) is BEGIN, the group's two
    statements, COMMIT: every statement gives the GIL away and takes it back. When one of them would
    be refused, the transaction is begun again and each is written or refused alone."""
    for t in ("s1", "s2", "s3"):
        await store.apply([TableOpened(t, {"game": "president"})])
    said: list[str] = []
    kind = type(store.backend.tx())  # the backend's own (PostgreSQL's writes its placeholders)
    execute = kind.execute

    def recording(self: Tx, sql: str, params: Any = ()) -> Any:
        said.append(" ".join(sql.split()[:2]).upper())
        return execute(self, sql, params)

    monkeypatch.setattr(kind, "execute", recording)
    assert await store.apply([TableLog("s1", 0, [{"cmd": "deal"}])]) == [1]
    assert not any(s.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")) for s in said), said
    assert len([s for s in said if not s.startswith(("PRAGMA", "SET"))]) == 4, said
    said.clear()
    assert await asyncio.gather(*(store.apply([TableLog(t, 0 if t != "s1" else 1, [{"cmd": "x"}])])
                                  for t in ("s1", "s2", "s3"))) == [[2], [1], [1]]
    assert not any(s.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")) for s in said), said
    said.clear()
    results = await asyncio.gather(store.apply([TableLog("s1", 2, [{"cmd": "y"}])]),
                                   store.apply([TableLog("s2", 5, [{"cmd": "gap"}])]), return_exceptions=True)
    assert results[0] == [3] and isinstance(results[1], BadSequence)
    assert said.count("ROLLBACK") == 1 and "SAVEPOINT JOB" in said, said
    logs = {t.table_id: list(t.entries) for t in await store.tables.unfinished()}
    assert logs["s1"] == [{"cmd": "deal"}, {"cmd": "x"}, {"cmd": "y"}] and logs["s2"] == [{"cmd": "x"}]


async def test_tables_log_and_close(store: SQLStore) -> None:
    await players(store, "alice", "bob", "carol")
    config: dict[str, Any] = {"game": "speculation", "seats": 3, "ante": 1, "names": ["Zoé", "bob"]}
    assert await store.apply([TableOpened("t7", config)]) == [None]
    with pytest.raises(BadRecord):
        await store.apply([TableOpened("t7", config)])
    deal = {"cmd": "deal", "seed": "00ff", "present": [0, 1, 2]}
    # the log entry and the chip movements it causes: one transaction
    assert await store.apply([TableLog("t7", 0, [deal]), OpenRound("t7-1", {"alice": 1, "bob": 1, "carol": 1})]) == [
        1, RoundOpened("t7-1", ("alice", "bob", "carol"), (), 3)]
    with pytest.raises(InsufficientChips):
        await store.apply([TableLog("t7", 1, [{"cmd": "bid", "seat": 0}]),
                           Transfer("alice", "bob", 1000, "sold", round_id="t7-1")])
    with pytest.raises(BadSequence):
        await store.apply([TableLog("t7", 2, [{"cmd": "x"}])])  # a gap: entry 1 was not stored
    assert await store.apply([TableLog("t7", 1, [{"cmd": "bid", "seat": 0}, {"cmd": "sell", "seat": 1}])]) == [3]
    with pytest.raises(BadSequence):
        await store.apply([TableLog("t7", 2, [{"cmd": "x"}])])  # an overlap
    with pytest.raises(BadRecord):
        await store.apply([TableLog("t7", 3, [{"bad": float("nan")}])])
    with pytest.raises(BadRecord):
        await store.apply([TableLog("t7", 3, ["not a dict"])])  # type: ignore[list-item]
    before = await store.ledger.balance("alice")
    with pytest.raises(BadRecord):  # too long: refused where it is written, and the chips beside it with it
        await store.apply([TableLog("t7", 3, [{"cmd": "pass"}, {"note": "x" * 70_000}]),
                           Transfer("bob", "alice", 1, "sold", round_id="t7-1")])
    assert await store.ledger.balance("alice") == before
    with pytest.raises(UnknownTable):
        await store.apply([TableLog("t8", 0, [])])
    [t] = await store.tables.unfinished()
    assert (t.table_id, t.config, list(t.entries), t.status) == (
        "t7", config, [deal, {"cmd": "bid", "seat": 0}, {"cmd": "sell", "seat": 1}], "open")
    assert t.opened_at > 0
    # one row per write, numbered by its first entry; a log written one row per entry reads the same
    rows = await store.read(lambda c: c.execute("SELECT seq FROM table_log WHERE table_id = 't7' ORDER BY seq").fetchall())
    assert [r[0] for r in rows] == [0, 1]

    def one_row_per_entry(tx: Any) -> None:
        for seq, cmd in enumerate(["a", "b"]):
            tx.execute(f"""INSERT INTO table_log (table_id, seq, entry) VALUES ('t6', {seq}, '{{"cmd":"{cmd}"}}')""")
        tx.execute("UPDATE tables SET next_seq = 2 WHERE table_id = 't6'")

    await store.apply([TableOpened("t6", {"game": "president"})])
    await store.run_write(one_row_per_entry)
    assert await store.apply([TableLog("t6", 2, [{"cmd": "c"}, {"cmd": "d"}])]) == [4]
    assert [list(x.entries) for x in await store.tables.unfinished() if x.table_id == "t6"] == [
        [{"cmd": "a"}, {"cmd": "b"}, {"cmd": "c"}, {"cmd": "d"}]]
    await store.apply([TableClosed("t6", "over")])
    await store.apply([TableOpened("t8", {"game": "president"})])
    with pytest.raises(BadRecord):
        await store.apply([TableClosed("t8", "gone", "")])  # type: ignore[arg-type]
    assert await store.apply([TableClosed("t8", "aside", "replay diverged at entry 4"), RefundRound("t7-1")]) == [
        True, True]
    assert await store.apply([TableClosed("t8", "over")]) == [False]
    with pytest.raises(BadRecord):
        await store.apply([TableLog("t8", 0, [{"cmd": "late"}])])
    audit = await store.ledger.audit()
    assert audit.tables_aside == (("t8", "replay diverged at entry 4"),)
    assert audit.tables_unfinished == ("t7",)
    await store.apply([TableClosed("t7", "over", "match over")])
    assert await store.tables.unfinished() == []
    kept = await store.tables.get("t7")  # finished tables are kept (replays)
    assert kept is not None and kept.status == "over" and len(kept.entries) == 3 and kept.closed_at
    assert await store.tables.get("nope") is None


async def test_table_numbers_never_repeat(where: str) -> None:
    seen = []
    for _ in range(2):
        s = await open_store(where, FAST)
        try:
            seen += [await s.tables.next_table_number() for _ in range(3)]
        finally:
            await s.close()
    assert seen == [1, 2, 3, 4, 5, 6]


# --------------------------------------------------------------------- errors keep their codes


def test_new_storage_errors_carry_protocol_codes() -> None:
    assert TooManyRegistrations.code == "too_many_registrations"
    assert issubclass(AlreadyStaked, InsufficientChips) and issubclass(RoundNotOpen, StorageError)
    assert BadSequence.code == "bad_argument"
    err = InsufficientChips("x", account="bob")
    assert (err.account, err.names) == ("bob", ["bob"])
