"""Public pages and /api/: who (hide respected), tables, leaderboards, profiles, replays, deal checks."""

from __future__ import annotations

import asyncio
import json
import re

import aiohttp
import pytest

from tests.kits.servers import play_simply
from tests.kits.webkit import connect_ws, start_web_server

pytestmark = pytest.mark.e2e


@pytest.fixture
async def web(tmp_path):
    running = await start_web_server(tmp_path)
    try:
        yield running
    finally:
        await asyncio.wait_for(running.stop(), 20)


async def get(running, path: str, **headers: str) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{running.web_port}{path}",
                                                          headers=headers) as resp:
        return resp.status, await resp.text(), dict(resp.headers)


async def test_public_pages_show_what_a_stranger_may_see_and_escape_people_s_text(web):
    await web.store.accounts.register("alice", "correct-horse-5")
    await web.store.accounts.register("hidden", "correct-horse-6")
    alice = await connect_ws(web)
    await alice.login("alice", "correct-horse-5")
    await alice.request("bio", text='<script>alert("x")</script> & <b>bold</b>')
    await alice.request("create", game="president", rules="classic", seats=4, bots=3)
    last = await play_simply(alice, timeout=20)
    assert last["status"] == "over"
    hidden = await connect_ws(web)
    await hidden.login("hidden", "correct-horse-6")
    await hidden.request("hide", on=True)
    await hidden.request("create", game="president", rules="tdc", seats=4, bots=3)
    await hidden.next_state(lambda s: bool(s.get("hand")), timeout=10, current=True)
    hidden_room = next(s for s in web.sessions if s.name == "hidden").player.room.id
    try:
        status, who, _ = await get(web, "/api/who")
        players = {p["name"]: p for p in json.loads(who)["players"]}
        assert players["hidden"]["room"] is None  # hide: its table is nobody else's business
        assert players["alice"]["room"] is not None
        status, page, headers = await get(web, "/who")
        assert status == 200 and "hidden" in page and f"?watch={hidden_room}" not in page
        assert "script-src 'self'" in headers["Content-Security-Policy"]

        status, tables, _ = await get(web, "/api/tables")
        rows = json.loads(tables)["tables"]
        assert {r["room"] for r in rows} >= {hidden_room}
        assert all(r["watch"] == f"/?watch={r['room']}" for r in rows)
        status, page, _ = await get(web, "/tables")
        assert f'href="/?watch={hidden_room}"' in page

        status, board, _ = await get(web, "/api/leaderboard")
        boards = json.loads(board)["boards"]
        assert {(b["game"], b["rules"]) for b in boards} == {("president", "classic"), ("president", "tdc"),
                                                             ("speculation", "speculation")}
        assert [r["name"] for r in boards[0]["leaderboard"]] == ["alice"]
        status, page, _ = await get(web, "/leaderboard", **{"Accept-Language": "fr-FR,fr;q=0.9"})
        assert status == 200 and "Classements" in page and 'href="/player/alice"' in page

        status, profile, _ = await get(web, "/api/player/alice")
        info = json.loads(profile)
        assert info["name"] == "alice" and info["bio"].startswith("<script>") and info["rounds"]
        status, page, _ = await get(web, "/player/alice")
        assert "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
        assert "<b>bold" not in page
        assert (await get(web, "/api/player/hidden"))[1].count(hidden_room) == 0
        assert (await get(web, "/player/nobody-here"))[0] == 404

        round_id = info["rounds"][0]["round"]
        assert f'href="/replay/{round_id}"' in page and f'href="/verify/{round_id}"' in page
        status, replay, _ = await get(web, f"/api/replay/{round_id}")
        data = json.loads(replay)
        assert data["seats"][0] == "alice" and data["steps"]
        dealt = next(ev for step in data["steps"] for ev in step if ev["event"] == "dealt")
        assert dealt["hands"] == [None] * 4  # only what the table saw: nobody's hand
        assert "revealed" not in data and "log" not in data
        status, page, _ = await get(web, f"/replay/{round_id}")
        assert status == 200 and '<script src="/static/replay.js" defer></script>' in page
        assert not re.search(r"<script>(?!alert)", page)  # no inline script

        status, check, _ = await get(web, f"/api/verify/{round_id}")
        data = json.loads(check)
        assert data["verifiable"] and data["ok"] and data["steps"] and data["seat"] is None
        status, page, _ = await get(web, f"/verify/{round_id}?lang=es")
        assert status == 200 and "El reparto se verifica." in page
        assert (await get(web, "/api/replay/r999-nope"))[0] == 404
    finally:
        await alice.close()
        await hidden.close()


async def test_deal_checks_are_rate_limited_per_address(web, monkeypatch):
    from server.lobby.pace import Recent
    from server.web import public

    monkeypatch.setattr(public, "VERIFY_PER_MINUTE", 0.0001)
    client = await connect_ws(web, "vera")
    await client.request("create", game="president", rules="classic", seats=4, bots=3)
    await play_simply(client, timeout=20)
    round_id = next(p.record.round_id for p in await web.store.history.played("vera", 20)
                    if not p.record.round_id.endswith("match"))
    statuses = []
    for _ in range(7):
        web.lobby.pace.verified = Recent(256)  # nothing kept: each check is computed
        statuses.append((await get(web, f"/api/verify/{round_id}"))[0])
    assert statuses == [200] * 5 + [429] * 2  # the burst, then the budget
    await client.close()


async def test_a_failed_step_is_marked_failed_and_said_in_the_page_s_language(web, monkeypatch):
    from server.lobby.pace import Recent
    from server.web import public

    client = await connect_ws(web, "vale")
    await client.request("create", game="president", rules="classic", seats=4, bots=3)
    await play_simply(client, timeout=20)
    round_id = next(p.record.round_id for p in await web.store.history.played("vale", 20)
                    if not p.record.round_id.endswith("match"))
    real = public.verify_reply

    def broken(*args, **kwargs):  # as a tampered record would be reported
        reply = real(*args, **kwargs)
        steps = [{**s, "result": "fail"} if s["code"] == "commitment" else s for s in reply["steps"]]
        return {**reply, "ok": False, "steps": steps}

    monkeypatch.setattr(public, "verify_reply", broken)
    web.lobby.pace.verified = Recent(256)
    status, page, _ = await get(web, f"/verify/{round_id}?lang=fr")
    assert status == 200 and "La donne NE se vérifie PAS." in page
    row = re.search(r'<tr data-step="commitment">(.*?)</tr>', page)
    assert row and "✘" in row.group(1) and "✔" not in row.group(1)
    assert "ne redonne PAS" in row.group(1)  # the step in French words, not its code
    assert '<script src="/static/verify.js" defer></script>' in page and 'id="record"' in page
    await client.close()
