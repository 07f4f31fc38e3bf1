"""Attacks through the social commands, against a real server: rooms opened through seeks and
challenges past the room limits, floods of tells, challenges and seeks, escaping an ``ignore`` under
another guest name, and ``verify`` as a CPU burner.

Every connection is a real JSON client (``clients/client.py``) on the telnet port, from its own
loopback address (``127.0.0.N``) when the attack needs many addresses.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from clients.client import Client
from server.messages.errors import error_message
from tests.e2e.attacks.test_attacks import guest, member, nick
from tests.kits.servers import play_simply, start_server
from tests.kits.staffkit import event_of, events

TABLE = {"game": "president", "rules": "classic", "seats": 3, "bots": 1}  # two people: the owner and one


async def settle(*clients: Client) -> None:
    """Every client has received everything sent before it (a ping each: replies come after pushes)."""
    for c in clients:
        await c.request("ping")


async def seek_table(owner: Client, taker: Client) -> dict[str, Any]:
    """``owner`` seeks one person, ``taker`` takes the seat: the reply of the refusal, or of the seek."""
    made = await owner.request_raw("seek", **TABLE)
    if made["type"] != "ok":
        return made
    got = await taker.request_raw("accept_seek", seek=made["seek"])
    assert got["type"] == "ok" and got["room"], got
    return made


async def test_seeks_and_challenges_count_against_the_room_limits_of_their_owner(tmp_path: Any) -> None:
    """Guests of one address open rooms through seeks as through create: rooms_per_address in all, the
    seeks waiting counted too; an account's seek and challenge count against rooms_per_account; a seek
    whose table a limit refuses when it is taken up ends, its owner told why."""
    server = await start_server(tmp_path, max_rooms=10, rooms_per_address=2, rooms_per_account=1,
                                guest_room_share=0.6)
    addr = "127.0.0.20"
    guests = [await guest(server, nick("sk", i), addr) for i in range(6)]
    takers = [await guest(server, nick("tk", i), f"127.0.0.{30 + i}") for i in range(4)]
    people: list[Client] = []
    try:
        # two seeks waiting from the address: a third is refused at once, in the reader's language
        first = await guests[0].request("seek", **TABLE)
        await guests[1].request("seek", **TABLE)
        await guests[2].request("lang", lang="fr")
        third = await guests[2].request_raw("seek", **TABLE)
        assert third["code"] == "not_allowed"
        assert third["message"] == error_message("fr", "not_allowed", reason="rooms_per_address", max=2)
        assert (await guests[2].request_raw("challenge", name=nick("tk", 0), **TABLE))["code"] == "not_allowed"
        # both seeks taken up: two rooms from the address; nothing more from it, by seek or create
        await takers[0].request("accept_seek", seek=first["seek"])
        await takers[1].request("accept_seek")
        assert len(server.lobby.rooms) == 2 and server.lobby.slots.opened_from(addr) == 2
        for g in guests[2:4]:
            assert (await g.request_raw("seek", **TABLE))["code"] == "not_allowed"
            assert (await g.request_raw("create", **TABLE))["code"] == "not_allowed"
        # an account: its seek is its one room (rooms_per_account = 1), as a challenge would be
        alice, bob, carol = [await member(server, n) for n in ("alice", "bob", "carol")]
        people += [alice, bob, carol]
        assert (await seek_table(alice, bob))["type"] == "ok"
        await alice.request("leave")  # the room stays open with bob: still alice's
        assert (await alice.request_raw("challenge", name="carol", **TABLE))["code"] == "not_allowed"
        assert (await alice.request_raw("seek", **TABLE))["code"] == "not_allowed"
        # a seek made while a room was free, taken up after the room went to another: it ends, saying why
        await bob.request("leave")  # alice's room closes (nobody left)
        await asyncio.sleep(0)
        late = await carol.request("seek", **TABLE)
        dave = await member(server, "dave")
        people.append(dave)
        room = (await carol.request_raw("seek", **TABLE))
        assert room["code"] == "already_seeking"
        server.lobby.slots.take(server.lobby.opener(server.lobby.player("carol")))  # as if carol's room came first
        ended = asyncio.ensure_future(event_of(carol, "seek_over"))
        assert (await dave.request_raw("accept_seek", seek=late["seek"]))["code"] == "no_such_seek"
        over = await ended
        assert over["reason"] == "refused" and over["code"] == "not_allowed" and over["refused"] == "rooms_per_account"
        assert "already have 1 room" in over["text"]
        assert (await carol.request("whoami"))["room"] is None
    finally:
        await asyncio.gather(*(c.close() for c in guests + takers + people))
        await server.stop()


async def test_guests_seeking_from_many_addresses_leave_the_accounts_their_rooms(tmp_path: Any) -> None:
    """max_rooms 4, half for guests: guests of four addresses get two tables through seeks, the third
    seek is refused (guest_rooms), and a registered player still opens a room."""
    server = await start_server(tmp_path, max_rooms=4, rooms_per_address=0, guest_room_share=0.5)
    owners = [await guest(server, nick("ow", i), f"127.0.0.{110 + i}") for i in range(3)]
    takers = [await guest(server, nick("ta", i), f"127.0.0.{120 + i}") for i in range(2)]
    alice = await member(server, "alice")
    try:
        for owner, taker in zip(owners, takers, strict=False):
            assert (await seek_table(owner, taker))["type"] == "ok"
        third = await owners[2].request_raw("seek", **TABLE)
        assert third["message"] == error_message("en", "not_allowed", reason="guest_rooms", max=2)
        assert (await alice.request_raw("create", **TABLE))["type"] == "ok"
        assert len(server.lobby.rooms) == 3 and server.lobby.slots.guests == 2
    finally:
        await asyncio.gather(*(c.close() for c in [*owners, *takers, alice]))
        await server.stop()


async def test_tells_from_many_guests_to_one_person_are_held_to_the_recipient_s_budget(tmp_path: Any) -> None:
    server = await start_server(tmp_path, tells_per_minute=6, tells_burst=3, tells_received_per_minute=6,
                                tells_received_burst=5)
    victim = await member(server, "victim")
    flood = [await guest(server, nick("fl", i), f"127.0.0.{40 + i}") for i in range(4)]
    twins = [await guest(server, nick("tw", i), "127.0.0.50") for i in range(2)]
    try:
        await flood[3].request("lang", lang="es")
        replies = [await c.request_raw("tell", name="victim", text=f"spam {n}") for n in range(3) for c in flood]
        assert sum(r["type"] == "ok" for r in replies) == 5  # not 12
        refused = [r for r in replies if r["type"] == "error"]
        assert {r["code"] for r in refused} == {"rate_limited"}
        spanish = next(r for r, c in zip(replies, [c for _ in range(3) for c in flood], strict=True)
                       if r["type"] == "error" and c is flood[3])
        assert spanish["message"] == error_message("es", "rate_limited", reason="tells_to", name="victim")
        await settle(victim)
        assert len(events(victim, "tell")) == 5
        # the victim answers one of them: that conversation goes on past the victim's budget
        await victim.request("tell", name=nick("fl", 0), text="stop it")
        await settle(flood[0])
        assert (await flood[0].request_raw("tell", name="victim", text="sorry"))["type"] == "ok"
        # two guest names from one address are one sender
        others = [await member(server, f"other{i}") for i in range(4)]
        try:
            sent = [await twins[i % 2].request_raw("tell", name=f"other{i}", text="hi") for i in range(4)]
            assert [r["type"] for r in sent] == ["ok", "ok", "ok", "error"]
            assert sent[3]["message"] == error_message("en", "rate_limited", reason="tells")
        finally:
            await asyncio.gather(*(c.close() for c in others))
    finally:
        await asyncio.gather(*(c.close() for c in [victim, *flood, *twins]))
        await server.stop()


async def test_a_challenge_and_cancel_loop_reaches_its_victim_a_few_times_only(tmp_path: Any) -> None:
    server = await start_server(tmp_path, challenges_per_minute=6, challenges_burst=3,
                                challenges_received_per_minute=6, challenges_received_burst=4)
    victim = await member(server, "victim")
    loopers = [await guest(server, nick("ch", i), f"127.0.0.{60 + i}") for i in range(3)]
    try:
        codes = []
        for _ in range(5):
            for c in loopers:
                made = await c.request_raw("challenge", name="victim", **TABLE)
                codes.append(made.get("code") or "ok")
                if made["type"] == "ok":
                    await c.request("cancel_seek")
        assert codes.count("ok") == 4  # the victim's burst; each looper alone would have had 3
        await settle(victim)
        assert len(events(victim, "challenge")) == 4
        assert set(codes) == {"ok", "rate_limited"}
    finally:
        await asyncio.gather(*(c.close() for c in [victim, *loopers]))
        await server.stop()


async def test_seeks_reach_the_lobby_as_news_digested_and_withdrawn_ones_not_at_all(tmp_path: Any) -> None:
    server = await start_server(tmp_path, seeks_per_minute=600, seeks_burst=100)
    listener = await member(server, "listener")
    looper = await guest(server, "looper", "127.0.0.70")
    seekers = [await guest(server, nick("sk", i), f"127.0.0.{80 + i}") for i in range(12)]
    try:
        await asyncio.sleep(1.1)  # the lobby is quiet: the first news go out at once
        await settle(listener)
        listener.clear_pushes()
        started = time.monotonic()
        for _ in range(30):  # a seek and cancel loop
            await looper.request("seek", **TABLE)
            await looper.request("cancel_seek")
        spent = time.monotonic() - started
        await asyncio.sleep(1.1)
        await settle(listener)
        heard = events(listener, "seek")
        assert len(heard) <= 1 + spent  # at most one per news interval (those still open then), not 30
        listener.clear_pushes()
        await asyncio.sleep(1.1)
        await asyncio.gather(*(c.request("seek", **TABLE) for c in seekers))  # twelve at once
        await asyncio.sleep(1.2)
        await settle(listener, *seekers)
        pushes = []
        while (msg := listener.next_push_nowait()) is not None:
            pushes.append(msg)
        seeks = [m for m in pushes if m.get("event") == "seek"]
        digests = [m for m in pushes if m.get("event") == "rooms_changed"]
        assert len(seeks) + sum(d["seeks"] for d in digests) == 12  # every one counted
        assert len(seeks) + len(digests) <= 4  # the lobby hears of them in a few lines
        assert digests and "new seeks" in digests[0]["text"]
        for c in seekers:  # nobody hears of their own seek
            assert not events(c, "seek") or all(e["name"] != c.name for e in events(c, "seek"))
    finally:
        await asyncio.gather(*(c.close() for c in [listener, looper, *seekers]))
        await server.stop()


async def test_ignoring_a_guest_holds_against_its_other_guest_names(tmp_path: Any) -> None:
    server = await start_server(tmp_path, tells_per_minute=600, tells_burst=100)
    ada = await member(server, "ada")
    hx0 = await guest(server, "hx0", "127.0.0.90")
    stranger = await guest(server, "zed", "127.0.0.91")
    again: Client | None = None
    try:
        await ada.request("ignore", name="hx0")
        await hx0.close()
        for _ in range(100):
            if server.lobby.player("hx0") is None:
                break
            await asyncio.sleep(0.02)
        again = await guest(server, "hx0b", "127.0.0.90")  # the same person, another guest name
        assert (await again.request_raw("tell", name="ada", text="it's me again"))["code"] == "ignored"
        assert (await again.request_raw("challenge", name="ada", **TABLE))["code"] == "ignored"
        await again.request("say", text="lobby spam")
        await stranger.request("say", text="hello")
        await settle(ada)
        assert [e["name"] for e in events(ada, "chat")] == ["zed"]
        assert (await stranger.request("tell", name="ada", text="hi"))["to"] == "ada"
        await asyncio.sleep(1.1)  # the lobby's news: the seeks go out together
        await again.request("seek", **TABLE)
        await stranger.request("seek", **TABLE)
        await asyncio.sleep(1.1)
        await settle(ada, stranger)
        assert [e["name"] for e in events(ada, "seek")] == ["zed"]  # not hx0b's
        assert not [e for e in events(stranger, "seek") if e["name"] == "zed"]  # nor one's own
        await again.request("cancel_seek")
        await ada.request("unignore", name="hx0")  # for as long as the ignore stands
        assert (await again.request("tell", name="ada", text="friends?"))["to"] == "ada"
    finally:
        await asyncio.gather(*(c.close() for c in [ada, hx0, stranger, *([again] if again else [])]))
        await server.stop()


async def test_ignoring_a_guest_who_just_left_holds_against_its_next_guest_name(tmp_path: Any) -> None:
    """The usual order: a guest's tell arrives, the guest leaves, then the person ignores the name;
    the same person back under another guest name is still ignored (the origin of a guest who left
    is remembered a while), and a stranger is not."""
    server = await start_server(tmp_path, tells_per_minute=600, tells_burst=100)
    ada = await member(server, "ada")
    hy0 = await guest(server, "hy0", "127.0.0.92")
    stranger = await guest(server, "zed", "127.0.0.93")
    again: Client | None = None
    try:
        await hy0.request("tell", name="ada", text="annoying")
        await hy0.close()
        for _ in range(100):
            if server.lobby.player("hy0") is None:
                break
            await asyncio.sleep(0.02)
        assert server.lobby.player("hy0") is None
        await ada.request("ignore", name="hy0")
        again = await guest(server, "hy0b", "127.0.0.92")
        assert (await again.request_raw("tell", name="ada", text="it's me again"))["code"] == "ignored"
        assert (await stranger.request("tell", name="ada", text="hi"))["to"] == "ada"
        await ada.request("unignore", name="hy0")
        assert (await again.request("tell", name="ada", text="friends?"))["to"] == "ada"
    finally:
        await asyncio.gather(*(c.close() for c in [ada, hy0, stranger, *([again] if again else [])]))
        await server.stop()


async def test_a_login_loop_on_one_account_is_held_to_its_budget(tmp_path: Any) -> None:
    """Each login with a password costs a password hash of CPU: logging in and out in a loop gets
    a few logins, then ``rate_limited`` (``logins``) until the budget refills; others log in."""
    server = await start_server(tmp_path, logins_per_minute=6, logins_burst=3)
    try:
        first = await member(server, "ada")
        await first.close()
        codes = []
        for _ in range(5):
            client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=20)
            codes.append((await client.request_raw("login", name="ada", password="a long password")).get("code"))
            await client.close()
        assert codes == [None, None, None, "rate_limited", "rate_limited"]
        client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=20)
        refused = await client.request_raw("login", name="ada", password="a long password")
        assert refused["message"] == error_message("en", "rate_limited", reason="logins")
        await client.close()
        other = await member(server, "bea")  # another account is not held back
        await other.close()
    finally:
        await server.stop()


async def test_ssh_password_logins_spend_the_same_budget(tmp_path: Any) -> None:
    """An SSH password (or keyboard-interactive) login costs the same password hash: a loop of
    them spends the account's budget, and the right password is then refused until it refills."""
    import asyncssh

    server = await start_server(tmp_path, logins_per_minute=6, logins_burst=3)
    try:
        first = await member(server, "ada")
        await first.close()
        outcomes = []
        for _ in range(4):
            try:
                conn = await asyncssh.connect("127.0.0.1", server.ssh_port, username="ada", password="a long password",
                                              known_hosts=None, preferred_auth="password", client_keys=None)
            except asyncssh.PermissionDenied:
                outcomes.append("refused")
            else:
                outcomes.append("in")
                conn.close()
                await conn.wait_closed()
        assert outcomes == ["in", "in", "in", "refused"]
    finally:
        await server.stop()


