"""The store against real databases: accounts, passwords, guests, keys, ledger, history.

Every test taking ``store`` or ``where`` runs twice: on a SQLite file and on a
fresh database of a private PostgreSQL (tests/kits/storefixtures.py).
Invariant 4 (RULES.md: chips are never created or lost) is checked with
``audit()`` after every scenario; a tampered database must fail the audit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    HOUSE,
    BadAmount,
    BadKey,
    BadName,
    BadPassword,
    InsufficientChips,
    NameTaken,
    NoSuchAccount,
    OpenRound,
    RoundRecord,
    SettleRound,
    StorageError,
    Transfer,
    UnknownRound,
    bot_account,
)
from server.storage.cli import main as audit_main
from server.storage.sql.store import SQLStore
from server.storage.sqlite import db_path
from tests.kits.storefixtures import audit_args, is_pg

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000)


class Sleeps:
    """Records the back-off instead of waiting (no timed assertions)."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(0)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest_asyncio.fixture
async def store(where: str, sleeps: Sleeps) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST, sleep=sleeps)
    yield s
    audit = await s.ledger.audit()
    await s.close()
    assert audit.ok, audit.problems


async def total(store: SQLStore) -> int:
    a = await store.ledger.audit()
    return a.balances + a.escrow


# --------------------------------------------------------------------- opening


async def test_open_store_creates_file_with_wal_and_full_sync(tmp_path: Path) -> None:
    s = await open_store(tmp_path / "data", FAST)
    try:
        assert (tmp_path / "data" / "donne.sqlite3").exists()

        def pragmas(conn: sqlite3.Connection) -> tuple[str, int, int]:
            return (
                conn.execute("PRAGMA journal_mode").fetchone()[0],
                conn.execute("PRAGMA synchronous").fetchone()[0],
                conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0],
            )

        mode, sync, version = await s.read(pragmas)
        assert mode == "wal"
        assert sync == 2  # FULL
        assert version >= 1
    finally:
        await s.close()


async def test_open_store_accepts_a_file_path_and_a_config_mapping(tmp_path: Path) -> None:
    s = await open_store(tmp_path / "x.sqlite3", {"starting_chips": 77, "scrypt_n": 1024, "other": 1})
    try:
        assert (await s.accounts.register("alice", "secret")).chips == 77
    finally:
        await s.close()
    assert db_path(tmp_path / "x.sqlite3") == tmp_path / "x.sqlite3"


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


async def test_data_folder_is_0700_and_database_files_0600(tmp_path: Path) -> None:
    """The file holds password hashes: only the server's user may read it (and its WAL, SHM, lock)."""
    data = tmp_path / "data" / "deeper"
    s = await open_store(data, FAST)
    try:
        await s.accounts.register("alice", "secret")
        files = [data / "donne.sqlite3", *(data / f"donne.sqlite3{x}" for x in ("-wal", "-shm", ".lock"))]
        assert [_mode(data), _mode(data.parent)] == [0o700, 0o700]
        assert [_mode(f) for f in files] == [0o600] * 4
    finally:
        await s.close()
    # files left readable by an older version (or by hand) are made private at the next open
    data.chmod(0o755)
    (data / "donne.sqlite3").chmod(0o644)
    (data / "donne.sqlite3.lock").chmod(0o666)
    s = await open_store(data, FAST)
    try:
        assert _mode(data) == 0o700
        assert [_mode(f) for f in files] == [0o600] * 4
    finally:
        await s.close()
    # a database file given by its path: the file is private, the folder it is in is left alone
    tmp_path.chmod(0o755)
    s = await open_store(tmp_path / "x.sqlite3", FAST)
    try:
        assert (_mode(tmp_path), _mode(tmp_path / "x.sqlite3")) == (0o755, 0o600)
    finally:
        await s.close()


async def test_house_account_is_granted_once(where: str) -> None:
    s = await open_store(where, FAST)
    assert await s.ledger.balance(HOUSE) == 10_000
    await s.close()
    s = await open_store(where, FAST)
    a = await s.ledger.audit()
    await s.close()
    assert a.granted == 10_000 and a.ok


