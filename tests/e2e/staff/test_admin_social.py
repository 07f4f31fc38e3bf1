"""The operators' mutes and ignore lists reach the social commands through the lobby's moderation hook
(``Lobby.moderation``, answered by ``server/lobby/moderation.py``), on real servers: a muted player's tells,
offline messages and challenges reach nobody; someone ignored cannot tell, message or challenge the
one who ignores them, online or not, after a restart too (the lists are read from the store); a
message left before the ignore is not shown at login; a guest's list goes with the guest.
"""

from __future__ import annotations

from typing import Any

from clients.client import Client
from server.lobby.moderation import Conduct
from server.start.app import Running
from tests.kits.servers import start_server
from tests.kits.staffkit import community, event_of, events, json_client, until


async def settle(*clients: Client) -> None:
    for c in clients:
        await c.request("ping")


async def code(client: Client, cmd: str, **args: Any) -> str:
    return str((await client.request_raw(cmd, **args))["code"])


async def test_the_hook_is_the_operators_moderation(server: Running) -> None:
    assert isinstance(server.lobby.moderation, Conduct) and server.lobby.moderation is server.lobby.conduct


async def test_a_muted_player_tells_messages_and_challenges_nobody(server: Running) -> None:
    await community(server)
    mo, pat, bob = [await json_client(server, n) for n in ("mo", "pat", "bob")]
    try:
        assert (await pat.request("tell", name="bob", text="before"))["to"] == "bob"
        assert (await event_of(bob, "tell"))["message"] == "before"
        await mo.request("mute", name="pat", duration="10m", reason="spam")
        await event_of(pat, "muted")
        assert await code(pat, "tell", name="bob", text="still here") == "muted"
        assert await code(pat, "message", name="ada", text="offline ada") == "muted"
        assert await code(pat, "challenge", name="bob", game="president", rules="classic", seats=3) == "muted"
        await settle(bob)
        assert not events(bob, "tell") and not events(bob, "challenge")
        assert await server.store.social.take_mail("ada") == []  # nothing was kept for ada
        await mo.request("unmute", name="pat")
        await event_of(pat, "unmuted")
        assert (await pat.request("tell", name="bob", text="after"))["to"] == "bob"
        assert (await event_of(bob, "tell"))["message"] == "after"
    finally:
        for c in (mo, pat, bob):
            await c.close()


async def test_a_muted_player_reaches_nobody_through_a_bio_or_a_seed(server: Running) -> None:
    """Texts others read are speech too: a muted player cannot set a bio, a seed or an entropy text
    (published in fairness records); their bio is hidden from others while the mute lasts (back after
    it), and the mute takes their standing seed away at the table at once."""
    await community(server)
    mo, pat, bob = [await json_client(server, n) for n in ("mo", "pat", "bob")]
    try:
        await pat.request("bio", text="VISIT spam.example FOR FREE CHIPS")
        room = (await pat.request("create", game="president", rules="classic", seats=3))["room"]
        await pat.request("seed", text="spam.example")
        table = server.lobby.rooms[room].table
        assert table.seats[0].seed == "spam.example"
        await mo.request("mute", name="pat", duration="10m", reason="spam")
        await event_of(pat, "muted")
        assert table.seats[0].seed is None and (await pat.request("seed"))["seed"] is None
        assert (await bob.request("finger", name="pat"))["bio"] == ""
        assert (await mo.request("finger", name="pat"))["bio"] == ""
        assert (await pat.request("bio"))["bio"] == "VISIT spam.example FOR FREE CHIPS"  # their own, kept
        assert await code(pat, "bio", text="VISIT spam.example AGAIN") == "muted"
        assert await code(pat, "seed", text="spam.example") == "muted"
        assert await code(pat, "entropy", text="spam.example") == "muted"
        assert table.seats[0].seed is None
        assert (await pat.request("seed", clear=True))["set"] is True  # taking text away is always fine
        await mo.request("unmute", name="pat")
        await event_of(pat, "unmuted")
        assert (await bob.request("finger", name="pat"))["bio"] == "VISIT spam.example FOR FREE CHIPS"
        assert (await pat.request("seed", text="fair and square"))["seed"] == "fair and square"
    finally:
        for c in (mo, pat, bob):
            await c.close()


