"""One community on every node: tells, replies, offline messages, friends' notices, ignore lists
and mutes reach people wherever they are connected (two real nodes, one Redis, one PostgreSQL)."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.cluster.conftest import settle
from tests.kits.staffkit import community, json_client

pytestmark = pytest.mark.e2e


async def seen_by(client, name: str, tries: int = 300) -> None:
    """Poll ``who`` until ``name`` is listed there (the other node's keep-alive has been read)."""
    for _ in range(tries):
        if name in [p["name"] for p in (await client.request("who"))["players"]]:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{name} never listed")


async def first_push(client, event: str) -> dict:
    """The first ``event`` among the pushes the client received (kept since it connected)."""
    async for msg in client.pushes(timeout=10):
        if msg.get("event") == event:
            return msg
    raise AssertionError(f"no {event}")


async def test_tells_and_replies_reach_a_person_on_another_node(nodes):
    a, b = await nodes(2)
    await community(a)
    pat, bob = await json_client(a, "pat"), await json_client(b, "bob")
    try:
        await seen_by(pat, "bob")
        heard = asyncio.ensure_future(bob.next_event("tell", timeout=10))
        assert (await pat.request("tell", name="BOB", text="hello from a"))["to"] == "bob"
        heard = await heard
        assert heard["from"] == "pat" and heard["message"] == "hello from a"
        await seen_by(bob, "pat")
        back = asyncio.ensure_future(pat.next_event("tell", timeout=10))
        await bob.request("reply", text="hello back")
        back = await back
        assert back["from"] == "bob" and back["message"] == "hello back"
        finger = await pat.request("finger", name="bob")
        assert finger["online"] is True
        gone = await pat.request_raw("tell", name="nobody", text="x")
        assert gone["type"] == "error" and gone["code"] == "not_online"
    finally:
        await pat.close()
        await bob.close()


async def test_a_message_reaches_an_account_online_on_another_node_at_once(nodes):
    a, b = await nodes(2)
    await community(a)
    pat, bob = await json_client(a, "pat"), await json_client(b, "bob")
    try:
        await seen_by(pat, "bob")
        got = asyncio.ensure_future(bob.next_event("message", timeout=10))
        sent = await pat.request("message", name="bob", text="read this now")
        assert sent["kept"] is False
        got = await got
        assert got["from"] == "pat" and got["message"] == "read this now"
        await bob.close()
        for _ in range(300):  # bob gone from the cluster's who: the message waits for his next login
            if "bob" not in [p["name"] for p in (await pat.request("who"))["players"]]:
                break
            await asyncio.sleep(0.02)
        assert (await pat.request("message", name="bob", text="later"))["kept"] is True
        bob = await json_client(a, "bob")
        later = await first_push(bob, "message")
        assert later["message"] == "later"
    finally:
        await pat.close()
        await bob.close()


async def test_friends_hear_of_a_login_on_another_node_and_see_it_online(nodes):
    a, b = await nodes(2)
    await community(a)
    pat = await json_client(a, "pat")
    try:
        await pat.request("friend", name="bob")
        await settle([a, b])
        notice = asyncio.ensure_future(pat.next_event("friend_online", timeout=10))
        bob = await json_client(b, "bob")
        assert (await notice)["name"] == "bob"
        await seen_by(pat, "bob")
        listed = {f["name"]: f for f in (await pat.request("friends"))["friends"]}
        assert listed["bob"]["online"] is True
        await bob.close()
    finally:
        await pat.close()


async def test_an_ignore_made_on_one_node_holds_for_tells_from_another(nodes):
    a, b = await nodes(2)
    await community(a)
    pat, bob = await json_client(a, "pat"), await json_client(b, "bob")
    try:
        await seen_by(pat, "bob")
        await bob.request("ignore", name="pat")
        await settle([a, b])
        refused = await pat.request_raw("tell", name="bob", text="can you hear me")
        assert refused["type"] == "error" and refused["code"] == "ignored"
        await bob.request("unignore", name="pat")
        await settle([a, b])
        heard = asyncio.ensure_future(bob.next_event("tell", timeout=10))
        await pat.request("tell", name="bob", text="and now")
        assert (await heard)["message"] == "and now"
    finally:
        await pat.close()
        await bob.close()


async def test_a_mute_made_on_one_node_holds_on_every_node(nodes):
    a, b = await nodes(2)
    await community(a)
    mo, pat, bob = await json_client(a, "mo"), await json_client(b, "pat"), await json_client(b, "bob")
    try:
        await seen_by(mo, "pat")
        told = asyncio.ensure_future(pat.next_event("muted", timeout=10))
        await mo.request("mute", name="pat", duration="1h", reason="spam")
        assert (await told)["reason"] == "spam"
        await settle([a, b])
        refused = await pat.request_raw("tell", name="bob", text="free chips")
        assert refused["type"] == "error" and refused["code"] == "muted"
        await seen_by(pat, "mo")
        refused = await pat.request_raw("tell", name="mo", text="free chips")
        assert refused["type"] == "error" and refused["code"] == "muted"
        told = asyncio.ensure_future(pat.next_event("unmuted", timeout=10))
        await mo.request("unmute", name="pat")
        await told
        await settle([a, b])
        heard = asyncio.ensure_future(mo.next_event("tell", timeout=10))
        await pat.request("tell", name="mo", text="sorry")
        assert (await heard)["from"] == "pat"
    finally:
        for x in (mo, pat, bob):
            await x.close()