async def test_one_store_per_data_folder(where: str) -> None:
    """Two servers on one database would refund each other's open rounds: the second is refused."""
    s = await open_store(where, FAST)
    try:
        with pytest.raises(StorageError, match="in use"):
            await open_store(where, FAST, lock_wait=0.2)
        assert audit_main(audit_args(where)) == 0  # the read-only audit still works beside it
    finally:
        await s.close()
    s = await open_store(where, FAST)
    await s.close()


async def test_close_is_idempotent(where: str) -> None:
    s = await open_store(where, FAST)
    await s.close()
    await s.close()


# --------------------------------------------------------------------- accounts


async def test_register_then_verify(store: SQLStore) -> None:
    acc = await store.accounts.register("Zoé", "secret")
    assert (acc.name, acc.guest, acc.chips) == ("Zoé", False, 1000)
    assert await store.accounts.exists("ZOÉ")
    assert await store.accounts.verify_password("zoé", "secret") == acc
    assert (await store.accounts.get("zoe\u0301")) == acc


async def test_register_refuses_taken_confusable_and_bad_names(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    with pytest.raises(NameTaken):
        await store.accounts.register("ALICE", "secret")
    with pytest.raises(NameTaken):
        await store.accounts.register("аlice", "secret")  # Cyrillic а
    with pytest.raises(NameTaken):
        await store.accounts.register("a1ice", "secret")
    with pytest.raises(BadName):
        await store.accounts.register("a", "secret")
    with pytest.raises(BadName):
        await store.accounts.register("bot:x", "secret")
    with pytest.raises(BadPassword):
        await store.accounts.register("bob", "abc")
    with pytest.raises(BadPassword):
        await store.accounts.register("bob", "se\x00cret")
    assert not await store.accounts.exists("bob")
    a = await store.ledger.audit()
    assert a.granted == 10_000 + 1000  # only alice was granted


async def test_password_is_stored_as_scrypt_with_parameters(store: SQLStore) -> None:
    await store.accounts.register("alice", "hunter22")

    def stored(conn: sqlite3.Connection) -> str:
        return str(conn.execute("SELECT password FROM accounts WHERE key = 'alice'").fetchone()[0])

    text = await store.read(stored)
    scheme, n, r, p, salt, digest = text.split("$")
    assert (scheme, n, r, p) == ("scrypt", "1024", "8", "1")
    assert len(salt) >= 22 and len(digest) >= 43  # 16-byte salt, 32-byte hash (base64)
    if not is_pg(str(getattr(store, "url", ""))):
        assert b"hunter22" not in db_path(store.path).read_bytes()  # type: ignore[attr-defined]
    assert StoreSettings().scrypt_n == 2**14


async def test_two_accounts_with_one_password_get_different_hashes(store: SQLStore) -> None:
    await store.accounts.register("alice", "same-pw")
    await store.accounts.register("bobby", "same-pw")

    def hashes(conn: sqlite3.Connection) -> set[str]:
        return {r[0] for r in conn.execute("SELECT password FROM accounts WHERE kind = 'player'")}

    assert len(await store.read(hashes)) == 2


async def test_wrong_passwords_are_slowed_down_and_logged(
    store: SQLStore, sleeps: Sleeps, caplog: pytest.LogCaptureFixture
) -> None:
    await store.accounts.register("alice", "secret")
    caplog.set_level(logging.WARNING, logger="donne.storage.auth")
    for _ in range(3):
        assert await store.accounts.verify_password("alice", "guess-one", "10.0.0.1") is None
    assert sleeps.delays == [0.5, 1.0, 2.0]
    assert "wrong password for 'alice' from 10.0.0.1: failure 3" in caplog.text
    assert "guess-one" not in caplog.text
    # the right password still works, and clears the name's count
    assert await store.accounts.verify_password("alice", "secret", "10.0.0.2") is not None
    assert await store.accounts.verify_password("alice", "nope", "10.0.0.2") is None
    assert sleeps.delays[-1] == 0.5


async def test_backoff_per_address_spans_names_and_is_capped(store: SQLStore, sleeps: Sleeps) -> None:
    for i in range(8):
        await store.accounts.verify_password(f"user{i}", "x", "192.0.2.7")
    assert sleeps.delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]


