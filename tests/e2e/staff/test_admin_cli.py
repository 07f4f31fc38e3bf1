"""``donne admin``: the first admin made offline; account actions beside a running server (the
database serialises them); chips granted and retired keep ``donne audit`` clean; ``donne backup``
while staked rounds are being settled gives consistent copies; a backup restored is a working
server. SQLite for the server runs; the offline actions on PostgreSQL too.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client, ClientError
from server.start.admin import main as admin_main
from server.storage import StoreSettings, open_store
from server.storage.api import OpenRound, SettleRound
from server.storage.backup import backup
from server.storage.backup import main as backup_main
from server.storage.cli import main as audit_main
from server.storage.sql.tx import HOOKS
from tests.kits.servers import start_server
from tests.kits.staffkit import HOST, Text, json_client
from tests.kits.storefixtures import audit_args

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000)


async def admin(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """Run ``donne admin ARGV`` (in a thread: it has its own event loop); its exit code and JSON."""
    def call() -> int:
        try:
            return admin_main(list(argv))
        except SystemExit as exc:  # argparse refused the arguments (its usage on stderr)
            return int(exc.code or 0)

    capsys.readouterr()
    code = await asyncio.to_thread(call)
    captured = capsys.readouterr()
    text = captured.out if code == 0 else captured.err
    try:
        return code, json.loads(text)
    except ValueError:
        return code, {"usage": text}


def where_args(where: str) -> list[str]:
    return ["--url", where] if where.startswith("postgresql://") else ["--data-dir", where]


async def test_first_admin_offline_then_online(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    s = await open_store(data, FAST)
    await s.accounts.register("alice", "alice-secret")
    await s.accounts.register("bob", "bob-secret")
    await s.close()
    code, out = await admin(capsys, "--data-dir", str(data), "grant", "alice", "admin")
    assert (code, out["role"], out["was"]) == (0, "admin", "player")
    code, out = await admin(capsys, "grant", "nobody", "admin", "--data-dir", str(data))  # options after too
    assert code == 1 and "nobody" in out["error"]
    code, out = await admin(capsys, "--data-dir", str(tmp_path / "missing"), "bans")
    assert code == 2
    server = await start_server(tmp_path)
    try:
        alice = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        await alice.login("alice", "alice-secret")
        assert (await alice.request("whoami"))["role"] == "admin"
        assert (await alice.request("grant", name="bob", role="moderator"))["role"] == "moderator"
        await alice.close()
    finally:
        await server.stop()
    code, out = await admin(capsys, "--data-dir", str(data), "modlog")
    [online, offline] = out["log"]  # newest first
    assert (online["actor"], online["action"], online["target"]) == ("alice", "role", "bob")
    assert offline["actor"].startswith("console:") and offline["target"] == "alice"


async def test_an_account_made_beside_the_running_server_can_be_messaged_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``donne admin register`` writes the database the server reads: ``message`` finds the account
    before it ever logged in (the server's memory of registered names once said it did not exist)."""
    server = await start_server(tmp_path)
    try:
        await server.store.accounts.register("alice", "alice-secret")
        alice = await json_client_named(server, "alice", "alice-secret")
        code, out = await admin(capsys, "--data-dir", str(server.config.data_dir), "register", "erin")
        assert code == 0
        reply = await alice.request("message", name="erin", text="welcome aboard")
        assert reply["to"] == "erin" and reply["kept"] is True
        erin = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        told = asyncio.ensure_future(erin.next_event("message", timeout=10))  # (waited for before the login)
        await asyncio.sleep(0)
        await erin.login("erin", out["code"])
        kept = await told
        assert (kept["from"], kept["message"]) == ("alice", "welcome aboard")
        await erin.close()
        await alice.close()
    finally:
        await server.stop()


async def json_client_named(server: Any, name: str, password: str) -> Client:
    client = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
    await client.login(name, password)
    return client


