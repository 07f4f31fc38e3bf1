"""``/term/ws``: the text session of telnet over a WebSocket (the terminal page's)."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from tests.kits.webkit import own_origin, start_web_server, ws_url

pytestmark = pytest.mark.e2e


@pytest.fixture
async def web(tmp_path):
    running = await start_web_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


async def read_until(ws, needle: str, seen: list[str], timeout: float = 10.0) -> str:
    async def go() -> str:
        while needle not in "".join(seen):
            msg = await ws.receive()
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise EOFError(f"closed before {needle!r}; got {''.join(seen)!r}")
            seen.append(msg.data)
        return "".join(seen)

    return await asyncio.wait_for(go(), timeout)


async def until(predicate, timeout: float = 10.0) -> None:
    async def go():
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(go(), timeout)


async def test_a_person_logs_in_in_french_types_with_echo_and_resizes(web):
    url = ws_url(web, "/term/ws") + "?cols=100&rows=30&lang=fr"
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers={"Origin": own_origin(web)}) as ws:
        seen: list[str] = []
        await read_until(ws, "Langue", seen)  # the telnet menu, in the page's language
        await ws.send_str("d2\r")
        await read_until(ws, ": ", seen)
        seen.clear()
        for ch in "Zoé":  # typed a key at a time, echoed by the server as telnet's character mode does
            await ws.send_str("d" + ch)
        await ws.send_str("d\r")
        await read_until(ws, "Zoé", seen)
        await until(lambda: "zoé" in web.lobby.players)
        session = web.lobby.players["zoé"].session
        assert (session.lang, session.width, session.height, session.conn.kind) == ("fr", 100, 30, "webterm")
        assert session.color and session.unicode  # an xterm in the page
        await ws.send_str("r120x40")  # the page was resized: as a NAWS report
        await until(lambda: session.width == 120)
        assert session.height == 40
        await ws.send_str("r5x5")  # clamped, never below a usable size
        await until(lambda: session.width == 20)
        seen.clear()
        await ws.send_str("dwhoami\r")
        await read_until(ws, "Zoé.", seen)
        await ws.send_str("dquit\r")
        with pytest.raises(EOFError):
            await read_until(ws, "never", seen)
    await until(lambda: "zoé" not in web.lobby.players)


async def test_the_terminal_password_is_not_echoed(web):
    await web.store.accounts.register("pat", "correct-horse-5")
    url = ws_url(web, "/term/ws") + "?lang=en"
    async with aiohttp.ClientSession() as http, http.ws_connect(url, headers={"Origin": own_origin(web)}) as ws:
        seen: list[str] = []
        await read_until(ws, "Language", seen)
        await ws.send_str("d1\r")
        await read_until(ws, "Name: ", seen)
        await ws.send_str("dpat\r")
        await read_until(ws, "Password: ", seen)
        seen.clear()
        await ws.send_str("dcorrect-horse-5\r")
        await until(lambda: "pat" in web.lobby.players)
        await ws.send_str("dwhoami\r")
        text = await read_until(ws, "pat", seen)
        assert "correct-horse" not in text


async def test_the_pages_load_with_their_files_and_a_strict_policy(web):
    base = f"http://127.0.0.1:{web.web_port}"
    async with aiohttp.ClientSession() as http:
        for path in ("/term", "/static/vendor/xterm.js", "/static/vendor/addon-fit.js",
                     "/static/vendor/xterm.css", "/static/term.js"):
            async with http.get(base + path) as resp:
                assert resp.status == 200, path
                csp = resp.headers["Content-Security-Policy"]
                assert "script-src 'self';" in csp and "default-src 'self'" in csp
                assert resp.headers["X-Content-Type-Options"] == "nosniff"
        async with http.get(base + "/term") as resp:
            page = await resp.text()
            assert "<script>" not in page and "onclick" not in page  # no inline script