async def test_unknown_name_is_answered_like_a_wrong_password(
    store: SQLStore, sleeps: Sleeps, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="donne.storage.auth")
    assert await store.accounts.verify_password("nobody", "pw") is None
    assert sleeps.delays == [0.5]
    assert "'nobody'" in caplog.text


async def test_parallel_guesses_on_one_name_queue_behind_the_backoff(store: SQLStore, sleeps: Sleeps) -> None:
    await store.accounts.register("alice", "secret")
    results = await asyncio.gather(*(store.accounts.verify_password("alice", f"g{i}") for i in range(4)))
    assert results == [None] * 4
    assert sleeps.delays == [0.5, 1.0, 2.0, 4.0]


async def test_set_password(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    await store.accounts.set_password("alice", "better-one")
    assert await store.accounts.verify_password("alice", "secret") is None
    assert await store.accounts.verify_password("alice", "better-one") is not None


# --------------------------------------------------------------------- guests


async def test_guest_gets_a_grant_that_is_retired_when_leaving(store: SQLStore) -> None:
    g = await store.accounts.login_guest("Bob")
    assert (g.name, g.guest, g.chips) == ("Bob", True, 200)
    assert not await store.accounts.exists("bob")  # a guest is not a registered account
    assert await store.accounts.login_guest("bob") == g  # same guest: no second grant
    await store.accounts.logout_guest("bob")
    a = await store.ledger.audit()
    assert (a.granted, a.retired) == (10_000 + 200, 200)
    assert await store.accounts.get("bob") is None
    await store.accounts.logout_guest("bob")  # twice: nothing happens
    # the name is free again, for a guest or an account
    assert (await store.accounts.register("bob", "secret")).chips == 1000


async def test_guest_refused_on_registered_or_look_alike_names(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    with pytest.raises(NameTaken):
        await store.accounts.login_guest("Alice")
    with pytest.raises(NameTaken):
        await store.accounts.login_guest("аlice")
    await store.accounts.login_guest("carol")
    with pytest.raises(NameTaken):
        await store.accounts.login_guest("caro1")
    with pytest.raises(NameTaken):
        await store.accounts.register("carol", "secret")  # a guest is using it now
    with pytest.raises(BadName):
        await store.accounts.login_guest("no spaces")


async def test_guest_leaving_mid_round_is_paid_then_retired(store: SQLStore) -> None:
    """T13: a guest who left still gets his payout; it is retired at once, nothing lost."""
    await store.accounts.register("alice", "secret")
    await store.accounts.login_guest("bob")
    await store.ledger.open_round("r1", {"alice": 10, "bob": 10})
    await store.accounts.logout_guest("bob")
    assert await store.ledger.settle_round("r1", {"alice": 0, "bob": 20})
    a = await store.ledger.audit()
    assert a.ok, a.problems
    assert a.retired == 190 + 20
    assert await store.ledger.balance("alice") == 990


async def test_recovery_retires_guests_left_over(where: str) -> None:
    s = await open_store(where, FAST)
    await s.accounts.login_guest("bob")
    await s.close()  # no logout: a crash
    s = await open_store(where, FAST)
    try:
        assert await s.accounts.get("bob") is None
        a = await s.ledger.audit()
        assert a.ok and a.retired == 200
    finally:
        await s.close()


# --------------------------------------------------------------------- ssh keys


def _pubkey(comment: str = "") -> str:
    key = asyncssh.generate_private_key("ssh-ed25519", comment=comment or None)
    return key.export_public_key("openssh").decode().strip()


async def test_public_keys(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    k1, k2 = _pubkey("alice@laptop"), _pubkey()
    await store.accounts.add_key("alice", k1)
    await store.accounts.add_key("ALICE", k2 + "\n")
    await store.accounts.add_key("alice", k1)  # twice: kept once
    keys = await store.accounts.keys("alice")
    assert keys == [k1, k2]
    imported = asyncssh.import_authorized_keys("\n".join(keys))
    assert imported is not None
    assert await store.accounts.remove_key("alice", k2)
    assert await store.accounts.keys("alice") == [k1]


async def test_public_keys_refused(store: SQLStore) -> None:
    await store.accounts.register("alice", "secret")
    await store.accounts.login_guest("bob")
    for bad in ("", "ssh-ed25519", "ssh-ed25519 AAAAnotbase64!!", "hello world", _pubkey() + "\n" + _pubkey()):
        with pytest.raises(BadKey):
            await store.accounts.add_key("alice", bad)
    with pytest.raises(NoSuchAccount):
        await store.accounts.add_key("bob", _pubkey())
    assert await store.accounts.keys("bob") == []
    assert await store.accounts.keys("nobody") == []


# --------------------------------------------------------------------- ledger


async def _players(store: SQLStore, *names: str) -> None:
    for n in names:
        await store.accounts.register(n, "secret")


async def test_T13_open_round_is_all_or_nothing(store: SQLStore) -> None:
    await _players(store, "alice", "bob", "carol")
    await store.ledger.transfer("carol", "alice", 995, "gift")
    before = await total(store)
    with pytest.raises(InsufficientChips) as exc:
        await store.ledger.open_round("r1", {"alice": 10, "bob": 10, "carol": 10})
    assert exc.value.names == ["carol"]  # type: ignore[attr-defined]
    assert [await store.ledger.balance(n) for n in ("alice", "bob", "carol")] == [1995, 1000, 5]
    assert await total(store) == before
    with pytest.raises(UnknownRound):
        await store.ledger.settle_round("r1", {"alice": 20})
    # a stake exactly the balance is fine
    await store.ledger.open_round("r1", {"alice": 10, "bob": 10, "carol": 5})
    assert (await store.ledger.audit()).escrow == 25


async def test_T13_settle_exactly_once(store: SQLStore) -> None:
    await _players(store, "alice", "bob", "carol", "dave")
    stakes = dict.fromkeys(("alice", "bob", "carol", "dave"), 4)
    await store.ledger.open_round("r1", stakes)
    # T13 with N = 4: Président 2S, VP 1.5S, vice-last 0.5S, last 0
    payouts = {"alice": 8, "bob": 6, "carol": 2, "dave": 0}
    with pytest.raises(BadAmount):
        await store.ledger.settle_round("r1", {**payouts, "alice": 9})
    with pytest.raises(BadAmount):
        await store.ledger.settle_round("r1", {**payouts, "dave": -1})
    assert await store.ledger.settle_round("r1", payouts) is True
    assert await store.ledger.settle_round("r1", payouts) is False
    assert await store.ledger.settle_round("r1", {"alice": 16}) is False
    assert [await store.ledger.balance(n) for n in stakes] == [1004, 1002, 998, 996]
    with pytest.raises(BadAmount):
        await store.ledger.open_round("r1", stakes)  # a round id is used once


async def test_stakes_and_amounts_must_be_positive_whole_numbers(store: SQLStore) -> None:
    await _players(store, "alice", "bob")
    for bad in (0, -2, 1.5, True, "3"):
        with pytest.raises(BadAmount):
            await store.ledger.open_round("r", {"alice": bad})  # type: ignore[dict-item]
        with pytest.raises(BadAmount):
            await store.ledger.transfer("alice", "bob", bad, "x")  # type: ignore[arg-type]
        with pytest.raises(BadAmount):
            await store.ledger.grant("alice", bad, "x")  # type: ignore[arg-type]
    with pytest.raises(NoSuchAccount):
        await store.ledger.open_round("r", {"alice": 2, "nobody": 2})
    assert await store.ledger.balance("alice") == 1000


async def test_S7_S9_transfers(store: SQLStore) -> None:
    await _players(store, "alice", "bob")
    await store.ledger.transfer("alice", "bob", 30, "auction", ref="deal-1")
    assert (await store.ledger.balance("alice"), await store.ledger.balance("bob")) == (970, 1030)
    with pytest.raises(InsufficientChips):
        await store.ledger.transfer("alice", "bob", 971, "trade")
    with pytest.raises(BadAmount):
        await store.ledger.transfer("alice", "ALICE", 1, "self")
    entries = await store.ledger.statement("bob")
    assert (entries[0].delta, entries[0].kind, entries[0].ref) == (30, "transfer", "auction:deal-1")
    assert (entries[-1].kind, entries[-1].delta) == ("grant", 1000)


async def test_every_movement_is_an_entry(store: SQLStore) -> None:
    await _players(store, "alice", "bob")
    await store.ledger.open_round("r1", {"alice": 2, "bob": 2})
    await store.ledger.settle_round("r1", {"alice": 4, "bob": 0})
    await store.ledger.transfer("bob", "alice", 5, "trade")
    await store.ledger.grant("bob", 50, "birthday")

    def sums(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
        return [
            (r[0], r[1], r[2])
            for r in conn.execute(
                "SELECT a.name, a.balance, SUM(e.delta) FROM accounts a JOIN entries e ON e.account_id = a.id "
                "WHERE a.kind = 'player' GROUP BY a.id ORDER BY a.name"
            )
        ]

    assert await store.read(sums) == [("alice", 1007, 1007), ("bob", 1043, 1043)]
    kinds = [e.kind for e in reversed(await store.ledger.statement("bob"))]
    assert kinds == ["grant", "stake", "transfer", "grant"]  # a payout of 0 writes no entry


async def test_concurrent_settlements_keep_the_invariant(store: SQLStore) -> None:
    names = [f"user{chr(97 + i // 6)}{chr(97 + i % 6)}" for i in range(36)]  # no two look alike
    await _players(store, *names)
    before = await total(store)
    rounds = [f"round-{i}" for i in range(12)]
    seats = {r: names[3 * i : 3 * i + 3] for i, r in enumerate(rounds)}  # one table at a time each
    await asyncio.gather(*(store.ledger.open_round(r, dict.fromkeys(seats[r], 2)) for r in rounds))
    assert (await store.ledger.audit()).escrow == 12 * 6

    async def settle(i: int, r: str) -> bool:
        a, b, c = seats[r]
        return await store.ledger.settle_round(r, {a: 6 if i % 2 else 0, b: 0 if i % 2 else 6, c: 0})

    # each round settled twice at the same time: exactly one wins
    results = await asyncio.gather(*(settle(i, r) for i, r in enumerate(rounds)), *(settle(i, r) for i, r in enumerate(rounds)))
    assert sum(results) == 12
    a = await store.ledger.audit()
    assert a.ok and a.escrow == 0 and a.balances + a.escrow == before


async def test_refund_unsettled_after_a_simulated_crash(where: str) -> None:
    s = await open_store(where, FAST)
    await _players(s, "alice", "bob", "carol")
    await s.ledger.open_round("r1", {"alice": 10, "bob": 10})
    await s.ledger.open_round("r2", {"carol": 6})
    await s.ledger.settle_round("r2", {"carol": 6})
    await s.close()  # the server died with r1 open
    s = await open_store(where, FAST, recover=False)
    try:
        assert (await s.ledger.audit()).escrow == 20
        assert await s.ledger.refund_unsettled() == ["r1"]
        assert await s.ledger.refund_unsettled() == []
        assert [await s.ledger.balance(n) for n in ("alice", "bob")] == [1000, 1000]
        assert await s.ledger.settle_round("r1", {"alice": 20}) is False  # too late: refunded
        a = await s.ledger.audit()
        assert a.ok and a.escrow == 0
    finally:
        await s.close()


async def test_refund_round(store: SQLStore) -> None:
    await _players(store, "alice")
    await store.ledger.open_round("r1", {"alice": 10})
    assert await store.ledger.refund_round("r1") is True
    assert await store.ledger.refund_round("r1") is False
    assert await store.ledger.balance("alice") == 1000


async def test_bots_play_from_the_house(store: SQLStore) -> None:
    await _players(store, "alice")
    bot = await store.accounts.fund_bot("Ana", 1000)
    assert bot.name == bot_account("Ana") == "bot:Ana"
    assert await store.ledger.balance(HOUSE) == 9000
    await store.ledger.open_round("r1", {"alice": 2, "bot:Ana": 2})
    await store.ledger.settle_round("r1", {"alice": 0, "bot:Ana": 4})
    await store.accounts.fund_bot("Ana", 1000)  # back to exactly 1000: the extra 2 go home
    assert await store.ledger.balance("bot:Ana") == 1000
    assert await store.accounts.release_bot("Ana") == 1000
    assert await store.ledger.balance(HOUSE) == 10_002
    with pytest.raises(BadName):
        await store.accounts.fund_bot("house", 1)
    a = await store.ledger.audit()
    assert a.ok and a.granted == 10_000 + 1000
    # a bankroll too small is topped up, in the open: a grant the audit counts
    await store.accounts.fund_bot("Greedy", 20_000)
    a = await store.ledger.audit()
    assert a.ok and a.granted == 10_000 + 1000 + 10_000
    assert await store.ledger.balance(HOUSE) == 10_002 + 10_000 - 20_000


async def test_house_without_top_up_refuses_to_fund(where: str) -> None:
    s = await open_store(where, StoreSettings(scrypt_n=2**10, house_chips=100, house_topup=False))
    try:
        with pytest.raises(InsufficientChips):
            await s.accounts.fund_bot("Greedy", 101)
        assert await s.ledger.balance(HOUSE) == 100
    finally:
        await s.close()


async def test_audit_detects_tampering(store: SQLStore, where: str) -> None:
    await _players(store, "alice")

    def cheat(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE accounts SET balance = balance + 5 WHERE key = 'alice'")

    await store.write(cheat)
    a = await store.ledger.audit()
    assert not a.ok
    assert any("alice" in p for p in a.problems)
    assert any("granted" in p for p in a.problems)
    assert audit_main(audit_args(where)) == 1

    def undo(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE accounts SET balance = balance - 5 WHERE key = 'alice'")

    await store.write(undo)
    assert audit_main(audit_args(where)) == 0


def test_audit_cli_without_database(tmp_path: Path) -> None:
    assert audit_main(["--data-dir", str(tmp_path / "none")]) == 2


# --------------------------------------------------------------------- history


def _record(rid: str, rules: str, seats: list[str], result: dict[str, object], **extra: object) -> RoundRecord:
    return RoundRecord(
        round_id=rid,
        game="president",
        rules=rules,
        seats=seats,
        config={"seats": len(seats), "stake": 2},
        log=[{"cmd": "deal", "seat": None, "seed": "00ff"}, {"cmd": "play", "seat": 0, "cards": ["3c"]}],
        result=result,
        commitment="ab" * 32,
        finished_at=0.0,
        extra=extra,
    )


async def test_history_round_trip_and_recent(store: SQLStore) -> None:
    await _players(store, "alice", "bob")
    rec = _record("m1-r1", "classic", ["alice", "bob", "bot:Ana"], {"event": "round_over", "scores": [2, 1, 0]})
    await store.history.record_round(rec)
    await store.history.record_round(rec)  # twice: kept once
    got = await store.history.get("m1-r1")
    assert got is not None
    assert (got.seats, got.log, got.result, got.commitment) == (list(rec.seats), rec.log, rec.result, rec.commitment)
    assert got.finished_at > 0
    assert [r.round_id for r in await store.history.recent("ALICE")] == ["m1-r1"]
    assert await store.history.recent("carol") == []
    assert await store.history.get("nope") is None


async def test_standings_by_game(store: SQLStore) -> None:
    await _players(store, "alice", "bob", "carol")
    await store.accounts.login_guest("gus")
    titles3 = ["president", "neutral", "last"]
    await store.history.record_round(
        _record("c1", "classic", ["alice", "bob", "carol"], {"scores": [2, 1, 0], "titles": titles3})
    )
    await store.history.record_round(
        _record("c2", "classic", ["alice", "bob", "carol"], {"scores": [0, 2, 1], "titles": ["last", "president", "neutral"]})
    )
    await store.history.record_round(
        _record("c3", "classic", ["bob", "gus", "carol"], {"scores": [2, 1, 0], "titles": titles3})
    )
    await store.history.record_round(
        _record("t1", "tdc", ["alice", "bob", "gus"], {"chips": [2, 0, -2], "titles": titles3})
    )
    classic = await store.history.standings("president", "classic", by="points")
    assert [(r["name"], r["points"], r["president"], r["rounds"]) for r in classic] == [
        ("bob", 5, 2, 3),
        ("alice", 2, 1, 2),
        ("carol", 1, 0, 3),
    ]
    assert classic[0]["rank"] == 1
    tdc = await store.history.standings("president", "tdc")
    assert [(r["name"], r["chips"]) for r in tdc] == [("alice", 2), ("bob", 0)]
    with_guests = await store.history.standings("president", "tdc", include_guests=True)
    assert [r["name"] for r in with_guests] == ["alice", "bob", "gus"]
    assert await store.history.standings("speculation", "speculation") == []


async def test_a_match_has_its_own_record_counted_as_a_match_not_a_round(store: SQLStore) -> None:
    """P15: a classic match's record keeps its totals; the standings count it once, as a match."""
    await _players(store, "alice", "bob", "carol")
    seats = ["alice", "bob", "carol"]
    await store.history.record_round(_record("m-1", "classic", seats, {"event": "round_over", "scores": [2, 1, 0],
                                                                       "titles": ["president", "neutral", "last"]}))
    await store.history.record_round(_record("m-2", "classic", seats, {"event": "round_over", "scores": [0, 2, 1],
                                                                       "titles": ["last", "president", "neutral"]}))
    await store.history.record_round(_record("m-match", "classic", seats,
                                             {"event": "match_over", "winners": [1], "totals": [2, 3, 1]}))
    played = await store.history.played("Bob")
    assert [(p.record.round_id, p.seat, p.points, p.chips) for p in played] == [
        ("m-match", 1, 3, 0), ("m-2", 1, 2, 0), ("m-1", 1, 1, 0)]
    assert played[0].record.log == [] and played[1].president and not played[0].president
    board = await store.history.standings("president", "classic", by="points")
    assert [(r["name"], r["points"], r["rounds"], r["matches"], r["president"]) for r in board] == [
        ("bob", 3, 2, 1, 1), ("alice", 2, 2, 1, 1), ("carol", 1, 2, 1, 0)]


async def test_a_speculation_deal_keeps_each_seat_s_change_not_its_chips(store: SQLStore) -> None:
    """S10: ``deal_over.chips`` are the chips after the deal; history and standings keep the change
    (antes, the pool, prices of the deal), from the ledger."""
    await _players(store, "alice", "bob", "carol")
    await store.apply([OpenRound("d-1", {"alice": 2, "bob": 1, "carol": 1}),
                       Transfer("bob", "carol", 3, "sold", round_id="d-1")])
    await store.apply([SettleRound("d-1", {"carol": 4})])
    after = [998, 996, 1006]
    rec = RoundRecord(round_id="d-1", game="speculation", rules="speculation", seats=["alice", "bob", "carol"],
                      config={"seats": 3, "ante": 1}, log=[], result={"event": "deal_over", "round": 1,
                                                                        "winner": 2, "chips": after})
    await store.history.record_round(rec)
    assert [(p.chips, p.president) for p in await store.history.played("carol")] == [(6, True)]
    assert [p.chips for p in await store.history.played("bob")] == [-4]
    board = await store.history.standings("speculation", "speculation")
    assert [(r["name"], r["chips"], r["president"]) for r in board] == [("carol", 6, 1), ("alice", -2, 0),
                                                                         ("bob", -4, 0)]


async def test_donne_audit_subcommand(where: str, capsys: pytest.CaptureFixture[str]) -> None:
    from server.start.cli import main as donne

    s = await open_store(where, FAST)
    await s.accounts.register("alice", "secret")
    await s.ledger.open_round("r1", {"alice": 5})
    assert donne(["audit", *audit_args(where)]) == 0  # beside a live store, read-only
    await s.close()
    out = capsys.readouterr().out
    assert '"ok": true' in out and '"escrow": 5' in out


async def test_concurrent_writes_share_a_commit_and_fail_alone(store: SQLStore) -> None:
    """Group commit: writes waiting together commit once; a refused one is undone alone."""
    import threading

    await _players(store, "alice", "bob")
    started, release = threading.Event(), threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        started.set()
        release.wait(10)  # keeps the database thread busy while the writes below queue up

    blocker = asyncio.ensure_future(store.write(hold))
    await asyncio.to_thread(started.wait, 10)
    commits = store._thread.commits
    amounts = [100, 2000, 300, 5000, 50]  # 2000 and 5000 are more than alice has
    transfers = [
        asyncio.ensure_future(store.ledger.transfer("alice", "bob", a, "test", ref=str(i)))
        for i, a in enumerate(amounts)
    ]
    await asyncio.sleep(0)  # let every transfer reach the queue
    release.set()
    await blocker
    results = await asyncio.gather(*transfers, return_exceptions=True)
    assert [type(r).__name__ for r in results] == [
        "NoneType", "InsufficientChips", "NoneType", "InsufficientChips", "NoneType"
    ]
    # the blocker's own commit, then the five transfers in one transaction (one fsync)
    assert store._thread.commits == commits + 2
    assert (await store.ledger.balance("alice"), await store.ledger.balance("bob")) == (550, 1450)
    assert [e.ref for e in await store.ledger.statement("bob", 3)] == ["test:4", "test:2", "test:0"]


async def test_password_locks_are_forgotten_when_unused(store: SQLStore, sleeps: Sleeps) -> None:
    await store.accounts.register("alice", "secret")
    await asyncio.gather(*(store.accounts.verify_password("alice", p) for p in ("a1", "secret", "b2", "c3")))
    assert store.accounts._locks == {} and store.accounts._lock_users == {}


async def test_guests_can_be_forbidden(where: str) -> None:
    s = await open_store(where, {"scrypt_n": 1024, "allow_guests": False})
    try:
        with pytest.raises(StorageError) as exc:
            await s.accounts.login_guest("bob")
        assert exc.value.code == "account_needed"
        assert (await s.accounts.register("bob", "secret")).chips == 1000
    finally:
        await s.close()


async def test_history_rounds_of_a_match_share_their_log(store: SQLStore) -> None:
    """An endless tdc table records its whole log with every round: stored once, read back whole."""
    config = {"seats": 3, "stake": 2}
    actions = [{"cmd": "play", "seat": i % 3, "cards": [f"{i}"]} for i in range(30)]

    def rec(rid: str, upto: int, room: str = "r1") -> RoundRecord:
        return RoundRecord(rid, "president", "tdc", ["a", "b", "c"], config, actions[:upto],
                           {"chips": [2, 0, -2]}, extra={"room": room})

    await store.history.record_round(rec("r1-1", 10))
    await store.history.record_round(rec("r1-2", 20))
    await store.history.record_round(rec("r1-3", 30))
    await store.history.record_round(rec("r2-1", 5, room="r2"))  # another room: its own log
    diverged = RoundRecord("r1-x", "president", "tdc", ["a", "b", "c"], config,
                           [{"cmd": "pass", "seat": 0}, *actions[1:25]], {}, extra={"room": "r1"})
    await store.history.record_round(diverged)  # not an extension of r1-3: stored whole
    for rid, full in [("r1-1", actions[:10]), ("r1-2", actions[:20]), ("r1-3", actions),
                      ("r2-1", actions[:5]), ("r1-x", list(diverged.log))]:
        got = await store.history.get(rid)
        assert got is not None and list(got.log) == full, rid

    def stored(conn: sqlite3.Connection) -> dict[str, tuple[int, str | None]]:
        return {r[0]: (len(json.loads(r[1])), r[2])
                for r in conn.execute("SELECT round_id, log, log_base FROM history")}

    assert await store.read(stored) == {
        "r1-1": (10, None), "r1-2": (10, "r1-1"), "r1-3": (10, "r1-2"), "r2-1": (5, None), "r1-x": (25, None)
    }
    assert [list(r.log) for r in await store.history.recent("a", 2, with_log=False)] == [[], []]
    assert [r.round_id for r in await store.history.recent("a", 2)] == ["r1-x", "r2-1"]


async def test_schema_1_database_is_migrated(tmp_path: Path) -> None:
    from server.storage.sqlite import MIGRATIONS, _split_sql, connect

    conn = connect(db_path(tmp_path))
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for statement in _split_sql(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("INSERT INTO schema_version VALUES (1)")
    conn.execute(
        "INSERT INTO history (round_id, game, rules, seats, config, log, result, finished_at) "
        "VALUES ('old', 'president', 'classic', '[\"a\"]', '{}', '[{\"cmd\": \"pass\"}]', '{}', 1.0)"
    )
    conn.close()
    s = await open_store(tmp_path, FAST)
    try:
        got = await s.history.get("old")
        assert got is not None and list(got.log) == [{"cmd": "pass"}]
        version = await s.read(lambda c: c.execute("SELECT MAX(version) FROM schema_version").fetchone()[0])
        assert version == len(MIGRATIONS) >= 5  # 4: profiles, friends, mail, ratings; 5: moderation
    finally:
        await s.close()
