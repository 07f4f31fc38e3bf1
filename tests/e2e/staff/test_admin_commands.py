"""Every staff command over a real server, in JSON and in text: refused below its role (nothing
changes, nothing is logged), done by the least role allowed and by an admin (one line of the
moderation log each, with who, what, whom, why), typed by a person in text mode.

The rules checked (server/commands/roles.py): moderators kick and mute, admins everything;
only on lower roles; never on oneself; guests are players. ada and max are admins, mo and zed
moderators, pat and bob players (tests/kits/staffkit.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from clients.client import Client
from server.start.app import Running
from server.storage.api import role_rank
from tests.kits.staffkit import PASSWORDS, Text, community, event_of, json_client, log_size, until

Prepare = Callable[[Running], Awaitable[Any]]


async def nothing(server: Running) -> None:
    return None


async def pat_online(server: Running) -> Any:
    return await json_client(server, "pat")


async def pat_muted(server: Running) -> None:
    import time

    await server.store.moderation.mute("pat", time.time() + 600, reason="", actor="console:test")


async def pat_banned(server: Running) -> None:
    await server.store.moderation.ban("account", "pat", until=None, reason="", actor="console:test")


async def pat_locked(server: Running) -> None:
    await server.store.moderation.lock("pat", reason="", actor="console:test")


async def pat_renamed_back(server: Running) -> None:
    if not await server.store.accounts.exists("pat"):
        await server.store.moderation.rename("patrick", "pat", actor="console:test")


async def shutdown_planned(server: Running) -> None:
    server.schedule_shutdown(3600, "test")


@dataclass
class Case:
    cmd: str
    args: dict[str, Any]
    role: str  # the least role allowed
    text: str  # the same, typed by a person in English
    answer: str  # what the person reads back (a regex)
    logs: int = 1  # lines of the moderation log it writes
    prepare: Prepare = nothing
    after: Prepare = nothing
    extra: dict[str, Any] = field(default_factory=dict)


CASES = [
    Case("kick", {"name": "pat", "reason": "flood"}, "moderator", "kick pat flood", r"pat is disconnected",
         prepare=pat_online),
    Case("mute", {"name": "pat", "duration": "10m", "reason": "insults"}, "moderator", "mute pat 10m insults",
         r"pat is muted until \d{4}-\d\d-\d\d \d\d:\d\d UTC"),
    Case("unmute", {"name": "pat"}, "moderator", "unmute pat", r"pat may chat again", prepare=pat_muted),
    Case("ban", {"name": "pat", "duration": "1h", "reason": "cheating"}, "admin", "ban pat 1h cheating",
         r"Ban #\d+: pat, until"),
    Case("unban", {"name": "pat"}, "admin", "unban pat", r"Ban #\d+ lifted \(pat\)", prepare=pat_banned),
    Case("bans", {}, "admin", "bans", r"No ban or mute is in force", logs=0),
    Case("announce", {"text": "Restart at six"}, "admin", "announce Restart at six",
         r"Announcement sent to \d+ (person|people)"),
    Case("motd", {"text": "Tournament on Sunday"}, "admin", "motd set Tournament on Sunday",
         r"Message of the day:\s+Tournament on Sunday"),
    Case("shutdown", {"delay": "1h", "reason": "upgrade"}, "admin", "shutdown in 1h upgrade",
         r"The server shuts down in 1 hour", after=lambda s: _cancel(s)),
    Case("shutdown", {"cancel": True}, "admin", "shutdown cancel", r"The shutdown is called off",
         prepare=shutdown_planned, after=lambda s: _cancel(s)),
    Case("grant", {"name": "pat", "role": "moderator"}, "admin", "grant pat moderator",
         r"pat is moderator now \(was player\)",
         after=lambda s: s.store.moderation.set_role("pat", "player", actor="console:test")),
    Case("revoke", {"name": "bob"}, "admin", "revoke bob", r"bob is player now \(was moderator\)",
         prepare=lambda s: s.store.moderation.set_role("bob", "moderator", actor="console:test")),
    Case("resetpw", {"name": "pat"}, "admin", "resetpw pat",
         r"One-time code for pat: [A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}"),
    Case("rename", {"name": "pat", "new": "patrick"}, "admin", "rename pat patrick", r"pat is called patrick now",
         prepare=pat_renamed_back),
    Case("lock", {"name": "pat", "reason": "stolen"}, "admin", "lock pat stolen", r"pat's account is locked",
         after=lambda s: s.store.moderation.unlock("pat", actor="console:test")),
    Case("unlock", {"name": "pat"}, "admin", "unlock pat", r"pat's account is open again", prepare=pat_locked),
    Case("chips", {"name": "pat", "amount": 5, "reason": "prize"}, "admin", "grant pat 5 prize",
         r"5 chips granted to pat\. Balance: [\d,]+ chips"),
    Case("chips", {"name": "pat", "amount": -5, "reason": "given twice"}, "admin", "takeback pat 5 given twice",
         r"5 chips retired from pat\. Balance: [\d,]+ chips"),
    Case("modlog", {}, "admin", "modlog", r"(console:test|log is empty)", logs=0),
    Case("standing", {"name": "pat"}, "admin", "standing pat", r"pat, player, [\d,]+ chips", logs=0),
]


async def _cancel(server: Running) -> None:
    server.cancel_shutdown()


RUNNERS = {"guest": "gus", "player": "bob", "moderator": "mo", "admin": "ada"}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.cmd}-{i}" for i, c in enumerate(CASES)])
async def test_command_by_role_in_json_and_text(server: Running, case: Case) -> None:
    await community(server)
    for role, name in RUNNERS.items():
        allowed = role_rank("player" if role == "guest" else role) >= role_rank(case.role)
        online = await case.prepare(server)
        before = await log_size(server)
        client = await json_client(server, name, guest=role == "guest")
        try:
            reply = await client.request_raw(case.cmd, **case.args)
        finally:
            await client.close()
            if isinstance(online, Client):
                await online.close()
        if not allowed:
            assert (reply["type"], reply["code"]) == ("error", "forbidden"), (role, reply)
            need = "admins" if case.role == "admin" else "moderators"
            assert need in reply["message"].lower()
            assert await log_size(server) == before, role  # a refusal writes nothing
        else:
            assert reply["type"] == "ok", (role, reply)
            assert await log_size(server) == before + case.logs, role
            if case.logs:
                [entry] = await server.store.moderation.log(1)
                assert entry.actor == name and entry.action in (case.cmd, "role", "grant", "retire"), entry
            await case.after(server)
    # a person types it (an admin), and a player is told it is not theirs
    online = await case.prepare(server)
    ada = await Text.login(server, "ada")
    try:
        await ada.command(case.text, case.answer)
    finally:
        ada.close()
        if isinstance(online, Client):
            await online.close()
    await case.after(server)
    online = await case.prepare(server)
    bob = await Text.login(server, "bob")
    try:
        need = "Only admins can do that" if case.role == "admin" else "Only moderators and admins can do that"
        await bob.command(case.text, need)
    finally:
        bob.close()
        if isinstance(online, Client):
            await online.close()


async def test_moderators_do_not_act_on_moderators_or_admins_nor_admins_on_admins(server: Running) -> None:
    await community(server)
    targets = {name: await json_client(server, name) for name in ("ada", "max", "mo", "zed", "pat")}
    base = await log_size(server)
    try:
        mo, ada = targets["mo"], targets["ada"]
        for who in ("ada", "zed"):
            for cmd, args in (("kick", {}), ("mute", {"duration": "1h"})):
                reply = await mo.request_raw(cmd, name=who, **args)
                assert (reply["code"], who) == ("forbidden", who), reply
                assert who in reply["message"]
        reply = await ada.request_raw("kick", name="max")
        assert reply["code"] == "forbidden" and "max" in reply["message"]
        reply = await ada.request_raw("grant", name="max", role="player")
        assert reply["code"] == "forbidden"
        for cmd, args in (("kick", {}), ("chips", {"amount": 1000, "reason": "me"}), ("revoke", {}),
                          ("ban", {"duration": "1h"}), ("mute", {"duration": "1h"})):
            reply = await ada.request_raw(cmd, name="ada", **args)
            assert reply["code"] == "forbidden", (cmd, reply)
            assert reply["message"] == "You cannot do that to yourself."
        assert await log_size(server) == base
        assert (await ada.request("kick", name="zed"))["name"] == "zed"  # a moderator, below an admin
        assert (await mo.request("kick", name="pat"))["name"] == "pat"
        assert [e.action for e in await server.store.moderation.log(2)] == ["kick", "kick"]
    finally:
        for client in targets.values():
            await client.close()


async def test_a_role_given_by_the_operator_counts_at_once(server: Running) -> None:
    await community(server)
    bob = await json_client(server, "bob")
    pat = await json_client(server, "pat")
    try:
        assert (await bob.request_raw("kick", name="pat"))["code"] == "forbidden"
        await server.store.moderation.set_role("bob", "moderator", actor="console:root")  # donne admin grant
        assert (await bob.request("whoami"))["role"] == "moderator"
        assert (await bob.request("kick", name="pat"))["name"] == "pat"
    finally:
        await bob.close()
        await pat.close()


async def test_kick_tells_why_and_the_reason_is_cleaned_like_chat(server: Running) -> None:
    await community(server)
    mo = await json_client(server, "mo")
    pat = await json_client(server, "pat")
    try:
        reply = await mo.request("kick", name="pat", reason="\x1b[2J\x1b[31mflood\x07ing  \u202eevil")
        assert reply["reason"] == "flooding evil"
        event = await event_of(pat, "kicked")
        assert event["reason"] == "flooding evil" and "\x1b" not in event["text"]
        assert "disconnected you" in event["text"]
        await pat.closed.wait()
        [entry] = await server.store.moderation.log(1)
        assert (entry.actor, entry.action, entry.target, entry.reason) == ("mo", "kick", "pat", "flooding evil")
        assert (await mo.request_raw("kick", name="pat"))["code"] == "no_such_player"  # gone
        assert (await mo.request_raw("kick", name="nobody"))["code"] == "no_such_player"
        assert (await mo.request_raw("mute", name="pat", duration="10"))["code"] == "bad_argument"  # no unit
        assert (await mo.request_raw("mute", name="pat", duration="forever"))["code"] == "bad_argument"
    finally:
        await mo.close()
        await pat.close()


async def test_ban_disconnects_and_the_guest_s_address_is_banned(server: Running) -> None:
    await community(server)
    ada = await json_client(server, "ada")
    gus = await json_client(server, "gus", guest=True, local="127.0.0.2")
    pat = await json_client(server, "pat")
    try:
        reply = await ada.request("ban", name="gus", duration="2h", reason="spam")
        assert (reply["kind"], reply["target"], reply["disconnected"]) == ("address", "127.0.0.2/32", 1)
        event = await event_of(gus, "banned")
        assert "address" in event["text"] and "spam" in event["text"]
        await gus.closed.wait()
        # the admin's own address, a network holding an admin: refused
        assert (await ada.request_raw("ban", address="127.0.0.0/8", duration="1h"))["message"] == \
            "You cannot do that to yourself."
        assert (await ada.request_raw("ban", address="10.0.0.0/4", duration="1h"))["code"] == "bad_argument"
        reply = await ada.request("ban", name="pat", duration="forever", reason="cheating")
        assert (reply["kind"], reply["until"], reply["disconnected"]) == ("account", None, 1)
        await pat.closed.wait()
        bans = await ada.request("bans")
        assert [b["target"] for b in bans["bans"]] == ["pat", "127.0.0.2/32"]
        standing = await ada.request("standing", name="pat")
        assert standing["banned"] and standing["banned_until"] is None and "password" not in str(standing)
    finally:
        for client in (ada, gus, pat):
            await client.close()


async def test_resetpw_code_logs_in_once_then_passwd(server: Running) -> None:
    await community(server)
    ada = await json_client(server, "ada")
    try:
        reply = await ada.request("resetpw", name="pat")
        code = reply["code"]
        for entry in await server.store.moderation.log():
            assert code not in repr(entry)
    finally:
        await ada.close()
    pat = await json_client(server, "pat")  # the old password still works ... and spends the code
    await pat.close()
    ada = await json_client(server, "ada")
    code = (await ada.request("resetpw", name="pat"))["code"]
    await ada.close()
    client = await json_client(server, "bob")
    await client.close()
    from clients.client import Client

    pat = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
    try:
        await pat.login("pat", code)
        assert (await pat.request("passwd", old=code, new="brand-new-1"))["name"] == "pat"
        assert (await pat.request_raw("passwd", old=code, new="brand-new-2"))["code"] == "bad_password"
    finally:
        await pat.close()
    PASSWORDS["pat"] = "brand-new-1"
    try:
        pat = await json_client(server, "pat")
        await pat.close()
    finally:
        PASSWORDS["pat"] = "pat-secret"


async def test_rename_waits_until_the_person_is_gone(server: Running) -> None:
    await community(server)
    ada = await json_client(server, "ada")
    pat = await json_client(server, "pat")
    try:
        reply = await ada.request_raw("rename", name="pat", new="patrick")
        assert reply["code"] == "not_allowed" and "pat" in reply["message"]
        await pat.close()
        await until(lambda: server.lobby.player("pat") is None)
        assert (await ada.request_raw("rename", name="pat", new="bob"))["code"] == "name_taken"
        assert (await ada.request("rename", name="pat", new="patrick"))["new"] == "patrick"
    finally:
        await ada.close()
    PASSWORDS["patrick"] = PASSWORDS["pat"]
    try:
        client = await json_client(server, "patrick")
        assert (await client.request("whoami"))["name"] == "patrick"
        await client.close()
    finally:
        del PASSWORDS["patrick"]


async def test_chips_need_a_reason_and_keep_the_audit(server: Running) -> None:
    await community(server)
    ada = await json_client(server, "ada")
    pat = await json_client(server, "pat")
    try:
        assert (await ada.request_raw("chips", name="pat", amount=5))["code"] == "bad_argument"
        assert (await ada.request_raw("chips", name="pat", amount=0, reason="x"))["code"] == "bad_argument"
        assert (await ada.request_raw("chips", name="pat", amount=-5000, reason="x"))["code"] == "insufficient_chips"
        reply = await ada.request("chips", name="pat", amount=250, reason="tournament prize")
        assert (reply["delta"], reply["chips"]) == (250, 1250)
        event = await event_of(pat, "chips")
        assert "250" in event["text"] and "tournament prize" in event["text"]
        await ada.request("chips", name="pat", amount=-50, reason="given twice")
        audit = await server.store.ledger.audit()
        assert audit.ok and (audit.admin_granted, audit.admin_retired) == (250, 50)
        assert (await pat.request("audit"))["ok"]
    finally:
        await ada.close()
        await pat.close()


async def test_french_and_spanish_words(server: Running) -> None:
    await community(server)
    pat = await json_client(server, "pat")
    fr = await Text.login(server, "ada", "fr")
    es = await Text.login(server, "mo", "es")
    try:
        await es.command("silenciar pat 2h insultos", r"silenciado")
        mute = await server.store.moderation.muted("pat")
        assert mute is not None and mute.reason == "insultos"
        await fr.command("démuseler pat", r"pat peut")
        assert await server.store.moderation.muted("pat") is None
        await fr.command("bannir pat 3j triche", r"Bannissement #\d+")
        refusal = await server.store.moderation.door(name="pat")
        assert refusal is not None and refusal.reason == "triche"
        await fr.command("débannir pat", r"#\d+ lev")
        await es.command("expulsar ada", r"No puedes")  # refused, in Spanish
        await fr.command("accorder pat 10 cadeau", r"Solde")
        assert await server.store.ledger.balance("pat") == 1010
        await fr.command("museler pat 10", r"Une dur")  # no unit: refused, in French
    finally:
        fr.close()
        es.close()
        await pat.close()


async def test_people_type_ignore_and_read_the_staff_help(server: Running) -> None:
    await community(server)
    bob = await json_client(server, "bob")
    pat = await Text.login(server, "pat", "fr")
    try:
        await pat.command("ignorer bob", r"Vous ne voyez plus les messages de bob")
        await pat.command("ignorer", r"Vous ignorez\W+bob")
        await bob.request("say", text="psst")
        await pat.command("désignorer bob", r"Vous voyez de nouveau les messages de bob")
        assert "psst" not in pat.screen
        await bob.request("say", text="hello again")
        await pat.expect("hello again")
        await pat.command("aide staff", r"Administrateurs, en plus")
        assert "bannir ana 3j" in pat.screen and "museler ana 10m" in pat.screen  # 3 jours: 3j, not 3d
        # the examples' fillers in the reader's words, as the parser takes them
        assert " dans 5m" in pat.screen and " mettre " in pat.screen and " / effacer" in pat.screen and " in 5m" not in pat.screen
        await pat.command("aide", r"ignorer ana")
        assert "NAME" not in pat.screen
    finally:
        pat.close()
        await bob.close()


async def test_no_staff_reply_carries_a_password_hash_or_someone_s_cards(server: Running) -> None:
    """standing, modlog, bans of a player seated at a table with cards in hand: no hash, no card."""
    await community(server)
    pat, bob, ada = (await json_client(server, "pat"), await json_client(server, "bob"),
                     await json_client(server, "ada"))
    try:
        room = (await pat.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await bob.request("join", room=room)
        state = await pat.next_state(lambda s: bool(s.get("hand")), timeout=10, current=True)
        hand = list(state["hand"])
        await ada.request("mute", name="pat", duration="1h", reason="test")
        await ada.request("resetpw", name="pat")
        replies = [await ada.request(cmd, **args) for cmd, args in (
            ("standing", {"name": "pat"}), ("modlog", {"limit": 50}), ("bans", {}), ("standing", {"name": "bob"}))]
        assert replies[0]["room"] == room and replies[0]["seat"] is not None
        import json as _json

        for reply in replies:
            line = _json.dumps(reply)
            assert "scrypt" not in line and "hand" not in line and "reset_hash" not in line
            for card in hand:
                assert f'"{card}"' not in line, (card, reply)
    finally:
        for c in (pat, bob, ada):
            await c.close()