async def test_account_actions_beside_a_running_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = await start_server(tmp_path, allow_registration=False)
    data = str(server.config.data_dir)
    try:
        # a new account although registration is off: the operator makes it, with a one-time code
        code, out = await admin(capsys, "--data-dir", data, "register", "carol")
        assert code == 0 and out["chips"] == 1000
        # a person typing that name at once is asked for the code (the server learns of the account
        # at that login), not told "wrong name or password" first
        person = await Text.connect(server, "en")
        await person.expect(": ")
        person.type("carol")
        await person.expect("assword")
        person.type(out["code"])
        await person.expect("Welcome back")
        assert "Wrong name or password" not in person.screen
        person.close()
        carol = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        await carol.login("carol", out["code"])  # the cache of registered names followed
        await carol.request("passwd", old=out["code"], new="carol-secret")
        assert (await carol.request_raw("register", name="dave", password="secret"))["code"] == "not_allowed"
        await carol.close()
        guest = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        reply = await guest.request_raw("register", name="dave", password="dave-secret")
        assert reply["code"] == "registration_closed" and "no new accounts" in reply["message"]
        await guest.login("dave")  # a guest may play; it may not register its name either
        reply = await guest.request_raw("register", password="dave-secret")
        assert reply["code"] == "registration_closed"
        assert (await guest.request("limits"))["allow_registration"] is False
        await guest.close()
        # a reset code over the text door, then passwd
        code, out = await admin(capsys, "--data-dir", data, "resetpw", "carol")
        person = await Text.connect(server, "en")
        await person.expect(": ")
        person.type("carol")
        await person.expect("assword")
        person.type(out["code"].lower())  # typed as it comes
        await person.expect("Welcome back")
        person.close()
        # chips, retired and granted, keep the audit
        code, out = await admin(capsys, "--data-dir", data, "chips", "carol", "+500", "--reason", "prize")
        assert (code, out["chips"], out["audit_ok"]) == (0, 1500, True)
        code, out = await admin(capsys, "--data-dir", data, "chips", "carol", "-1600", "--reason", "too much")
        assert code == 1 and "available" in out["error"]
        code, out = await admin(capsys, "--data-dir", data, "chips", "carol", "-200", "--reason", "given twice")
        assert out["chips"] == 1300
        code, out = await admin(capsys, "--data-dir", data, "chips", "carol", "+5")
        assert code == 2 and "--reason" in out["usage"]  # a reason is required
        assert await asyncio.to_thread(audit_main, ["--data-dir", data]) == 0
        figures = json.loads(capsys.readouterr().out)
        assert (figures["admin_granted"], figures["admin_retired"]) == (500, 200)
        # a rename waits for the server to stop; a ban holds at the next connection
        code, out = await admin(capsys, "--data-dir", data, "rename", "carol", "caroline")
        assert code == 1 and "running" in out["error"]
        code, out = await admin(capsys, "--data-dir", data, "ban", "carol", "--for", "2d", "--reason", "spam")
        assert code == 0 and out["kind"] == "account" and out["until"]
        refused = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        with pytest.raises(ClientError) as exc:
            await refused.login("carol", "carol-secret")
        assert exc.value.code == "banned" and "spam" in exc.value.message
        await refused.close()
        code, out = await admin(capsys, "--data-dir", data, "unban", "carol")
        assert code == 0
        code, out = await admin(capsys, "--data-dir", data, "motd", "Hello from the console")
        assert out["motd"] == "Hello from the console"
        again = await json_client(server, "gus", guest=True)
        assert (await again.request("motd"))["motd"] == "Hello from the console"
        await again.close()
        code, out = await admin(capsys, "--data-dir", data, "standing", "carol")
        assert (out["role"], out["chips"], out["banned"]) == ("player", 1300, False)
        assert "scrypt" not in json.dumps(out) and "reset" not in json.dumps(out)
    finally:
        await server.stop()
    code, out = await admin(capsys, "--data-dir", data, "rename", "carol", "caroline")
    assert (code, out["new"]) == (0, "caroline")


async def test_offline_actions_on_both_back_ends(where: str, capsys: pytest.CaptureFixture[str]) -> None:
    s = await open_store(where, FAST)
    await s.accounts.register("bob", "bob-secret")
    await s.close()
    args = where_args(where)
    code, out = await admin(capsys, *args, "grant", "bob", "moderator")
    assert code == 0
    code, out = await admin(capsys, *args, "ban", "198.51.100.0/24", "--reason", "botnet")
    assert (code, out["target"], out["until"]) == (0, "198.51.100.0/24", None)
    code, out = await admin(capsys, *args, "bans")
    [ban] = out["bans"]
    code, out = await admin(capsys, *args, "unban", f"#{ban['id']}")
    assert code == 0
    code, out = await admin(capsys, *args, "chips", "bob", "+7", "--reason", "prize")
    assert out["audit_ok"]
    capsys.readouterr()
    assert await asyncio.to_thread(audit_main, audit_args(where)) == 0


