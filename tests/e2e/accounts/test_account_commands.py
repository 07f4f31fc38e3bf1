"""Account commands over a real server (telnet/TCP JSON, SSH password and public key, text mode)."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh
import pytest

from clients.client import Client, ClientError
from server.start.app import Running

HOST = "127.0.0.1"


@pytest.fixture(autouse=True)
def recorded_backoff(server: Running) -> list[float]:
    """Wrong passwords are answered late; here the delays are recorded instead of waited."""
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)

    server.store.sleep = sleep
    return delays


async def tcp(server: Running) -> Client:
    return await Client.connect_tcp(HOST, server.telnet_port, timeout=10)


async def test_register_whoami_balance_audit(server: Running) -> None:
    async with await tcp(server) as c:
        reply = await c.register("Alice", "secret")
        assert (reply["name"], reply["guest"], reply["chips"]) == ("Alice", False, 1000)
        me = await c.request("whoami")
        assert (me["name"], me["guest"], me["chips"]) == ("Alice", False, 1000)
        bal = await c.request("balance")
        assert bal["chips"] == 1000
        assert bal["entries"][0]["kind"] == "grant" and bal["entries"][0]["delta"] == 1000
        audit = await c.request("audit")
        assert audit["ok"] and audit["problems"] == []
        assert (await c.request("history"))["history"] == []
        board = await c.request("leaderboard", game="president", rules="tdc")
        assert (board["by"], board["leaderboard"]) == ("chips", [])
        with pytest.raises(ClientError) as exc:
            await c.request("register", name="bob", password="secret")
        assert exc.value.code == "not_allowed"  # already an account
        with pytest.raises(ClientError) as exc:
            await c.request("leaderboard", game="chess")
        assert exc.value.code == "bad_argument"


async def test_register_refusals(server: Running) -> None:
    async with await tcp(server) as c:
        await c.register("alice", "secret")
    async with await tcp(server) as c:
        for args, code in [
            ({"name": "ALICE", "password": "secret"}, "name_taken"),
            ({"name": "аlice", "password": "secret"}, "name_taken"),  # Cyrillic а: a look-alike
            ({"name": "x", "password": "secret"}, "bad_name"),
            ({"name": "carol", "password": "abc"}, "weak_password"),
            ({"name": "carol"}, "bad_argument"),
        ]:
            reply = await c.request_raw("register", **args)
            assert (reply["type"], reply["code"]) == ("error", code), args
        reply = await c.request_raw("login", name="alice", password="wrong")
        assert reply["code"] == "bad_password"
        assert (await c.login("alice", "secret"))["guest"] is False


async def test_guest_registers_the_name_he_plays_under(server: Running) -> None:
    async with await tcp(server) as c:
        me = await c.login("bob")
        assert me["guest"] is True
        assert (await c.request("whoami"))["chips"] == 200
        reply = await c.request("register", password="hunter22")
        assert (reply["name"], reply["guest"], reply["chips"]) == ("bob", False, 1000)
        me = await c.request("whoami")
        assert (me["name"], me["guest"], me["chips"]) == ("bob", False, 1000)
        who = await c.request("who")
        assert [(p["name"], p["guest"]) for p in who["players"]] == [("bob", False)]
    audit = await server.store.ledger.audit()
    assert audit.ok and audit.retired == 200
    async with await tcp(server) as c:
        assert (await c.login("bob", "hunter22"))["guest"] is False


async def test_ssh_password_and_public_key(server: Running) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    public = key.export_public_key("openssh").decode().strip()
    async with await tcp(server) as c:
        await c.register("carol", "secret")
        assert (await c.request("addkey", key=public))["keys"] == 1
        assert (await c.request("keys"))["keys"] == [public.split()[0] + " " + public.split()[1]]
        reply = await c.request_raw("addkey", key="ssh-ed25519 garbage")
        assert reply["code"] == "bad_argument"
    async with await Client.connect_ssh(HOST, server.ssh_port, "carol", client_keys=[key]) as c:
        me = await c.request("whoami")
        assert (me["name"], me["guest"]) == ("carol", False)
    async with await Client.connect_ssh(HOST, server.ssh_port, "Carol", password="secret") as c:
        assert (await c.request("whoami"))["guest"] is False
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
        await Client.connect_ssh(HOST, server.ssh_port, "carol", password="wrong", timeout=20)
    other = asyncssh.generate_private_key("ssh-ed25519")
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError)):
        await Client.connect_ssh(HOST, server.ssh_port, "carol", client_keys=[other], timeout=20)
    # an unregistered name is a guest, no authentication
    async with await Client.connect_ssh(HOST, server.ssh_port, "dave") as c:
        me = await c.request("whoami")
        assert (me["guest"], me["chips"]) == (True, 200)
        reply = await c.request_raw("addkey", key=public)
        assert reply["code"] == "account_needed"


async def test_passwd(server: Running, recorded_backoff: list[float]) -> None:
    async with await tcp(server) as c:
        await c.register("erin", "secret")
        reply = await c.request_raw("passwd", old="wrong", new="better1")
        assert reply["code"] == "bad_password"
        await c.request("passwd", old="secret", new="better1")
    async with await tcp(server) as c:
        assert (await c.request_raw("login", name="erin", password="secret"))["code"] == "bad_password"
        await c.login("erin", "better1")
    assert recorded_backoff == [0.5, 1.0]  # the wrong old password, then the old password at login


async def _read_until(reader: asyncio.StreamReader, marker: bytes, seen: bytearray) -> None:
    while marker not in seen:
        chunk = await asyncio.wait_for(reader.read(4096), 10)
        if not chunk:
            raise AssertionError(f"connection closed before {marker!r}: {bytes(seen)!r}")
        seen.extend(chunk)


async def test_text_mode_register_asks_the_password_then_again(server: Running) -> None:
    """A person registering types the password twice, asked "Password:" then "Again:"."""
    reader, writer = await asyncio.open_connection(HOST, server.telnet_port)
    seen = bytearray()
    try:
        writer.write(b"\xff\xfc\x18")  # IAC WONT TTYPE: start at once
        writer.write(b"en\r\n")
        await _read_until(reader, b"Name: ", seen)
        writer.write(b"frank\r\n")
        seen.clear()
        writer.write(b"register\r\n")
        await _read_until(reader, b"Password: ", seen)
        writer.write(b"open-sesame\r\n")
        seen.clear()
        await _read_until(reader, b"Again: ", seen)
        assert b"Password" not in seen
        writer.write(b"open-sesame\r\n")
        seen.clear()
        await _read_until(reader, b"frank", seen)
        await _read_until(reader, b"1,000", seen)  # grouped digits
        assert b"open-sesame" not in seen
    finally:
        writer.close()
    account: Any = await server.store.accounts.verify_password("frank", "open-sesame")
    assert account is not None and not account.guest


async def test_registrations_are_limited_per_address_and_hour(tmp_path: Any) -> None:
    """Each account brings starting chips that trades could funnel to one: an address may open only
    ``registrations_per_hour`` of them an hour; the next is refused with a clear reason."""
    from tests.kits.servers import connect, start_server

    running = await start_server(tmp_path / "limited", registrations_per_hour=2)
    clients = []
    try:
        for name in ("una", "dos"):
            c = await connect(running, name)
            clients.append(c)
            assert (await c.request("register", password="secret-pw"))["name"] == name
        c = await connect(running, "tres")
        clients.append(c)
        r = await c.request_raw("register", password="secret-pw")
        assert r["code"] == "too_many_registrations" and "address" in r["message"]
        assert not await running.store.accounts.exists("tres")  # nothing changed
        assert (await c.request("whoami"))["guest"] is True
    finally:
        for c in clients:
            await c.close()
        await running.stop()
