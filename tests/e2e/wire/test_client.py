"""The client library against a real server (telnet/raw TCP and SSH on port 0)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.client import Client, ClientClosed, ClientError

pytestmark = pytest.mark.e2e

T = 10.0


async def test_tcp_login_whoami_and_error_replies(server: Any) -> None:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=T)
    try:
        with pytest.raises(ClientError) as info:
            await client.request("whoami")
        assert info.value.code == "not_logged_in"
        reply = await client.login("Zoé")
        assert reply["type"] == "ok"
        me = await client.request("whoami")
        assert me["name"] == "Zoé" and me["guest"] is True
        with pytest.raises(ClientError) as info:
            await client.request("join", room="nowhere")
        assert info.value.code == "no_such_room"
        assert info.value.message  # a sentence for people
        with pytest.raises(ClientError) as info:
            await client.request("frobnicate")
        assert info.value.code == "unknown_command"
        raw = await client.request_raw("frobnicate")
        assert raw["type"] == "error" and raw["code"] == "unknown_command"
        # a line that is not JSON: the server answers bad_json with id null -> an orphan reply
        client.send_raw(b"this is not json")
        await client.request("whoami")  # replies come in order: bad_json came first
        assert any(o.get("code") == "bad_json" for o in client.orphans)
    finally:
        await client.close()


async def test_pushed_states_and_events_of_a_room(server: Any) -> None:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=T)
    try:
        await client.login("ann")
        reply = await client.request("create", game="president", rules="classic", seats=4, bots=3)
        room = reply["room"]
        state = await client.next_state(lambda s: s.get("room") == room and s.get("hand"), timeout=T, current=True)
        assert state["you"] == 0 and len(state["seats"]) == 4
        assert all("name" in s and "cards" in s for s in state["seats"])
        assert client.state is not None and client.state["room"] == room
        seen = []
        async for msg in client.pushes(timeout=T):
            seen.append(msg)
            if msg.get("type") == "event" and msg.get("event") == "dealt":
                break
        assert any(m.get("type") == "state" for m in seen)
        assert all("text" in m for m in seen if m.get("type") == "event")
    finally:
        await client.close()


async def test_reconnect_logs_in_again_and_gets_the_seat_back(server: Any) -> None:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=T)
    try:
        await client.login("bea")
        room = (await client.request("create", game="president", rules="classic", seats=4, bots=3))["room"]
        await client.next_state(lambda s: s.get("room") == room, timeout=T, current=True)
        await client.reconnect()
        me = await client.request("whoami")
        assert me["name"] == "bea"
        await client.request("state")
        state = await client.next_state(lambda s: s.get("room") == room, timeout=T, current=True)
        assert state["you"] == 0 and state.get("hand") is not None
    finally:
        await client.close()


async def test_server_closing_ends_requests_and_pushes(server: Any) -> None:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=T)
    await client.login("cid")
    waiter = asyncio.ensure_future(client.next_event("never_sent", timeout=T))
    await asyncio.sleep(0)
    await asyncio.wait_for(server.stop(), 20)
    with pytest.raises(ClientClosed):
        await waiter
    await asyncio.wait_for(client.closed.wait(), T)
    assert [m async for m in client.pushes() if m.get("event") == "never_sent"] == []
    with pytest.raises(ClientClosed):
        await client.request("whoami")
    await client.close()


async def test_ssh_exec_json_and_the_name_from_ssh(server: Any) -> None:
    client = await Client.connect_ssh("127.0.0.1", server.ssh_port, "dora", timeout=T)
    try:
        me = await client.request("whoami")
        assert me["name"] == "dora"
        with pytest.raises(ClientError) as info:
            await client.request("join", room="nowhere")
        assert info.value.code == "no_such_room"
    finally:
        await client.close()


async def test_ssh_reconnect_gets_the_seat_back(server: Any) -> None:
    client = await Client.connect_ssh("127.0.0.1", server.ssh_port, "eve", timeout=T)
    try:
        room = (await client.request("create", game="president", rules="classic", seats=4, bots=3))["room"]
        await client.next_state(lambda s: s.get("room") == room, timeout=T, current=True)
        await client.reconnect()  # a guest holding a seat: the client gives its resume code (docs/protocol.md)
        assert client.resume is not None
        await client.request("state")
        state = await client.next_state(lambda s: s.get("room") == room, timeout=T, current=True)
        assert state["you"] == 0 and state.get("hand") is not None
    finally:
        await client.close()