async def test_a_mute_lapses_on_its_own(server: Running) -> None:
    await community(server)
    conduct = server.lobby.conduct
    now = [1_000_000.0]
    conduct.clock = lambda: now[0]  # the hook's wall clock (the store's mute is written as usual)
    conduct.noted_mute("pat", now[0] + 60)
    assert conduct.muted("PAT") and not conduct.muted("bob")
    now[0] += 61
    assert not conduct.muted("pat")


async def test_someone_ignored_cannot_tell_message_or_challenge_online_or_not(server: Running) -> None:
    await community(server)
    ada, bob, pat = [await json_client(server, n) for n in ("ada", "bob", "pat")]
    try:
        await ada.request("ignore", name="Bob")
        assert await code(bob, "tell", name="ada", text="hi") == "ignored"
        assert await code(bob, "challenge", name="ada", game="president", rules="classic", seats=3) == "ignored"
        assert (await pat.request("tell", name="ada", text="from pat"))["to"] == "ada"  # others still can
        assert (await event_of(ada, "tell"))["from"] == "pat"
        await settle(ada)
        assert not [e for e in events(ada, "tell") if e["from"] == "bob"]
        await ada.close()
        await until(lambda: server.lobby.player("ada") is None)
        assert await code(bob, "message", name="ada", text="while you are away") == "ignored"
        assert (await pat.request("message", name="ada", text="see you"))["kept"] is True
        ada = await json_client(server, "ada")
        await ada.request("unignore", name="bob")
        assert (await bob.request("tell", name="ada", text="friends again"))["to"] == "ada"
        assert (await event_of(ada, "tell"))["message"] == "friends again"
    finally:
        for c in (ada, bob, pat):
            await c.close()


async def test_ignore_lists_hold_after_a_restart_before_their_owner_logs_in(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    await community(running)
    ada = await json_client(running, "ada")
    await ada.request("ignore", name="bob")
    await ada.close()
    await running.stop()
    running = await start_server(tmp_path)
    bob = await json_client(running, "bob")  # the first login reads every list: ada's too
    try:
        assert await code(bob, "message", name="ada", text="remember me?") == "ignored"
        assert await running.store.social.take_mail("ada") == []
    finally:
        await bob.close()
        await running.stop()


async def test_a_message_kept_before_the_ignore_is_not_shown_at_login(server: Running) -> None:
    await community(server)
    bob, ada = [await json_client(server, n) for n in ("bob", "ada")]
    await ada.close()
    try:
        assert (await bob.request("message", name="ada", text="kept before"))["kept"] is True
        await server.store.moderation.ignore("ada", "bob")  # as another server on the same database would
        ada = await json_client(server, "ada")
        await until(lambda: not server.lobby._tasks)  # the welcome (messages at login) after the reply
        await settle(ada)
        assert await server.store.social.take_mail("ada") == []  # it was handed out, and not shown
        assert not events(ada, "message")
    finally:
        for c in (bob, ada):
            await c.close()


async def test_a_guest_s_list_goes_with_the_guest(server: Running) -> None:
    await community(server)
    gus = await json_client(server, "gus", guest=True)
    bob = await json_client(server, "bob")
    try:
        await gus.request("ignore", name="bob")
        assert await code(bob, "tell", name="gus", text="hi") == "ignored"
        assert server.lobby.moderation.ignores("gus", "bob")
        await gus.close()
        await until(lambda: server.lobby.player("gus") is None)
        assert not server.lobby.moderation.ignores("gus", "bob")  # forgotten with the guest
    finally:
        await bob.close()
