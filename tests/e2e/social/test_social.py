"""Players and each other over real transports: tells, messages, friends, finger, seeks, challenges.

A real server on free loopback ports; scripted JSON players over raw TCP and SSH
(``clients/client.py``) and a person on the real ``telnet`` client in French
(pexpect). Mutes and ``ignore`` lists are the operators' (``test_admin_social.py``): here a stand-in
``Moderation`` is plugged into the lobby's hook to prove tells and messages ask it.
"""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import pytest

from clients.client import Client, ClientError
from server.messages.terminal import strip_ansi
from tests.kits.servers import play_simply, start_server

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.e2e
HOST = "127.0.0.1"


def waiting(client: Client, event: str, **fields: Any) -> asyncio.Task[dict[str, Any]]:
    """A wait for the next ``event`` with these fields, started now (before what causes it)."""
    return asyncio.ensure_future(client.next_event(
        event, timeout=10, predicate=lambda m: all(m.get(k) == v for k, v in fields.items())))


async def member(running: Any, name: str, *, register: bool = True, login: bool = False) -> Client:
    """A JSON player over raw TCP: a new account (``register``), an account logging in again
    (``login``), or a guest."""
    client = await Client.connect_tcp(HOST, running.telnet_port, timeout=10)
    if register and not login:
        await client.register(name, "secret-" + name)
    else:
        await client.login(name, "secret-" + name if login else None)
    return client


async def refused(client: Client, cmd: str, **args: Any) -> str:
    with pytest.raises(ClientError) as err:
        await client.request(cmd, **args)
    return err.value.code


class Moderation:
    """A stand-in for the operators' mutes and ignore lists."""

    def __init__(self) -> None:
        self.mutes: set[str] = set()
        self.ignoring: set[tuple[str, str]] = set()

    def muted(self, name: str) -> bool:
        return name.casefold() in self.mutes

    def ignores(self, who: str, whom: str) -> bool:
        return (who.casefold(), whom.casefold()) in self.ignoring