# --------------------------------------------------------------------------- backups


async def test_a_backup_taken_in_the_middle_of_a_settlement_has_the_round_whole(tmp_path: Path) -> None:
    """The copy is made by another connection while the settlement's transaction has paid one seat
    (the test hook stops it there): the copy holds the round still open, every chip in escrow."""
    s = await open_store(tmp_path / "data", FAST)
    try:
        for name in ("alice", "bob", "carol"):
            await s.accounts.register(name, "secret")
        await s.apply([OpenRound("r1", {"alice": 10, "bob": 10, "carol": 10})])
        reports: list[dict[str, Any]] = []
        HOOKS["settle_round.after_first_payout"] = lambda: reports.append(
            backup(tmp_path / "data", tmp_path / "during.sqlite3"))
        try:
            await s.apply([SettleRound("r1", {"alice": 30, "bob": 0, "carol": 0})])
        finally:
            HOOKS.clear()
        [during] = reports
        assert during["ok"] and during["integrity"] == "ok"
        assert during["audit"]["escrow"] == 30
        after = backup(tmp_path / "data", tmp_path / "after.sqlite3")
        assert after["ok"] and after["audit"]["escrow"] == 0
        conn = sqlite3.connect(tmp_path / "during.sqlite3")
        try:
            assert conn.execute("SELECT state FROM rounds").fetchone()[0] == "open"
            assert conn.execute("SELECT balance FROM accounts WHERE name = 'alice'").fetchone()[0] == 990
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
        finally:
            conn.close()
        assert (tmp_path / "during.sqlite3").stat().st_mode & 0o077 == 0  # it holds password hashes
    finally:
        await s.close()


async def test_backups_while_rounds_settle_are_all_consistent(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A running server settles staked rounds (store.apply, as its tables do) while ``donne backup``
    runs in another thread, again and again: every copy is sound and its ledger holds."""
    server = await start_server(tmp_path)
    data = str(server.config.data_dir)
    store = server.store
    try:
        names = [f"p{i}" for i in range(6)]
        for name in names:
            await store.accounts.register(name, "secret")
        stop = asyncio.Event()

        async def settle_rounds() -> int:
            n = 0
            while not stop.is_set():
                table = names[n % 3 * 2: n % 3 * 2 + 2]
                rid = f"r{n}"
                await store.apply([OpenRound(rid, {table[0]: 3, table[1]: 3})])
                await store.apply([SettleRound(rid, {table[n % 2]: 6})])
                n += 1
            return n

        worker = asyncio.create_task(settle_rounds())
        reports = []
        for i in range(6):
            capsys.readouterr()
            code = await asyncio.to_thread(backup_main, ["--data-dir", data, "--to", str(tmp_path / f"b{i}.sqlite3")])
            report = json.loads(capsys.readouterr().out)
            assert code == 0 and report["ok"], report
            reports.append(report)
        stop.set()
        rounds = await worker
        assert rounds > 0
        assert all(r["audit"]["problems"] == [] for r in reports)
        # refusals: an existing file, a PostgreSQL URL
        code = await asyncio.to_thread(backup_main, ["--data-dir", data, "--to", str(tmp_path / "b0.sqlite3")])
        assert code == 2 and "exists" in capsys.readouterr().err
        code = await asyncio.to_thread(backup_main, ["--data-dir", "postgresql://x@localhost/db", "--to",
                                                     str(tmp_path / "pg.sqlite3")])
        assert code == 2 and "pg_dump" in capsys.readouterr().err
    finally:
        await server.stop()
    # restore (docs/operators.md): the server stopped, the file put in place of the database
    restored = tmp_path / "again" / "data"
    restored.mkdir(parents=True)
    shutil.copy(tmp_path / "b5.sqlite3", restored / "donne.sqlite3")
    assert await asyncio.to_thread(audit_main, ["--data-dir", str(restored)]) == 0
    capsys.readouterr()
    again = await start_server(tmp_path / "again")
    try:
        client = await Client.connect_tcp(HOST, again.telnet_port, timeout=10)
        await client.login("p0", "secret")
        assert (await client.request("audit"))["ok"]
        await client.close()
    finally:
        await again.stop()
