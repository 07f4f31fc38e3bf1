"""``/ws``: the JSON protocol over a WebSocket, held to the same contract tests as TCP JSON mode."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from clients.client import Client
from tests.e2e.wire import test_json as tcp
from tests.kits.servers import play_simply
from tests.kits.webkit import RawWs, connect_ws, own_origin, start_web_server, ws_url

pytestmark = pytest.mark.e2e

CONTRACT = [
    tcp.test_raw_socket_json_session_every_request_one_reply,
    tcp.test_bad_json_lines_get_bad_json_and_change_nothing,
    tcp.test_huge_line_is_refused_and_the_session_goes_on,
    tcp.test_guest_name_taken_is_refused_and_bad_names_too,
    tcp.test_chat_in_the_lobby_is_cleaned,
]
"""The TCP JSON tests that speak only the protocol: run here with /ws as the door."""


@pytest.fixture
async def web(tmp_path):
    running = await start_web_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest.mark.parametrize("contract", CONTRACT, ids=[c.__name__.removeprefix("test_") for c in CONTRACT])
async def test_the_tcp_json_contract_holds_over_ws(contract, web, monkeypatch):
    url, origin = ws_url(web), own_origin(web)

    async def raw_open(port: int) -> RawWs:
        assert port == web.telnet_port
        return await RawWs.open(url, origin)

    async def client_open(host: str, port: int, **kw) -> Client:
        return await Client.connect_ws(url, origin=origin, timeout=kw.get("timeout", 10.0))

    monkeypatch.setattr(tcp.RawJson, "open", staticmethod(raw_open))
    monkeypatch.setattr(tcp.Client, "connect_tcp", staticmethod(client_open))
    await contract(web)
    assert not any(s.conn.kind == "telnet" for s in web.sessions)  # all of it went over /ws


async def test_first_frame_is_hello_and_a_table_plays_over_ws(web):
    async with aiohttp.ClientSession() as http, \
            http.ws_connect(ws_url(web), headers={"Origin": own_origin(web)}) as ws:
        hello = json.loads(await ws.receive_str())
        assert (hello["type"], hello["event"], hello["name"]) == ("event", "hello", None)
    client = await connect_ws(web, "wendy")
    try:
        await client.request("create", game="president", rules="classic", seats=4, bots=3)
        state = await client.next_state(lambda s: bool(s.get("hand")), timeout=10, current=True)
        assert len(state["hand"]) == 13
        last = await play_simply(client, timeout=20)
        assert last["status"] == "over"
        session = next(s for s in web.sessions if s.name == "wendy")
        assert session.conn.kind == "web"
    finally:
        await client.close()


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:1", "null", "file://x"])
async def test_a_foreign_origin_is_refused(web, origin):
    async with aiohttp.ClientSession() as http:
        for path in ("/ws", "/term/ws"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as err:
                await http.ws_connect(ws_url(web, path), headers={"Origin": origin})
            assert err.value.status == 403
    assert not web.sessions


async def test_an_allowed_origin_from_the_configuration(tmp_path):
    running = await start_web_server(tmp_path, web_origins=("https://cards.example.org",))
    try:
        client = await Client.connect_ws(ws_url(running), origin="https://cards.example.org")
        await client.login("okay")
        await client.close()
    finally:
        await running.stop()


async def test_connections_per_address_are_capped_over_ws(tmp_path):
    running = await start_web_server(tmp_path, max_connections_per_address=2)
    try:
        a = await connect_ws(running, "one")
        b = await connect_ws(running, "two")
        async with aiohttp.ClientSession() as http, http.ws_connect(ws_url(running)) as ws:
            msg = json.loads(await asyncio.wait_for(ws.receive_str(), 10))
            assert msg["code"] == "too_many_connections"
            assert (await asyncio.wait_for(ws.receive(), 10)).type in (aiohttp.WSMsgType.CLOSE,
                                                                       aiohttp.WSMsgType.CLOSED)
        await a.close()
        await b.close()
    finally:
        await running.stop()


async def test_input_over_the_byte_budget_is_cut(tmp_path):
    running = await start_web_server(tmp_path, input_bytes_per_second=1000, input_burst=4000)
    try:
        async with aiohttp.ClientSession() as http, http.ws_connect(ws_url(running)) as ws:
            await ws.receive_str()  # hello
            for _ in range(10):
                await ws.send_str(json.dumps({"cmd": "say", "text": "x" * 900}))
            codes = []
            while True:
                msg = await asyncio.wait_for(ws.receive(), 10)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                codes.append(json.loads(msg.data).get("code"))
            assert "input_flood" in codes
        assert (await asyncio.wait_for(_sessions_gone(running), 10)) == 0
    finally:
        await running.stop()


async def test_login_times_out_over_ws(tmp_path):
    running = await start_web_server(tmp_path, login_timeout=0.5)
    try:
        async with aiohttp.ClientSession() as http, http.ws_connect(ws_url(running)) as ws:
            await ws.receive_str()  # hello
            seen = []
            while True:
                msg = await asyncio.wait_for(ws.receive(), 10)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                seen.append(json.loads(msg.data))
            assert any(m.get("event") == "login_timeout" or m.get("code") == "login_timeout" for m in seen), seen
    finally:
        await running.stop()


async def _sessions_gone(running) -> int:
    while running.sessions:
        await asyncio.sleep(0.05)
    return 0


async def test_the_web_port_is_off_at_zero_and_read_from_its_section(tmp_path, caplog):
    from server.config import load_config
    from tests.kits.servers import start_server

    running = await start_server(tmp_path)  # the tests' settings: web_port = 0
    try:
        assert running.web_port == 0 and running._web is None
    finally:
        await running.stop()
    conf = tmp_path / "web.toml"
    conf.write_text('[web]\nhost = "::1"\nport = 8181\norigins = ["https://a.example"]\n'
                    'trusted_proxies = ["10.0.0.1"]\n')
    cfg = load_config(conf)
    assert (cfg.web_host, cfg.web_port, cfg.web_origins, cfg.web_trusted_proxies) == (
        "::1", 8181, ("https://a.example",), ("10.0.0.1",))
    assert load_config().web_port == 8080  # `make serve`: http://127.0.0.1:8080/
    caplog.set_level("INFO", logger="donne")
    running = await start_web_server(tmp_path / "b")
    try:
        assert f"web http://127.0.0.1:{running.web_port}/" in caplog.text
    finally:
        await running.stop()


@pytest.mark.timeout(120)
async def test_the_load_generator_plays_over_ws():
    from clients.load import LoadOptions, check_options, run_load

    with pytest.raises(SystemExit, match="not --transport ws"):
        check_options(LoadOptions(transport="ws", idle=5))
    figures = await run_load(LoadOptions(clients=8, tables=2, duration=2.0, transport="ws"))
    assert figures["transport"] == "ws" and figures["connected_at_end"] == 8
    assert figures["actions"] > 0 and figures["errors"] == 0 and figures["disconnects"] == 0
