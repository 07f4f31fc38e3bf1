"""The web port's trust: forwarded headers only from configured proxies, passwords only over TLS (or
on this machine), cookies HttpOnly + SameSite (+ Secure behind TLS)."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from clients.client import Client
from tests.kits.webkit import own_origin, start_web_server, ws_url

pytestmark = pytest.mark.e2e

REMOTE = "203.0.113.5"


async def ws_client(running, **headers: str) -> tuple[aiohttp.ClientSession, aiohttp.ClientWebSocketResponse]:
    http = aiohttp.ClientSession()
    ws = await http.ws_connect(ws_url(running), headers={"Origin": own_origin(running), **headers})
    assert json.loads(await ws.receive_str())["event"] == "hello"
    return http, ws


async def ask(ws, **msg) -> dict:
    await ws.send_str(json.dumps(msg))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.receive_str(), 10))
        if reply["type"] in ("ok", "error"):
            return reply


async def test_behind_a_trusted_proxy_the_client_address_counts_and_plain_http_gets_no_password(tmp_path):
    running = await start_web_server(tmp_path, web_trusted_proxies=("127.0.0.1",))
    await running.store.accounts.register("pat", "correct-horse-5")
    try:
        http, ws = await ws_client(running, **{"X-Forwarded-For": f"198.51.100.9, {REMOTE}"})
        try:
            r = await ask(ws, cmd="login", name="pat", password="correct-horse-5", id=1)
            assert r["code"] == "insecure_transport" and "https" in r["message"]
            r = await ask(ws, cmd="register", name="newbie", password="correct-horse-7", id=2)
            assert r["code"] == "insecure_transport"
            r = await ask(ws, cmd="login", name="visitor", id=3)  # a guest needs no password
            assert r["type"] == "ok"
            session = next(s for s in running.sessions if s.name == "visitor")
            assert session.conn.peer == REMOTE  # the last address the proxy saw, not one the client wrote
        finally:
            await ws.close()
            await http.close()
        # the proxy says the browser came over TLS: passwords are welcome
        http, ws = await ws_client(running, **{"X-Forwarded-For": REMOTE, "X-Forwarded-Proto": "https"})
        try:
            r = await ask(ws, cmd="login", name="pat", password="correct-horse-5", id=1)
            assert r["type"] == "ok" and r["name"] == "pat"
        finally:
            await ws.close()
            await http.close()
    finally:
        await running.stop()


async def test_forwarded_headers_from_anyone_else_are_ignored(tmp_path):
    running = await start_web_server(tmp_path)  # no trusted proxy
    try:
        http, ws = await ws_client(running, **{"X-Forwarded-For": REMOTE, "X-Forwarded-Proto": "https"})
        try:
            assert (await ask(ws, cmd="login", name="spoofer", id=1))["type"] == "ok"
            session = next(s for s in running.sessions if s.name == "spoofer")
            assert session.conn.peer == "127.0.0.1"
            assert session.conn.insecure  # a forwarded request through an unknown proxy: no password
        finally:
            await ws.close()
            await http.close()
        # on this machine, directly: a password is fine over plain HTTP
        await running.store.accounts.register("local", "correct-horse-5")
        client = await Client.connect_ws(ws_url(running), origin=own_origin(running))
        assert (await client.login("local", "correct-horse-5"))["name"] == "local"
        await client.close()
    finally:
        await running.stop()


async def test_the_terminal_page_over_plain_http_never_asks_for_a_password(tmp_path):
    running = await start_web_server(tmp_path, web_trusted_proxies=("127.0.0.1",))
    await running.store.accounts.register("pat", "correct-horse-5")
    try:
        async with aiohttp.ClientSession() as http, http.ws_connect(
                ws_url(running, "/term/ws") + "?lang=en",
                headers={"Origin": own_origin(running), "X-Forwarded-For": REMOTE}) as ws:
            seen = ""
            await ws.send_str("d1\r")
            await ws.send_str("dpat\r")
            while "Name: " not in seen.split("encrypted connection", 1)[-1] or "encrypted" not in seen:
                msg = await asyncio.wait_for(ws.receive(), 10)
                assert msg.type == aiohttp.WSMsgType.TEXT
                seen += msg.data
            assert "Password" not in seen
    finally:
        await running.stop()


async def test_the_language_cookie_is_httponly_samesite_and_secure_behind_tls(tmp_path):
    running = await start_web_server(tmp_path, web_trusted_proxies=("127.0.0.1",))
    base = f"http://127.0.0.1:{running.web_port}"
    try:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # (an IP host)
            async with http.get(base + "/who?lang=es") as resp:
                cookie = resp.headers["Set-Cookie"]
                assert "donne_lang=es" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
                assert "Secure" not in cookie
            async with http.get(base + "/tables") as resp:  # remembered
                assert "Mesas abiertas" in await resp.text()
            async with http.get(base + "/who?lang=fr", headers={"X-Forwarded-Proto": "https"}) as resp:
                assert "Secure" in resp.headers["Set-Cookie"]
    finally:
        await running.stop()
