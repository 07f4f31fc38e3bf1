"""Chat under moderation, on real servers: a muted player's chat reaches nobody (lobby and tables)
and they are told until when; an ignored player's chat is not shown to the one who ignores (kept
with the account); the chat rate; announcements reach every table and the lobby; the message of
the day after logging in, by every door.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncssh

from clients.client import Client
from server.start.app import Running
from tests.kits.servers import start_server
from tests.kits.staffkit import HOST, Text, community, event_of, events, json_client


async def settle(*clients: Client) -> None:
    """Every client has received everything sent before (a ping each: replies come after pushes)."""
    for c in clients:
        await c.request("ping")


async def at_a_table(a: Client, b: Client) -> str:
    room = (await a.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
    await b.request("join", room=room)
    await a.next_state(lambda s: s.get("status") == "playing", timeout=10, current=True)
    return str(room)


async def test_a_muted_player_s_chat_reaches_nobody(server: Running) -> None:
    await community(server)
    mo, pat, bob = [await json_client(server, n) for n in ("mo", "pat", "bob")]
    try:
        reply = await mo.request("mute", name="pat", duration="30m", reason="insults")
        told = await event_of(pat, "muted")
        assert told["until"] == reply["until"] and "insults" in told["text"]
        said = await pat.request_raw("say", text="you all stink")
        assert said["code"] == "muted" and reply["until"] in said["message"]
        await settle(bob, mo)
        assert not events(bob, "chat") and not events(mo, "chat")
        await at_a_table(pat, bob)
        said = await pat.request_raw("say", text="at the table then")
        assert said["code"] == "muted"
        await bob.request("say", text="hello pat")
        heard = await event_of(pat, "chat")
        assert heard["message"] == "hello pat"  # a muted player still reads
        await settle(bob)
        assert not [e for e in events(bob, "chat") if e["name"] == "pat"]
        await mo.request("unmute", name="pat")
        await event_of(pat, "unmuted")
        await pat.request("say", text="sorry")
        assert (await event_of(bob, "chat"))["message"] == "sorry"
    finally:
        for c in (mo, pat, bob):
            await c.close()


async def test_ignored_chat_is_not_shown_in_the_lobby_nor_at_a_table_and_it_is_kept(server: Running) -> None:
    await community(server)
    ada, bob, mo = [await json_client(server, n) for n in ("ada", "bob", "mo")]
    try:
        assert (await ada.request("ignore", name="BOB"))["ignored"] == ["bob"]
        await bob.request("say", text="lobby spam")
        assert (await event_of(mo, "chat"))["message"] == "lobby spam"
        await settle(ada)
        assert not events(ada, "chat")
    finally:
        await ada.close()
    ada = await json_client(server, "ada")  # kept with the account
    try:
        assert (await ada.request("ignore"))["ignored"] == ["bob"]
        await at_a_table(ada, bob)
        await bob.request("say", text="table spam")
        await mo.request("say", text="from the lobby")  # mo is in the lobby: ada at a table hears nothing of it
        await settle(ada)
        assert not events(ada, "chat")
        await ada.request("unignore", name="bob")
        await bob.request("say", text="friends again")
        assert (await event_of(ada, "chat"))["message"] == "friends again"
        assert await server.store.moderation.ignores("ada") == []
        assert (await ada.request_raw("ignore", name="ada"))["code"] == "bad_argument"
    finally:
        for c in (ada, bob, mo):
            await c.close()


async def test_a_guest_may_ignore_too_for_its_connection(server: Running) -> None:
    await community(server)
    gus = await json_client(server, "gus", guest=True)
    bob = await json_client(server, "bob")
    try:
        await gus.request("ignore", name="bob")
        await bob.request("say", text="hi")
        await settle(gus)
        assert not events(gus, "chat")
    finally:
        await gus.close()
        await bob.close()


async def test_chat_rate(tmp_path: Any) -> None:
    server = await start_server(tmp_path, chat_per_minute=1.0, chat_burst=2)
    try:
        await community(server)
        pat, bob = await json_client(server, "pat"), await json_client(server, "bob")
        try:
            for n in range(2):
                await pat.request("say", text=f"line {n}")
            said = await pat.request_raw("say", text="line 2")
            assert said["code"] == "rate_limited" and "too fast" in said["message"]
            await settle(bob)
            assert [e["message"] for e in events(bob, "chat")] == ["line 0", "line 1"]
            limits = await pat.request("limits")
            assert (limits["chat_per_minute"], limits["chat_burst"]) == (1.0, 2)
        finally:
            await pat.close()
            await bob.close()
    finally:
        await server.stop()


async def test_announce_reaches_the_tables_and_the_lobby_in_each_language(server: Running) -> None:
    await community(server)
    ada, pat, bob, mo = [await json_client(server, n) for n in ("ada", "pat", "bob", "mo")]
    fr = await Text.login(server, "zed", "fr")
    try:
        await bob.request("lang", lang="es")
        await at_a_table(pat, bob)
        reply = await ada.request("announce", text="Restart at six \x1b[5m!")
        assert reply["sent"] == 5  # ada herself, pat and bob at their table, mo in the lobby, zed over telnet
        for client in (pat, bob, mo, ada):
            event = await event_of(client, "announcement")
            assert (event["name"], event["message"]) == ("ada", "Restart at six !")
            assert "Restart at six !" in event["text"]
        await fr.expect(r"Annonce de ada\W+Restart at six !")
        await mo.request("ignore", name="ada")  # an announcement is no chat: it is not ignored
        await ada.request("announce", text="again")
        assert (await event_of(mo, "announcement"))["message"] == "again"
    finally:
        fr.close()
        for c in (ada, pat, bob, mo):
            await c.close()


async def test_motd_after_login_by_every_door(tmp_path: Any) -> None:
    server = await start_server(tmp_path, motd="Welcome to the club.\nBe nice.")
    try:
        await community(server)
        # telnet, a person: after the greeting
        pat = await Text.login(server, "pat")
        await pat.expect(r"Be nice\.")
        assert "Message of the day:\nWelcome to the club.\nBe nice." in pat.screen
        assert pat.screen.index("Welcome back") < pat.screen.index("Message of the day")
        pat.close()
        # telnet, a program: pushed when it logs in
        bob = await Client.connect_tcp(HOST, server.telnet_port, timeout=10)
        await bob.login("bob", "bob-secret")
        motd = await event_of(bob, "motd")
        assert motd["message"] == "Welcome to the club.\nBe nice."
        await bob.close()
        # SSH, a program: after the hello line, which stays the first
        async with asyncssh.connect(HOST, server.ssh_port, username="gus", known_hosts=None, agent_path=None,
                                    client_keys=None) as conn:
            proc = await conn.create_process("json")
            first = await asyncio.wait_for(proc.stdout.readline(), 10)
            second = await asyncio.wait_for(proc.stdout.readline(), 10)
            assert '"event":"hello"' in first.replace(" ", "") and '"event":"motd"' in second.replace(" ", "")
            proc.stdin.write_eof()
        # an admin's message replaces it; clear brings the configuration's back
        ada = await json_client(server, "ada")
        assert (await ada.request("motd", text="Tournament on Sunday"))["motd"] == "Tournament on Sunday"
        mo = await json_client(server, "mo")
        assert (await event_of(mo, "motd"))["message"] == "Tournament on Sunday"
        assert (await mo.request("motd"))["motd"] == "Tournament on Sunday"  # reading it is everyone's
        assert (await mo.request_raw("motd", text="mine"))["code"] == "forbidden"
        assert (await ada.request("motd", clear=True))["motd"] == "Welcome to the club.\nBe nice."
        await ada.close()
        await mo.close()
    finally:
        await server.stop()


async def test_no_motd_no_event(server: Running) -> None:
    await community(server)
    bob = await json_client(server, "bob")
    try:
        await settle(bob)
        assert not events(bob, "motd")
        assert (await bob.request("motd"))["motd"] == ""
    finally:
        await bob.close()


async def test_tables_per_player(tmp_path: Any) -> None:
    """The limit the operator sets (``rooms_per_account``) holds, and ``limits`` shows it."""
    server = await start_server(tmp_path, rooms_per_account=1)
    try:
        await community(server)
        pat, bob = await json_client(server, "pat"), await json_client(server, "bob")
        try:
            room = (await pat.request("create", game="president", rules="classic", seats=4, bots=1))["room"]
            await bob.request("join", room=room)
            await pat.request("leave")  # before the match: bob waits there, the room pat opened is still open
            refused = await pat.request_raw("create", game="president", rules="classic", seats=3, bots=2)
            assert refused["code"] == "not_allowed"
            assert (await pat.request("limits"))["rooms_per_account"] == 1
            await bob.request("leave")
            assert (await bob.request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        finally:
            await pat.close()
            await bob.close()
    finally:
        await server.stop()
