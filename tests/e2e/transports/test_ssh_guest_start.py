"""SSH guests: the account is opened during authentication; chips are never created or lost.

The guest's grant is written while the key exchange and authentication go on
(:class:`server.lobby.lobby.GuestStart`); the login uses it, and a connection that
never logs in has it retired.
"""

import asyncio
import json

import asyncssh

from clients.client import Client
from server.lobby.lobby import Lobby

HOST = "127.0.0.1"


def _watch_drops(monkeypatch):
    """An event set each time an unused guest start has been dealt with."""
    done = asyncio.Event()
    drop = Lobby.drop_guest_start

    async def watched(self, start):
        try:
            await drop(self, start)
        finally:
            done.set()

    monkeypatch.setattr(Lobby, "drop_guest_start", watched)
    return done


async def test_ssh_guest_has_its_grant_and_leaves_no_chips(server):
    async with await Client.connect_ssh(HOST, server.ssh_port, "gina", timeout=10) as c:
        me = await c.request("whoami")
        assert me["name"] == "gina" and me["guest"] is True and me["chips"] == server.config.guest_chips
    audit = await server.store.ledger.audit()
    assert audit.ok


async def test_ssh_connection_that_never_logs_in_retires_its_guest(server, monkeypatch):
    dropped = _watch_drops(monkeypatch)
    conn = await asyncio.wait_for(asyncssh.connect(HOST, server.ssh_port, username="ghost", known_hosts=None,
                                                   agent_path=None, client_keys=None), 10)
    conn.close()  # authenticated, but no channel: no session, no login
    await asyncio.wait_for(conn.wait_closed(), 10)
    await asyncio.wait_for(dropped.wait(), 10)
    assert await server.store.accounts.get("ghost") is None  # retired, not live
    assert (await server.store.ledger.audit()).ok
    # the same name logs in normally afterwards, with one grant
    async with await Client.connect_ssh(HOST, server.ssh_port, "ghost", timeout=10) as c:
        assert (await c.request("whoami"))["chips"] == server.config.guest_chips


async def test_ssh_guest_name_like_an_account_is_still_refused(server):
    await server.store.accounts.register("bob", "a long enough secret")
    async with asyncssh.connect(HOST, server.ssh_port, username="b0b", known_hosts=None, agent_path=None,
                                client_keys=None) as conn:
        result = await asyncio.wait_for(conn.run("json", stdin=asyncssh.DEVNULL), 10)
    first = json.loads(str(result.stdout).splitlines()[0])
    assert first["type"] == "error" and first["code"] == "name_taken"  # as before: no hello
    assert await server.store.accounts.get("b0b") is None
    assert (await server.store.ledger.audit()).ok


async def test_ssh_guest_already_connected_keeps_its_account(server):
    async with await Client.connect_ssh(HOST, server.ssh_port, "twin", timeout=10) as first:
        async with asyncssh.connect(HOST, server.ssh_port, username="twin", known_hosts=None, agent_path=None,
                                    client_keys=None) as conn:
            result = await asyncio.wait_for(conn.run("json", stdin=asyncssh.DEVNULL), 10)
        assert json.loads(str(result.stdout).splitlines()[0])["code"] == "name_taken"
        me = await first.request("whoami")  # the first one's guest account is still there, intact
        assert me["name"] == "twin" and me["chips"] == server.config.guest_chips
    assert (await server.store.ledger.audit()).ok