def person(port: int) -> Any:
    child = pexpect.spawn("telnet", [HOST, str(port)], env={"TERM": "xterm", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=15)
    child.expect("Langue")
    child.sendline("2")
    child.expect("Nom")
    child.sendline("Zoe")
    child.expect("Bonjour")
    return child


async def say(child: Any, line: str, expect: str) -> str:
    await asyncio.to_thread(child.sendline, line)
    await asyncio.to_thread(child.expect, expect)
    return strip_ansi(child.before + child.after)


@pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: run make tools")
async def test_tells_replies_and_refusals_across_three_sessions(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    moderation = Moderation()
    running.lobby.moderation = moderation
    alice = await member(running, "alice")
    bob = await Client.connect_ssh(HOST, running.ssh_port, "bob", password=None, client_keys=None, timeout=10)
    zoe = await asyncio.to_thread(person, running.telnet_port)
    try:
        told = waiting(bob, "tell", **{"from": "alice"})
        assert (await alice.request("tell", name="BOB", text="salut\x1b[2J bob"))["to"] == "bob"
        assert (await told)["message"] == "salut bob"  # cleaned like chat: no escape sequence
        back = waiting(alice, "tell", **{"from": "bob"})
        await bob.request("reply", text="hello alice")
        assert (await back)["message"] == "hello alice"
        # the person, in French: hears alice, answers with "dire à", then "répondre"
        await alice.request("tell", name="zoe", text="bonne chance")
        await asyncio.to_thread(zoe.expect, r"alice vous dit\s: bonne chance")
        from_zoe = waiting(alice, "tell", **{"from": "Zoe"})
        await say(zoe, "dire à alice merci !", "Vous dites à alice")
        assert (await from_zoe)["message"] == "merci !"
        again = waiting(alice, "tell", **{"from": "Zoe"})
        await say(zoe, "répondre à plus", "Vous dites à alice")
        assert (await again)["message"] == "à plus"
        # refusals: offline, ignoring you, muted; nothing is sent
        assert await refused(alice, "tell", name="dave", text="hi") == "not_online"
        assert await refused(alice, "tell", name="bob", text="") == "bad_argument"
        moderation.ignoring.add(("bob", "alice"))
        assert await refused(alice, "tell", name="bob", text="still there?") == "ignored"
        moderation.mutes.add("zoe")
        out = await say(zoe, "susurrer alice coucou", "silence")
        assert "réduit au silence" in out
        nxt = waiting(alice, "tell")
        await bob.request("tell", name="alice", text="barrier")  # what alice hears next is this
        last = await nxt
        assert last["from"] == "bob" and last["message"] == "barrier"
    finally:
        zoe.terminate(force=True)
        for c in (alice, bob):
            await c.close()
        await running.stop()


async def test_offline_messages_are_kept_bounded_and_shown_at_login(tmp_path: Any) -> None:
    running = await start_server(tmp_path, mail_per_sender=2)
    moderation = Moderation()
    running.lobby.moderation = moderation
    alice = await member(running, "alice")
    dave = await member(running, "dave")
    guest = await member(running, "gus", register=False)
    await dave.close()
    try:
        for text in ("à demain", "n'oublie pas"):
            assert (await alice.request("message", name="dave", text=text))["kept"] is True
        assert await refused(alice, "message", name="dave", text="one too many") == "mailbox_full"
        assert await refused(guest, "message", name="dave", text="hi") == "account_needed"
        assert await refused(alice, "message", name="nobody", text="hi") == "no_such_player"
        moderation.ignoring.add(("dave", "gus"))
        moderation.mutes.add("alice")
        assert await refused(alice, "message", name="dave", text="muted") == "muted"
        moderation.mutes.clear()
        dave = await Client.connect_tcp(HOST, running.telnet_port, timeout=10)
        got: list[dict[str, Any]] = []
        dave.on_push = lambda m: got.append(m) if m.get("event") == "message" else None
        await dave.login("dave", "secret-dave")
        for _ in range(100):
            if len(got) == 2:
                break
            await asyncio.sleep(0.05)
        assert [(m["from"], m["message"]) for m in got] == [("alice", "à demain"), ("alice", "n'oublie pas")]
        # told once: the next login has none, and an online account hears a message at once
        now = waiting(dave, "message", **{"from": "alice"})
        assert (await alice.request("message", name="dave", text="tu es là"))["kept"] is False
        assert (await now)["message"] == "tu es là"
    finally:
        for c in (alice, dave, guest):
            await c.close()
        await running.stop()


async def test_a_guest_at_the_table_is_not_a_friend_and_the_empty_list_names_someone_else(tmp_path: Any) -> None:
    """``friend zoe`` for a guest sitting at the same table says she is a guest (not "nobody called zoe
    here"); the empty friends list's example names someone at the reader's table, never the reader."""
    running = await start_server(tmp_path)
    ana, bea = await member(running, "ana"), await member(running, "bea")
    zoe = await member(running, "zoe", register=False)
    try:
        room = (await ana.request("create", game="president", rules="classic", seats=4, bots=1))["room"]
        await zoe.request("join", room=room)
        with pytest.raises(ClientError) as err:
            await ana.request("friend", name="zoe")
        assert err.value.code == "not_allowed" and "zoe" in err.value.message and "guest" in err.value.message
        assert "nobody" not in err.value.message
        assert "suggest" not in (await ana.request("friends"))  # nobody else registered at her table
        await bea.request("join", room=room)
        assert (await ana.request("friends"))["suggest"] == "bea"
        assert (await bea.request("friends"))["suggest"] == "ana"
    finally:
        for c in (ana, bea, zoe):
            await c.close()
        await running.stop()


async def test_friends_notices_finger_and_hiding(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    alice = await member(running, "alice")
    bob = await member(running, "bob")
    try:
        await bob.request("bio", text="j'aime la coupe")
        assert (await alice.request("friend", name="Bob"))["friends"] == [
            {"name": "bob", "online": True, "room": None, "seat": None}]
        assert await refused(alice, "friend", name="nobody") == "no_such_player"
        await bob.close()
        online = waiting(alice, "friend_online", name="bob")
        bob = await member(running, "bob", login=True)
        await online
        seated = waiting(alice, "friend_seated", name="bob")
        room = (await bob.request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        assert (await seated)["room"] == room
        card = await alice.request("finger", name="bob")
        assert card["online"] and card["room"] == room and card["bio"] == "j'aime la coupe"
        assert card["registered"] and card["friend"] is True and card["guest"] is False
        await bob.request("hide", on=True)
        assert (await alice.request("finger", name="bob"))["room"] is None
        who = {p["name"]: p for p in (await alice.request("who"))["players"]}
        assert who["bob"]["room"] is None and (await bob.request("finger"))["room"] == room
        listed = await alice.request("friends", notify=False)
        assert listed["notify"] is False and listed["friends"][0]["room"] is None
        assert await running.store.social.watchers("bob") == []
        assert await refused(await member(running, "gus", register=False), "friend", name="bob") == "account_needed"
    finally:
        for c in (alice, bob):
            await c.close()
        await running.stop()


async def test_challenge_and_seek_seat_the_people_who_accept(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    alice, bob, carol = [await member(running, n) for n in ("alice", "bob", "carol")]
    try:
        challenged = waiting(bob, "challenge", name="alice")
        made = await alice.request("challenge", name="bob", game="president", rules="classic", seats=4)
        assert made["bots"] == 2 and made["to"] == "bob"
        assert await refused(alice, "seek", game="president") == "already_seeking"
        assert (await challenged)["seek"] == made["seek"]
        assert await refused(carol, "accept_seek", seek=made["seek"]) == "no_such_seek"  # not hers
        started = waiting(alice, "seek_started", seek=made["seek"])
        got = await bob.request("accept_seek")
        room = got["room"]
        assert room and (await started)["room"] == room
        state = await bob.next_state(lambda s: s.get("room") == room and s.get("status") == "playing",
                                     timeout=10, current=True)
        assert [s["name"] for s in state["seats"]][:2] == ["alice", "bob"]
        await alice.request("leave")
        await bob.request("leave")
        # a seek: the first two who accept take the seats; declining a challenge tells its owner
        heard = waiting(alice, "seek", name="carol")
        seek = await carol.request("seek", game="president", rules="classic", seats=3)
        assert (await heard)["missing"] == 2
        accepted = waiting(carol, "seek_accepted", name="alice")
        assert (await alice.request("accept_seek", seek=seek["seek"]))["room"] is None
        assert (await accepted)["missing"] == 1
        got = await bob.request("accept_seek", seek=seek["seek"])
        state = await carol.next_state(lambda s: s.get("room") == got["room"] and s.get("status") == "playing",
                                       timeout=10, current=True)
        assert [s["name"] for s in state["seats"]] == ["carol", "alice", "bob"]
        assert await refused(alice, "accept_seek", seek=seek["seek"]) == "already_in_room"
    finally:
        for c in (alice, bob, carol):
            await c.close()
        await running.stop()


async def test_a_seek_with_fill_opens_with_bots_when_it_lapses(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    alice, bob = await member(running, "alice"), await member(running, "bob")
    try:
        seek = await alice.request("seek", game="president", rules="classic", seats=4, fill=True)
        await bob.request("accept_seek", seek=seek["seek"])
        declined = waiting(bob, "seek_over", reason="declined")
        other = await bob.request("challenge", name="alice", game="president")
        await alice.request("decline_seek", seek=other["seek"])
        assert (await declined)["name"] == "alice"
        started = waiting(bob, "seek_started", seek=seek["seek"])
        lobby = running.lobby
        lobby.seeks.get(seek["seek"]).expires = 0.0  # its time is up (no waiting in a test)
        lobby._seeks_due()
        room = (await started)["room"]
        state = await alice.next_state(lambda s: s.get("room") == room and s.get("status") == "playing",
                                       timeout=10, current=True)
        assert [s["bot"] for s in state["seats"]] == [False, False, True, True]
        assert state["seats"][0]["name"] == "alice"
    finally:
        for c in (alice, bob):
            await c.close()
        await running.stop()


async def test_a_bio_fits_the_screen_and_hides_nothing(tmp_path: Any) -> None:
    """A bio is shown to others at length: it is measured in terminal columns (300 full-width
    characters are 600 columns), may not pile combining marks over the lines around it, nor hold
    direction overrides or zero-width characters; a seed neither (it is shown in every record)."""
    running = await start_server(tmp_path)
    zoe = await member(running, "zoe")
    try:
        limit = running.config.max_bio
        for bad in ("\uff21" * (limit // 2 + 1), "a" + "\u0301" * 250, "x" + "\u0301\u0302\u0303",
                    "I like \u202eskcolc", "b\u200dio", "\u200b"):
            assert await refused(zoe, "bio", text=bad) == "bad_argument", repr(bad)
        assert (await zoe.request("bio"))["bio"] == ""  # nothing was set
        fine = "\uff21" * (limit // 2)
        assert (await zoe.request("bio", text=fine))["bio"] == fine
        assert (await zoe.request("bio", text="Việt, 日本, Zoé"))["bio"] == "Việt, 日本, Zoé"
        for bad in ("seed\u202egnp", "a\u200db", "e" + "\u0301" * 4):
            assert await refused(zoe, "seed", text=bad) == "bad_entropy", repr(bad)
        assert (await zoe.request("seed"))["seed"] is None
    finally:
        await zoe.close()
        await running.stop()


async def test_hiding_holds_in_the_room_list_its_news_and_for_spectators(tmp_path: Any) -> None:
    """``hide`` keeps where you sit to yourself in ``rooms`` (listed, not named), in the news of the
    room you open, and from a spectator (who reads your seat, not your name)."""
    running = await start_server(tmp_path)
    alice = await member(running, "alice")
    bob = await member(running, "bob")
    try:
        await bob.request("hide", on=True)
        news = waiting(alice, "room_created")
        room = (await bob.request("create", game="president", rules="classic", seats=3))["room"]
        created = await news
        assert created["room"] == room and created.get("name") is None and "bob" not in str(created)
        listed = next(r for r in (await alice.request("rooms"))["rooms"] if r["room"] == room)
        assert listed["players"] == [None]
        mine = next(r for r in (await bob.request("rooms"))["rooms"] if r["room"] == room)
        assert mine["players"] == ["bob"]  # to themselves
        await alice.request("watch", room=room)
        state = await alice.next_state(lambda s: s.get("room") == room, timeout=10, current=True)
        assert state["seats"][0]["name"] is None and state["seats"][0]["hidden"] is True
        await bob.request("hide", on=False)
        state = await alice.next_state(lambda s: s["seats"][0]["name"] == "bob", timeout=10, current=True)
        assert "hidden" not in state["seats"][0]
    finally:
        for c in (alice, bob):
            await c.close()
        await running.stop()


async def test_a_person_back_at_their_table_is_hidden_again(tmp_path: Any) -> None:
    """A table rebuilt after a restart knows nothing of ``hide``: when the person comes back, their
    profile is read again and the table's spectators stop reading their name at once."""
    running = await start_server(tmp_path)
    bob = await member(running, "bob")
    zoe = await member(running, "zoe")
    try:
        await bob.request("hide", on=True)
        room = (await bob.request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        table = running.lobby.rooms[room].table  # (a match under way: the seat waits for him)
        assert table.seats[0].hidden
        held = running.lobby.player("bob")
        assert held is not None
        held.extra.pop("hide_where")  # as a restored table's player: nothing known of the profile yet
        table.seats[0].hidden = False
        await bob.close()
        bob = await member(running, "bob", login=True)
        await zoe.request("watch", room=room)
        state = await zoe.next_state(lambda s: s["seats"][0]["name"] is None, timeout=10, current=True)
        assert state["seats"][0]["hidden"] is True and table.seats[0].hidden
    finally:
        for c in (bob, zoe):
            await c.close()
        await running.stop()


async def test_the_history_of_someone_who_hides_does_not_say_where_they_sit(tmp_path: Any) -> None:
    """A round finished at the table bob sits at now would name its room in ``history bob``: while
    he hides and sits there, others do not see those rounds; he does, and so do they once he has left."""
    running = await start_server(tmp_path)
    bob = await member(running, "bob")
    alice = await member(running, "alice")
    try:
        await bob.request("hide", on=True)
        over = asyncio.ensure_future(bob.next_event("round_over", timeout=120))
        room = (await bob.request("create", game="president", rules="classic", seats=3, bots=2, rounds=3))["room"]
        await play_simply(bob, timeout=60, until=lambda s: s.get("round", 1) >= 2)  # still seated, in round 2
        await over
        for _ in range(50):
            if (await bob.request("history"))["history"]:
                break
            await asyncio.sleep(0.1)
        mine = (await bob.request("history"))["history"]
        assert mine and all(h["round"].startswith(room + "-") for h in mine)
        seen = await alice.request("history", name="bob")
        assert seen["history"] == [] and room not in str(seen)
        await bob.request("hide", on=False)
        assert (await alice.request("history", name="bob"))["history"]
    finally:
        for c in (alice, bob):
            await c.close()
        await running.stop()


async def test_a_sit_down_and_leave_loop_tells_ones_friends_once(tmp_path: Any) -> None:
    """Creating and leaving tables in a loop told each friend every time ("bob sits at r1", "r2"...,
    23 in 6 s): one ``friend_seated`` in ``SEATED_TOLD_SECONDS``."""
    running = await start_server(tmp_path)
    alice = await member(running, "alice")
    bob = await member(running, "bob")
    seen: list[dict[str, Any]] = []
    try:
        await alice.request("friend", name="bob")
        alice.on_push = seen.append
        for _ in range(4):
            await bob.request("create", game="president", rules="classic", seats=3, bots=2)
            await bob.request("leave")
        await asyncio.sleep(0.5)
        assert len([m for m in seen if m.get("event") == "friend_seated"]) == 1
    finally:
        for c in (alice, bob):
            await c.close()
        await running.stop()