async def test_replay_is_held_to_a_budget_and_a_round_is_recomputed_once(tmp_path: Any, monkeypatch: Any) -> None:
    """``replay`` recomputes a round (milliseconds of CPU): a crowd of guests asking for it again
    and again gets a few answers each, and the round is computed once for all of them."""
    from server.commands import social as social_commands

    server = await start_server(tmp_path, verify_per_minute=6, verify_burst=2)
    alice = await guest(server, "alice", "127.0.0.102")
    crowd = [await guest(server, nick("rp", i), "127.0.0.103") for i in range(4)]
    computed = []
    real = social_commands.replay_reply

    def counted(*args: Any) -> Any:
        computed.append(args[0].round_id)
        return real(*args)

    monkeypatch.setattr(social_commands, "replay_reply", counted)
    try:
        over = asyncio.ensure_future(alice.next_event("match_over", timeout=120))
        room = (await alice.request("create", game="president", rules="classic", seats=3, bots=2, rounds=1))["room"]
        await play_simply(alice, timeout=60)  # a round played out: one to replay
        await over
        rid = next(h["round"] for h in (await alice.request("history"))["history"] if "-match" not in h["round"])
        assert rid.startswith(room + "-")
        codes = [(await c.request_raw("replay", round=rid)).get("code", "ok") for c in crowd for _ in range(3)]
        assert codes.count("ok") == 6 and codes.count("rate_limited") == 6  # 2 each, 6 from the address
        refused = await crowd[0].request_raw("replay", round=rid)
        assert refused["message"] == error_message("en", "rate_limited", reason="replay")
        assert computed == [rid]  # the others got the reply kept
        assert (await alice.request("replay", round=rid))["round"] == rid
    finally:
        await asyncio.gather(*(c.close() for c in [*crowd, alice]))
        await server.stop()


async def test_verify_is_held_to_a_budget_per_player_and_per_address(tmp_path: Any) -> None:
    server = await start_server(tmp_path, verify_per_minute=6, verify_burst=2)
    crowd = [await guest(server, nick("vf", i), "127.0.0.100") for i in range(4)]
    far = await guest(server, "far", "127.0.0.101")
    try:
        codes = [(await c.request_raw("verify", round="r1-1"))["code"] for c in crowd for _ in range(3)]
        assert codes.count("rate_limited") == 6  # 2 each, 6 from the address in all
        assert codes[:2] == ["no_such_round"] * 2 and codes[2] == "rate_limited"
        refused = await crowd[0].request_raw("verify", round="r1-1")
        assert refused["message"] == error_message("en", "rate_limited", reason="verify")
        assert (await far.request_raw("verify", round="r1-1"))["code"] == "no_such_round"
    finally:
        await asyncio.gather(*(c.close() for c in [*crowd, far]))
        await server.stop()
