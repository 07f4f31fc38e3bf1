"""Banned and locked connections are refused at the door, with the reason, on real servers.

* SSH (asyncssh and the OpenSSH client): a banned address when authentication begins, a banned key
  when it is offered, a banned or locked account once it proved itself — an authentication banner
  in French, Spanish and English (the client has not said its language yet), then the connection
  ends: no shell or command ever starts.
* telnet: a banned address after the language menu, in the language chosen (or as a JSON error
  line); a banned or locked account after its password, in the person's language; then the server
  closes the connection.

Addresses: the admin's tests connect from 127.0.0.1, the banned ones from 127.0.0.2.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
from typing import Any

import asyncssh
import pytest

from server.start.app import Running
from tests.kits.staffkit import HOST, OTHER, PASSWORDS, Text, community, json_client

pytestmark = pytest.mark.e2e


class Banner(asyncssh.SSHClient):
    banners: list[str]

    def __init__(self) -> None:
        self.banners = []

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)


async def ssh_refused(server: Running, username: str, **kwargs: Any) -> str:
    """Connect and expect to be refused; the banner the server sent."""
    client = Banner()
    kwargs.setdefault("client_keys", None)
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError, ConnectionError)):
        conn = await asyncio.wait_for(asyncssh.connect(
            HOST, server.ssh_port, username=username, known_hosts=None, agent_path=None,
            client_factory=lambda: client, **kwargs), 15)
        try:
            await asyncio.wait_for(conn.run("json", stdin=asyncssh.DEVNULL), 10)
        finally:
            conn.close()
    assert client.banners, "no banner"
    return "".join(client.banners)


def no_session(server: Running) -> None:
    assert not server.sessions, server.sessions  # no shell, no command: no session ever started


async def test_ssh_banned_address_is_refused_before_any_shell(server: Running) -> None:
    await community(server)
    await server.store.moderation.ban("address", "127.0.0.2", until=time.time() + 3600, reason="flooding",
                                      actor="console:test")
    banner = await ssh_refused(server, "gus", local_addr=(OTHER, 0))
    assert "Connections from your address are banned from this server until" in banner
    assert "Les connexions depuis votre adresse sont bannies" in banner
    assert "Las conexiones desde tu dirección están baneadas" in banner
    assert "flooding" in banner
    no_session(server)
    async with asyncssh.connect(HOST, server.ssh_port, username="gus", known_hosts=None, agent_path=None,
                                client_keys=None) as conn:  # another address comes in
        result = await asyncio.wait_for(conn.run("json", input='{"cmd":"whoami"}\n'), 10)
        assert '"name":"gus"' in result.stdout.replace(" ", "")


async def test_ssh_banned_account_hears_why_once_it_proved_itself(server: Running) -> None:
    await community(server)
    await server.store.moderation.ban("account", "pat", until=None, reason="cheating", actor="console:test")
    banner = await ssh_refused(server, "pat", password=PASSWORDS["pat"])
    assert "This account is banned from this server for good. Reason: cheating." in banner
    assert "Ce compte est banni de ce serveur pour toujours" in banner
    no_session(server)
    # a wrong password learns nothing of the ban
    client = Banner()
    with pytest.raises(asyncssh.PermissionDenied):
        await asyncio.wait_for(asyncssh.connect(HOST, server.ssh_port, username="pat", password="wrong",
                                                known_hosts=None, agent_path=None, client_keys=None,
                                                client_factory=lambda: client), 15)
    assert not client.banners


async def test_ssh_banned_key_and_locked_account(server: Running) -> None:
    await community(server)
    key = asyncssh.generate_private_key("ssh-ed25519")
    line = key.export_public_key("openssh").decode()
    await server.store.accounts.add_key("bob", line)
    await server.store.moderation.ban("key", line, until=None, reason="stolen laptop", actor="console:test")
    banner = await ssh_refused(server, "bob", client_keys=[key], preferred_auth="publickey")
    assert "This SSH key is banned from this server for good. Reason: stolen laptop." in banner
    no_session(server)
    await server.store.moderation.lock("pat", reason="compromised", actor="console:test")
    banner = await ssh_refused(server, "pat", password=PASSWORDS["pat"])
    assert "This account is locked. Reason: compromised." in banner
    assert "Cuenta" in banner or "cuenta" in banner
    no_session(server)


async def test_key_ban_disconnects_the_sessions_that_used_it(server: Running) -> None:
    await community(server)
    key = asyncssh.generate_private_key("ssh-ed25519")
    line = key.export_public_key("openssh").decode()
    await server.store.accounts.add_key("bob", line)
    from clients.client import Client

    bob = await Client.connect_ssh(HOST, server.ssh_port, "bob", client_keys=[key], timeout=10)
    ada = await json_client(server, "ada")
    try:
        reply = await ada.request("ban", key=line, duration="1w", reason="stolen")
        assert reply["kind"] == "key" and reply["target"].startswith("SHA256:") and reply["disconnected"] == 1
        await asyncio.wait_for(bob.closed.wait(), 10)
    finally:
        await bob.close()
        await ada.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client is not installed (make tools)")
async def test_openssh_client_shows_the_reason(server: Running, tmp_path: Any) -> None:
    await community(server)
    await server.store.moderation.ban("address", "127.0.0.2", until=None, reason="flooding", actor="console:test")
    proc = await asyncio.create_subprocess_exec(
        "ssh", "-p", str(server.ssh_port), "-b", OTHER, "-o", "StrictHostKeyChecking=no",
        "-o", f"UserKnownHostsFile={tmp_path / 'known'}", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
        "-o", "IdentityFile=/dev/null", "-F", "/dev/null", f"gus@{HOST}", "json",
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 20)
    assert proc.returncode != 0 and not out
    text = err.decode("utf-8", "replace")
    assert "Connections from your address are banned from this server for good. Reason: flooding." in text
    assert "Les connexions depuis votre adresse sont bannies" in text
    no_session(server)


async def test_telnet_banned_address_hears_it_in_its_language(server: Running) -> None:
    await community(server)
    await server.store.moderation.ban("address", "127.0.0.2", until=None, reason="spam", actor="console:test")
    fr = await Text.connect(server, "2", local=OTHER)
    rest = await fr.closed()
    assert "Les connexions depuis votre adresse sont bannies de ce serveur pour toujours" in rest
    assert "Motif" in rest and "spam" in rest
    assert "Nom" not in rest  # never asked for a name
    # a program gets one JSON error line
    reader, writer = await asyncio.open_connection(HOST, server.telnet_port, local_addr=(OTHER, 0))
    try:
        from clients.framing import WONT_TTYPE

        writer.write(WONT_TTYPE + b"json\r\n")
        data = (await asyncio.wait_for(reader.read(), 10)).decode("utf-8", "replace")  # then the server closes
        # after the text prompt (clients read leniently until the first object: docs/protocol.md)
        error = json.loads(data[data.index('{"type":"error"'):].splitlines()[0])
        assert error["code"] == "banned" and "spam" in error["message"]
    finally:
        writer.close()
    assert not server.lobby.players


async def test_telnet_banned_and_locked_accounts_after_their_password(server: Running) -> None:
    await community(server)
    await server.store.moderation.ban("account", "pat", until=time.time() + 7200, reason="triche",
                                      actor="console:test")
    await server.store.moderation.lock("bob", reason="", actor="console:test")
    pat = await Text.connect(server, "3")
    await pat.expect(": ")
    pat.type("pat")
    await pat.expect("ontraseña")
    pat.type(PASSWORDS["pat"])
    rest = await pat.closed()
    assert "Esta cuenta esta baneada de este servidor hasta el" in rest  # a plain terminal: no accents
    assert "triche" in rest
    bob = await Text.connect(server, "en")
    await bob.expect(": ")
    bob.type("bob")
    await bob.expect("assword")
    bob.type(PASSWORDS["bob"])
    rest = await bob.closed()
    assert "This account is locked. Ask the server's operators." in rest
    assert not server.lobby.players
    # JSON login of a banned account: refused, nothing opened
    from clients.client import Client, ClientError

    client = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
    try:
        with pytest.raises(ClientError) as exc:
            await client.login("pat", PASSWORDS["pat"])
        assert exc.value.code == "banned"
    finally:
        await client.close()
    assert not server.lobby.players


async def test_a_ban_made_offline_holds_at_the_next_connection(server: Running, tmp_path: Any) -> None:
    """donne admin writes beside the running server; the door reads the database every time."""
    await community(server)
    pat = await json_client(server, "pat")
    await pat.close()
    from server.storage import open_store

    tool = await open_store(server.config.db_path, recover=False, exclusive=False)
    try:
        await tool.moderation.ban("account", "pat", until=None, reason="offline", actor="console:root")
    finally:
        await tool.close()
    from clients.client import Client, ClientError

    client = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
    try:
        with pytest.raises(ClientError) as exc:
            await client.login("pat", PASSWORDS["pat"])
        assert exc.value.code == "banned" and "offline" in exc.value.message
    finally:
        await client.close()
