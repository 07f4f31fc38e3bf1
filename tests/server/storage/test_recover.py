"""The start-up recovery when tables resume (docs/restart.md), on SQLite and PostgreSQL.

``recover(keep_tables=True, keep_accounts=...)`` leaves what belongs to an unfinished
table as it is — its unsettled round (escrow stays escrow), the round's holds (open
offers) and transfers, its bots' chips, the guests seated there — and recovers the rest
as after any crash. Setting the table aside afterwards (``TableClosed(..., "aside")``)
voids its round and sends its bots' chips home in one transaction. The audit holds at
every step (RULES invariant 4).
"""

from __future__ import annotations

from server.storage import StoreSettings, open_store
from server.storage.api import (
    HOUSE,
    FundBot,
    Hold,
    OpenRound,
    TableClosed,
    TableLog,
    TableOpened,
    Transfer,
    table_bots,
)

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000, starting_chips=100, guest_chips=50)


async def _audit_ok(store) -> object:  # type: ignore[no-untyped-def]
    audit = await store.ledger.audit()
    assert audit.ok, audit.problems
    return audit


async def test_recovery_keeps_what_an_unfinished_table_owns_and_recovers_the_rest(where: str) -> None:
    store = await open_store(where, FAST)
    try:
        for name in ("alice", "bob", "carol"):
            await store.accounts.register(name, "secret")
        for guest in ("gus", "gwen", "gail"):
            await store.accounts.login_guest(guest)
        # r1 resumes: a Speculation-like deal with antes, a sale inside it, an open offer's hold, a bot
        await store.apply([TableOpened("r1", {"v": 1}), TableLog("r1", 0, [{"k": "a"}]),
                           FundBot("r1-u1-2", 500),
                           OpenRound("r1-u1-1", {"alice": 10, "gus": 10, "bot:r1-u1-2": 10}, table="r1"),
                           Transfer("alice", "bot:r1-u1-2", 7, "sold", round_id="r1-u1-1"),
                           Hold("r1-u1-1-offer1", "gus", 5, round_id="r1-u1-1")])
        # r2 is over, yet a round of it stayed open; a round of no table; a bot of no table
        await store.apply([TableOpened("r2", {}), OpenRound("r2-u1-1", {"bob": 10}, table="r2"),
                           TableClosed("r2", "over")])
        await store.apply([OpenRound("old-1", {"carol": 5}), FundBot("r9-u1-0", 100),
                           Hold("lobby-hold", "alice", 3)])
        assert (await _audit_ok(store)).escrow == 45  # type: ignore[attr-defined]
    finally:
        await store.close()

    store = await open_store(where, FAST, recover=False)
    try:
        got = await store.recover(keep_tables=True, keep_accounts=["gail", "alice"])
        assert got["refunded"] == ["r2-u1-1", "old-1"]  # oldest first; r1's round is kept
        assert (got["guests"], got["holds"]) == (1, 1)  # gwen retired (gus is staked, gail seated)
        audit = await _audit_ok(store)
        assert (audit.escrow, audit.held) == (30, 5)  # type: ignore[attr-defined]
        assert await store.ledger.balance("bob") == await store.ledger.balance("carol") == 100  # stakes back
        assert await store.ledger.balance("alice") == 100 - 10 - 7  # the sale inside the kept round stays
        assert await store.ledger.available("gus") == 50 - 10 - 5  # the offer still holds his chips
        assert await store.accounts.get("gwen") is None
        assert (await store.accounts.get("gail")) is not None and (await store.accounts.get("gus")) is not None
        assert await store.ledger.balance("bot:r1-u1-2") == 500 - 10 + 7  # the resuming table's bot
        assert await store.ledger.balance("bot:r9-u1-0") == 0  # a bot of no table: home
        # the kept round settles as if nothing happened: exactly once
        assert await store.ledger.settle_round("r1-u1-1", {"alice": 30, "gus": 0, "bot:r1-u1-2": 0})
        assert (await _audit_ok(store)).escrow == 0  # type: ignore[attr-defined]
    finally:
        await store.close()


async def test_a_table_set_aside_voids_its_round_and_sends_its_bots_home(where: str) -> None:
    store = await open_store(where, FAST)
    try:
        await store.accounts.register("alice", "secret")
        await store.accounts.login_guest("gus")
        house = await store.ledger.balance(HOUSE)
        await store.apply([TableOpened("r7", {"v": 1}), TableOpened("r17", {"v": 1}), FundBot("r7-u1-1", 300),
                           FundBot("r17-u1-1", 300),
                           OpenRound("r7-u1-4", {"alice": 20, "gus": 20, "bot:r7-u1-1": 20}, table="r7"),
                           Transfer("gus", "alice", 5, "traded", round_id="r7-u1-4"),
                           Hold("r7-u1-4-offer2", "alice", 4, round_id="r7-u1-4")])
        await store.close()
        store = await open_store(where, FAST, recover=False)
        await store.recover(keep_tables=True)
        assert (await _audit_ok(store)).escrow == 60  # type: ignore[attr-defined]
        assert await store.apply([TableClosed("r7", "aside", "entry 4: the replayed state differs")]) == [True]
        audit = await _audit_ok(store)
        assert (audit.escrow, audit.held) == (0, 0)  # type: ignore[attr-defined]
        assert audit.tables_aside == (("r7", "entry 4: the replayed state differs"),)  # type: ignore[attr-defined]
        # every chip movement of the round undone, the table's bots home; another table's bot stays
        assert await store.ledger.balance("alice") == 100 and await store.ledger.balance("gus") == 50
        assert await store.ledger.balance("bot:r7-u1-1") == 0
        assert await store.ledger.balance("bot:r17-u1-1") == 300  # r17's, not r7's
        assert await store.ledger.balance(HOUSE) == house - 300
        assert await store.apply([TableClosed("r7", "aside", "again")]) == [False]  # once
        assert table_bots("r7") == "bot:r7-"
    finally:
        await store.close()
