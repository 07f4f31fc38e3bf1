"""Moderation in the store, on SQLite and on PostgreSQL: roles, bans, mutes, locks, reset codes,
renames, admins' chips (and the audit that accounts for them), ignore lists, the message of the day,
and the moderation log written in the same transaction as each action.

Time is a fake clock handed to the store, so expiries are checked without waiting.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from server.storage import StoreSettings, open_store
from server.storage.api import (
    BadAmount,
    Forbidden,
    InsufficientChips,
    NameTaken,
    NoSuchAccount,
    NoSuchBan,
    OpenRound,
    RegistrationClosed,
    RoundRecord,
    SettleRound,
    StorageError,
)
from server.storage.sql.store import SQLStore
from tests.kits.storefixtures import is_pg

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000, starting_chips=100, guest_chips=20)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def no_sleep(delay: float) -> None:
    return None


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest_asyncio.fixture
async def store(where: str, clock: Clock) -> AsyncIterator[SQLStore]:
    s = await open_store(where, FAST, sleep=no_sleep, clock=clock)
    await s.accounts.register("alice", "secret")
    await s.accounts.register("bob", "hunter22")
    yield s
    audit = await s.ledger.audit()
    await s.close()
    assert audit.ok, audit.problems


def key_line() -> str:
    return asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().strip()


async def actions(store: SQLStore) -> list[tuple[str, str, str]]:
    return [(e.action, e.actor, e.target) for e in await store.moderation.log()]


# --------------------------------------------------------------------------- roles


async def test_roles_are_stored_with_the_account_and_logged(store: SQLStore) -> None:
    mod = store.moderation
    assert await mod.role("alice") == "player"
    assert await mod.role("nobody") == "player"
    assert await mod.set_role("alice", "admin", actor="console:root", reason="first admin") == "player"
    assert await mod.role("ALICE") == "admin"  # the account's key: any case
    assert await mod.set_role("bob", "moderator", actor="alice") == "player"
    [last, first] = await mod.log()
    assert (first.actor, first.action, first.target, first.reason) == ("console:root", "role", "alice", "first admin")
    assert dict(first.detail) == {"from": "player", "to": "admin"}
    assert (last.actor, last.target, dict(last.detail)) == ("alice", "bob", {"from": "player", "to": "moderator"})


async def test_guests_are_always_players(store: SQLStore) -> None:
    await store.accounts.login_guest("gus")
    with pytest.raises(Forbidden):
        await store.moderation.set_role("gus", "admin", actor="alice")
    with pytest.raises(BadAmount):
        await store.moderation.set_role("bob", "god", actor="alice")
    with pytest.raises(NoSuchAccount):
        await store.moderation.set_role("nobody", "admin", actor="alice")
    assert await store.moderation.role("gus") == "player"
    assert await store.moderation.log() == []  # refusals change nothing, log nothing


# --------------------------------------------------------------------------- bans and the door


async def test_account_ban_refuses_at_the_door_until_it_ends(store: SQLStore, clock: Clock) -> None:
    mod = store.moderation
    ban = await mod.ban("account", "Bob", until=clock.now + 3600, reason="spam", actor="alice")
    assert (ban.kind, ban.target, ban.until) == ("account", "bob", clock.now + 3600)
    refusal = await mod.door(name="bob", address="192.0.2.1")
    assert refusal is not None and (refusal.code, refusal.kind, refusal.reason) == ("banned", "account", "spam")
    assert refusal.until == clock.now + 3600
    assert await mod.door(name="alice", address="192.0.2.1") is None
    clock.now += 3601
    assert await mod.door(name="bob") is None  # over by itself
    assert await mod.bans() == []


async def test_a_ban_follows_its_account_through_a_rename(store: SQLStore) -> None:
    mod = store.moderation
    await mod.ban("account", "bob", until=None, reason="cheating", actor="alice")
    assert await mod.rename("bob", "Robert", actor="alice") == "Robert"
    refusal = await mod.door(name="robert")
    assert refusal is not None and refusal.until is None  # for good
    assert await store.accounts.exists("Robert") and not await store.accounts.exists("bob")
    assert await store.accounts.verify_password("Robert", "hunter22") is not None
    await store.accounts.register("bob", "another")  # the old name is free for someone else
    assert await mod.door(name="bob") is None


async def test_address_and_network_bans(store: SQLStore) -> None:
    mod = store.moderation
    await mod.ban("address", "198.51.100.0/24", until=None, reason="botnet", actor="alice")
    await mod.ban("address", "2001:db8::7", until=None, reason="", actor="alice")
    for address in ("198.51.100.1", "198.51.100.254", "::ffff:198.51.100.9", "2001:db8::7"):
        refusal = await mod.door(address=address)
        assert refusal is not None and refusal.kind == "address", address
    for address in ("198.51.101.1", "2001:db8::8", "?", ""):
        assert await mod.door(address=address) is None, address
    assert [b.target for b in await mod.bans()] == ["2001:db8::7/128", "198.51.100.0/24"]
    for wrong in ("not an address", "10.0.0.0/7", "::/8"):
        with pytest.raises(BadAmount):
            await mod.ban("address", wrong, until=None, reason="", actor="alice")
    lifted = await mod.unban("address", "198.51.100.0/24", actor="alice")
    assert lifted.target == "198.51.100.0/24"
    assert await mod.door(address="198.51.100.1") is None
    with pytest.raises(NoSuchBan):
        await mod.unban("address", "198.51.100.0/24", actor="alice")


async def test_key_ban(store: SQLStore) -> None:
    mod = store.moderation
    line = key_line()
    stored = " ".join(line.split()[:2])
    await mod.ban("key", line + " laptop", until=None, reason="stolen", actor="alice")
    refusal = await mod.door(key=stored, name="bob")
    assert refusal is not None and (refusal.kind, refusal.reason) == ("key", "stolen")
    assert await mod.door(key=" ".join(key_line().split()[:2])) is None
    [entry] = await mod.log()
    assert entry.target.startswith("SHA256:") and stored not in entry.target  # the log names a fingerprint
    with pytest.raises(BadAmount):
        await mod.ban("key", "ssh-ed25519 notbase64", until=None, reason="", actor="alice")
    await mod.unban("key", line, actor="alice")
    assert await mod.door(key=stored) is None


async def test_a_new_ban_replaces_the_active_one_and_unban_by_number(store: SQLStore, clock: Clock) -> None:
    mod = store.moderation
    first = await mod.ban("account", "bob", until=clock.now + 60, reason="one", actor="alice")
    second = await mod.ban("account", "bob", until=clock.now + 600, reason="two", actor="alice")
    assert [b.id for b in await mod.bans()] == [second.id]
    assert first.id != second.id
    with pytest.raises(NoSuchBan):
        await mod.unban("id", str(first.id), actor="alice")
    await mod.unban("id", f"#{second.id}", actor="alice", reason="appeal")
    assert await mod.door(name="bob") is None
    assert [a for a, _, _ in await actions(store)] == ["unban", "ban", "ban"]
    with pytest.raises(BadAmount):
        await mod.ban("account", "bob", until=clock.now - 1, reason="", actor="alice")


async def test_guests_cannot_be_banned_by_account(store: SQLStore) -> None:
    await store.accounts.login_guest("gus")
    with pytest.raises(Forbidden):
        await store.moderation.ban("account", "gus", until=None, reason="", actor="alice")
    with pytest.raises(NoSuchAccount):
        await store.moderation.ban("account", "nobody", until=None, reason="", actor="alice")


async def test_locked_account_is_refused_at_the_door(store: SQLStore) -> None:
    mod = store.moderation
    await mod.lock("bob", reason="compromised", actor="alice")
    refusal = await mod.door(name="bob")
    assert refusal is not None and (refusal.code, refusal.reason) == ("locked", "compromised")
    await mod.unlock("bob", actor="alice")
    assert await mod.door(name="bob") is None
    with pytest.raises(NoSuchBan):
        await mod.unlock("bob", actor="alice")


# --------------------------------------------------------------------------- mutes


async def test_mutes_of_accounts_and_guests(store: SQLStore, clock: Clock) -> None:
    mod = store.moderation
    await store.accounts.login_guest("gus")
    await mod.mute("bob", clock.now + 600, reason="insults", actor="alice")
    await mod.mute("gus", clock.now + 60, reason="", actor="alice")
    mute = await mod.muted("BOB")
    assert mute is not None and (mute.name, mute.until, mute.reason) == ("bob", clock.now + 600, "insults")
    assert {m.name for m in await mod.mutes()} == {"bob", "gus"}
    await store.accounts.logout_guest("gus")
    await store.accounts.login_guest("gus")  # another person under that name: not muted
    assert await mod.muted("gus") is None
    clock.now += 601
    assert await mod.muted("bob") is None
    await mod.mute("bob", clock.now + 10, reason="", actor="alice")
    await mod.unmute("bob", actor="alice")
    assert await mod.muted("bob") is None
    with pytest.raises(NoSuchBan):
        await mod.unmute("bob", actor="alice")


# --------------------------------------------------------------------------- reset codes, renames


async def test_reset_code_logs_in_until_passwd_uses_it(store: SQLStore, clock: Clock) -> None:
    mod, accounts = store.moderation, store.accounts
    code, until = await mod.reset_password("bob", actor="alice")
    assert until == clock.now + FAST.reset_code_seconds
    assert len(code) == 14 and code.count("-") == 2
    assert await accounts.verify_password("bob", code) is not None
    assert await accounts.verify_password("bob", code.lower().replace("-", " ")) is not None  # as typed
    assert await accounts.verify_password("alice", code) is None  # someone else's code
    await accounts.set_password("bob", "brandnew")  # passwd: the code is used up
    assert await accounts.verify_password("bob", code) is None
    assert await accounts.verify_password("bob", "brandnew") is not None
    # a code expires; and a code is no use once the person remembers the password
    code, _ = await mod.reset_password("bob", actor="alice")
    clock.now += FAST.reset_code_seconds + 1
    assert await accounts.verify_password("bob", code) is None
    code, _ = await mod.reset_password("bob", actor="alice")
    assert await accounts.verify_password("bob", "brandnew") is not None
    assert await accounts.verify_password("bob", code) is None
    for entry in await mod.log():  # the log never holds a code
        assert code not in repr(entry)

    def stored(conn: sqlite3.Connection) -> list[object]:
        return list(conn.execute("SELECT reset_hash, password FROM accounts").fetchall())

    assert all(code not in repr(tuple(r)) for r in await store.read(stored))


async def test_rename_refusals_and_what_follows(store: SQLStore) -> None:
    mod = store.moderation
    await store.accounts.register("carol", "secret")
    await mod.ignore("carol", "bob")
    await store.ledger.open_round("r1", {"alice": 5, "bob": 5})
    await store.ledger.settle_round("r1", {"alice": 10, "bob": 0})
    await store.history.record_round(RoundRecord("r1", "president", "tdc", ["alice", "bob"], {}, [], {"chips": [5, -5]}))
    for new in ("alice", "ALICE", "аlice"):  # taken, or a look-alike (Cyrillic а)
        with pytest.raises(NameTaken):
            await mod.rename("bob", new, actor="alice")
    assert await mod.rename("bob", "Bob", actor="alice") == "Bob"  # the same key: a change of case
    assert await mod.rename("Bob", "bobby", actor="alice") == "bobby"
    assert [p.record.round_id for p in await store.history.played("bobby")] == ["r1"]
    assert await store.history.played("bob") == []
    assert await mod.ignores("carol") == ["bobby"]
    await store.apply([OpenRound("r2", {"bobby": 5})])
    with pytest.raises(Forbidden):
        await mod.rename("bobby", "robert", actor="alice")  # chips in a round being played
    await store.apply([SettleRound("r2", {"bobby": 5})])
    await store.accounts.login_guest("gus")
    with pytest.raises(Forbidden):
        await mod.rename("gus", "augustus", actor="alice")


# --------------------------------------------------------------------------- admins' chips and the audit


async def test_admin_chips_are_entries_of_their_own_and_the_audit_counts_them(store: SQLStore) -> None:
    mod = store.moderation
    before = await store.ledger.audit()
    assert await mod.grant_chips("bob", 500, reason="tournament prize", actor="alice") == 600
    assert await mod.retire_chips("bob", 50, reason="refund of a prize given twice", actor="alice") == 550
    audit = await store.ledger.audit()
    assert audit.ok, audit.problems
    assert (audit.granted - before.granted, audit.retired - before.retired) == (500, 50)
    assert (audit.admin_granted, audit.admin_retired) == (500, 50)
    summary = await store.ledger.audit_summary()
    assert summary.ok and summary.granted == audit.granted and summary.retired == audit.retired
    entries = await store.ledger.statement("bob", 2)
    assert [(e.kind, e.delta) for e in entries] == [("retire", -50), ("grant", 500)]
    [retire, grant] = await mod.log()
    assert (grant.action, dict(grant.detail)["chips"], grant.reason) == ("grant", 500, "tournament prize")
    assert retire.action == "retire"


async def test_admin_chips_refusals_change_nothing(store: SQLStore) -> None:
    mod = store.moderation
    await store.accounts.login_guest("gus")
    await store.apply([OpenRound("r1", {"bob": 80})])
    for name, amount, error in [
        ("bob", -21, InsufficientChips),  # 80 of its 100 chips are in play
        ("bob", 10**10, BadAmount),
        ("gus", 5, Forbidden),
        ("bot:house", 5, Forbidden),
        ("nobody", 5, NoSuchAccount),
    ]:
        with pytest.raises(error):
            if amount < 0:
                await mod.retire_chips(name, -amount, reason="", actor="alice")
            else:
                await mod.grant_chips(name, amount, reason="", actor="alice")
    for wrong in (-5, 0, True):  # "grant -5" is no retirement; a bool is no number
        with pytest.raises(BadAmount):
            await mod.grant_chips("bob", wrong, reason="", actor="alice")
        with pytest.raises(BadAmount):
            await mod.retire_chips("bob", wrong, reason="", actor="alice")
    assert await store.ledger.balance("bob") == 20
    assert await mod.log() == []
    await store.apply([SettleRound("r1", {"bob": 80})])


async def test_the_audit_still_refuses_a_retirement_nobody_accounts_for(where: str, clock: Clock) -> None:
    s = await open_store(where, FAST, clock=clock)
    try:
        await s.accounts.register("bob", "hunter22")
        await s.moderation.retire_chips("bob", 10, reason="", actor="alice")
        assert (await s.ledger.audit()).ok

        def forge(conn: sqlite3.Connection) -> None:  # a retirement from a registered account, unrecorded
            conn.execute("DELETE FROM admin_chips")

        await s.write(forge)
        audit = await s.ledger.audit()
        assert not audit.ok
        assert any("not by an admin" in p for p in audit.problems)
        assert audit.admin_retired == 0
    finally:
        await s.close()


# --------------------------------------------------------------------------- ignore lists, motd


async def test_ignore_lists_are_kept_per_account(store: SQLStore) -> None:
    mod = store.moderation
    await mod.ignore("alice", "Bob")
    await mod.ignore("alice", "bob")  # twice: once
    await mod.ignore("alice", "gus")  # any name, even nobody's yet
    assert await mod.ignores("ALICE") == ["Bob", "gus"]
    with pytest.raises(Forbidden):
        await mod.ignore("alice", "Alice")
    assert await mod.unignore("alice", "BOB")
    assert not await mod.unignore("alice", "bob")
    assert await mod.ignores("alice") == ["gus"]
    await store.accounts.login_guest("gwen")
    with pytest.raises(Forbidden):
        await mod.ignore("gwen", "alice")  # a guest's list lives with its connection only
    assert await mod.ignores("gwen") == []
    await mod.ignore("bob", "alice")
    assert await mod.ignore_lists() == {"alice": ["gus"], "bob": ["alice"]}  # every list, for the lobby


async def test_motd_set_and_cleared(store: SQLStore) -> None:
    mod = store.moderation
    assert await mod.motd() is None
    await mod.set_motd("Tournament on Sunday!", actor="alice")
    assert await mod.motd() == "Tournament on Sunday!"
    await mod.set_motd(None, actor="alice")
    assert await mod.motd() is None
    assert [a for a, _, _ in await actions(store)] == ["motd", "motd"]


async def test_standing_shows_standing_without_secrets(store: SQLStore, clock: Clock) -> None:
    mod = store.moderation
    await mod.set_role("bob", "moderator", actor="alice")
    await mod.mute("bob", clock.now + 60, reason="", actor="alice")
    await mod.ban("account", "bob", until=None, reason="x", actor="alice")
    await mod.reset_password("bob", actor="alice")
    who = await mod.standing("bob")
    assert who is not None
    assert (who.role, who.chips, who.muted_until, who.banned_until, who.ban_reason) == (
        "moderator", 100, clock.now + 60, float("inf"), "x")
    assert "scrypt" not in repr(who)
    assert await mod.standing("nobody") is None


async def test_registration_switch(where: str) -> None:
    s = await open_store(where, StoreSettings(scrypt_n=2**10, allow_registration=False))
    try:
        with pytest.raises(RegistrationClosed):
            await s.accounts.register("alice", "secret")
        assert not await s.accounts.exists("alice")
    finally:
        await s.close()


async def test_the_cache_of_registered_names_heals_after_another_process_changes_them(
        where: str, tmp_path: Path) -> None:
    """``donne admin`` renames beside a running server: the server's cache follows at the next login."""
    server = await open_store(where, FAST)
    tool = await open_store(where, FAST, recover=False, exclusive=False)
    try:
        await server.accounts.register("carol", "hunter22")
        await tool.moderation.rename("carol", "caroline", actor="console:root")
        assert await server.accounts.exists("carol")  # the server's cache does not know yet
        assert await server.accounts.verify_password("carol", "hunter22") is None
        assert not await server.accounts.exists("carol")  # ... now it does
        with pytest.raises(NameTaken):
            await server.accounts.login_guest("caroline")
        assert await server.accounts.exists("caroline")  # and asks for caroline's password from now on
    finally:
        await tool.close()
        await server.close()
    if not is_pg(where):
        with pytest.raises(StorageError):  # beside a server, a tool never creates a database
            await open_store(tmp_path / "none", FAST, exclusive=False)
        assert not (tmp_path / "none" / "donne.sqlite3").exists()
